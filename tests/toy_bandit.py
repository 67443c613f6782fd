"""A Gymnasium contextual bandit written for the tests, built on nothing in ``dpbandit/envs/``: what a user's own
environment looks like to the harness (tests/harness/test_any_env.py, tests/test_cli.py).

K arms, unit-norm contexts in R^d (shared, or one row per arm), a unit-norm parameter per arm (shared
contexts) or one for all arms (per-arm features), mean reward ``mu_a = (1 + <x, theta>) / 2`` in [0, 1]
and a Bernoulli reward. All randomness comes from Gymnasium's ``np_random``, a fixed number of draws per
round (context, user, one uniform for the reward), so every agent sees the same rounds for a seed.
Importing the module registers ``toy/Bandit-v0`` (``"toy_bandit:toy/Bandit-v0"`` imports it first).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import gymnasium
import numpy as np
from gymnasium import spaces


class ToyBandit(gymnasium.Env):
    """Args: n_arms, dim; horizon (``None``: no horizon of its own, no truncation); per_arm (features
    ``(K, d)``); expected (``info["expected_rewards"]``); users (> 0: ``info["user_id"]`` in that range);
    reward_range (declared as given; ``None`` declares nothing)."""

    def __init__(
        self,
        n_arms: int = 3,
        dim: int = 4,
        horizon: int | None = 100,
        *,
        per_arm: bool = False,
        expected: bool = True,
        users: int = 0,
        reward_range: tuple[float, float] | None = (0.0, 1.0),
    ) -> None:
        self.n_arms, self.dim, self.horizon = n_arms, dim, horizon
        self.per_arm, self.expected, self.users = per_arm, expected, users
        self.reward_range = reward_range
        self.shape = (n_arms, dim) if per_arm else (dim,)
        self.observation_space = spaces.Box(-1.0, 1.0, shape=self.shape, dtype=np.float64)
        self.action_space = spaces.Discrete(n_arms)

    def _next_round(self) -> None:
        x = self.np_random.normal(size=self.shape)
        self.x = x / np.linalg.norm(x, axis=-1, keepdims=True)
        self.means = 0.5 + 0.5 * (self.x @ self.theta if self.per_arm else self.theta @ self.x)
        self.user = int(self.np_random.integers(max(self.users, 1)))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        theta = self.np_random.normal(size=(self.dim,) if self.per_arm else (self.n_arms, self.dim))
        self.theta = theta / np.linalg.norm(theta, axis=-1, keepdims=True)
        self.t = 0
        self._next_round()
        return self.x.copy(), {}

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {}
        if self.expected:
            info.update(expected_rewards=self.means.copy(), optimal_action=int(self.means.argmax()))
        if self.users:
            info["user_id"] = self.user
        return info

    def step(self, action: Any):
        a = int(action)
        u = self.np_random.random()
        reward, info = float(u < self.means[a]), self._info()
        self.t += 1
        truncated = self.horizon is not None and self.t == self.horizon
        self._next_round()
        return self.x.copy(), reward, False, truncated, info


class Block(NamedTuple):
    """The fields of ``dpbandit.envs.rounds.RoundBlock`` the harness reads, plus the users."""

    observations: np.ndarray
    expected_rewards: np.ndarray
    rewards: np.ndarray
    user_ids: np.ndarray | None


class ToyBlockBandit(ToyBandit):
    """:class:`ToyBandit` with the optional block access of the protocol: ``draw_rounds(m)`` gives the
    next ``m`` rounds with every arm's reward (the uniform of :meth:`step`): bit-identical to stepping."""

    def draw_rounds(self, m: int) -> Block:
        obs, means, rewards, users = [], [], [], []
        for _ in range(m):
            obs.append(self.x)
            means.append(self.means)
            users.append(self.user)
            rewards.append((self.np_random.random() < self.means).astype(float))
            self.t += 1
            self._next_round()
        ids = np.array(users, dtype=np.int64) if self.users else None
        return Block(np.stack(obs), np.stack(means), np.stack(rewards), ids)


gymnasium.register("toy/Bandit-v0", entry_point="toy_bandit:ToyBandit")


class FixedHorizonBandit(ToyBandit):
    """A :class:`ToyBandit` whose constructor takes no horizon: its own is 50 rounds."""

    def __init__(self, n_arms: int = 3, dim: int = 4) -> None:
        super().__init__(n_arms, dim, horizon=50)


class DeclaredHorizonBandit(ToyBandit):
    """A :class:`ToyBandit` whose constructor declares a horizon of 2,000 rounds (issue 38 item 4)."""

    def __init__(self, n_arms: int = 3, dim: int = 4, horizon: int = 2_000) -> None:
        super().__init__(n_arms, dim, horizon)


class CountingBandit(ToyBandit):
    """A :class:`ToyBandit` counting its constructions and resets in :attr:`counts` (issue 38 item 9)."""

    counts: dict[str, int] = {"built": 0, "reset": 0}

    def __init__(self, n_arms: int = 3, dim: int = 4, horizon: int = 60) -> None:
        CountingBandit.counts["built"] += 1
        super().__init__(n_arms, dim, horizon)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        CountingBandit.counts["reset"] += 1
        return super().reset(seed=seed, options=options)
