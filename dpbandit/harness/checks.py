"""Checks of :func:`dpbandit.harness.run`'s inputs, all made before the first round is played."""

from __future__ import annotations

import ast
import inspect
import math
import pickle
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dpbandit import _validate
from dpbandit.agents.base import Agent

if TYPE_CHECKING:  # pragma: no cover
    from dpbandit.harness.protocol import EnvDescription

__all__ = ["accepts_keyword", "check_agents", "check_main_guard", "check_memory"]

_EXAMPLE = "e.g. {'LinUCB': LinUCB, 'tuned': functools.partial(LinUCB, alpha=0.5)}"


def check_agents(agents: Any, n_jobs: int) -> dict[str, Callable[..., Agent]]:
    """Return ``agents`` as a dict of display name -> factory; raise naming ``agents`` otherwise.

    A factory is an :class:`Agent` subclass, a ``functools.partial`` of one, or any callable
    returning an agent. Agent *instances* are refused (each run builds fresh agents from the
    factory, with its own generator), and so is a list of classes (runs need display names). With
    ``n_jobs > 1`` every factory must pickle, since runs go to worker processes.
    """
    if isinstance(agents, Agent) or (isinstance(agents, type) and issubclass(agents, Agent)):
        name = type(agents).__name__ if isinstance(agents, Agent) else agents.__name__
        raise TypeError(
            f"Expected agents to map display names to agent classes or factories ({_EXAMPLE}), "
            f"got the single {'instance' if isinstance(agents, Agent) else 'class'} {name}; "
            f"pass {{'{name}': {name}}}."
        )
    if not isinstance(agents, Mapping):
        raise TypeError(
            f"Expected agents to be a mapping of display name -> agent class or factory "
            f"({_EXAMPLE}), got {type(agents).__name__}."
        )
    if not agents:
        raise ValueError("Expected at least one agent in agents={}.")
    out: dict[str, Callable[..., Agent]] = {}
    for name, factory in agents.items():
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"Expected every key of agents to be a non-empty display name, got {name!r}.")
        if isinstance(factory, Agent):
            cls = type(factory).__name__
            raise TypeError(
                f"Expected agents[{name!r}] to be an agent class or factory, got an instance of "
                f"{cls}; pass the class {cls} (or functools.partial({cls}, ...)): every run "
                f"builds a fresh agent with its own generator."
            )
        if not callable(factory):
            raise TypeError(f"Expected agents[{name!r}] to be an agent class or factory, got {factory!r}.")
        if n_jobs > 1:
            try:
                pickle.dumps(factory)
            except Exception as err:  # noqa: BLE001  (pickling can fail in many ways)
                raise TypeError(
                    f"Expected agents[{name!r}] to be picklable for n_jobs={n_jobs} (worker "
                    f"processes): {err}. Define it at module level, or use n_jobs=1."
                ) from None
        out[name] = factory
    return out


def _takes(function: Callable[..., Any], name: str) -> bool | None:
    """True: a parameter ``name``; None: only ``**kwargs``; False: neither."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):  # no signature (a builtin): assume it takes the keyword
        return True
    if name in parameters:
        return True
    return None if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()) else False


def accepts_keyword(factory: Callable[..., Any], name: str) -> bool:
    """Whether ``factory(..., name=value)`` is accepted: a parameter ``name``, or ``**kwargs``.

    For a class (or a ``functools.partial`` of one) whose ``__init__`` takes ``**kwargs``, the keyword is
    accepted if the next ``__init__`` up the class hierarchy accepts it (``**kwargs`` passed on to
    ``super().__init__``), so an agent is never handed a keyword its base class would refuse.
    """
    if name in (getattr(factory, "keywords", None) or {}):
        return True
    target = getattr(factory, "func", factory)
    if not isinstance(target, type):
        return _takes(factory, name) is not False
    for cls in target.__mro__:
        init = cls.__dict__.get("__init__")
        if init is None or cls is object:
            continue
        takes = _takes(init, name)
        if takes is not None:
            return takes
    return False


def check_memory(env: EnvDescription, block_elements: int, n_jobs: int) -> None:
    """Raise before any work if ``n_jobs`` runs at once would not fit in the free memory.

    One run holds a block of rounds of the environment (``env.round_bytes`` each, as many rounds as
    ``block_elements`` float64 observation elements hold), that block of agent observations and six
    float64 arrays of length T (per-round regret, reward, optimal arm and their sums). The environment's
    own buffers and the agents' state are not counted (the environment checks its own size).
    """
    rounds = max(1, block_elements // math.prod(env.observation_shape))
    env_bytes = env.round_bytes * min(rounds, env.horizon) + 8 * block_elements
    per_run = env_bytes + 48 * env.horizon
    sizes = f"dim={env.dim} x n_arms={env.n_arms}"
    if env_bytes < 48 * env.horizon:
        sizes = f"horizon={env.horizon}"
    _validate.fits_in_memory(per_run * n_jobs, because=f"{sizes} (with n_jobs={n_jobs} runs at once)")


def _guards(node: ast.stmt) -> bool:
    """Whether a top-level statement is an ``if`` testing ``__name__`` (``if __name__ == "__main__":``)."""
    return isinstance(node, ast.If) and any(
        isinstance(n, ast.Name) and n.id == "__name__" for n in ast.walk(node.test)
    )


def check_main_guard(what: str, instead: str = "use n_jobs=1") -> None:
    """Raise before any work if ``what`` (worker processes) is called from a script's top-level code outside
    ``if __name__ == "__main__":``; the one-line error names the guard, the line, and ``instead``.

    Worker processes start with ``spawn``, which imports the main script again in every worker (as
    ``__mp_main__``): an unguarded call would start the job again there, and the pool break with a
    traceback per worker. The call is found as the line the main module's top-level code is executing,
    and the guard as a top-level ``if`` on ``__name__`` around that line (the script's source, read with
    ``ast``). Interactive sessions and piped code (no script file) are not re-imported and pass.
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    frame = sys._getframe(1)
    while frame is not None and not (frame.f_globals is vars(main) and frame.f_code.co_name == "<module>"):
        frame = frame.f_back
    if path is None or frame is None:
        return
    try:
        tree = ast.parse(Path(path).read_text(), filename=path)
    except (OSError, SyntaxError, ValueError):
        return
    line = frame.f_lineno
    if any(_guards(node) and node.lineno <= line <= (node.end_lineno or line) for node in tree.body):
        return
    raise RuntimeError(
        f"{what} starts worker processes, which re-import {Path(path).name}: put the script's work under "
        f'`if __name__ == "__main__":` (line {line} is outside it), or {instead}.'
    )
