"""Build the environment of a run from what the user gave: a registered id, ``"module:EnvId-v0"``, an entry
point ``"package.module:ClassName"``, or a ``gymnasium.Env`` subclass / function returning an Env.

Every run builds a fresh environment and resets it with its own seed (:mod:`dpbandit.harness.seeding`),
so an Env *instance* is refused: pass its class, ``functools.partial(MyEnv, ...)`` or ``lambda: MyEnv(...)``.
The environment is built with ``env_kwargs`` as keyword arguments, plus ``horizon=T`` when the run has a
horizon and the constructor takes a ``horizon`` keyword (a ``horizon`` parameter, or ``**kwargs``), as for
agents; otherwise the environment keeps its own horizon and :func:`dpbandit.harness.protocol.describe`
checks that it is long enough. ``env_kwargs["horizon"]`` is the environment's horizon when ``horizon`` is
not given; both given must agree.
"""

from __future__ import annotations

import importlib
import pickle
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpbandit import _validate
from dpbandit.harness.catalogue import nearest
from dpbandit.harness.checks import accepts_keyword

__all__ = ["EnvSource", "check_env_source", "make_env", "takes_horizon"]

EnvSource = Any
"""A registered id, ``"module:EnvId-v0"``, ``"package.module:ClassName"``, or a callable returning an Env."""


@dataclass(frozen=True)
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
        try:
            module = importlib.import_module(module_name)
        except ImportError as err:
            raise ValueError(
                f"Expected env={env!r} to name an importable module: {err} (modules are looked up on "
                f"sys.path, to which the `dpbandit` command adds the current folder, {Path.cwd()}: run it "
                "from the module's folder, install the module, or set PYTHONPATH)."
            ) from None
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
            f"{cls}(...)): every run resets a fresh environment with its own seed."
        )
    if not callable(env):
        raise TypeError(
            "Expected env to be a registered id, 'module:EnvId-v0', 'package.module:ClassName', an Env "
            f"class or a function returning an Env, got {type(env).__name__} {env!r}."
        )
    return _Resolved(None, env, {})


def takes_horizon(env: EnvSource) -> bool:
    """Whether the environment is built with the run's horizon (its constructor takes ``horizon``)."""
    resolved = _resolve(env)
    return "horizon" in resolved.spec_kwargs or accepts_keyword(resolved.creator, "horizon")


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
    import gymnasium

    if env_kwargs is not None and not isinstance(env_kwargs, Mapping):
        raise TypeError(
            f"Expected env_kwargs to be a mapping of keyword -> value, got {type(env_kwargs).__name__}."
        )
    kwargs = dict(env_kwargs or {})
    resolved = _resolve(env)
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
        return gymnasium.make(resolved.env_id, disable_env_checker=True, **kwargs)
    made = resolved.creator(**kwargs)
    if not isinstance(made, gymnasium.Env):
        raise TypeError(f"Expected env={env!r} to build a gymnasium.Env, got {type(made).__name__}.")
    return made
