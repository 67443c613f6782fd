"""Bandit agents: the :class:`Agent` contract, reference agents and private agents.

``AGENTS`` maps the short names used by the CLI and sweep configs to ``"module:Class"``;
:func:`agent_class` imports lazily so that importing the package stays cheap.
"""

from __future__ import annotations

import difflib
import importlib

from dpbandit.agents.base import Agent

AGENTS: dict[str, str] = {
    "random": "dpbandit.agents.uniform:RandomAgent",
    "linucb": "dpbandit.agents.linear:LinUCB",
    "greedy": "dpbandit.agents.linear:GreedyLeastSquares",
    "shared-linucb": "dpbandit.agents.linear:SharedLinUCB",
    "oful": "dpbandit.agents.linear:OFUL",
    "dphdb": "dpbandit.agents.dphdb:DPHDB",
    "dpucb": "dpbandit.agents.dpucb:DPUCB",
    "dphdb-authors-code": "dpbandit.agents.dphdb_replica:DPHDBAuthorsCode",
}


def agent_class(name: str) -> type[Agent]:
    """Return the agent class registered under ``name`` (e.g. ``"linucb"``)."""
    if name not in AGENTS:
        close = difflib.get_close_matches(name, AGENTS, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ValueError(f"Unknown agent={name!r}; known agents: {', '.join(AGENTS)}.{hint}")
    module, _, cls = AGENTS[name].partition(":")
    return getattr(importlib.import_module(module), cls)


__all__ = ["AGENTS", "Agent", "agent_class"]
