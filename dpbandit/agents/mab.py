"""Non-private multi-armed references that ignore the context: UCB1 and Bernoulli Thompson sampling.

The references of the plain K-armed Bernoulli bandit (``dpbandit/BernoulliMAB-v0``, issue 40 item 3):

* ``ucb1``: Auer, Cesa-Bianchi and Fischer (2002), "Finite-time analysis of the multiarmed bandit
  problem", Figure 1 (UCB1): play each arm once, then ``argmax_k mean_k + sqrt(2 ln t / n_k)``, rewards
  rescaled to [0, 1] by the declared ``reward_range`` (the analysis assumes rewards in [0, 1]);
* ``thompson``: Thompson sampling with Beta(1, 1) priors (Agrawal and Goyal 2012, "Analysis of Thompson
  sampling for the multi-armed bandit problem", Algorithm 2: a reward in [0, 1] enters as a Bernoulli draw
  of that success probability, exact for {0, 1} rewards).

Ties are broken uniformly with the agent's generator. Both read no context: on a contextual bandit they
learn the best constant arm.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpbandit import _validate
from dpbandit.agents.base import Agent

__all__ = ["BernoulliThompson", "UCB1"]


class _ArmMeans(Agent):
    """Per-arm counts and sums of rewards rescaled to [0, 1] by the declared range (default ``(0, 1)``)."""

    def __init__(self, n_arms: int, dim: int, *, rng: np.random.Generator, horizon: int | None = None,
                 reward_range: tuple[float, float] = (0.0, 1.0)) -> None:
        super().__init__(n_arms, dim, rng=rng, horizon=horizon)
        low, high = (_validate.finite(reward_range=float(b)) for b in reward_range)
        if not low < high:
            raise ValueError(f"Expected reward_range (low, high) with low < high, got {reward_range!r}.")
        self.reward_range = (low, high)
        self.counts = np.zeros(self.n_arms)
        self.sums = np.zeros(self.n_arms)

    def _argmax(self, scores: np.ndarray) -> int:
        best = np.flatnonzero(scores == scores.max())
        return int(best[0] if best.size == 1 else self.rng.choice(best))

    def _unit(self, reward: float) -> float:
        """The reward rescaled to [0, 1]; outside the declared range is an error, never clipped."""
        low, high = self.reward_range
        reward = _validate.finite(reward=reward)
        if not low <= reward <= high:
            raise ValueError(f"Expected reward in the declared reward_range {self.reward_range}, got {reward}.")
        return (reward - low) / (high - low)

    def update(self, observation: np.ndarray, action: int, reward: float) -> None:
        """Count the pull and add its rescaled reward."""
        action = self.check_action(action)
        self.counts[action] += 1.0
        self.sums[action] += self._reward_entry(self._unit(reward))

    def _reward_entry(self, unit: float) -> float:
        return unit

    @property
    def params(self) -> dict[str, Any]:
        """Identifying hyper-parameters."""
        return {**super().params, "reward_range": self.reward_range}


class UCB1(_ArmMeans):
    """UCB1 (Auer et al. 2002, Figure 1): each arm once, then ``mean_k + sqrt(2 ln t / n_k)`` (module
    docstring)."""

    def act(self, observation: np.ndarray) -> int:
        """The arm with the largest upper confidence bound (an unplayed arm first)."""
        if np.any(self.counts == 0.0):
            return self._argmax((self.counts == 0.0).astype(float))
        t = float(self.counts.sum())
        return self._argmax(self.sums / self.counts + np.sqrt(2.0 * math.log(t) / self.counts))


class BernoulliThompson(_ArmMeans):
    """Thompson sampling with Beta(1, 1) priors (Agrawal and Goyal 2012, Algorithm 2; module docstring)."""

    def act(self, observation: np.ndarray) -> int:
        """The arm with the largest draw from its Beta(1 + successes, 1 + failures) posterior."""
        return self._argmax(self.rng.beta(1.0 + self.sums, 1.0 + self.counts - self.sums))

    def _reward_entry(self, unit: float) -> float:
        """A reward in [0, 1] enters as a Bernoulli draw of that probability (exact on {0, 1})."""
        return unit if unit in (0.0, 1.0) else float(self.rng.random() < unit)
