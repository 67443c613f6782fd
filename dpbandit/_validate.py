"""Central input validators: every public constructor checks its arguments here.

Each helper takes exactly one keyword argument, so the error names the parameter::

    >>> positive(epsilon=-1.0)
    Traceback (most recent call last):
    ValueError: Expected epsilon > 0, got epsilon=-1.0.

Validators return the (converted) value so they can be used inline. No ``assert`` is
used on user input (``python -O`` strips asserts).
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import math
import numbers
import os
from collections.abc import Callable, Collection, Iterable
from typing import Any

import numpy as np

__all__ = [
    "accepted_keywords",
    "available_memory",
    "finite",
    "finite_array",
    "fits_in_memory",
    "import_module",
    "integer",
    "known_keywords",
    "nonnegative",
    "norm_index",
    "one_of",
    "positive",
    "probability",
    "rng",
]


def _single(kwargs: dict[str, Any]) -> tuple[str, Any]:
    if len(kwargs) != 1:
        raise TypeError("validators take exactly one keyword argument: name=value")
    return next(iter(kwargs.items()))


def _real(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"Expected {name} to be a real number, got {type(value).__name__} {value!r}.")
    value = float(value)
    if math.isnan(value):
        raise ValueError(f"Expected {name} to be a number, got {name}=nan.")
    return value


def finite(**kwargs: Any) -> float:
    """Return the value as float; raise unless it is a finite real number."""
    name, value = _single(kwargs)
    value = _real(name, value)
    if not math.isfinite(value):
        raise ValueError(f"Expected {name} to be finite, got {name}={value}.")
    return value


def positive(*, allow_inf: bool = False, **kwargs: Any) -> float:
    """Return the value as float; raise unless it is > 0 (and finite unless ``allow_inf``)."""
    name, value = _single(kwargs)
    value = _real(name, value)
    if not value > 0 or (math.isinf(value) and not allow_inf):
        bound = "> 0" if allow_inf else "finite and > 0"
        raise ValueError(f"Expected {name} {bound}, got {name}={value}.")
    return value


def nonnegative(**kwargs: Any) -> float:
    """Return the value as float; raise unless it is finite and >= 0."""
    name, value = _single(kwargs)
    value = finite(**{name: value})
    if value < 0:
        raise ValueError(f"Expected {name} >= 0, got {name}={value}.")
    return value


def probability(*, open_interval: bool = True, **kwargs: Any) -> float:
    """Return the value as float; raise unless it lies in (0, 1) (or [0, 1])."""
    name, value = _single(kwargs)
    value = _real(name, value)
    ok = 0.0 < value < 1.0 if open_interval else 0.0 <= value <= 1.0
    if not ok:
        interval = "(0, 1)" if open_interval else "[0, 1]"
        raise ValueError(f"Expected {name} in {interval}, got {name}={value}.")
    return value


def integer(*, minimum: int | None = None, maximum: int | None = None, **kwargs: Any) -> int:
    """Return the value as int; raise unless it is an integer within [minimum, maximum]."""
    name, value = _single(kwargs)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"Expected {name} to be an integer, got {type(value).__name__} {value!r}.")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"Expected {name} >= {minimum}, got {name}={value}.")
    if maximum is not None and value > maximum:
        raise ValueError(f"Expected {name} <= {maximum}, got {name}={value}.")
    return value


def norm_index(**kwargs: Any) -> float:
    """Return an l_p norm index p in [1, inf] as float (``inf`` allowed, also as the string "inf")."""
    name, value = _single(kwargs)
    if isinstance(value, str) and value.lower() in {"inf", "infinity"}:
        return math.inf
    value = _real(name, value)
    if not value >= 1.0:
        raise ValueError(f"Expected {name} in [1, inf], got {name}={value}.")
    return value


def one_of(choices: Any, **kwargs: Any) -> Any:
    """Return the value if it is one of ``choices``; raise naming the parameter and the choices."""
    name, value = _single(kwargs)
    choices = tuple(choices)
    if value not in choices:
        raise ValueError(f"Unknown {name}={value!r}; expected one of {', '.join(map(repr, choices))}.")
    return value


def rng(**kwargs: Any) -> np.random.Generator:
    """Return the value if it is a ``numpy.random.Generator``; a missing generator is an error.

    dpbandit never falls back to global or clock-seeded randomness: pass
    ``numpy.random.default_rng(seed)`` or a generator spawned from a ``SeedSequence``.
    """
    name, value = _single(kwargs)
    if not isinstance(value, np.random.Generator):
        raise TypeError(
            f"Expected {name} to be a numpy.random.Generator (e.g. numpy.random.default_rng(seed)), "
            f"got {type(value).__name__}."
        )
    return value


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (Linux ``MemAvailable``), ``None`` if unknown."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def fits_in_memory(nbytes: float, *, because: str) -> None:
    """Raise ``ValueError`` before any work starts if ``nbytes`` exceed the available memory.

    ``because`` names the parameters that set the size, e.g. ``"dim=1000000000 x n_arms=5"``.
    """
    available = available_memory()
    if available is not None and nbytes > available:
        gib = 2.0**30
        raise ValueError(
            f"Expected {because} to fit in memory: they need about {nbytes / gib:,.1f} GiB, "
            f"but only {available / gib:,.1f} GiB are available; reduce them."
        )


def finite_array(*, shape: tuple[int, ...] | None = None, **kwargs: Any) -> np.ndarray:
    """Return the value as a float64 array; raise unless it has ``shape`` (if given) and is all finite."""
    name, value = _single(kwargs)
    array = np.asarray(value, dtype=float)
    if shape is not None and array.shape != tuple(shape):
        raise ValueError(f"Expected {name} of shape {tuple(shape)}, got {array.shape}.")
    if not np.all(np.isfinite(array)):
        bad = np.flatnonzero(~np.isfinite(array.ravel()))
        raise ValueError(
            f"Expected {name} to be finite, got {array.ravel()[bad[0]]} at flat index {bad[0]} "
            f"({bad.size} non-finite entries)."
        )
    return array


def _named(parameters: Iterable[inspect.Parameter]) -> set[str]:
    """The keyword-passable parameter names."""
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    skipped = (*variadic, inspect.Parameter.POSITIONAL_ONLY)
    return {p.name for p in parameters if p.kind not in skipped}


def accepted_keywords(factory: Callable[..., Any], exclude: Collection[str] = ()) -> set[str] | None:
    """The keywords ``factory(...)`` takes, less ``exclude`` (``None``: any keyword).

    For a class, an ``__init__`` taking ``**kwargs`` passes them up the class hierarchy
    (``super().__init__(**kwargs)``), so its keywords are its own plus those of the next ``__init__`` up the
    MRO; or, when the class names where they go in a class attribute ``forwards_options_to`` (a callable, e.g.
    a dataclass), that callable's. ``None`` only when nothing closes the list (a factory taking any keyword).
    A ``functools.partial``'s bound keywords stay accepted (they may be overridden).
    """
    target = getattr(factory, "func", factory)
    bound = set(getattr(factory, "keywords", None) or ())
    functions = [target]
    if isinstance(target, type):
        functions = [k.__dict__["__init__"] for k in target.__mro__ if "__init__" in k.__dict__]
    found: set[str] = set()
    for function in functions:
        if function is object.__init__:
            break
        try:
            parameters = inspect.signature(function).parameters.values()
        except (TypeError, ValueError):  # no signature (a builtin): any keyword
            return None
        found |= _named(parameters)
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
            return (found | bound) - set(exclude)
        forwarded = getattr(target, "forwards_options_to", None) if isinstance(target, type) else None
        if forwarded is not None:
            rest = accepted_keywords(forwarded)
            return None if rest is None else (found | rest | bound) - set(exclude)
    return None


def known_keywords(
    given: Iterable[str], accepted: Collection[str] | None, *, what: str, noun: str = "option"
) -> None:
    """Raise ``ValueError`` if a keyword of ``given`` is not ``accepted`` (``None``: any is): one line naming
    the unknown ones, ``what`` refuses them, every accepted one and the nearest to the first unknown.

    >>> known_keywords(["alph"], {"alpha", "beta"}, what="agent 'linucb'")
    Traceback (most recent call last):
    ValueError: Unknown option(s) ['alph'] for agent 'linucb'; it accepts: alpha, beta. Did you mean 'alpha'?
    """
    if accepted is None:
        return
    unknown = [k for k in given if k not in accepted]
    if not unknown:
        return
    close = difflib.get_close_matches(unknown[0], sorted(accepted), n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    known = ", ".join(sorted(accepted)) or f"no {noun}s"
    raise ValueError(f"Unknown {noun}(s) {unknown} for {what}; it accepts: {known}.{hint}")


def import_module(name: str, *, what: str) -> Any:
    """Import the module ``name`` that ``what`` (e.g. ``"env='mymodule:MyBandit'"``) names; raise
    ``ValueError`` saying where modules are looked up if it cannot be imported."""
    try:
        return importlib.import_module(name)
    except ImportError as err:
        raise ValueError(
            f"Expected {what} to name an importable module: {err} (modules are looked up on sys.path, to "
            f"which the `dpbandit` command adds the current folder, {os.getcwd()}: run it from the module's "
            "folder, install the module, or set PYTHONPATH)."
        ) from None
