"""The uniformly random agent: the regret reference every agent should beat."""

from __future__ import annotations

import numpy as np

from dpbandit.agents.base import Agent


class RandomAgent(Agent):
    """Pulls an arm uniformly at random: the regret reference every agent should beat."""

    def act(self, observation: np.ndarray) -> int:
        """Return a uniformly random arm."""
        return int(self.rng.integers(self.n_arms))

    def update(self, observation: np.ndarray, action: int, reward: float) -> None:
        """Random play learns nothing."""


class RandomPerArmAgent(RandomAgent):
    """:class:`RandomAgent` on per-arm features ``X_t`` of shape ``(n_arms, dim)`` (the random reference of
    per-arm environments, e.g. FLIPHAT's simulations); the same draws as ``RandomAgent``."""

    observation_model = "per_arm"
