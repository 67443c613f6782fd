"""Batched agents whose one release per batch is a Gaussian mechanism over clipped statistics.

:class:`GaussianBatchedAgent` holds what :class:`~dpbandit.agents.batched.screening.BatchedScreening` and
:class:`~dpbandit.agents.batched.ridge.BatchedRidge` share: the (epsilon, delta) target, the adaptive clips of
the played rows and rewards (:mod:`~dpbandit.agents.batched.clipping`), the release
(:class:`~dpbandit.privacy.release.BlockGaussianRelease`, PLD-calibrated) and the privacy report. Subclasses
name their statistics' blocks and budget shares, accumulate the clipped rows and rewards of a batch, state each
block's sensitivity, and fit ``theta`` from the released blocks.

Privacy: see :mod:`dpbandit.agents.batched.base` (parallel composition over batches, joint DP by the billboard
lemma); the run's epsilon is that of one release, certified by dp-accounting's PLD accountant.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dpbandit import _validate
from dpbandit.agents.batched.base import BatchedAgent
from dpbandit.agents.batched.clipping import BLOCKS as CLIP_BLOCKS
from dpbandit.agents.batched.clipping import (
    AdaptiveClipping,
    check_rewards,
    reward_range_defaults,
    validate_reward_range,
)
from dpbandit.privacy import accounting
from dpbandit.privacy.budget import agent_delta
from dpbandit.privacy.release import BlockGaussianRelease

if TYPE_CHECKING:  # pragma: no cover
    from dpbandit.privacy.guarantee import PrivacyGuarantee

__all__ = ["GaussianBatchedAgent"]


@functools.lru_cache(maxsize=256)
def _user_pld_epsilon(multiplier: float, max_rounds: int, delta: float) -> float:
    """PLD epsilon of ``GaussianDpEvent(z / m)`` at ``delta``, memoised (seconds for small ``z / m``)."""
    return accounting.epsilon_for(accounting.group_gaussian_event(multiplier, (max_rounds,)), delta, "pld")


class GaussianBatchedAgent(BatchedAgent):
    """Shared machinery of the Gaussian-release batched agents (module docstring).

    Args:
        n_arms, dim, rng, horizon: the Agent contract (``horizon`` or ``delta`` is required).
        epsilon, delta: the (epsilon, delta)-JDP target of the run (``delta`` defaults to
            :func:`~dpbandit.privacy.budget.default_delta` of T, ``min(1e-5, 1/(10 T))``).
        aux_share: budget share of the counts and clipping blocks together, in (0, 1).
        context_quantile, reward_quantile, clip_rate: adaptive clipping (``clipping`` module).
        initial_context_clip: first ``C`` (default: the norm of a point with unit coordinates, ``sqrt(dim)`` in l2
            and 1 in l_inf); ``initial_reward_clip``: first ``B`` (default 1, or from ``reward_range``).
        reward_center: fixed centre ``c`` of the rewards (clipped as ``clip(r - c, -B, B)``; default 0, or
            from ``reward_range``); an explicit value always wins.
        reward_range: the rewards' declared range ``(low, high)`` (finite, ``low < high``; the harness passes
            the environment's when both bounds are finite). Unless given explicitly, ``c`` is then the
            midpoint and ``B`` the distance from ``c`` to the farther end (the half-width) [Fill]: the clip
            loses nothing and the sensitivity ``2 C B`` is the smallest that does. Why centre: the greedy
            policy selects each arm's users, so their mean context is shifted, and an off-centre reward
            (a {0, 1} reward centred at 0) adds ``mean(r - c) E[x | selected]`` to ``sum x (r - c)``, pushing
            each arm's estimate along its own selection direction. A reward outside the range is an error (the
            environment broke its declared bounds).
        first_batch, batch_ratio: the batch schedule.
        max_rounds_per_user: with user ids, learn from at most this many rounds of each person
            (:mod:`~dpbandit.agents.batched.base`; the user-level epsilon is in ``privacy.user_epsilon``).
        noise: ``False`` = debugging switch: the same algorithm without noise; ``privacy`` is ``None``.
    """

    #: Main blocks of the release and their share of ``1 - aux_share`` (subclasses).
    main_blocks: dict[str, float] = {}
    #: Norm of the context clip: 2 (rows scaled) or inf (coordinates clipped).
    context_norm: float = 2.0

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        horizon: int | None = None,
        epsilon: float = 1.0,
        delta: float | None = None,
        aux_share: float = 0.1,
        context_quantile: float = 0.5,
        reward_quantile: float = 0.5,
        clip_rate: float = 2.0,
        initial_context_clip: float | None = None,
        initial_reward_clip: float | None = None,
        reward_center: float | None = None,
        reward_range: tuple[float, float] | None = None,
        first_batch: int = 32,
        batch_ratio: float = 2.0,
        max_rounds_per_user: int | None = None,
        noise: bool = True,
    ) -> None:
        super().__init__(n_arms, dim, rng=rng, horizon=horizon, first_batch=first_batch,
                         batch_ratio=batch_ratio, max_rounds_per_user=max_rounds_per_user)
        self.epsilon = _validate.positive(epsilon=epsilon)
        self.delta = agent_delta(delta, self.horizon, owner=type(self).__name__)
        aux_share = _validate.probability(aux_share=aux_share)
        self.noise = bool(noise)
        #: The declared range of the rewards (``None``: undeclared); a reward outside it is an error.
        self.reward_range = validate_reward_range(reward_range)
        if self.reward_range is not None:
            center, clip = reward_range_defaults(self.reward_range, reward_center)
        else:
            center, clip = (0.0 if reward_center is None else reward_center), 1.0
        reward_center = center
        initial_reward_clip = clip if initial_reward_clip is None else initial_reward_clip
        if initial_context_clip is None:  # a point with unit coordinates: its l2 norm, or 1 per coordinate
            initial_context_clip = math.sqrt(self.dim) if self.context_norm == 2.0 else 1.0
        self.clipping = AdaptiveClipping(
            context_clip=initial_context_clip,
            reward_clip=initial_reward_clip,
            context_quantile=context_quantile,
            reward_quantile=reward_quantile,
            rate=clip_rate,
            reward_center=reward_center,
            context_norm=self.context_norm,
        )
        aux = ("counts", *CLIP_BLOCKS) if self.n_models > 1 else CLIP_BLOCKS
        shares = {name: (1.0 - aux_share) * share for name, share in self.main_blocks.items()}
        shares.update({name: aux_share / len(aux) for name in aux})
        self.release = self._make_release(shares)
        self._reset_batch()

    def _make_release(self, shares: dict[str, float]) -> BlockGaussianRelease:
        """The Gaussian release over the blocks, PLD-calibrated to (epsilon, delta) (subclasses may compose)."""
        return BlockGaussianRelease(self.epsilon, self.delta, shares, noise=self.noise)

    # -- subclass hooks --------------------------------------------------------------------------
    def _reset_statistics(self) -> None:
        raise NotImplementedError

    def _accumulate(self, rows: np.ndarray, models: np.ndarray, rewards: np.ndarray) -> None:
        """Add a block of clipped rows and clipped rewards to the main statistics."""
        raise NotImplementedError

    def _statistics(self) -> dict[str, np.ndarray]:
        """The main blocks' exact values for the current batch."""
        raise NotImplementedError

    def _main_sensitivities(self) -> dict[str, float]:
        """l2 sensitivity of each main block at the current clips ``C`` and ``B``."""
        raise NotImplementedError

    def _fit(self, released: dict[str, np.ndarray], counts: np.ndarray) -> None:
        """Update ``theta`` from the released blocks (``counts``: released rounds per model, in [1, n])."""
        raise NotImplementedError

    # -- batched hooks ---------------------------------------------------------------------------
    def _reset_batch(self) -> None:
        self._reset_statistics()
        self._counts = np.zeros(self.n_models)
        self._context_inside = 0.0
        self._reward_inside = 0.0

    def _observe(self, rows: np.ndarray, models: np.ndarray, rewards: np.ndarray) -> None:
        check_rewards(rewards, self.reward_range)
        clipped_rows, rows_inside = self.clipping.clip_rows(rows)
        clipped_rewards, rewards_inside = self.clipping.clip_rewards(rewards)
        self._accumulate(clipped_rows, models, clipped_rewards)
        self._counts += np.bincount(models, minlength=self.n_models)
        self._context_inside += float(rows_inside.sum())
        self._reward_inside += float(rewards_inside.sum())

    def sensitivities(self) -> dict[str, float]:
        """l2 sensitivity of every released block at the current clips (replace-one user record).

        ``counts`` (disjoint model only): ``sqrt 2``, a switch of the played arm moves one round from one
        arm's count to another's; the clipping counts: 1.
        """
        out = {**self._main_sensitivities(), **self.clipping.sensitivities()}
        if self.n_models > 1:
            out["counts"] = math.sqrt(2.0)
        return out

    def _end_batch(self) -> None:
        n = self.batch_learned  # = batch_size unless rounds past max_rounds_per_user were left out
        if n == 0:  # every round of the batch was past its person's cap: nothing to release or learn
            self._reset_batch()
            return
        values = {**self._statistics(), "context_inside": self._context_inside, "reward_inside": self._reward_inside}
        if self.n_models > 1:
            values["counts"] = self._counts
        released = self.release.release(self.noise_rng, values, self.sensitivities())
        counts = np.clip(released["counts"], 1.0, n) if self.n_models > 1 else np.full(1, float(n))
        self._fit(released, counts)
        self.clipping.update(released, n)
        self._reset_batch()

    # -- privacy ---------------------------------------------------------------------------------
    def _user_epsilon(self, max_rounds: int) -> float:
        """Epsilon of a person with at most ``max_rounds`` learned rounds: ``GaussianDpEvent(z / m)`` (PLD).

        Batch ``l``'s release is one Gaussian mechanism of multiplier ``z`` on the stacked statistic rescaled
        to replace-one sensitivity 1 (:mod:`dpbandit.privacy.release`). Every block is a sum over the batch's
        learned rounds (per-arm sums, Grams, counts, the clipping counts), so replacing a person's ``k_l``
        rounds in batch ``l`` moves the rescaled stack by at most ``k_l`` (triangle inequality over a chain of
        ``k_l`` replace-one neighbours; each step's shift is at most 1 whatever the step's played arms). The
        clips ``C``, ``B`` and the supports that set the sensitivities are fixed by earlier releases, and the
        ``k_l`` by the id sequence (module docstring of :mod:`~dpbandit.agents.batched.base`), so, given the
        earlier releases, release ``l`` is a Gaussian mechanism of multiplier ``z / k_l`` for that person.
        Composing them (:func:`dpbandit.privacy.accounting.group_gaussian_event`):

            ``mu_user = sqrt(sum_l k_l^2) / z <= (sum_l k_l) / z <= m / z``,

        attained when all ``m`` rounds fall in one batch. Reported: dp-accounting's PLD epsilon of
        ``GaussianDpEvent(z / m)`` at ``delta`` (``m = 1`` gives the round-level epsilon).
        """
        return _user_pld_epsilon(self.release.multiplier, max_rounds, self.delta)

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """JDP of the action sequence: one Gaussian release per user (parallel composition over batches)."""
        if not self.noise:
            return None
        from dpbandit.privacy.guarantee import PrivacyGuarantee

        shares = ", ".join(f"{k} {v:.3g}" for k, v in self.release.shares.items())
        return self._user_level(PrivacyGuarantee(
            mechanism=f"{type(self).__name__}: one Gaussian release per batch of users (shares: {shares})",
            claimed_epsilon=self.epsilon,
            claimed_delta=self.delta,
            epsilon=self.release.accountant_epsilon(),
            relation="JDP (billboard lemma); replace-one user record; batches compose in parallel",
            accountant="pld, exact Gaussian curve (GaussianDpEvent of the stacked release)",
            calibration=f"accountant: noise multiplier z = {self.release.multiplier:.4g} per unit of "
            "block sensitivity / sqrt(share)",
            notes="sensitivities at the last clips: "
            + ", ".join(f"{k} {v:.4g}" for k, v in self.sensitivities().items()),
        ))

    @property
    def params(self) -> dict[str, Any]:
        """Identifying hyper-parameters."""
        return {**super().params, "epsilon": self.epsilon, "delta": self.delta, "noise": self.noise}
