"""Batched private screening: greedy play on a sparse estimate from per-batch Gaussian releases of ``sum x r``.

The design of the private agents that learn at epsilon <= 1 (issue 13; the "each user in one release" principle
of Hanna et al. 2022 and FLIPHAT, notes/fliphat.md): batches grow geometrically; within a batch the agent plays
greedily on ``theta``; at the end of the batch it makes **one** release of that batch's users:

* ``sums``: for each model ``k`` (arm ``k`` in the disjoint model, one model on the chosen arm's features in the
  per-arm model), ``u_k = sum_{t in batch, model k} clip_C(x_t) clip(r_t - c, -B, B)``;
* ``counts`` (disjoint model only): the number of the batch's rounds of each arm;
* the adaptive-clipping blocks (:mod:`dpbandit.agents.batched.clipping`).

Estimator [Fill, marginal screening as in one N-IHT step of FLIPHAT]: ``u_k / n_k`` estimates
``E[x clip(r - c)] = Sigma theta_k`` (up to clipping shrinkage), a multiple of ``theta_k`` for isotropic contexts.
Each batch's estimate gets the inverse-variance weight ``1 / s_l^2`` with ``s_l`` the larger of the privacy noise
std ``sigma_sums / n_k`` and the robust noise level ``1.4826 median_j |est_j|`` (the median absolute value over
coordinates measures privacy plus sampling noise when most coordinates are null); the weighted average
``theta~`` has noise level ``sd = (sum_l 1 / s_l^2)^{-1/2}``. The policy keeps the coordinates with
``|theta~_j| > threshold * sd`` (at most ``sparsity`` of them, the largest), zero elsewhere.

Privacy (replace-one user record: the context(s) and rewards of one round; joint DP of the actions):
one release per batch is one Gaussian mechanism (:class:`dpbandit.privacy.release.BlockGaussianRelease`) with
sensitivities

* ``sums``: ``2 C B``. Same model: ``||clip_C(x) b - clip_C(x') b'||_2 <= 2 C B``; the played arm switches
  (disjoint model): two models change, each by at most ``C B``, ``sqrt(2) C B <= 2 C B``;
* ``counts``: ``sqrt(2)`` (a switch moves one round from one arm's count to another's; 0 otherwise);
* clipping blocks: 1 and 1.

Batches partition the users, so the run is ``(epsilon, delta)``-JDP with the epsilon of **one** release
(:mod:`dpbandit.agents.batched.base`); ``delta`` defaults to ``1/T`` as for the other private agents.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dpbandit import _validate
from dpbandit.agents.batched.base import BatchedAgent
from dpbandit.agents.batched.clipping import BLOCKS as CLIP_BLOCKS
from dpbandit.agents.batched.clipping import AdaptiveClipping
from dpbandit.privacy.release import BlockGaussianRelease

if TYPE_CHECKING:  # pragma: no cover
    from dpbandit.privacy.guarantee import PrivacyGuarantee

__all__ = ["BatchedScreening", "BatchedScreeningPerArm"]

#: Robust scale of a normal sample from its median absolute value (1 / Phi^{-1}(3/4)).
MAD_SCALE = 1.4826


class BatchedScreening(BatchedAgent):
    """Batched private marginal screening with adaptive clipping, disjoint model (module docstring).

    Args:
        n_arms, dim, rng, horizon: the Agent contract (``horizon`` or ``delta`` is required).
        epsilon, delta: the (epsilon, delta)-JDP target of the run (``delta`` defaults to ``1/T``).
        sparsity: at most this many non-zero coordinates per model (``None``: no cap).
        threshold: keep coordinates whose estimate exceeds ``threshold`` noise levels (>= 0).
        aux_share: budget share of the counts and clipping blocks together, in (0, 1).
        context_quantile, reward_quantile, clip_rate: adaptive clipping (``clipping`` module).
        initial_context_clip: first ``C`` (default ``sqrt(dim)``); ``initial_reward_clip``: first ``B``.
        reward_center: fixed centre ``c`` of the rewards (clipped as ``clip(r - c, -B, B)``).
        first_batch, batch_ratio: the batch schedule.
        noise: ``False`` = debugging switch: the same algorithm without noise; ``privacy`` is ``None``.
    """

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        horizon: int | None = None,
        epsilon: float = 1.0,
        delta: float | None = None,
        sparsity: int | None = None,
        threshold: float = 2.0,
        aux_share: float = 0.1,
        context_quantile: float = 0.5,
        reward_quantile: float = 0.5,
        clip_rate: float = 2.0,
        initial_context_clip: float | None = None,
        initial_reward_clip: float = 1.0,
        reward_center: float = 0.0,
        first_batch: int = 32,
        batch_ratio: float = 2.0,
        noise: bool = True,
    ) -> None:
        super().__init__(n_arms, dim, rng=rng, horizon=horizon, first_batch=first_batch, batch_ratio=batch_ratio)
        if delta is None and self.horizon is None:
            raise ValueError(f"{type(self).__name__} needs horizon=T or an explicit delta.")
        self.epsilon = _validate.positive(epsilon=epsilon)
        self.delta = _validate.probability(delta=1.0 / max(self.horizon or 2, 2) if delta is None else delta)
        self.sparsity = None if sparsity is None else _validate.integer(sparsity=sparsity, minimum=1, maximum=dim)
        self.threshold = _validate.nonnegative(threshold=threshold)
        aux_share = _validate.probability(aux_share=aux_share)
        self.noise = bool(noise)
        first_clip = math.sqrt(self.dim) if initial_context_clip is None else initial_context_clip
        self.clipping = AdaptiveClipping(
            context_clip=first_clip,
            reward_clip=initial_reward_clip,
            context_quantile=context_quantile,
            reward_quantile=reward_quantile,
            rate=clip_rate,
            reward_center=reward_center,
        )
        aux = ("counts", *CLIP_BLOCKS) if self.n_models > 1 else CLIP_BLOCKS
        shares = {"sums": 1.0 - aux_share, **{name: aux_share / len(aux) for name in aux}}
        self.release = BlockGaussianRelease(self.epsilon, self.delta, shares, noise=self.noise)
        self._weighted_sum = np.zeros((self.n_models, self.dim))  # sum_l est_l / s_l^2
        self._weights = np.zeros(self.n_models)  # sum_l 1 / s_l^2
        self._reset_batch()

    def _reset_batch(self) -> None:
        self._sums = np.zeros((self.n_models, self.dim))
        self._counts = np.zeros(self.n_models)
        self._context_inside = 0.0
        self._reward_inside = 0.0

    # -- batched hooks ---------------------------------------------------------------------------
    def _observe(self, rows: np.ndarray, models: np.ndarray, rewards: np.ndarray) -> None:
        clipped_rows, rows_inside = self.clipping.clip_rows(rows)
        clipped_rewards, rewards_inside = self.clipping.clip_rewards(rewards)
        np.add.at(self._sums, models, clipped_rows * clipped_rewards[:, None])
        self._counts += np.bincount(models, minlength=self.n_models)
        self._context_inside += float(rows_inside.sum())
        self._reward_inside += float(rewards_inside.sum())

    def sensitivities(self) -> dict[str, float]:
        """l2 sensitivity of each released block at the current clips (module docstring)."""
        C, B = self.clipping.context_clip, self.clipping.reward_clip
        out = {"sums": 2.0 * C * B, **self.clipping.sensitivities()}
        if self.n_models > 1:
            out["counts"] = math.sqrt(2.0)
        return out

    def _end_batch(self) -> None:
        values = {
            "sums": self._sums,
            "context_inside": self._context_inside,
            "reward_inside": self._reward_inside,
        }
        if self.n_models > 1:
            values["counts"] = self._counts
        sens = self.sensitivities()
        released = self.release.release(self.noise_rng, values, sens)
        n = self.batch_size
        counts = np.clip(released["counts"], 1.0, n) if self.n_models > 1 else np.full(1, float(n))
        estimate = released["sums"] / counts[:, None]
        privacy_sd = self.release.sigma("sums", sens["sums"]) / counts
        self._accumulate(estimate, privacy_sd)
        self.clipping.update(released, n)
        self._reset_batch()

    def _accumulate(self, estimate: np.ndarray, privacy_sd: np.ndarray) -> None:
        """Inverse-variance average over batches, then threshold and sparsity cap (module docstring)."""
        robust = MAD_SCALE * np.median(np.abs(estimate), axis=1)
        fallback = np.std(estimate, axis=1)
        level = np.maximum(privacy_sd, np.where(robust > 0, robust, fallback))
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

    # -- privacy ---------------------------------------------------------------------------------
    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """JDP of the action sequence: one Gaussian release per user (parallel composition over batches)."""
        if not self.noise:
            return None
        from dpbandit.privacy.guarantee import PrivacyGuarantee

        shares = ", ".join(f"{k} {v:.3g}" for k, v in self.release.shares.items())
        return PrivacyGuarantee(
            mechanism=f"{type(self).__name__}: one Gaussian release per batch of users (blocks: {shares})",
            claimed_epsilon=self.epsilon,
            claimed_delta=self.delta,
            epsilon=self.release.accountant_epsilon(),
            relation="JDP (billboard lemma); replace-one user record; batches compose in parallel",
            accountant="pld (GaussianDpEvent of the stacked release)",
            calibration=f"accountant: noise multiplier z = {self.release.multiplier:.4g} per unit of "
            "block sensitivity / sqrt(share)",
            notes="sensitivities: sums 2 C B, counts sqrt(2), clip counts 1 (adaptive C, B).",
        )

    @property
    def params(self) -> dict[str, Any]:
        """Identifying hyper-parameters."""
        return {
            **super().params,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "sparsity": self.sparsity,
            "threshold": self.threshold,
            "noise": self.noise,
        }


class BatchedScreeningPerArm(BatchedScreening):
    """:class:`BatchedScreening` for per-arm features ``X_t`` of shape ``(n_arms, dim)`` and one shared parameter
    (the model of FLIPHAT and of Shariff and Sheffet): one regression on the chosen arm's feature row."""

    observation_model = "per_arm"
