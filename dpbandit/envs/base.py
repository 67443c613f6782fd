"""The Gymnasium API over a round stream, shared by every environment of the package.

:class:`BanditEnv` (one replicate) and :class:`BanditVectorEnv` (N replicates stepped at once) turn a
:class:`dpbandit.envs.rounds.BlockStream` into ``reset`` / ``step`` / ``draw_rounds``. A concrete environment
(:mod:`dpbandit.envs.glm`, :mod:`dpbandit.envs.classification`) sets ``self.problem`` (with ``n_arms``, ``dim``,
``horizon``, ``observation_shape``, ``context_model``), ``self._stream`` and the spaces; the maths
lives in the problem and the stream, so the scalar env is the N = 1 view of the vector one.

Info keys (contract C1 of the harness): ``expected_rewards`` (K,) and ``optimal_action`` of the round
the observation belongs to (``step``: the round just played, plus its ``regret``, the pseudo-regret
``max_k mu_k - mu_a``), and ``user_id`` when the stream says which person each round belongs to.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from dpbandit import _validate
from dpbandit.envs.rounds import BlockStream, RoundBlock, replicate_seeds

__all__ = ["BanditEnv", "BanditVectorEnv", "ProblemAttributes", "check_action"]


def check_action(action: Any, n_arms: int) -> int:
    """The arm index ``action`` as an int (a 0-d integer array counts); raise naming ``action`` unless it is
    an integer in ``[0, n_arms)``."""
    if isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu":
        action = action.item()
    return _validate.integer(action=action, minimum=0, maximum=n_arms - 1)


class ProblemAttributes:
    """Read-only problem attributes (``n_arms``, ``dim``, ``horizon``, ...) from ``self.problem``."""

    problem: Any

    @property
    def params(self) -> dict[str, Any]:
        """The problem configuration as plain values (for result columns and logs)."""
        return self.problem.params

    @property
    def n_arms(self) -> int:
        """Number of arms K."""
        return self.problem.n_arms

    @property
    def dim(self) -> int:
        """Context dimension d."""
        return self.problem.dim

    @property
    def horizon(self) -> int:
        """Rounds per episode T."""
        return self.problem.horizon

    @property
    def context_model(self) -> str:
        """``"shared"`` (observation ``(d,)``) or ``"per_arm"`` (observation ``(K, d)``)."""
        return self.problem.context_model

    @property
    def reward_range(self) -> tuple[float, float] | None:
        """``(low, high)`` bounds of every realised reward (may be +-inf); ``None``: not known."""
        return self.problem.reward_range


def _round_info(block: RoundBlock) -> dict[str, Any]:
    """The info of one round (scalar env): expected rewards, optimal action, user id if known."""
    means = block.expected_rewards.copy()
    info: dict[str, Any] = {"expected_rewards": means, "optimal_action": int(means.argmax())}
    if block.user_ids is not None:
        info["user_id"] = int(block.user_ids)
    return info


class BanditEnv(ProblemAttributes, gym.Env):
    """One replicate: the N = 1 view of ``self._stream`` (see the concrete envs for the documentation)."""

    #: ``"ansi"``: :meth:`render` returns the round as text [O] Gymnasium's render API;
    #: ``render_fps`` [Fill] is only read by recording / human-rendering wrappers.
    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}
    _stream: BlockStream

    def _set_render_mode(self, render_mode: str | None) -> None:
        if render_mode is not None:
            _validate.one_of(self.metadata["render_modes"], render_mode=render_mode)
        self.render_mode = render_mode
        self._last_step: dict[str, Any] | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode (new streams from ``self.np_random``) and return its first round.

        ``options`` is unused."""
        super().reset(seed=seed)
        self._stream.reset([self.np_random])
        self._last_step = None
        return self.current_round()

    def current_round(self) -> tuple[np.ndarray, dict[str, Any]]:
        """``(observation, info)`` of the round about to be played (as returned by ``reset``)."""
        current = self._stream.current(0)
        return current.observations.copy(), _round_info(current)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play arm ``action``; return ``(next_obs, reward, False, truncated, info)``."""
        a = check_action(action, self.problem.n_arms)
        current = self._stream.current(0)
        info = _round_info(current)
        reward = float(current.rewards[a])
        means, best = info["expected_rewards"], info["optimal_action"]
        info["regret"] = float(means[best] - means[a])
        self._last_step = {"action": a, "reward": reward, "regret": info["regret"], "optimal_action": best}
        self._stream.advance()
        truncated = self._stream.remaining == 0
        if truncated:
            obs = np.zeros(self.problem.observation_shape)
        else:
            obs = self._stream.current(0).observations.copy()
        return obs, reward, False, truncated, info

    def draw_rounds(self, m: int) -> RoundBlock:
        """The next ``m`` rounds: observations ``(m, ...)``, expected_rewards and rewards ``(m, K)``,
        user_ids ``(m,)`` or None. Bit-identical to stepping; they count as played."""
        return self._stream.take(m).map(lambda a: a[0])

    def render(self) -> str | None:
        """``render_mode="ansi"``: the last round played and the one about to be played, as text."""
        if self.render_mode is None:
            return None
        t, horizon = self._stream.t, self.problem.horizon
        lines = [f"round {t}/{horizon}: nothing played yet" if self._last_step is None else
                 "round {t}/{T}: played arm {action}, reward {reward:.4g}, regret {regret:.4g} (best arm "
                 "{optimal_action})".format(t=t, T=horizon, **self._last_step)]
        if not self._stream.started:
            lines[0] = "not reset yet"
        elif self._stream.remaining > 0:
            obs, info = self.current_round()
            with np.printoptions(precision=3, threshold=8, edgeitems=3, suppress=True):
                user = f" (user {info['user_id']})" if "user_id" in info else ""
                lines.append(f"round {t + 1}/{horizon}: context {obs}{user}")
                means, best = info["expected_rewards"], info["optimal_action"]
                lines.append(f"  expected rewards {means} (best arm {best})")
        return "\n".join(lines)


class BanditVectorEnv(ProblemAttributes, VectorEnv):
    """N replicates in lockstep over ``self._stream`` (see the concrete vector envs for the documentation).

    Replicate ``i`` is exactly the scalar env reset with seed ``replicate_seeds(seed, num_envs)[i]``
    (or ``seed[i]`` when a list of seeds is given). Autoreset follows ``AutoresetMode.NEXT_STEP``.
    """

    metadata: dict[str, Any] = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}
    _stream: BlockStream

    def _set_replicates(self, num_envs: int, single_observation_space: spaces.Space) -> None:
        """``num_envs`` and the single / batched spaces (``self.problem`` must be set)."""
        self.num_envs = _validate.integer(num_envs=num_envs, minimum=1)
        self.single_observation_space = single_observation_space
        self.single_action_space = spaces.Discrete(self.problem.n_arms)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._roots: list[np.random.Generator] | None = None
        self._needs_reset = False

    def _root_generators(self, seed: int | Sequence[int] | None) -> list[np.random.Generator]:
        if seed is None:
            if self._roots is not None:
                return self._roots
            return [seeding.np_random(None)[0] for _ in range(self.num_envs)]
        if isinstance(seed, (Sequence, np.ndarray)):
            if len(seed) != self.num_envs:
                raise ValueError(f"Expected seed to hold num_envs={self.num_envs} seeds, got {len(seed)}.")
            seeds = [_validate.integer(seed=s, minimum=0) for s in seed]
        else:
            seeds = replicate_seeds(seed, self.num_envs)
        return [seeding.np_random(s)[0] for s in seeds]

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode in every replicate. ``seed``: int (via ``replicate_seeds``), N ints, or None."""
        self._roots = self._root_generators(seed)
        self._stream.reset(self._roots)
        self._needs_reset = False
        return self.current_round()

    def _round_info(self, block: RoundBlock, **extra: np.ndarray) -> dict[str, Any]:
        means = block.expected_rewards.copy()
        values = {"expected_rewards": means, "optimal_action": means.argmax(1)}
        if block.user_ids is not None:
            values["user_id"] = block.user_ids.copy()
        values.update(extra)
        info: dict[str, Any] = {}
        for key, value in values.items():
            info[key] = value
            info[f"_{key}"] = np.ones(self.num_envs, dtype=bool)
        return info

    def current_round(self) -> tuple[np.ndarray, dict[str, Any]]:
        """``(observations, info)`` of the round about to be played."""
        current = self._stream.current()
        return current.observations.copy(), self._round_info(current)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play actions[i] in replicate i; return batched (obs, rewards, terminated, truncated, info)."""
        n = self.num_envs
        if self._needs_reset:
            obs, info = self.reset()
            return obs, np.zeros(n), np.zeros(n, dtype=bool), np.zeros(n, dtype=bool), info
        actions = np.asarray(actions)
        if actions.dtype.kind not in "iu":
            raise TypeError(f"Expected actions to be integers, got dtype {actions.dtype}.")
        if actions.shape != (n,):
            raise ValueError(f"Expected actions of shape ({n},), got {actions.shape}.")
        if actions.min() < 0 or actions.max() >= self.problem.n_arms:
            raise ValueError(f"Expected actions in [0, {self.problem.n_arms - 1}], got {actions}.")
        current = self._stream.current()
        rows = np.arange(n)
        means = current.expected_rewards
        rewards = current.rewards[rows, actions]
        regret = means.max(1) - means[rows, actions]
        info = self._round_info(current, regret=regret)
        self._stream.advance()
        truncated = self._stream.remaining == 0
        self._needs_reset = truncated
        if truncated:
            obs = np.zeros((n, *self.problem.observation_shape))
        else:
            obs = self._stream.current().observations.copy()
        return obs, rewards, np.zeros(n, dtype=bool), np.full(n, truncated), info

    def draw_rounds(self, m: int) -> RoundBlock:
        """The next ``m`` rounds of every replicate, arrays ``(N, m, ...)``; they count as played."""
        return self._stream.take(m)
