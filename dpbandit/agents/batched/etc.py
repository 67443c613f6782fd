"""Private explore-then-commit: the simple reference every private agent should beat (issue 29, item 5).

Explore-then-commit (ETC; Lattimore and Szepesvari, "Bandit Algorithms", 2020, Chapter 6, Algorithm 1 [O]):

1. **explore**: play the arms uniformly at random for the first ``m`` rounds (``first_batch``);
2. **release once**: at round ``m``, one Gaussian release of each arm's sum of clipped, centred rewards
   ``S_a = sum_{t <= m, a_t = a} clip(r_t - c, -B, B)``
   (:class:`~dpbandit.privacy.release.BlockGaussianRelease`, PLD-calibrated to (epsilon, delta));
3. **commit**: play ``argmax_a c + S~_a / max(n_a, 1)`` in every later round, learning nothing more.

It is built on the batched-agent skeleton (:class:`~dpbandit.agents.batched.gaussian.GaussianBatchedAgent`):
the exploration is its first batch, in which ``theta = 0`` makes every arm tie, so the skeleton's uniform
tie-breaking stream plays each round's arm uniformly at random; the release at the end of that batch is the
only one. The context is read by nothing: this is the best-arm (per-arm constant) policy, which on a
classification bandit is the private majority class.

**What is released, and why the counts are not noised.** The exploration arms are drawn by the agent's own
tie-breaking stream, whatever the contexts and rewards (every score is exactly 0), so ``n_a``, the number of
exploration rounds on arm ``a``, is a function of the agent's coins and (with user ids) of the public id
sequence, not of any user's record: dividing by the exact ``n_a`` is post-processing. Only ``S`` carries data.
Noised counts would spend budget on public numbers (the base class's ``counts`` and adaptive-clipping
blocks are therefore not released: with one release nothing could use an updated clip).

**Sensitivity of ``S``** (replace-one user record ``(x, a, r) -> (x', a', r')`` in the exploration batch):

* same arm (``a' = a``, always the case here since the arm does not depend on the record, and the worst
  case in general): ``|clip(r - c) - clip(r' - c)| <= 2 B``, attained by ``r - c >= B`` and ``r' - c <= -B``;
* another arm: two coordinates move by at most ``B`` each: ``sqrt(2) B < 2 B``;

so ``Delta_S = 2 B`` (l2), and the noise is ``N(0, (z 2 B)^2)`` per arm, ``z`` the Gaussian noise multiplier
of (epsilon, delta). Later rounds enter no statistic, so the whole run is (epsilon, delta)-JDP (billboard
lemma: each user's action is a function of their own context, the agent's coins and the one release).

Defaults:

* ``first_batch = ceil(K^(1/3) T^(2/3))`` rounds, a public fraction ``K^(1/3) T^(-1/3)`` of ``T`` [O]: the
  gap-free tuning of ETC, ``(T / K)^(2/3)`` rounds per arm (Lattimore and Szepesvari, Chapter 6: with the gaps
  unknown, exploration of order ``T^(2/3)`` balances the exploration cost against committing to a wrong arm,
  regret ``O(K^(1/3) T^(2/3))`` up to logarithms). At K = 2, 3, 10 and T = 10^4: 585, 670
  and 1,000 rounds (5.9%, 6.7%, 10%). ``explore_fraction`` sets it to ``ceil(fraction T)`` instead.
* the reward centre ``c`` and clip ``B`` as every Gaussian batched agent: from the declared ``reward_range``
  (midpoint, half-width: nothing clipped) when the environment declares one, else ``c = 0``, ``B = 1``
  (``initial_reward_clip``, ``reward_center`` override).

Decision [Fill], measured (``sims/etc_baseline.py``, ``results/etc_baseline.md``): per-arm constants only. The
context-greedy variant (each arm's Gram and ``sum x r`` released once, ridge afterwards) is exactly
``batched-ridge`` with ``first_batch = m`` and a ``batch_ratio`` large enough that no second batch ends before
T; the page measures it beside this agent.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from dpbandit import _validate
from dpbandit.agents.batched.clipping import check_rewards
from dpbandit.agents.batched.gaussian import GaussianBatchedAgent
from dpbandit.privacy.release import BlockGaussianRelease

if TYPE_CHECKING:  # pragma: no cover
    from dpbandit.privacy.guarantee import PrivacyGuarantee

__all__ = ["PrivateExploreThenCommit", "default_exploration"]


def default_exploration(n_arms: int, horizon: int) -> int:
    """``ceil(K^(1/3) T^(2/3))`` rounds, at most ``T`` (module docstring) [O]."""
    return min(horizon, math.ceil(n_arms ** (1 / 3) * horizon ** (2 / 3)))


class PrivateExploreThenCommit(GaussianBatchedAgent):
    """Uniform exploration, one Gaussian release of the per-arm reward sums, then the best arm (module doc).

    Args:
        n_arms, dim, rng, horizon: the Agent contract; ``horizon`` is required (the exploration is a
            fraction of T).
        epsilon, delta: the (epsilon, delta)-JDP target (``delta`` defaults to ``min(1e-5, 1 / (10 T))``).
        first_batch: exploration rounds ``m`` (1 <= m <= T); default ``ceil(K^(1/3) T^(2/3))``.
        explore_fraction: exploration as a fraction of T, in (0, 1]: ``m = ceil(fraction T)`` (not with
            ``first_batch``).
        reward_range, reward_center, initial_reward_clip: the rewards' declared range, centre ``c`` and clip
            ``B`` (:class:`~dpbandit.agents.batched.gaussian.GaussianBatchedAgent`).
        max_rounds_per_user: with user ids, learn from at most this many exploration rounds of each person.
        noise: ``False`` = debugging switch (no noise, no guarantee).
    """

    main_blocks = {"sums": 1.0}
    #: One release in a run (the exploration batch's); later batches release and learn nothing.
    single_release: ClassVar[bool] = True

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        horizon: int | None = None,
        epsilon: float = 1.0,
        delta: float | None = None,
        first_batch: int | None = None,
        explore_fraction: float | None = None,
        reward_range: tuple[float, float] | None = None,
        reward_center: float | None = None,
        initial_reward_clip: float | None = None,
        max_rounds_per_user: int | None = None,
        noise: bool = True,
    ) -> None:
        n_arms = _validate.integer(n_arms=n_arms, minimum=2)
        if horizon is None:
            raise ValueError(
                "PrivateExploreThenCommit needs horizon=T: it explores for a fraction of T, then commits."
            )
        horizon = _validate.integer(horizon=horizon, minimum=1)
        if first_batch is not None and explore_fraction is not None:
            raise ValueError("Expected at most one of first_batch and explore_fraction, got both.")
        if explore_fraction is not None:
            fraction = _validate.probability(explore_fraction=explore_fraction, open_interval=False)
            if fraction == 0.0:
                raise ValueError("Expected explore_fraction > 0, got explore_fraction=0.0.")
            first_batch = math.ceil(fraction * horizon)
        if first_batch is None:
            first_batch = default_exploration(n_arms, horizon)
        self.arm_means = np.zeros(n_arms)  #: committed estimates c + S~_a / n_a (zeros while exploring)
        self.committed = False
        super().__init__(n_arms, dim, rng=rng, horizon=horizon, epsilon=epsilon, delta=delta,
                         reward_range=reward_range, reward_center=reward_center,
                         initial_reward_clip=initial_reward_clip, first_batch=first_batch,
                         max_rounds_per_user=max_rounds_per_user, noise=noise)

    def _make_release(self, shares: dict[str, float]) -> BlockGaussianRelease:
        """One block, ``sums``, with the whole budget (module docstring: the counts are public)."""
        return BlockGaussianRelease(self.epsilon, self.delta, self.main_blocks, noise=self.noise)

    # -- statistics ------------------------------------------------------------------------------
    def _reset_statistics(self) -> None:
        self._arms: list[np.ndarray] = []
        self._rewards: list[np.ndarray] = []

    def _accumulate(self, rows: np.ndarray, models: np.ndarray, rewards: np.ndarray) -> None:
        """Keep the batch's arms and clipped rewards; summed once at the release, in round order, so the sums
        (and their rounding) do not depend on how the rounds arrive (``update`` or ``play_block``)."""
        self._arms.append(models)
        self._rewards.append(rewards)

    def _statistics(self) -> dict[str, np.ndarray]:
        if not self._arms:
            return {"sums": np.zeros(self.n_arms)}
        arms, rewards = np.concatenate(self._arms), np.concatenate(self._rewards)
        return {"sums": np.bincount(arms, weights=rewards, minlength=self.n_arms)}

    def _main_sensitivities(self) -> dict[str, float]:
        return {"sums": 2.0 * self.clipping.reward_clip}

    def sensitivities(self) -> dict[str, float]:
        """l2 sensitivity of the one released block: ``sums`` ``2 B`` (module docstring)."""
        return self._main_sensitivities()

    # -- explore, release once, commit -----------------------------------------------------------
    def _observe(self, rows: np.ndarray, models: np.ndarray, rewards: np.ndarray) -> None:
        if self.committed:  # after the commitment no round enters any statistic (the range still holds)
            check_rewards(rewards, self.reward_range)
        else:
            super()._observe(rows, models, rewards)

    def _end_batch(self) -> None:
        if self.committed:
            return
        released = self.release.release(self.noise_rng, self._statistics(), self.sensitivities())
        self.arm_means = self.clipping.reward_center + released["sums"] / np.maximum(self._counts, 1.0)
        self.committed = True
        self._reset_batch()

    def scores(self, observations: np.ndarray) -> np.ndarray:
        """Every arm's committed estimate, whatever the context (all 0, so uniform play, while exploring)."""
        return np.broadcast_to(self.arm_means, (observations.shape[0], self.n_arms))

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """The Gaussian batched agents' report, naming the one release (module docstring)."""
        guarantee = super().privacy
        if guarantee is None:
            return None
        return dataclasses.replace(guarantee, mechanism=(
            f"{type(self).__name__}: one Gaussian release of the per-arm reward sums of the first "
            f"{self.schedule.first} rounds (uniform exploration); exact exploration counts (public: the "
            "agent's coins)"
        ))
