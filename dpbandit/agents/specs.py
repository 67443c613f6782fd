"""Agent specs: ``"name"`` or ``"name:key=value,key=value"`` -> ``(display name, factory)``.

One parser for the command line (``dpbandit run --agents`` / ``--agent``) and sweep configs
(:mod:`dpbandit.sweep.config`). Names come from the registry :data:`dpbandit.agents.AGENTS`, or name a
user's agent as ``"module:ClassName"`` / ``"module:factory"`` (an :class:`~dpbandit.agents.Agent` subclass,
or a function returning one, found by importing ``module`` from ``sys.path``, to which the ``dpbandit``
command adds the current folder) with options after a second colon:
``"myagents:EpsilonGreedy:explore=0.1"``. After a name that is not registered, the part after the first
colon is a class or function name when it is a Python name (options always hold ``=``). Values
are Python literals when they parse as one (``alpha=0.5`` is a float, ``link='logistic'`` a string),
else plain strings.

A *list* of specs (``--agents``) is split on top-level commas (not inside brackets or quotes), and an
item holding ``=`` but no ``:`` continues the options of the spec before it, so
``"dphdb,linucb:alpha=0.5,regularization=2,random"`` is three agents. Agent names never hold ``=``,
so the grouping is unambiguous.
"""

from __future__ import annotations

import ast
import difflib
import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from dpbandit import _validate
from dpbandit.agents import AGENTS, agent_class
from dpbandit.agents.base import Agent

__all__ = [
    "HARNESS_ARGUMENTS",
    "accepted_options",
    "agent_factory",
    "parse_agent",
    "parse_assignments",
    "split_agent_list",
]


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _split_top_level(text: str) -> list[str]:
    """Split on commas outside brackets and quotes: ``"a=(1, 2),b='x,y'"`` -> ``["a=(1, 2)", "b='x,y'"]``."""
    parts, depth, quote, start = [], 0, "", 0
    for i, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def parse_assignments(items: Sequence[str], what: str) -> dict[str, Any]:
    """Parse ``["a=1", "b=x"]`` into ``{"a": 1, "b": "x"}`` (values as Python literals when possible)."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"Expected {what} entries of the form key=value, got {item!r}.")
        out[key.strip()] = _literal(value.strip())
    return out


#: A Python name, possibly dotted: what follows ``module:`` in a user's agent spec.
_OBJECT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def split_name(spec: str) -> tuple[str, str]:
    """``(name, options text)`` of a spec: ``"linucb:alpha=0.5"`` -> ``("linucb", "alpha=0.5")``,
    ``"mymodule:MyAgent:x=1"`` -> ``("mymodule:MyAgent", "x=1")`` (module docstring)."""
    head, _, rest = spec.strip().partition(":")
    second, _, after = rest.partition(":")
    if head.strip() not in AGENTS and _OBJECT_NAME.fullmatch(second.strip()):
        return f"{head.strip()}:{second.strip()}", after.strip()
    return head.strip(), rest.strip()


def _user_agent(name: str) -> Any:
    """The class or factory ``"module:Name"`` names; raise naming ``name`` if it is not one."""
    module_name, _, attribute = name.partition(":")
    module = _validate.import_module(module_name, what=f"agent {name!r}")
    found = getattr(module, attribute, None)
    if found is None or not callable(found):
        close = difflib.get_close_matches(attribute, [n for n in vars(module) if not n.startswith("_")], n=1)
        hint = f" Did you mean {module_name}:{close[0]}?" if close else ""
        raise ValueError(
            f"Expected agent {name!r} to name an Agent class or a function returning one: {module_name} has "
            f"no {attribute!r}.{hint}"
        )
    if isinstance(found, type) and not issubclass(found, Agent):
        raise TypeError(
            f"Expected agent {name!r} to be a dpbandit.agents.Agent subclass or a function returning an "
            f"Agent, got the class {found.__name__}."
        )
    return found


def split_agent_list(text: str) -> list[str]:
    """Split a list of specs (module docstring): ``"a,b:x=1,y=2"`` -> ``["a", "b:x=1,y=2"]``."""
    specs: list[str] = []
    for item in _split_top_level(text):
        name_part = item.partition(":")[0]
        if "=" in name_part:  # "key=value" (no "name:" before it): an option of the previous spec
            if not specs:
                raise ValueError(f"Expected an agent name before the option {item!r} in --agents={text!r}.")
            sep = "," if split_name(specs[-1])[1] else ":"
            specs[-1] += sep + item
        else:
            specs.append(item)
    if not specs:
        raise ValueError(f"Expected at least one agent name in --agents={text!r}.")
    return specs


#: Constructor arguments the harness sets itself (never agent options).
HARNESS_ARGUMENTS = frozenset({"self", "n_arms", "dim", "rng", "horizon"})


def accepted_options(cls: Any) -> set[str] | None:
    """The options of an agent class or factory, less :data:`HARNESS_ARGUMENTS` (``None``: any keyword;
    :func:`dpbandit._validate.accepted_keywords`)."""
    return _validate.accepted_keywords(cls, HARNESS_ARGUMENTS)


def parse_agent(spec: str, common: Mapping[str, Any] | None = None) -> tuple[str, Any]:
    """Parse ``"name"`` or ``"name:key=value,key=value"`` (``name`` registered, or ``"module:ClassName"``,
    module docstring) into ``(display_name, factory)``.

    ``common`` keyword arguments (e.g. ``epsilon``) go only to agents whose constructor accepts them;
    options in the spec override them. An option the agent does not accept is an error.

    >>> parse_agent("linucb:alpha=0.5")[0]
    'linucb:alpha=0.5'
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"Expected an agent spec 'name[:key=value,...]', got {spec!r}.")
    name, rest = split_name(spec)
    cls = _user_agent(name) if ":" in name else agent_class(name)
    accepted = accepted_options(cls)
    kwargs = {k: v for k, v in (common or {}).items() if accepted is None or k in accepted}
    kwargs.update(parse_assignments(_split_top_level(rest), f"agent {name!r} option"))
    _validate.known_keywords(kwargs, accepted, what=f"agent {name!r}")
    display = spec.strip() if rest else name
    return display, functools.partial(cls, **kwargs) if kwargs else cls


def agent_factory(spec: str, options: Mapping[str, Any], budget: Mapping[str, Any]) -> tuple[str, Any]:
    """:func:`parse_agent` with extra ``options`` (which must all be accepted), as sweep configs give them.

    The budget (``epsilon`` / ``delta``) goes only to agents that accept it; ``options`` override it,
    and options written inside ``spec`` override both.
    """
    display, factory = parse_agent(spec, {**budget, **options})
    unknown = sorted(set(options) - set(getattr(factory, "keywords", {})))
    if unknown:
        raise ValueError(f"Unknown option(s) {unknown} for agent {spec!r}.")
    return display, factory
