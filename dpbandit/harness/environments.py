"""Build the environment of a run from what the user gave: a registered id, ``"module:EnvId-v0"``, an entry
point ``"package.module:ClassName"``, or a ``gymnasium.Env`` subclass / function returning an Env.

The harness builds the environment itself, so an Env *instance* is refused: pass its class,
``functools.partial(MyEnv, ...)`` or ``lambda: MyEnv(...)``. The environment is built with ``env_kwargs`` as
keyword arguments (checked first against the keywords its constructor takes: a typo is one line naming them
and the nearest), plus ``horizon=T`` when the run has a horizon and the constructor takes a ``horizon``
keyword (a ``horizon`` parameter, or ``**kwargs``), as for agents; otherwise the environment keeps its own
horizon and :func:`dpbandit.harness.protocol.describe` checks that it is long enough.
``env_kwargs["horizon"]`` is the environment's horizon when ``horizon`` is not given; both given must agree.
Without either, a constructor that requires ``horizon`` gets
:data:`~dpbandit.harness.protocol.DEFAULT_HORIZON`.

Inside :func:`reusing_envs` (a job of :func:`dpbandit.harness.run`, and each of its worker processes),
:func:`open_env` builds and describes each environment once and hands the same one to every run, which
resets it with its own seed (:mod:`dpbandit.harness.seeding`): Gymnasium's ``reset(seed=s)`` starts the
same episode whatever was played before, so the numbers are those of a fresh environment per run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import inspect
import pickle
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from dpbandit import _validate
from dpbandit.harness import protocol
from dpbandit.harness.catalogue import nearest
from dpbandit.harness.checks import accepts_keyword

__all__ = ["EnvSource", "check_env_source", "make_env", "open_env", "reusing_envs"]

EnvSource = Any
"""A registered id, ``"module:EnvId-v0"``, ``"package.module:ClassName"``, or a callable returning an Env."""


@dataclasses.dataclass(frozen=True)
class _Resolved:
    env_id: str | None  # a registered id (built with gymnasium.make), or None
    creator: Callable[..., Any]  # the entry point or the user's callable
    spec_kwargs: Mapping[str, Any]


def _registered(env_id: str) -> _Resolved | None:
    import gymnasium
    from gymnasium.envs.registration import load_env_creator

    try:
        spec = gymnasium.spec(env_id)
    except gymnasium.error.Error:
        return None
    try:
        creator = spec.entry_point if callable(spec.entry_point) else load_env_creator(spec.entry_point)
    except (ImportError, AttributeError) as err:
        raise ValueError(
            f"Expected the entry point {spec.entry_point!r} of env_id={env_id!r} to be importable: {err}."
        ) from None
    return _Resolved(spec.id, creator, spec.kwargs)


def _resolve(env: EnvSource) -> _Resolved:
    import gymnasium

    if isinstance(env, str):
        if ":" not in env:
            found = _registered(env)
            if found is None:
                close = nearest(env, gymnasium.registry)
                hint = f" Did you mean {close!r}?" if close else ""
                raise ValueError(
                    f"Unknown env_id={env!r}: not a registered Gymnasium id (give 'module:EnvId-v0' to "
                    "import the module that registers it, or an entry point 'package.module:ClassName'; "
                    f"`dpbandit list` shows the registered ids).{hint}"
                )
            return found
        module_name, _, name = env.partition(":")
        module = _validate.import_module(module_name, what=f"env={env!r}")
        found = _registered(name) if name else None
        if found is not None:
            return found
        creator = getattr(module, name, None) if name else None
        if not callable(creator):
            close = nearest(name, [*vars(module), *gymnasium.registry])
            hint = f" Did you mean {module_name}:{close}?" if close else ""
            raise ValueError(
                f"Expected env={env!r} to be 'module:EnvId-v0' (an id the module registers) or "
                f"'module:ClassName' (an Env class or function of the module): {module_name} has "
                f"neither {name!r}.{hint}"
            )
        return _Resolved(None, creator, {})
    if isinstance(env, gymnasium.Env):
        cls = type(env.unwrapped).__name__
        raise TypeError(
            "Expected env to be a registered id, an Env class or a function returning an Env, got an "
            f"instance of {cls}; pass the class {cls} (or functools.partial({cls}, ...), or lambda: "
            f"{cls}(...)): the harness builds the environment itself and resets it with each run's seed."
        )
    if not callable(env):
        raise TypeError(
            "Expected env to be a registered id, 'module:EnvId-v0', 'package.module:ClassName', an Env "
            f"class or a function returning an Env, got {type(env).__name__} {env!r}."
        )
    return _Resolved(None, env, {})


def _accepted(resolved: _Resolved) -> set[str] | None:
    """The keywords the environment is built with (``None``: any): its creator's, plus ``gymnasium.make``'s
    own for a registered id."""
    accepted = _validate.accepted_keywords(resolved.creator, ("self",))
    if accepted is None or resolved.env_id is None:
        return accepted
    import gymnasium

    own = inspect.signature(gymnasium.make).parameters  # max_episode_steps, ... (disable_env_checker is ours)
    return accepted | (set(own) - {"id", "kwargs", "disable_env_checker"})


def _requires_horizon(resolved: _Resolved) -> bool:
    """Whether the creator has a ``horizon`` parameter without a default that nothing else fills."""
    if "horizon" in resolved.spec_kwargs:
        return False
    try:
        parameter = inspect.signature(resolved.creator).parameters.get("horizon")
    except (TypeError, ValueError):
        return False
    return parameter is not None and parameter.default is inspect.Parameter.empty


def check_env_source(env: EnvSource, n_jobs: int) -> None:
    """Raise naming ``env`` if it is not a usable source, or cannot go to ``n_jobs > 1`` worker processes."""
    _resolve(env)
    if n_jobs > 1 and not isinstance(env, str):
        try:
            pickle.dumps(env)
        except Exception as err:  # noqa: BLE001  (pickling can fail in many ways)
            raise TypeError(
                f"Expected env to be picklable for n_jobs={n_jobs} (worker processes): {err}. Define it "
                "at module level, pass it as 'package.module:ClassName', or use n_jobs=1."
            ) from None


def make_env(env: EnvSource, horizon: int | None = None, env_kwargs: Mapping[str, Any] | None = None) -> Any:
    """A fresh environment from ``env`` (module docstring), built with ``env_kwargs`` (and ``horizon``)."""
    return _make(env, horizon, env_kwargs)[0]


def _make(env: EnvSource, horizon: int | None, env_kwargs: Mapping[str, Any] | None) -> tuple[Any, bool]:
    """:func:`make_env`, and whether it was built with :data:`~dpbandit.harness.protocol.DEFAULT_HORIZON`
    (a constructor that requires ``horizon`` when the run gives none)."""
    import gymnasium

    if env_kwargs is not None and not isinstance(env_kwargs, Mapping):
        raise TypeError(
            f"Expected env_kwargs to be a mapping of keyword -> value, got {type(env_kwargs).__name__}."
        )
    kwargs = dict(env_kwargs or {})
    resolved = _resolve(env)
    label = env if isinstance(env, str) else getattr(resolved.creator, "__name__", repr(resolved.creator))
    _validate.known_keywords(kwargs, _accepted(resolved), what=f"env {label}", noun="keyword")
    defaulted = horizon is None and "horizon" not in kwargs and _requires_horizon(resolved)
    if defaulted:
        kwargs["horizon"] = protocol.DEFAULT_HORIZON
    if horizon is not None:
        horizon = _validate.integer(horizon=horizon, minimum=1)
        if "horizon" in kwargs and kwargs["horizon"] != horizon:
            raise ValueError(
                f"Expected horizon={horizon} and env_kwargs['horizon']={kwargs['horizon']!r} to agree; "
                "give the horizon once."
            )
        if "horizon" in resolved.spec_kwargs or accepts_keyword(resolved.creator, "horizon"):
            kwargs["horizon"] = horizon
    if resolved.env_id is not None:
        return gymnasium.make(resolved.env_id, disable_env_checker=True, **kwargs), defaulted
    made = resolved.creator(**kwargs)
    if not isinstance(made, gymnasium.Env):
        raise TypeError(f"Expected env={env!r} to build a gymnasium.Env, got {type(made).__name__}.")
    return made, defaulted


def _describe(env: EnvSource, horizon: int | None, env_kwargs: Mapping[str, Any] | None) -> tuple[Any, Any]:
    """A fresh environment and its :class:`~dpbandit.harness.protocol.EnvDescription` (the horizon rule of
    :mod:`dpbandit.harness.protocol`)."""
    made, defaulted = _make(env, horizon, env_kwargs)
    if not defaulted:
        return made, protocol.describe(made, horizon)
    described = protocol.describe(made, protocol.DEFAULT_HORIZON)
    return made, dataclasses.replace(described, horizon_source="default")


#: The environments of the current job (:func:`reusing_envs`): key -> (env, description, what the key holds).
_OPEN: dict[tuple, tuple[Any, Any, tuple]] = {}
_DEPTH = [0]


def _key(env: EnvSource, horizon: int | None, env_kwargs: Mapping[str, Any] | None) -> tuple:
    """What identifies one environment of a job: values by equality where they hash (with their type, so
    ``1`` and ``True`` differ), else by their pickled bytes (arrays: the copies each worker task receives
    match), else by identity."""

    def part(value: Any) -> tuple:
        try:
            hash(value)
            return (type(value), value)
        except TypeError:
            pass
        try:
            return ("pickle", hashlib.sha256(pickle.dumps(value)).digest())
        except Exception:  # noqa: BLE001  (pickling can fail in many ways)
            return ("id", id(value))

    return (part(env), horizon, tuple(sorted((k, part(v)) for k, v in (env_kwargs or {}).items())))


@contextlib.contextmanager
def reusing_envs() -> Iterator[None]:
    """Within this block, :func:`open_env` builds and describes each environment once (a job); on leaving
    the outermost block they are closed and forgotten, so the next job reads its data afresh."""
    _DEPTH[0] += 1
    try:
        yield
    finally:
        _DEPTH[0] -= 1
        if _DEPTH[0] == 0:
            close_envs()


def close_envs() -> None:
    """Close and forget the environments :func:`open_env` kept."""
    while _OPEN:
        _OPEN.popitem()[1][0].close()


def keep_envs() -> None:
    """Keep environments for the rest of this process (a worker process's initializer: a worker serves one
    job)."""
    _DEPTH[0] += 1


def open_env(
    env: EnvSource, horizon: int | None = None, env_kwargs: Mapping[str, Any] | None = None
) -> tuple[Any, Any, bool]:
    """The environment of a run and its description, and whether it is kept (then the caller must not close
    it): inside :func:`reusing_envs` built and described once per job, otherwise fresh."""
    if _DEPTH[0] == 0:
        return (*_describe(env, horizon, env_kwargs), False)
    key = _key(env, horizon, env_kwargs)
    if key not in _OPEN:
        made, description = _describe(env, horizon, env_kwargs)
        _OPEN[key] = (made, description, (env, env_kwargs))  # the originals stay alive: ids stay theirs
    made, description, _ = _OPEN[key]
    return made, description, True
