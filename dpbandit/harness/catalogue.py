"""What exists: the registered agents and environments (``dpbandit list``), the per-arm form of an agent, and
the nearest known name to a misspelled one.

Everything is read from the registries (:data:`dpbandit.agents.AGENTS`, Gymnasium's registry after
``import dpbandit``) and from the classes themselves (docstring, ``observation_model``, ``trust_model``), so a new
agent or environment appears here with no change to this module.
"""

from __future__ import annotations

import difflib
import inspect
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from dpbandit.agents import AGENTS, agent_class

__all__ = [
    "AgentEntry",
    "EnvEntry",
    "PER_ARM_FORMS",
    "REFERENCES",
    "agent_entries",
    "check_observation_models",
    "env_entries",
    "nearest",
    "per_arm_form",
]

#: The per-arm form of shared-context agents whose per-arm form is not ``<name>-perarm`` [Fill]: the same
#: algorithm with one parameter shared by the arms on per-arm features ``(K, d)``.
PER_ARM_FORMS: dict[str, str] = {
    "linucb": "shared-linucb",
    "dpucb-disjoint": "dpucb",
    "fliphat-disjoint": "fliphat",
}
#: The random reference in its two forms (shared context, per-arm features): either gives ``ratio_to_random``.
REFERENCES: tuple[str, ...] = ("random", "random-perarm")
#: Environment keywords shown by ``dpbandit list`` (the rest of a registered preset is in its kwargs).
SHOWN_KWARGS = ("n_arms", "dim", "horizon", "link", "context_model", "sparsity", "dataset", "sampling")


@dataclass(frozen=True)
class AgentEntry:
    """One registered agent: its name, the first line of its docstring, trust model and observation model."""

    name: str
    description: str
    trust_model: str | None  # None: not private (Agent.trust_model)
    observation_model: str

    @property
    def private(self) -> bool:
        return self.trust_model is not None


@dataclass(frozen=True)
class EnvEntry:
    """One registered environment id with the defaults it is built with."""

    env_id: str
    defaults: dict[str, Any]


#: Longest description ``dpbandit list`` prints (characters; longer ones end in "...").
DESCRIPTION_WIDTH = 100


def _first_sentence(doc: str | None) -> str:
    """The docstring's first sentence on one line, without reST markup, cut at :data:`DESCRIPTION_WIDTH`."""
    text = " ".join((doc or "").strip().split("\n\n")[0].split())
    text = re.sub(r":\w+:`~?([^`]*)`", r"\1", text).replace("``", "").replace("`", "")
    end = re.search(r"(?<!et al)\.(\s|$)", text)  # "Li et al. 2010" does not end a sentence
    text = text if end is None else text[: end.start() + 1]
    return text if len(text) <= DESCRIPTION_WIDTH else text[: DESCRIPTION_WIDTH - 3].rstrip() + "..."


def agent_entries() -> list[AgentEntry]:
    """Every registered agent, in registry order."""
    entries = []
    for name in AGENTS:
        cls = agent_class(name)
        entries.append(AgentEntry(name, _first_sentence(cls.__doc__), cls.trust_model, cls.observation_model))
    return entries


def _constructor_defaults(creator: Any) -> dict[str, Any]:
    try:
        parameters = inspect.signature(creator).parameters
    except (TypeError, ValueError):
        return {}
    return {n: p.default for n, p in parameters.items() if p.default is not inspect.Parameter.empty}


def env_entries(namespace: str = "dpbandit/") -> list[EnvEntry]:
    """Every Gymnasium id under ``namespace`` with its defaults: the constructor's, overridden by the
    registered preset's, restricted to :data:`SHOWN_KWARGS`."""
    import gymnasium
    from gymnasium.envs.registration import load_env_creator

    entries = []
    for env_id, spec in gymnasium.registry.items():
        if not env_id.startswith(namespace):
            continue
        creator = spec.entry_point if callable(spec.entry_point) else load_env_creator(spec.entry_point)
        merged = {**_constructor_defaults(creator), **spec.kwargs}
        entries.append(EnvEntry(env_id, {k: merged[k] for k in SHOWN_KWARGS if merged.get(k) is not None}))
    return entries


def per_arm_form(name: str) -> str | None:
    """The registered per-arm form of agent ``name`` (``None``: it has none, or it is already per-arm)."""
    form = PER_ARM_FORMS.get(name, f"{name}-perarm")
    if form not in AGENTS or agent_class(form).observation_model != "per_arm":
        return None
    return form


def nearest(name: str, known: Iterable[str]) -> str | None:
    """The known name closest to a misspelled ``name`` (difflib), or ``None``."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return close[0] if close else None


def check_observation_models(names: list[str], env: str, observation_model: str) -> None:
    """On per-arm features, refuse the registered agents ``names`` that read one shared context, naming their
    per-arm forms (:func:`per_arm_form`) and a list of agents that fits."""
    if observation_model != "per_arm":
        return
    shared = [name for name in names if agent_class(name).observation_model == "shared"]
    if not shared:
        return
    forms = {name: per_arm_form(name) for name in shared}
    listed = ", ".join(f"{n} -> {f}" if f else f"{n} (no per-arm form)" for n, f in forms.items())
    fitting = [forms.get(n, n) for n in names if forms.get(n, n)]
    suggestion = f"; e.g. --agents {','.join(fitting)}" if fitting else ""
    raise ValueError(
        f"Expected agents for per-arm features: {env} gives one feature row per arm, but "
        f"{', '.join(shared)} read one shared context. Use their per-arm forms ({listed}){suggestion} "
        "(`dpbandit list` shows each agent's observation model)."
    )
