"""Gymnasium environments for stochastic contextual bandits with generalized-linear rewards.

:class:`GLMBanditEnv` (one replicate) and :class:`GLMBanditVectorEnv` (N replicates stepped at
once) are thin views over the same :class:`envs.rounds.RoundStream` and :class:`envs.problem.GLMProblem`
maths; the scalar env is the N = 1 case. Model and options: see :class:`envs.problem.GLMProblem`
(004_290fd04a1e656565.txt Section 4.1; the pseudo-regret is the one defined there).
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
from envs.links import Link
from envs.problem import GLMProblem
from envs.rounds import RoundBlock, RoundStream, replicate_seeds

__all__ = ["GLMBanditEnv", "GLMBanditVectorEnv"]


def _observation_space(problem: GLMProblem) -> spaces.Box:
    bound = problem.observation_bound
    return spaces.Box(-bound, bound, shape=problem.observation_shape, dtype=np.float64)


class _ProblemAttributes:
    """Read-only problem attributes (``n_arms``, ``dim``, ``horizon``, ...) from ``self.problem``."""

    problem: GLMProblem

    @property
    def params(self) -> dict[str, Any]:
        """The problem configuration as plain values (see :attr:`envs.problem.GLMProblem.params`)."""
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
        """``"shared"`` or ``"per_arm"``."""
        return self.problem.context_model

    @property
    def link(self) -> Link:
        """The GLM inverse link (``.mean``, ``.derivative``, ``.name``)."""
        return self.problem.link  # type: ignore[return-value]


class GLMBanditEnv(_ProblemAttributes, gym.Env):
    """Contextual GLM bandit: K arms, contexts in R^d (or R^{K x d}), horizon T.

    Each episode is one bandit run of T rounds. ``reset(seed=...)`` draws the parameter
    (``env.unwrapped.theta``) and the first context; ``step(a)`` plays arm ``a``.

    ## Action space
    ``Discrete(K)``: the arm to pull (an int, numpy integer or 0-d integer array).

    ## Observation space
    ``Box(-b, b, (d,))`` for ``context_model="shared"``, ``Box(-b, b, (K, d))`` for ``"per_arm"``,
    float64; ``b = 1`` for l_p-normalised contexts, ``context_bound`` for raw uniform ones,
    ``inf`` for raw Gaussian ones.

    ## Rewards
    ``step`` returns the realised reward of the pulled arm. The realised rewards of **all** arms
    are drawn each round from a dedicated noise stream (common random numbers).

    ## Info
    ``reset`` and ``step`` return ``expected_rewards`` (shape ``(K,)``) and ``optimal_action``;
    ``step``'s info describes the round just played and adds ``regret``, the pseudo-regret
    ``mu_{t,a*} - mu_{t,a}`` (004 Section 4.1).

    ## Episode end
    A bandit is continuing: ``terminated`` is always False, ``truncated = (t == T)``. The
    observation returned with ``truncated=True`` is all zeros (there is no round T + 1);
    stepping again raises ``RuntimeError`` until ``reset``.

    ## Randomness
    Only from ``self.np_random``: each reset spawns three child generators (parameters,
    contexts, reward noise), so an extra draw in one never shifts another. ``reset(seed=None)``
    after a seeded reset starts a new, reproducible episode with a fresh parameter draw.

    ## Rendering
    ``render_mode=None`` (default) or ``"ansi"``: :meth:`render` then returns the last round played
    (arm, reward, regret) and the context and expected rewards of the next one, as text.

    ## Block access
    ``draw_rounds(m)`` returns the next m rounds (starting with the current one) as a
    :class:`envs.rounds.RoundBlock`, bit-identical to stepping; they count as played.
    ``current_round()`` returns ``(observation, info)`` of the round about to be played.

    Args:
        n_arms, dim, horizon, **options: see :class:`envs.problem.GLMProblem`.
        chunk_rounds: rounds drawn per internal chunk (``None``: fit a 8 MiB budget, at most
            1024). Changes memory and speed only, never the numbers.
        render_mode: ``None`` or ``"ansi"`` (see Rendering).

    Example:
        >>> env = GLMBanditEnv(3, 4, 10, noise_std=0.1)
        >>> obs, info = env.reset(seed=0)
        >>> obs.shape, info["optimal_action"] in range(3)
        ((4,), True)
        >>> _, reward, terminated, truncated, info = env.step(info["optimal_action"])
        >>> info["regret"], terminated, truncated
        (0.0, False, False)
    """

    #: ``"ansi"``: :meth:`render` returns the round as text [O] Gymnasium's render API;
    #: ``render_fps`` [Fill] is only read by recording / human-rendering wrappers.
    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        n_arms: int,
        dim: int,
        horizon: int,
        *,
        chunk_rounds: int | None = None,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        if render_mode is not None:
            _validate.one_of(self.metadata["render_modes"], render_mode=render_mode)
        self.render_mode = render_mode
        self.problem = GLMProblem(n_arms, dim, horizon, **options)
        self._stream = RoundStream(self.problem, 1, chunk_rounds)
        self.observation_space = _observation_space(self.problem)
        self.action_space = spaces.Discrete(self.problem.n_arms)
        self._last_step: dict[str, Any] | None = None

    @property
    def theta(self) -> np.ndarray | None:
        """The episode's true parameter (copy): ``(K, d)`` shared, ``(d,)`` per-arm; None before reset."""
        return None if self._stream.theta is None else self._stream.theta[0].copy()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode: new parameter and first context. ``options`` is unused."""
        super().reset(seed=seed)
        self._stream.reset([self.np_random])
        self._last_step = None
        return self.current_round()

    def current_round(self) -> tuple[np.ndarray, dict[str, Any]]:
        """``(observation, info)`` of the round about to be played (as returned by ``reset``)."""
        current = self._stream.current()
        means = current.expected_rewards[0].copy()
        info = {"expected_rewards": means, "optimal_action": int(means.argmax())}
        return current.observations[0].copy(), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play arm ``action``; return ``(next_obs, reward, False, truncated, info)``."""
        if isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu":
            action = action.item()
        a = _validate.integer(action=action, minimum=0, maximum=self.problem.n_arms - 1)
        current = self._stream.current()
        means = current.expected_rewards[0].copy()
        reward = float(current.rewards[0, a])
        best = int(means.argmax())
        info = {"expected_rewards": means, "optimal_action": best, "regret": float(means[best] - means[a])}
        self._last_step = {"action": a, "reward": reward, "regret": info["regret"], "optimal_action": best}
        self._stream.advance()
        truncated = self._stream.remaining == 0
        if truncated:
            obs = np.zeros(self.problem.observation_shape)
        else:
            obs = self._stream.current().observations[0].copy()
        return obs, reward, False, truncated, info

    def draw_rounds(self, m: int) -> RoundBlock:
        """The next ``m`` rounds: observations ``(m, ...)``, expected_rewards and rewards ``(m, K)``."""
        block = self._stream.take(m)
        return RoundBlock(*(a[0] for a in block))

    def render(self) -> str | None:
        """``render_mode="ansi"``: the last round played and the one about to be played, as text.

        Example:
            >>> env = GLMBanditEnv(2, 3, 5, noise_std=0.1, render_mode="ansi")
            >>> _ = env.reset(seed=0)
            >>> print(env.render().splitlines()[0])
            round 0/5: nothing played yet
        """
        if self.render_mode is None:
            return None
        t, horizon = self._stream.t, self.problem.horizon
        lines = [f"round {t}/{horizon}: nothing played yet" if self._last_step is None else
                 "round {t}/{T}: played arm {action}, reward {reward:.4g}, regret {regret:.4g} (best arm "
                 "{optimal_action})".format(t=t, T=horizon, **self._last_step)]
        if self._stream.theta is None:
            lines[0] = "not reset yet"
        elif self._stream.remaining > 0:
            obs, info = self.current_round()
            with np.printoptions(precision=3, threshold=8, edgeitems=3, suppress=True):
                lines.append(f"round {t + 1}/{horizon}: context {obs}")
                means, best = info["expected_rewards"], info["optimal_action"]
                lines.append(f"  expected rewards {means} (best arm {best})")
        return "\n".join(lines)


