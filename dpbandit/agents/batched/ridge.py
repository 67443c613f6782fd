"""Batched private ridge regression: per-batch Gaussian releases of each arm's Gram matrix and ``sum x r``.

For moderate dimensions (issue 13, Build item 2). At the end of each batch the agent releases, from that batch's
users only (:mod:`~dpbandit.agents.batched.gaussian`):

* ``gram``: for each model ``k`` the upper triangle (diagonal included) of ``G_k = sum clip_C(x) clip_C(x)^T``;
* ``moments``: ``b_k = sum clip_C(x) clip(r - c, -B, B)``;
* the counts and adaptive-clipping blocks.

The released Grams and moments are summed over batches with weights ``w_l = n_l / sigma_gram,l^2`` (signal over
noise variance of batch ``l``; a plain sum would give the tiny first batches the noise of the large ones):
``G~ = sum_l w_l G~_l``, ``b~ = sum_l w_l b~_l``, both estimating ``(sum_l w_l n_l) E[x x^T]`` and
``(sum_l w_l n_l) E[x r]``; the noise of ``G~`` has per-entry std ``s_G = (sum_l w_l^2 sigma_gram,l^2)^{1/2}``.
The estimate is the ridge solution ``theta_k = (G~_k + lambda I)^{-1} b~_k`` with the shifted regulariser
``lambda = regularization (sum_l w_l n_l) / t + 2 s_G sqrt(d)`` (``t`` rounds so far; equal weights with noise off):
the noise matrix is symmetric with entries of std ``s_G``, so its spectral norm is about ``2 s_G sqrt(d)``
(semicircle law) and the shift keeps ``G~ + lambda I`` positive definite with high probability, as Shariff and
Sheffet's ``2 Upsilon I`` does for the tree mechanism; if it is not, ``lambda`` doubles until a Cholesky
factorisation succeeds (post-processing, logged in ``shift_doublings``). Play is greedy (``alpha = 0``, default)
or optimistic: ``x^T theta_k + alpha ||x||_{(G~_k + lambda I)^{-1}}``, a width that includes the privacy noise
through ``lambda``.

Sensitivities (replace-one user record, ``||clip_C(x)|| <= C``):

* ``gram``: ``sqrt(2) C^2``. Same model: ``||xx^T - yy^T||_F^2 = ||x||^4 + ||y||^4 - 2 (x.y)^2 <= 2 C^4``, and the
  upper triangle has ``||upper(A)||^2 = (||A||_F^2 + sum_i A_ii^2) / 2 <= ||A||_F^2``; attained by orthogonal
  ``x, y`` of norm ``C`` on two coordinates. Switch of the played arm: ``||upper(xx^T)||^2 + ||upper(yy^T)||^2 <=
  2 C^4``.
* ``moments``: ``2 C B`` (as :mod:`~dpbandit.agents.batched.screening`'s ``sums``).

Defaults [Fill]: ``regularization = 1``, greedy play, budget shares ``gram`` 0.5 and ``moments`` 0.5 of the main
budget.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import linalg

from dpbandit import _validate
from dpbandit.agents import size
from dpbandit.agents.batched.gaussian import GaussianBatchedAgent

__all__ = ["BatchedRidge", "BatchedRidgePerArm"]

#: Rounds summed per Gram update (fixed, aligned to the batch start: split-invariant rounding).
CHUNK = 256


class BatchedRidge(GaussianBatchedAgent):
    """Batched private ridge regression with a noise-shifted regulariser, disjoint model (module docstring).

    Args:
        regularization: ridge parameter added to the noise shift (> 0).
        alpha: optimism multiplier of the width (>= 0; 0 = greedy).
        **kwargs: the :class:`~dpbandit.agents.batched.gaussian.GaussianBatchedAgent` arguments (``epsilon``,
            ``delta``, clipping, schedule, ``noise``).
    """

    main_blocks = {"gram": 0.5, "moments": 0.5}

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        horizon: int | None = None,
        regularization: float = 1.0,
        alpha: float = 0.0,
        **kwargs: Any,
    ) -> None:
        self.regularization = _validate.positive(regularization=regularization)
        self.alpha = _validate.nonnegative(alpha=alpha)
        super().__init__(n_arms, dim, rng=rng, horizon=horizon, **kwargs)
        self._upper = np.triu_indices(self.dim)
        self.gram = np.zeros((self.n_models, self.dim, self.dim))  # sum of released Grams
        self.moments = np.zeros((self.n_models, self.dim))  # sum of released moments
        self.gram_noise_variance = 0.0  # s_G^2: per-entry noise variance of the summed Grams
        self.shift_doublings = 0
        self._weight_total = 0.0  # sum_l w_l n_l: the weighted sums' scale in rounds
        eye = np.eye(self.dim) * self.regularization
        self._factors = [eye.copy() for _ in range(self.n_models)]  # Cholesky factors of G~ + lambda I

    def footprint(self) -> size.Footprint:
        """Size of a run: ``K' = n_models`` (``n_arms`` shared, 1 per-arm) Gram matrices of ``d x d`` float64.

        state: ``6 K' d^2`` floats: the summed released Grams, the batch's Grams, the Cholesky factors and
        the fit's temporaries (the released upper triangle, its symmetrised copy, the shifted matrix);
        work per round: the scores (``n_arms d``) and the played row's Gram update (``d^2``), plus per
        released batch ``K' (d^3 / 3 + 5 d^2)`` (Cholesky factorisations, solves, noise and symmetrising)
        over the horizon's ``T`` rounds. At d = 5000, K = 10: 12 GB (per-arm block features, d = 50,000:
        120 GB); use ``batched-screening`` (sparse) or ``private``.
        """
        d, models = self.dim, self.n_models
        batches = len(self.schedule.released_batches(self.horizon))
        fits = batches * models * (d**3 / 3 + 5 * d**2) / self.horizon if self.horizon else 0.0
        work = self.n_arms * d + d**2 + fits
        return size.Footprint(6 * size.FLOAT * models * d**2, work, self.input_per_round)

    def _reset_statistics(self) -> None:
        self._gram = np.zeros((self.n_models, self.dim, self.dim))
        self._moments = np.zeros((self.n_models, self.dim))
        self._pending: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._pending_rows = 0

    def _accumulate(self, rows: np.ndarray, models: np.ndarray, rewards: np.ndarray) -> None:
        """Queue the rows; sum them in chunks of ``CHUNK`` rounds counted from the batch start, so the sums (and
        their rounding) do not depend on how the rounds arrive (one by one in ``update``, in blocks in
        ``play_block``)."""
        self._pending.append((rows, models, rewards))
        self._pending_rows += len(models)
        if self._pending_rows >= CHUNK:
            self._flush(whole_chunks=True)

    def _flush(self, *, whole_chunks: bool) -> None:
        rows, models, rewards = (np.concatenate(parts) for parts in zip(*self._pending))
        stop = len(models) - len(models) % CHUNK if whole_chunks else len(models)
        for start in range(0, stop, CHUNK):
            chunk = slice(start, min(start + CHUNK, stop))
            for k in np.unique(models[chunk]):
                mine = models[chunk] == k
                self._gram[k] += rows[chunk][mine].T @ rows[chunk][mine]
                self._moments[k] += rows[chunk][mine].T @ rewards[chunk][mine]
        self._pending = [(rows[stop:], models[stop:], rewards[stop:])]
        self._pending_rows = len(models) - stop

    def _statistics(self) -> dict[str, np.ndarray]:
        if self._pending_rows:
            self._flush(whole_chunks=False)
        return {"gram": self._gram[:, self._upper[0], self._upper[1]], "moments": self._moments}

    def _main_sensitivities(self) -> dict[str, float]:
        C, B = self.clipping.context_clip, self.clipping.reward_clip
        return {"gram": math.sqrt(2.0) * C**2, "moments": 2.0 * C * B}

    def _fit(self, released: dict[str, np.ndarray], counts: np.ndarray) -> None:
        upper = np.zeros((self.n_models, self.dim, self.dim))
        upper[:, self._upper[0], self._upper[1]] = released["gram"]
        sigma = self.release.sigma("gram", self._main_sensitivities()["gram"]) if self.noise else 0.0
        weight = self.batch_learned / sigma**2 if self.noise else 1.0
        self._weight_total += weight * self.batch_learned
        self.gram += weight * (upper + np.triu(upper, 1).transpose(0, 2, 1))
        self.moments += weight * released["moments"]
        self.gram_noise_variance += (weight * sigma) ** 2
        shift = self.regularization * self._weight_total / self.rounds_learned + 2.0 * math.sqrt(
            self.gram_noise_variance * self.dim
        )
        for k in range(self.n_models):
            matrix = self.gram[k] + shift * np.eye(self.dim)
            while True:
                try:
                    factor = linalg.cholesky(matrix, lower=True, check_finite=False)
                    break
                except linalg.LinAlgError:
                    self.shift_doublings += 1
                    shift *= 2.0
                    matrix = self.gram[k] + shift * np.eye(self.dim)
            self._factors[k] = factor
            self.theta[k] = linalg.cho_solve((factor, True), self.moments[k], check_finite=False)

    def scores(self, observations: np.ndarray) -> np.ndarray:
        """Greedy scores plus ``alpha`` times the width ``||x||_{(G~ + lambda I)^{-1}}`` of each arm."""
        mean = super().scores(observations)
        if self.alpha == 0.0:
            return mean
        width = np.empty_like(mean)
        for k in range(self.n_arms):
            model = k if self.n_models > 1 else 0
            rows = observations if self.observation_model == "shared" else observations[:, k]
            w = linalg.solve_triangular(self._factors[model], rows.T, lower=True, check_finite=False)
            width[:, k] = np.sqrt(np.einsum("ij,ij->j", w, w))
        return mean + self.alpha * width

    @property
    def params(self) -> dict[str, Any]:
        """Identifying hyper-parameters."""
        return {**super().params, "regularization": self.regularization, "alpha": self.alpha}


class BatchedRidgePerArm(BatchedRidge):
    """:class:`BatchedRidge` for per-arm features ``X_t`` of shape ``(n_arms, dim)`` and one shared parameter."""

    observation_model = "per_arm"
    instead = "batched-screening-perarm (on a shared context: batched-screening) or private"
