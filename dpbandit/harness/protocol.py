"""The environment protocol: what the harness needs from any Gymnasium contextual bandit (contract C1).

An environment the harness can run:

* ``action_space`` is ``gymnasium.spaces.Discrete(K)`` with ``K >= 2`` (and ``start=0``): the arms;
* ``observation_space`` is a ``Box`` of shape ``(d,)`` (one context shared by the arms, ``"shared"``)
  or ``(K, d)`` (one feature row per arm, ``"per_arm"``);
* ``reset(seed=...) -> (obs, info)`` and ``step(a) -> (obs, reward, terminated, truncated, info)``;
  a continuing bandit, ``truncated`` at the horizon. ``step``'s ``info`` describes the round just played,
  with the optional keys ``"expected_rewards"`` (shape ``(K,)``: pseudo-regret and accuracy are then
  computed), ``"optimal_action"`` and ``"user_id"`` (an int: the person of that round);
* a horizon, one rule for ``run()``, the CLI and sweeps: ``run(horizon=T)`` (``--horizon``), else the
  environment's own (``env.unwrapped.horizon``, else ``env.spec.max_episode_steps``), else
  :data:`DEFAULT_HORIZON`; :attr:`EnvDescription.horizon_source` says which;
* optionally ``env.unwrapped.reward_range = (low, high)`` (bounds may be infinite; absent or ``None`` =
  undeclared), ``env.unwrapped.draw_rounds(m)`` (a block of rounds, :class:`dpbandit.envs.rounds.RoundBlock`,
  bit-identical to stepping: the fast path) and ``env.unwrapped.round_bytes`` (memory of one round).

:func:`describe` checks only this and returns what the harness uses (:class:`EnvDescription`); each
error names what is missing, before any round is played. Nothing else of the environment is read.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from dpbandit import _validate

__all__ = [
    "BOOKKEEPING_WRAPPERS",
    "DEFAULT_HORIZON",
    "EnvDescription",
    "EpisodeEnded",
    "check_observation",
    "describe",
    "horizon_phrase",
]

#: The horizon T of a run when neither the run nor the environment gives one [Fill]: the T of the DP-HDB
#: experiment (004_290fd04a1e656565.txt Section 5.4), which the default comparison reproduces.
DEFAULT_HORIZON = 10_000

#: Wrappers ``gymnasium.make`` adds that change neither observations nor rewards: the block fast path
#: (which reads ``env.unwrapped.draw_rounds``) is used only when every wrapper is one of these.
BOOKKEEPING_WRAPPERS = ("TimeLimit", "OrderEnforcing", "PassiveEnvChecker")


class EpisodeEnded(RuntimeError):
    """The environment ended its episode (``terminated`` or ``truncated``) before the run's horizon: a bandit
    is continuing, truncated at the horizon only. Raised by the run, since only playing can tell."""


@dataclass(frozen=True)
class EnvDescription:
    """What the harness needs to know about an environment (see the module docstring).

    Attributes:
        n_arms: K, from ``Discrete(K)``.
        dim: d, the last axis of the observation.
        observation_model: ``"shared"`` (observation ``(d,)``) or ``"per_arm"`` (``(K, d)``).
        horizon: the rounds T one run plays.
        reward_range: ``(low, high)`` as declared (bounds may be infinite), or ``None`` if undeclared.
        block_draws: whether ``env.unwrapped.draw_rounds`` gives the rounds the agent would see.
        round_bytes: approximate bytes of one round (the env's ``round_bytes``, else the observation and
            two ``K``-vectors in float64).
        name: a label for results: the environment's registered id, else its class name.
        horizon_source: where T comes from: ``"given"`` (the run's ``horizon``), ``"env.unwrapped.horizon"``
            or ``"env.spec.max_episode_steps"`` (the environment's own), or ``"default"``
            (:data:`DEFAULT_HORIZON`: the environment declares none); :func:`horizon_phrase` words it.
    """

    n_arms: int
    dim: int
    observation_model: Literal["shared", "per_arm"]
    horizon: int
    reward_range: tuple[float, float] | None
    block_draws: bool
    round_bytes: int
    name: str
    horizon_source: str = "given"

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """``(d,)`` for a shared context, ``(K, d)`` for per-arm features."""
        return (self.dim,) if self.observation_model == "shared" else (self.n_arms, self.dim)

    @property
    def finite_reward_range(self) -> tuple[float, float] | None:
        """The declared reward range if both bounds are finite (what agents are given), else ``None``."""
        if self.reward_range is None or not all(map(math.isfinite, self.reward_range)):
            return None
        return self.reward_range


def _n_arms(env: Any) -> int:
    from gymnasium import spaces

    space = getattr(env, "action_space", None)
    if not isinstance(space, spaces.Discrete) or int(space.n) < 2 or int(space.start) != 0:
        raise TypeError(
            "Expected env.action_space to be gymnasium.spaces.Discrete(K) with K >= 2 arms numbered from 0, "
            f"got {space!r}."
        )
    return int(space.n)


def _observation(env: Any, n_arms: int) -> tuple[Literal["shared", "per_arm"], int]:
    from gymnasium import spaces

    space = getattr(env, "observation_space", None)
    if not isinstance(space, spaces.Box):
        raise TypeError(
            "Expected env.observation_space to be a gymnasium.spaces.Box of shape (d,) or (K, d), got "
            f"{space!r}."
        )
    shape = tuple(int(s) for s in space.shape)
    if len(shape) == 1 and shape[0] >= 1:
        return "shared", shape[0]
    if len(shape) == 2 and shape[0] == n_arms and shape[1] >= 1:
        return "per_arm", shape[1]
    raise ValueError(
        "Expected env.observation_space of shape (d,) (a context shared by the arms) or (K, d) = "
        f"({n_arms}, d) (one feature row per arm), got shape {shape}."
    )


def _horizon(env: Any, horizon: int | None) -> tuple[int, str]:
    """``horizon`` (checked against what the environment declares), else the environment's own, else
    :data:`DEFAULT_HORIZON`; with its source (:attr:`EnvDescription.horizon_source`)."""
    declared = getattr(env.unwrapped, "horizon", None)
    source = "env.unwrapped.horizon"
    if declared is None:
        declared = getattr(getattr(env, "spec", None), "max_episode_steps", None)
        source = "env.spec.max_episode_steps"
    if declared is not None:
        declared = _validate.integer(**{source: declared}, minimum=1)
    if horizon is None:
        return (DEFAULT_HORIZON, "default") if declared is None else (declared, source)
    horizon = _validate.integer(horizon=horizon, minimum=1)
    if declared is not None and declared < horizon:
        raise ValueError(
            f"Expected horizon={horizon} to be at most the environment's own ({source} = {declared}): it "
            "ends its episode there; pass a smaller horizon or build the environment with a longer one."
        )
    return horizon, "given"


def _reward_range(env: Any) -> tuple[float, float] | None:
    declared = getattr(env.unwrapped, "reward_range", None)
    if declared is None:
        return None
    try:
        low, high = (float(v) for v in declared)
    except (TypeError, ValueError):
        raise TypeError(
            "Expected env.unwrapped.reward_range to be a (low, high) pair of numbers or None, got "
            f"{declared!r}."
        ) from None
    if math.isnan(low) or math.isnan(high) or not low < high:
        raise ValueError(
            f"Expected env.unwrapped.reward_range (low, high) with low < high, got {declared!r}."
        )
    return low, high


def _block_draws(env: Any) -> bool:
    """Whether ``env.unwrapped.draw_rounds`` gives what stepping ``env`` gives (no wrapper in between
    changes observations or rewards)."""
    if not callable(getattr(env.unwrapped, "draw_rounds", None)):
        return False
    layer = env
    while layer is not env.unwrapped:
        if type(layer).__name__ not in BOOKKEEPING_WRAPPERS:
            return False
        layer = layer.env
    return True


def _round_bytes(env: Any, n_arms: int, observation_shape: tuple[int, ...]) -> int:
    offered = getattr(env.unwrapped, "round_bytes", None)
    if isinstance(offered, numbers.Integral) and offered > 0:
        return int(offered)
    return 8 * (math.prod(observation_shape) + 2 * n_arms)


def describe(env: Any, horizon: int | None = None) -> EnvDescription:
    """Check ``env`` against the protocol (module docstring) and describe it; raise naming the problem.

    ``horizon``: the rounds a run will play (``None``: the environment's own, else :data:`DEFAULT_HORIZON`).
    The environment is not reset or stepped.
    """
    import gymnasium

    if not isinstance(env, gymnasium.Env):
        raise TypeError(f"Expected env to be a gymnasium.Env, got {type(env).__name__}.")
    n_arms = _n_arms(env)
    model, dim = _observation(env, n_arms)
    shape = (dim,) if model == "shared" else (n_arms, dim)
    spec = getattr(env, "spec", None)
    horizon, source = _horizon(env, horizon)
    return EnvDescription(
        n_arms=n_arms,
        dim=dim,
        observation_model=model,
        horizon=horizon,
        reward_range=_reward_range(env),
        block_draws=_block_draws(env),
        round_bytes=_round_bytes(env, n_arms, shape),
        name=spec.id if spec is not None and spec.id else type(env.unwrapped).__name__,
        horizon_source=source,
    )


def horizon_phrase(description: EnvDescription, given: str = "horizon=") -> str:
    """Where T comes from, for the line printed before a job: ``"T from horizon="`` (``given`` names the
    option), ``"T: the environment's own (env.unwrapped.horizon)"`` or ``"T: the default, 10,000 (the
    environment declares none)"``."""
    if description.horizon_source == "given":
        return f"T from {given}"
    if description.horizon_source == "default":
        return f"T: the default, {DEFAULT_HORIZON:,} (the environment declares none)"
    return f"T: the environment's own ({description.horizon_source})"


def check_observation(observation: Any, description: EnvDescription, where: str = "reset") -> np.ndarray:
    """The observation of ``where`` as an array; raise unless it has the declared shape."""
    array = np.asarray(observation)
    if array.shape != description.observation_shape:
        raise ValueError(
            f"Expected the observation of env.{where}() to have the observation_space shape "
            f"{description.observation_shape}, got {array.shape}."
        )
    return array
