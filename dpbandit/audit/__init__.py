"""Empirical privacy audits: a layer above ``privacy``, ``optim`` and ``agents`` (docs/privacy.md).

* :mod:`.core`: the machinery (``AuditCase``, ``register``, ``audit``, Clopper-Pearson lower bounds on
  epsilon);
* :mod:`.mechanisms`: the privacy core's mechanisms (samplers, tree, selection), each with a broken twin;
* :mod:`.agents`: the private agents' own noise (DP-POFW selection, DP-UCB's tree, DP-HDB's compiled path);
* :mod:`.optimizers`: the private optimizers' own noise (DP-TOFW, Accelerated-DP-SRGD, KL, nonsmooth oracles);
* :mod:`.fliphat`: FLIPHAT's peeling release;
* :mod:`.dphdb_variants`: DP-HDB's exponential-mechanism selection and the batched DP-HDB's releases;
* :mod:`.batched_agents`: the batched agents' Gaussian release (BatchedScreening) and exponential top-k
  selection (BatchedPeeling);
* :mod:`.whole_agents`: end-to-end joint-DP audits of every batched agent (neighbouring streams, the other
  users' later actions).

Case modules register their cases on import; :func:`load_cases` imports them.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from dpbandit.audit.core import (
    AuditCase,
    AuditResult,
    audit,
    audit_many,
    clopper_pearson,
    epsilon_lower_bound,
    gaussian_power,
    make_case,
    register,
    registered,
)

#: Modules registering the built-in cases (all of them run by default in ``sims/privacy_audit.py``).
CASE_MODULES = (
    "dpbandit.audit.mechanisms",
    "dpbandit.audit.agents",
    "dpbandit.audit.optimizers",
    "dpbandit.audit.fliphat",
    "dpbandit.audit.dphdb_variants",
    "dpbandit.audit.batched_agents",
    "dpbandit.audit.whole_agents",
)

__all__ = [
    "CASE_MODULES",
    "AuditCase",
    "AuditResult",
    "audit",
    "audit_many",
    "clopper_pearson",
    "epsilon_lower_bound",
    "gaussian_power",
    "load_cases",
    "make_case",
    "register",
    "registered",
]


def load_cases(modules: Iterable[str] = CASE_MODULES) -> list[str]:
    """Import the case modules (registering their cases); returns the sorted registered names."""
    for module in modules:
        importlib.import_module(module)
    return sorted(registered())
