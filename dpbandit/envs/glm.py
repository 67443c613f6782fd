"""Gymnasium environments for stochastic contextual bandits with generalized-linear rewards.

:class:`GLMBanditEnv` (one replicate) and :class:`GLMBanditVectorEnv` (N replicates stepped at
once) are thin views over the same :class:`dpbandit.envs.rounds.RoundStream` and :class:`dpbandit.envs.problem.GLMProblem`
maths; the scalar env is the N = 1 case. Model and options: see :class:`dpbandit.envs.problem.GLMProblem`
(004_290fd04a1e656565.txt Section 4.1; the pseudo-regret is the one defined there).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from dpbandit.envs.base import BanditEnv, BanditVectorEnv
from dpbandit.envs.links import Link
from dpbandit.envs.problem import GLMProblem
from dpbandit.envs.rounds import RoundStream

__all__ = ["GLMBanditEnv", "GLMBanditVectorEnv"]


def _observation_space(problem: GLMProblem) -> spaces.Box:
    bound = problem.observation_bound
    return spaces.Box(-bound, bound, shape=problem.observation_shape, dtype=np.float64)


class _LinkAttribute:
    """The GLM inverse link of ``self.problem`` (other attributes: :class:`dpbandit.envs.base.ProblemAttributes`)."""

    problem: GLMProblem

    @property
    def link(self) -> Link:
        """The GLM inverse link (``.mean``, ``.derivative``, ``.name``)."""
        return self.problem.link  # type: ignore[return-value]


class GLMBanditEnv(_LinkAttribute, BanditEnv):
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

    ## Reward range
    ``env.unwrapped.reward_range``: ``(low, high)`` bounds of the realised rewards, from the reward
    law (:attr:`dpbandit.envs.problem.GLMProblem.reward_range`): Gaussian noise ``(-inf, inf)``, Bernoulli
    ``(0.0, 1.0)``, Poisson ``(0.0, inf)``.

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
    :class:`dpbandit.envs.rounds.RoundBlock`, bit-identical to stepping; they count as played.
    ``current_round()`` returns ``(observation, info)`` of the round about to be played.

    Args:
        n_arms, dim, horizon, **options: see :class:`dpbandit.envs.problem.GLMProblem`.
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
        >>> shown = GLMBanditEnv(2, 3, 5, noise_std=0.1, render_mode="ansi")
        >>> _ = shown.reset(seed=0)
        >>> print(shown.render().splitlines()[0])
        round 0/5: nothing played yet
    """

    #: Where ``**options`` go: a keyword the problem does not take is refused before the environment is built,
    #: naming the ones it takes (:func:`dpbandit._validate.accepted_keywords`).
    forwards_options_to = GLMProblem

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
        self._set_render_mode(render_mode)
        self.problem = GLMProblem(n_arms, dim, horizon, **options)
        self._stream = RoundStream(self.problem, 1, chunk_rounds)
        self.observation_space = _observation_space(self.problem)
        self.action_space = spaces.Discrete(self.problem.n_arms)

    @property
    def theta(self) -> np.ndarray | None:
        """The episode's true parameter (copy): ``(K, d)`` shared, ``(d,)`` per-arm; None before reset."""
        return None if self._stream.theta is None else self._stream.theta[0].copy()


class GLMBanditVectorEnv(_LinkAttribute, BanditVectorEnv):
    """``num_envs`` independent replicates of :class:`GLMBanditEnv`, batched natively.

    Replicate ``i`` is exactly the scalar env reset with seed ``replicate_seeds(seed, num_envs)[i]``
    (or ``seed[i]`` when a list of ``num_envs`` seeds is given): same parameter, contexts,
    expected and realised rewards. All replicates share the horizon and run in lockstep.

    Arrays lead with ``num_envs``: observations ``(N, *obs)``, rewards ``(N,)``; info holds
    ``expected_rewards (N, K)``, ``optimal_action (N,)`` and, after ``step``, ``regret (N,)``,
    each with Gymnasium's ``_key`` boolean mask. Autoreset follows ``AutoresetMode.NEXT_STEP``:
    the ``step`` after truncation ignores the actions, starts a new episode for every replicate
    (continuing each replicate's generator) and returns its first observation with zero rewards.
    ``draw_rounds(m)`` returns a :class:`dpbandit.envs.rounds.RoundBlock` with arrays ``(N, m, ...)``.

    Args:
        num_envs: number of replicates N >= 1.
        n_arms, dim, horizon, **options: see :class:`dpbandit.envs.problem.GLMProblem`.
        chunk_rounds: rounds drawn per internal chunk (``None``: fit the memory budget).
    """

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
        self._set_replicates(num_envs, _observation_space(self.problem))
        self._stream = RoundStream(self.problem, self.num_envs, chunk_rounds)

    @property
    def theta(self) -> np.ndarray | None:
        """The replicates' parameters (copy), ``(N, K, d)`` shared / ``(N, d)`` per-arm."""
        return None if self._stream.theta is None else self._stream.theta.copy()
