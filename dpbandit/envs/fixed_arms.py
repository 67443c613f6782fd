"""Fixed-arm Bernoulli linear bandit of Chowdhury and Zhou (ICML 2022, "Shuffle private linear contextual
bandits"), as their public code builds it (``sayakrc/Differentially-Private-Bandits``, ``LinBanditPrivate.py``,
``__main__``) [C]:

* K = 100 arms fixed for the whole run, d = 5: the first ``d`` arms are the rows of ``I_d`` with the last
  column set to 1 (a bias), the others a uniform direction of the unit ``(d-2)``-sphere followed by a 1;
* ``theta`` = a uniform direction of radius 0.5 in the first ``d - 1`` coordinates, then 0.5: every mean
  ``<x_k, theta>`` lies in [0, 1];
* reward of arm k: Bernoulli(``<x_k, theta>``); T = 20,000.

Each seed draws its own arms and ``theta`` (the code draws them per run from one global stream), then every
arm's reward each round from a separate stream, so all agents see the same draws (common random numbers).
Departure: the code's regret is realised (``r_best - r_arm`` of the drawn rewards); the harness reports the
pseudo-regret ``mu_best - mu_arm``, whose expectation is the same.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from dpbandit import _validate as v
from dpbandit.envs.bernoulli_arms import BernoulliArmsEnv

__all__ = ["FixedArmsBernoulliEnv", "FixedArmsVectorEnv", "chowdhury_zhou_instance", "make_vector"]


def chowdhury_zhou_instance(rng: np.random.Generator, n_arms: int, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """Arms ``(K, d)`` and ``theta (d,)`` of the authors' script (module docstring)."""
    basis = np.eye(dim)
    basis[:, -1] = 1.0
    X = rng.standard_normal((n_arms, dim - 1))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    X = np.hstack([X, np.ones((n_arms, 1))])
    X[: min(dim, n_arms)] = basis[: min(dim, n_arms)]
    theta = rng.standard_normal(dim - 1)
    theta *= 0.5 / np.linalg.norm(theta)
    return X, np.append(theta, 0.5)


class FixedArmsBernoulliEnv(BernoulliArmsEnv):
    """Per-arm features fixed over the run, Bernoulli rewards with means ``X theta`` (module docstring).

    Args:
        n_arms: K (default 100), dim: d (default 5, >= 2), horizon: T (default 20,000).
    """

    def __init__(self, n_arms: int = 100, dim: int = 5, horizon: int = 20_000, render_mode: str | None = None) -> None:
        super().__init__(v.integer(n_arms=n_arms, minimum=2), horizon, render_mode)
        self.dim = v.integer(dim=dim, minimum=2)
        self.context_model = "per_arm"
        self.context_text = f"the {self.n_arms} fixed arms"
        self.observation_space = gym.spaces.Box(-1.0, 1.0, shape=(self.n_arms, self.dim), dtype=np.float64)
        self.arms = np.zeros((self.n_arms, self.dim))
        self.theta = np.zeros(self.dim)

    def _observation(self) -> np.ndarray:
        return self.arms.copy()

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        # a reset without a seed continues from Gymnasium's generator (seeded by the last seeded reset)
        root = seed if seed is not None else int(self.np_random.integers(2**63))
        instance_seq, rewards_seq = np.random.SeedSequence(root).spawn(2)
        self.arms, self.theta = chowdhury_zhou_instance(np.random.default_rng(instance_seq), self.n_arms, self.dim)
        self.means = self.arms @ self.theta
        return self._start(rewards_seq)


class FixedArmsVectorEnv(gym.vector.SyncVectorEnv):
    """Independent copies of :class:`FixedArmsBernoulliEnv`, declaring the copies' reward range as every
    dpbandit vector env does (contract C2)."""

    reward_range = (0.0, 1.0)


def make_vector(num_envs: int = 1, **kwargs: Any) -> gym.vector.VectorEnv:
    """``num_envs`` independent copies in a :class:`FixedArmsVectorEnv` (the vector entry point)."""
    return FixedArmsVectorEnv([lambda: FixedArmsBernoulliEnv(**kwargs) for _ in range(num_envs)])
