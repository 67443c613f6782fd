"""Bandit agents: the :class:`Agent` contract, reference agents and private agents.

``AGENTS`` maps the short names used by the CLI and sweep configs to ``"module:Class"``;
:func:`agent_class` imports lazily so that importing the package stays cheap. Specs with options
(``"linucb:alpha=0.5"``) are parsed by :mod:`dpbandit.agents.specs`, for the CLI and sweeps alike;
third-party ``predict`` / ``partial_fit`` bandits plug in through :mod:`dpbandit.agents.sklearn_adapter`.
"""

from __future__ import annotations

import difflib
import importlib

from dpbandit.agents.base import Agent

AGENTS: dict[str, str] = {
    "random": "dpbandit.agents.uniform:RandomAgent",
    "random-perarm": "dpbandit.agents.uniform:RandomPerArmAgent",
    "linucb": "dpbandit.agents.linear:LinUCB",
    "greedy": "dpbandit.agents.linear:GreedyLeastSquares",
    # LinUCB with a diagonal Gram: the non-private reference at large d (d = 5000, K = 10)
    "linucb-diag": "dpbandit.agents.diagonal:DiagonalLinUCB",
    "shared-linucb": "dpbandit.agents.linear:SharedLinUCB",
    "oful": "dpbandit.agents.linear:OFUL",
    # context-free multi-armed references (issue 40 item 3: the plain Bernoulli bandit)
    "ucb1": "dpbandit.agents.mab:UCB1",
    "thompson": "dpbandit.agents.mab:BernoulliThompson",
    "dphdb": "dpbandit.agents.dphdb:DPHDB",
    # DP-UCB (Shariff-Sheffet 2018): the single-parameter agent (per-arm environments; on shared-context
    # environments the harness feeds it block features e_a kron x_t), the same class under the name of
    # that block-feature variant (the authors' Figure 5.1 baseline), and one tree per arm instead
    "dpucb": "dpbandit.agents.dpucb:DPUCB",
    "dpucb-block": "dpbandit.agents.dpucb:DPUCB",
    "dpucb-disjoint": "dpbandit.agents.dpucb_disjoint:DisjointDPUCB",
    # the authors' DP-HDB code replicated as a labelled reference: NOT differentially private
    "dphdb-authors-code": "dpbandit.agents.dphdb_replica:DPHDBAuthorsCode",
    "batched-screening": "dpbandit.agents.batched.screening:BatchedScreening",
    "batched-screening-perarm": "dpbandit.agents.batched.screening:BatchedScreeningPerArm",
    "batched-ridge": "dpbandit.agents.batched.ridge:BatchedRidge",
    "batched-ridge-perarm": "dpbandit.agents.batched.ridge:BatchedRidgePerArm",
    "batched-peeling": "dpbandit.agents.batched.peeling:BatchedPeeling",
    "batched-peeling-perarm": "dpbandit.agents.batched.peeling:BatchedPeelingPerArm",
    "fliphat": "dpbandit.agents.batched.fliphat:FLIPHAT",
    "fliphat-disjoint": "dpbandit.agents.batched.fliphat:FLIPHATDisjoint",
    "dphdb-batched": "dpbandit.agents.batched.frankwolfe:BatchedDPHDB",
    # the recommended private agent (issue 23): one name for every setting
    "private": "dpbandit.agents.batched.private:PrivateAgent",
    "private-perarm": "dpbandit.agents.batched.private:PrivateAgentPerArm",
    # the simple reference (issue 29): uniform exploration, one release of the per-arm reward sums, best arm
    "private-etc": "dpbandit.agents.batched.etc:PrivateExploreThenCommit",
    # other trust models (issue 30): local DP (Zheng et al. 2020) and the shuffle model (Chowdhury-Zhou 2022),
    # shared-parameter (per-arm features) and disjoint (shared context, one model per arm) forms
    "ldp-linucb": "dpbandit.agents.trust.local:LocalLinUCB",
    "ldp-linucb-disjoint": "dpbandit.agents.trust.local:LocalLinUCBDisjoint",
    "shuffle-linucb": "dpbandit.agents.trust.shuffle:ShuffleLinUCB",
    "shuffle-linucb-disjoint": "dpbandit.agents.trust.shuffle:ShuffleLinUCBDisjoint",
    "shuffle-vec-linucb": "dpbandit.agents.trust.shuffle:ShuffleVecLinUCB",
    # issue 37: local and shuffle GLM bandits from the public code of Han, Liang, Wang and Zhang (NeurIPS 2021):
    # LDP-SGD (l2-ball randomised gradients, pure epsilon) and its shuffle form (ours)
    "ldp-sgd": "dpbandit.agents.trust.sgd:LocalSGD",
    "ldp-sgd-disjoint": "dpbandit.agents.trust.sgd:LocalSGDDisjoint",
    "shuffle-sgd": "dpbandit.agents.trust.sgd:ShuffleSGD",
    "shuffle-sgd-disjoint": "dpbandit.agents.trust.sgd:ShuffleSGDDisjoint",
    # Zheng et al.'s local GLM agent as Han et al.'s code runs it (a baseline; theta_h projected by default)
    "ldp-gloc": "dpbandit.agents.trust.gloc:LocalGLOC",
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