class GLMBanditVectorEnv(_ProblemAttributes, VectorEnv):
    """``num_envs`` independent replicates of :class:`GLMBanditEnv`, batched natively.

    Replicate ``i`` is exactly the scalar env reset with seed ``replicate_seeds(seed, num_envs)[i]``
    (or ``seed[i]`` when a list of ``num_envs`` seeds is given): same parameter, contexts,
    expected and realised rewards. All replicates share the horizon and run in lockstep.

    Arrays lead with ``num_envs``: observations ``(N, *obs)``, rewards ``(N,)``; info holds
    ``expected_rewards (N, K)``, ``optimal_action (N,)`` and, after ``step``, ``regret (N,)``,
    each with Gymnasium's ``_key`` boolean mask. Autoreset follows ``AutoresetMode.NEXT_STEP``:
    the ``step`` after truncation ignores the actions, starts a new episode for every replicate
    (continuing each replicate's generator) and returns its first observation with zero rewards.
    ``draw_rounds(m)`` returns a :class:`envs.rounds.RoundBlock` with arrays ``(N, m, ...)``.

    Args:
        num_envs: number of replicates N >= 1.
        n_arms, dim, horizon, **options: see :class:`envs.problem.GLMProblem`.
        chunk_rounds: rounds drawn per internal chunk (``None``: fit the memory budget).
    """

    metadata: dict[str, Any] = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        num_envs: int,
        n_arms: int,
        dim: int,
        horizon: int,
        *,
        chunk_rounds: int | None = None,
        **options: Any,
    ) -> None:
        self.problem = GLMProblem(n_arms, dim, horizon, **options)
        self.num_envs = _validate.integer(num_envs=num_envs, minimum=1)
        self._stream = RoundStream(self.problem, self.num_envs, chunk_rounds)
        self.single_observation_space = _observation_space(self.problem)
        self.single_action_space = spaces.Discrete(self.problem.n_arms)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._roots: list[np.random.Generator] | None = None
        self._needs_reset = False

    @property
    def theta(self) -> np.ndarray | None:
        """The replicates' parameters (copy), ``(N, K, d)`` shared / ``(N, d)`` per-arm."""
        return None if self._stream.theta is None else self._stream.theta.copy()

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

    def current_round(self) -> tuple[np.ndarray, dict[str, Any]]:
        """``(observations, info)`` of the round about to be played."""
        current = self._stream.current()
        means = current.expected_rewards.copy()
        return current.observations.copy(), self._info(expected_rewards=means, optimal_action=means.argmax(1))

    def _info(self, **values: np.ndarray) -> dict[str, Any]:
        info: dict[str, Any] = {}
        for key, value in values.items():
            info[key] = value
            info[f"_{key}"] = np.ones(self.num_envs, dtype=bool)
        return info

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
        means = current.expected_rewards.copy()
        rewards = current.rewards[rows, actions]
        best = means.argmax(1)
        regret = means[rows, best] - means[rows, actions]
        self._stream.advance()
        truncated = self._stream.remaining == 0
        self._needs_reset = truncated
        if truncated:
            obs = np.zeros((n, *self.problem.observation_shape))
        else:
            obs = self._stream.current().observations.copy()
        info = self._info(expected_rewards=means, optimal_action=best, regret=regret)
        return obs, rewards, np.zeros(n, dtype=bool), np.full(n, truncated), info

    def draw_rounds(self, m: int) -> RoundBlock:
        """The next ``m`` rounds of every replicate, arrays ``(N, m, ...)``; they count as played."""
        return self._stream.take(m)
