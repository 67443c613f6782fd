"""The Gymnasium layer shared by the Bernoulli-armed bandits (:mod:`~dpbandit.envs.fixed_arms`,
:mod:`~dpbandit.envs.mab`).

Arm ``k`` pays Bernoulli(``means[k]``). Each round draws every arm's reward from one stream that ``reset``
seeds, so every agent meets the same draws (common random numbers); ``info`` carries the expected rewards and
the optimal action, and ``regret`` after a step. A subclass sets ``means`` in ``reset``, returns
:meth:`BernoulliArmsEnv._start`, and says what its observation is (:meth:`BernoulliArmsEnv._observation`,
:attr:`BernoulliArmsEnv.context_text`). The reward range is declared ``(0, 1)`` (contract C1).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from dpbandit import _validate as v

__all__ = ["BernoulliArmsEnv"]


class BernoulliArmsEnv(gym.Env):
    """K Bernoulli arms with common random numbers (module docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}
    #: What ``render`` calls the next round's context.
    context_text: str = ""

    def __init__(self, n_arms: int, horizon: int, render_mode: str | None) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError(f"Expected render_mode None or 'ansi', got {render_mode!r}.")
        self.render_mode = render_mode
        self.n_arms = n_arms
        self.horizon = v.integer(horizon=horizon, minimum=1)
        self.action_space = gym.spaces.Discrete(self.n_arms)
        self.reward_range = (0.0, 1.0)
        self.means = np.zeros(self.n_arms)
        self._rewards_rng = np.random.default_rng(0)
        self.t = 0
        self._last = ""

    def _observation(self) -> np.ndarray:
        """The context every round shows (a fresh copy)."""
        raise NotImplementedError

    def _info(self) -> dict[str, Any]:
        return {"expected_rewards": self.means.copy(), "optimal_action": int(np.argmax(self.means))}

    def _start(self, rewards: np.random.SeedSequence) -> tuple[np.ndarray, dict]:
        """The end of ``reset``: the reward stream from ``rewards``, round 0."""
        self._rewards_rng = np.random.default_rng(rewards)
        self.t = 0
        self._last = ""
        return self._observation(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        if not self.action_space.contains(action):
            raise ValueError(f"Expected action in 0..{self.n_arms - 1}, got {action!r}.")
        if self.t >= self.horizon:
            raise RuntimeError("The episode is over (truncated at the horizon); call reset().")
        drawn = (self._rewards_rng.random(self.n_arms) < self.means).astype(float)  # every arm: common numbers
        info = self._info()
        info["regret"] = float(self.means.max() - self.means[action])
        self.t += 1
        self._last = (f"round {self.t}/{self.horizon}: played arm {action}, reward {drawn[action]:g}, "
                      f"regret {info['regret']:.4g}\n")
        return self._observation(), float(drawn[action]), False, self.t == self.horizon, info

    def render(self) -> str | None:
        """``ansi``: the last round played and the next round's context; else None."""
        if self.render_mode != "ansi":
            return None
        return self._last + f"round {self.t + 1}/{self.horizon}: context = {self.context_text}\n"
