"""Batched private peeling: top-s selection by the exponential mechanism, Gaussian values on the selection.

The sparse high-dimensional variant of :mod:`~dpbandit.agents.batched.screening` (issue 13, Build item 3). A
Gaussian release of ``sum x r`` over all ``d`` coordinates pays for the l2 norm of the context (``~ sqrt(d)``);
a private *selection* of a few coordinates pays only for the change of one coordinate (l_inf), as FLIPHAT's
peeling does (notes/fliphat.md). Per batch, for each model ``k`` (arm ``k`` in the disjoint model, one model on
the chosen arm's features in the per-arm model):

1. ``u_k = sum_{t in batch, model k} clip_X(x_t) clip(r_t - c, -B, B)``, contexts clipped per coordinate to
   ``[-X, X]`` (adaptive ``X`` and ``B``, :mod:`~dpbandit.agents.batched.clipping`);
2. ``S_k^new``: the top ``select`` coordinates of ``|u_k|`` by one-shot Gumbel noise
   (:func:`dpbandit.privacy.rnm.top_k_exponential`, ``select`` peeling rounds of the ``epsilon_0``-exponential
   mechanism);
3. a Gaussian release of ``u_k`` on ``S_k = S_k^new + support(theta_k)`` (public before the batch), with the
   counts and the clipping counts (:class:`~dpbandit.privacy.release.BlockGaussianRelease` calibrated in zCDP).

Estimate [Fill]: each released coordinate's ``u_kj / n_k`` joins a per-coordinate inverse-variance average over
batches, with variance ``sigma_values^2 / n_k^2 + v / n_k``: the privacy noise plus the sampling variance, ``v``
the batch's mean over coordinates of ``x_j^2 clip(r)^2`` (released as ``second_moment = sum_t ||x_t||^2
clip(r_t)^2 / d``, sensitivity ``X^2 B^2``). ``theta_k`` keeps the coordinates whose average exceeds ``threshold``
standard errors, at most ``sparsity`` of them (the largest). Play is greedy. (The bound ``(X B)^2 / n`` in place
of ``v / n`` was tried and dropped: the l_inf clip ``X`` overstates a coordinate's spread by far, and nothing
passed the threshold for ~2,000 rounds.)

Privacy (replace-one user record, joint DP; zCDP composition inside a batch, parallel composition over batches
as in :mod:`~dpbandit.agents.batched.base`):

* selection: scores ``|u_kj|`` move by at most ``Delta_inf = 2 X B`` (same model: ``|x_j b - x'_j b'| <= 2 X B``
  and ``||a| - |b|| <= |a - b|``; a switch of the played arm moves two models' scores by at most ``X B`` each, a
  quarter of the zCDP cost each). ``select`` rounds of ``epsilon_0``-EM cost ``select * epsilon_0^2 / 8``
  (bounded range; :mod:`dpbandit.privacy.rnm`);
* values: l2 sensitivity ``2 sqrt(s_max) X B`` with ``s_max = max_k |S_k|`` (same model: ``||x_S b - x'_S b'||
  <= 2 sqrt(|S|) X B``; switch: ``sqrt(|S_a| + |S_b|) X B`` is smaller); ``second_moment``: ``X^2 B^2`` (one
  non-negative term in ``[0, X^2 B^2]`` replaced); counts ``sqrt 2``, clip counts 1; the Gaussian part is
  ``1 / (2 z^2)``-zCDP.

The requested (epsilon, delta) is turned into ``rho = epsilon_to_zcdp(epsilon, delta)`` (dp-accounting's RDP
conversion); ``selection_share`` of it goes to the selection, the rest to the Gaussian blocks; the reported
epsilon is dp-accounting's conversion of the total rho.

Defaults [Fill]: ``select = min(10, d)`` (FLIPHAT's s), ``selection_share = 0.5``, ``threshold = 2``,
``sparsity = min(2 select, d)``, coordinate clip at the median row maximum, reward clip at the median ``|r|``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dpbandit import _validate
from dpbandit.agents.batched.gaussian import GaussianBatchedAgent
from dpbandit.privacy import accounting
from dpbandit.privacy.budget import require_reportable_epsilon
from dpbandit.privacy.release import BlockGaussianRelease
from dpbandit.privacy.rnm import top_k_exponential

if TYPE_CHECKING:  # pragma: no cover
    from dpbandit.privacy.guarantee import PrivacyGuarantee

__all__ = ["BatchedPeeling", "BatchedPeelingPerArm"]


class BatchedPeeling(GaussianBatchedAgent):
    """Batched private top-s selection plus Gaussian values on the selection, disjoint model (module docstring).

    Args:
        select: coordinates selected per model and batch (>= 1, <= dim; default ``min(10, dim)``).
        selection_share: share of the zCDP budget spent on the selection, in (0, 1).
        threshold: keep coordinates whose average exceeds ``threshold`` standard errors (>= 0).
        sparsity: at most this many non-zero coordinates per model (default ``min(2 * select, dim)``).
        **kwargs: the :class:`~dpbandit.agents.batched.gaussian.GaussianBatchedAgent` arguments (``epsilon``,
            ``delta``, clipping, schedule, ``noise``).
    """

    main_blocks = {"values": 0.9, "second_moment": 0.1}
    context_norm = math.inf

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        horizon: int | None = None,
        select: int | None = None,
        selection_share: float = 0.5,
        threshold: float = 2.0,
        sparsity: int | None = None,
        **kwargs: Any,
    ) -> None:
        self.select = _validate.integer(select=min(10, dim) if select is None else select, minimum=1, maximum=dim)
        self.selection_share = _validate.probability(selection_share=selection_share)
        self.threshold = _validate.nonnegative(threshold=threshold)
        self.sparsity = _validate.integer(
            sparsity=min(2 * self.select, dim) if sparsity is None else sparsity, minimum=1, maximum=dim
        )
        super().__init__(n_arms, dim, rng=rng, horizon=horizon, **kwargs)
        self._weighted_sum = np.zeros((self.n_models, self.dim))
        self._weights = np.zeros((self.n_models, self.dim))

    # -- calibration -----------------------------------------------------------------------------
    def _make_release(self, shares: dict[str, float]) -> BlockGaussianRelease:
        """Gaussian blocks at ``(1 - selection_share) rho`` zCDP; the selection gets the rest (module docstring)."""
        if self.noise:  # the reported epsilon is the conversion of rho back: it must resolve

            def reported(epsilon: float) -> float:
                return accounting.zcdp_to_epsilon(accounting.epsilon_to_zcdp(epsilon, self.delta), self.delta)

            require_reportable_epsilon(type(self).__name__, self.epsilon, self.delta, reported)
        self.rho = accounting.epsilon_to_zcdp(self.epsilon, self.delta) if self.noise else 0.0
        #: epsilon_0 of each exponential-mechanism round: select * epsilon_0^2 / 8 = selection_share * rho.
        self.selection_epsilon = math.sqrt(8.0 * self.selection_share * self.rho / self.select) if self.noise else 0.0
        gaussian_rho = (1.0 - self.selection_share) * self.rho if self.noise else None
        return BlockGaussianRelease(self.epsilon, self.delta, shares, rho=gaussian_rho, noise=self.noise)

    # -- statistics ------------------------------------------------------------------------------
    def _reset_statistics(self) -> None:
        self._sums = np.zeros((self.n_models, self.dim))
        self._second_moment = 0.0
        self._support: list[np.ndarray] = []

    def _accumulate(self, rows: np.ndarray, models: np.ndarray, rewards: np.ndarray) -> None:
        np.add.at(self._sums, models, rows * rewards[:, None])
        self._second_moment += float(np.einsum("ij,ij,i->", rows, rows, rewards**2)) / self.dim

    def selection_sensitivity(self) -> float:
        """l_inf sensitivity of the selection scores: ``2 X B``."""
        return 2.0 * self.clipping.context_clip * self.clipping.reward_clip

    def _statistics(self) -> dict[str, np.ndarray]:
        """Select ``S_k^new`` privately, then the values of ``u_k`` on ``S_k^new`` and the current support."""
        if self.noise:
            chosen = top_k_exponential(
                self.noise_rng, np.abs(self._sums), self.select, self.selection_epsilon, self.selection_sensitivity()
            )
        else:
            chosen = np.argsort(-np.abs(self._sums), axis=1, kind="stable")[:, : self.select]
        self._support = [np.union1d(chosen[k], np.flatnonzero(self.theta[k])) for k in range(self.n_models)]
        values = np.concatenate([self._sums[k, s] for k, s in enumerate(self._support)])
        return {"values": values, "second_moment": self._second_moment}

    def _main_sensitivities(self) -> dict[str, float]:
        largest = max((len(s) for s in self._support), default=self.select + self.sparsity)
        XB = self.clipping.context_clip * self.clipping.reward_clip
        return {"values": 2.0 * math.sqrt(largest) * XB, "second_moment": XB**2}

    def _fit(self, released: dict[str, np.ndarray], counts: np.ndarray) -> None:
        sigma = self.release.sigma("values", self._main_sensitivities()["values"])
        spread = max(float(released["second_moment"]) / self.batch_learned, 0.0)  # mean x_j^2 clip(r)^2
        pieces = np.split(released["values"], np.cumsum([len(s) for s in self._support])[:-1])
        for k, (support, values) in enumerate(zip(self._support, pieces, strict=True)):
            variance = (sigma / counts[k]) ** 2 + spread / counts[k]
            if variance <= 0:  # noise off and no spread: nothing to weigh by
                continue
            self._weighted_sum[k, support] += values / counts[k] / variance
            self._weights[k, support] += 1.0 / variance
        seen = self._weights > 0
        mean = np.where(seen, self._weighted_sum / np.where(seen, self._weights, 1.0), 0.0)
        sd = np.where(seen, 1.0 / np.sqrt(np.where(seen, self._weights, 1.0)), np.inf)
        keep = np.abs(mean) > self.threshold * sd
        rank = np.argsort(np.argsort(-np.abs(np.where(keep, mean, 0.0)), axis=1, kind="stable"), axis=1, kind="stable")
        self.theta = np.where(keep & (rank < self.sparsity), mean, 0.0)

    # -- privacy ---------------------------------------------------------------------------------
    def _rho(self) -> tuple[float, float]:
        """zCDP of one batch for one round: (selection ``select eps_0^2 / 8``, Gaussian ``1 / (2 z^2)``)."""
        return self.select * self.selection_epsilon**2 / 8.0, 1.0 / (2.0 * self.release.multiplier**2)

    def _user_epsilon(self, max_rounds: int) -> float:
        """Epsilon of a person with at most ``m = max_rounds`` learned rounds: ``m^2 rho``-zCDP (RDP).

        Batch ``l`` is ``rho``-zCDP for one round (selection plus Gaussian blocks). A person with ``k_l`` rounds
        in it moves every score and every block by at most ``k_l`` times the one-round sensitivity (all are
        sums over rounds; the clips and the released support are fixed by earlier releases), so the
        exponential mechanism is ``k_l eps_0``-bounded-range, i.e. ``k_l^2 eps_0^2 / 8``-zCDP, and the Gaussian
        blocks are ``k_l^2 / (2 z^2)``-zCDP: the batch costs ``k_l^2 rho`` (as group privacy of zCDP gives, Bun
        and Steinke 2016). zCDP composes additively:

            ``sum_l k_l^2 rho <= (sum_l k_l)^2 rho <= m^2 rho``,

        attained with all ``m`` rounds in one batch; converted to epsilon at ``delta`` by dp-accounting's RDP
        accountant, as the round-level report.
        """
        return accounting.zcdp_to_epsilon(max_rounds**2 * sum(self._rho()), self.delta)

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """JDP of the action sequence: per batch, zCDP of the selection plus the Gaussian blocks."""
        if not self.noise:
            return None
        from dpbandit.privacy.guarantee import PrivacyGuarantee

        selection_rho, gaussian_rho = self._rho()
        total = selection_rho + gaussian_rho
        return self._user_level(PrivacyGuarantee(
            mechanism=f"{type(self).__name__}: per batch, top-{self.select} exponential-mechanism selection "
            "and one Gaussian release",
            claimed_epsilon=self.epsilon,
            claimed_delta=self.delta,
            epsilon=accounting.zcdp_to_epsilon(total, self.delta),
            relation="JDP (billboard lemma); replace-one user record; batches compose in parallel",
            accountant="rdp (zCDP: bounded-range exponential mechanism + Gaussian)",
            calibration=f"rho = {total:.4g}: selection {selection_rho:.4g} ({self.select} rounds of "
            f"epsilon_0 = {self.selection_epsilon:.4g}), Gaussian {gaussian_rho:.4g} (z = {self.release.multiplier:.4g})",
            notes="sensitivities: selection 2 X B (l_inf), values 2 sqrt(|S|) X B, second moment X^2 B^2, "
            "counts sqrt(2), clip counts 1.",
        ))

    @property
    def params(self) -> dict[str, Any]:
        """Identifying hyper-parameters."""
        return {**super().params, "select": self.select, "selection_share": self.selection_share,
                "threshold": self.threshold, "sparsity": self.sparsity}


class BatchedPeelingPerArm(BatchedPeeling):
    """:class:`BatchedPeeling` for per-arm features ``X_t`` of shape ``(n_arms, dim)`` and one shared parameter."""

    observation_model = "per_arm"
    instead = "batched-peeling (on a shared context: the same model without block features) or private"
