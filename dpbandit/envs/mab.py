"""The plain K-armed Bernoulli bandit as a contextual bandit with a constant context (issue 40 item 3).

Arm ``k`` pays Bernoulli(``means[k]``); every round's context is the constant ``x = (1,)`` (shared model,
``dim = 1``), so a linear agent's per-arm slope is that arm's mean and a context-free policy is all there is
to learn. The reward range is declared ``(0, 1)`` (contract C1). Each seed draws every arm's reward each
round from one stream (common random numbers: every agent meets the same draws), as
:class:`dpbandit.envs.fixed_arms.FixedArmsBernoulliEnv` does (both on :mod:`dpbandit.envs.bernoulli_arms`).

Presets [Fill]: ``dpbandit/BernoulliMAB-v0`` (means 0.3 / 0.5 / 0.7, the issue's setting) and
``dpbandit/BernoulliMAB5-v0`` (0.2 / 0.3 / 0.4 / 0.45 / 0.6: five arms, best-to-second gap 0.15), T = 5,000;
``means=`` at ``make`` time takes any tuple of at least two probabilities.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from dpbandit.envs.bernoulli_arms import BernoulliArmsEnv

__all__ = ["BernoulliMABEnv", "BernoulliMABVectorEnv", "make_vector"]


class BernoulliMABEnv(BernoulliArmsEnv):
    """K Bernoulli arms, constant context ``(1,)`` (module docstring).

    Args:
        means: each arm's success probability, in [0, 1] (K >= 2 of them).
        horizon: T (default 5,000).
    """

    context_text = "the constant (1,)"

    def __init__(self, means: tuple[float, ...] = (0.3, 0.5, 0.7), horizon: int = 5_000,
                 render_mode: str | None = None) -> None:
        means = np.asarray(means, dtype=float)
        if means.ndim != 1 or means.size < 2 or not np.all((means >= 0.0) & (means <= 1.0)):
            raise ValueError(f"Expected means to be at least two probabilities in [0, 1], got {means!r}.")
        super().__init__(means.size, horizon, render_mode)
        self.means = means
        self.dim = 1
        self.context_model = "shared"
        self.observation_space = gym.spaces.Box(0.0, 1.0, shape=(1,), dtype=np.float64)

    def _observation(self) -> np.ndarray:
        return np.ones(1)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        root = seed if seed is not None else int(self.np_random.integers(2**63))
        return self._start(np.random.SeedSequence(root))


class BernoulliMABVectorEnv(gym.vector.SyncVectorEnv):
    """Independent copies of :class:`BernoulliMABEnv`, declaring the copies' reward range (contract C2)."""

    reward_range = (0.0, 1.0)


def make_vector(num_envs: int = 1, **kwargs: Any) -> gym.vector.VectorEnv:
    """``num_envs`` independent copies in a :class:`BernoulliMABVectorEnv` (the vector entry point)."""
    return BernoulliMABVectorEnv([lambda: BernoulliMABEnv(**kwargs) for _ in range(num_envs)])
