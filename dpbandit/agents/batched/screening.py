"""Batched private screening: greedy play on a sparse estimate from per-batch Gaussian releases of ``sum x r``.

The design of the private agents that learn at epsilon <= 1 (issue 13; the "each user in one release" principle
of Hanna et al. 2022 and FLIPHAT, notes/fliphat.md): batches grow geometrically; within a batch the agent plays
greedily on ``theta``; at the end of the batch it makes **one** release of that batch's users
(:mod:`~dpbandit.agents.batched.gaussian`):

* ``sums``: for each model ``k`` (arm ``k`` in the disjoint model, one model on the chosen arm's features in the
  per-arm model), ``u_k = sum_{t in batch, model k} clip_C(x_t) clip(r_t - c, -B, B)``;
* ``counts`` (disjoint model only) and the adaptive-clipping counts.

Estimator [Fill, marginal screening as in one N-IHT step of FLIPHAT]: ``u_k / n_k`` estimates
``E[x clip(r - c)] = Sigma theta_k`` (up to clipping shrinkage), a multiple of ``theta_k`` for isotropic contexts.
Each batch's estimate gets the inverse-variance weight ``1 / s_l^2`` with ``s_l`` the larger of the privacy noise
std ``sigma_sums / n_k`` and the robust noise level ``1.4826 median_j |est_j|`` (the median absolute value over
coordinates measures privacy plus sampling noise when most coordinates are null); the weighted average
``theta~`` has noise level ``sd = (sum_l 1 / s_l^2)^{-1/2}``. The policy keeps the coordinates with
``|theta~_j| > threshold * sd`` (at most ``sparsity`` of them, the largest), zero elsewhere. The default threshold
is ``Phi^{-1}(1 - false_positives / (2 d))``: a null coordinate passes with probability ``false_positives / d``,
so about ``false_positives`` of them per model (Bonferroni [O]); 2.58 at d = 50, 3.23 at d = 400, 3.89 at
d = 4000.

Sensitivity of ``sums`` (replace-one user record): ``2 C B``. Same model: ``||clip_C(x) b - clip_C(x') b'||_2 <=
2 C B``; the played arm switches (disjoint model): two models change, each by at most ``C B``, so
``sqrt(2) C B <= 2 C B``.

Defaults [Fill]: ``false_positives = 1``, no sparsity cap, batches of 32, 64, ... Measured: at the Figure 5.1
setting (d = 50; 30 seeds, T = 10^4, epsilon = 1) thresholds 2 / 2.5 / 3 give 0.22x / 0.23x / 0.29x random;
in FLIPHAT's Setting 2 (d = 400, 6 seeds) threshold 2 leaves about 18 null coordinates in and regret 1.7x that
of threshold 3 at epsilon = 5: the threshold must grow with d, as the Bonferroni default does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from dpbandit import _validate
from dpbandit.agents.batched.gaussian import GaussianBatchedAgent

__all__ = ["BatchedScreening", "BatchedScreeningPerArm"]

#: Robust scale of a normal sample from its median absolute value (1 / Phi^{-1}(3/4)).
MAD_SCALE = 1.4826


class BatchedScreening(GaussianBatchedAgent):
    """Batched private marginal screening with adaptive clipping, disjoint model (module docstring).

    Args:
        sparsity: at most this many non-zero coordinates per model (``None``: no cap).
        false_positives: expected null coordinates kept per model; sets the default threshold (> 0, < d).
        threshold: keep coordinates whose estimate exceeds ``threshold`` noise levels (>= 0); overrides the
            ``false_positives`` default.
        **kwargs: the :class:`~dpbandit.agents.batched.gaussian.GaussianBatchedAgent` arguments (``epsilon``,
            ``delta``, clipping, schedule, ``noise``).
    """

    main_blocks = {"sums": 1.0}

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        horizon: int | None = None,
        sparsity: int | None = None,
        false_positives: float = 1.0,
        threshold: float | None = None,
        **kwargs: Any,
    ) -> None:
        self.sparsity = None if sparsity is None else _validate.integer(sparsity=sparsity, minimum=1, maximum=dim)
        self.false_positives = _validate.positive(false_positives=false_positives)
        if self.false_positives >= dim:
            raise ValueError(f"Expected false_positives={false_positives!r} < dim={dim}.")
        default = float(stats.norm.isf(self.false_positives / (2.0 * dim)))
        self.threshold = default if threshold is None else _validate.nonnegative(threshold=threshold)
        super().__init__(n_arms, dim, rng=rng, horizon=horizon, **kwargs)
        self._weighted_sum = np.zeros((self.n_models, self.dim))  # sum_l est_l / s_l^2
        self._weights = np.zeros(self.n_models)  # sum_l 1 / s_l^2

    def _reset_statistics(self) -> None:
        self._sums = np.zeros((self.n_models, self.dim))

    def _accumulate(self, rows: np.ndarray, models: np.ndarray, rewards: np.ndarray) -> None:
        np.add.at(self._sums, models, rows * rewards[:, None])

    def _statistics(self) -> dict[str, np.ndarray]:
        return {"sums": self._sums}

    def _main_sensitivities(self) -> dict[str, float]:
        return {"sums": 2.0 * self.clipping.context_clip * self.clipping.reward_clip}

    def _fit(self, released: dict[str, np.ndarray], counts: np.ndarray) -> None:
        """Inverse-variance average over batches, then threshold and sparsity cap (module docstring)."""
        estimate = released["sums"] / counts[:, None]
        privacy_sd = self.release.sigma("sums", self._main_sensitivities()["sums"]) / counts
        robust = MAD_SCALE * np.median(np.abs(estimate), axis=1)
        level = np.maximum(privacy_sd, np.where(robust > 0, robust, np.std(estimate, axis=1)))
        informative = level > 0  # a model with no data in this batch (noise off) carries no information
        weight = np.where(informative, 1.0 / np.where(informative, level, 1.0) ** 2, 0.0)
        self._weighted_sum += weight[:, None] * estimate
        self._weights += weight
        seen = self._weights > 0
        mean = np.where(seen[:, None], self._weighted_sum / np.where(seen, self._weights, 1.0)[:, None], 0.0)
        sd = np.where(seen, 1.0 / np.sqrt(np.where(seen, self._weights, 1.0)), np.inf)
        keep = np.abs(mean) > self.threshold * sd[:, None]
        if self.sparsity is not None:
            rank = np.argsort(np.argsort(-np.abs(mean), axis=1, kind="stable"), axis=1, kind="stable")
            keep &= rank < self.sparsity
        self.theta = np.where(keep, mean, 0.0)

    @property
    def params(self) -> dict[str, Any]:
        """Identifying hyper-parameters."""
        return {**super().params, "sparsity": self.sparsity, "threshold": self.threshold}


class BatchedScreeningPerArm(BatchedScreening):
    """:class:`BatchedScreening` for per-arm features ``X_t`` of shape ``(n_arms, dim)`` and one shared parameter
    (the model of FLIPHAT and of Shariff and Sheffet): one regression on the chosen arm's feature row."""

    observation_model = "per_arm"
    instead = "batched-screening (on a shared context: the same model without block features) or private"
