"""End-to-end joint-DP audits of the batched agents (issue 24; cases registered on import).

The cases of :mod:`.batched_agents` drive one release object; these run a whole agent, built from the
registry (every ``dpbandit.agents.batched`` entry of ``dpbandit.agents.AGENTS``), through its public
``play_block`` on two neighbouring input streams, and look only at what joint DP protects: the actions of the
*other* users who come later (the audited user's own action is not part of the output).

Streams (``K = 2`` arms, ``d = 2``, batches of ``BATCH = 32`` rounds: ``first_batch = 32``,
``batch_ratio = 1``):

* batch 0: the audited user first, then 31 fixed users; the ``len(PROBES)`` probe users come after its
  release (the first batch: no earlier release dilutes the audited one). The fixed users and the probes are
  the same in every run and on both sides (fixed environment data); only the agent's own randomness (its
  seed) varies over runs.
* a fixed user: shared context ``x = e_1`` with rewards ``(+1, -1)`` (whichever arm plays it, arm 0 looks
  better along ``e_1``); per-arm features ``X[k] = e_1`` for both arms with reward ``+1`` (the same row
  whichever arm is played, so the fixed data do not depend on the agent's tie-breaking).
* the audited user, far outside every clip so that both neighbours sit at the clips: shared context
  ``x = 10 e_0`` with rewards ``(+10, -10)`` under ``D`` and ``(-10, +10)`` under ``D'`` (whichever arm the
  user plays, their clipped reward flips from ``+B`` to ``-B``; this covers the played arm switching between
  the streams, the action not being an output); per-arm ``X[k] = 10 e_0``, reward ``+10`` vs ``-10``
  (reward at ``+B`` vs ``-B``). A flipped context moves ``sum x r`` in the same way.
* probe ``i``: shared context ``s_i e_0 + e_1`` (per-arm ``X[0] = s_i e_0``, ``X[1] = e_1``) divided by
  ``max(1, s_i)``, with ``s_i`` on a geometric grid (``PROBES``): probe ``i`` goes to arm 0 when ``s_i``
  times the estimate along ``e_0`` beats the fixed users' estimate along ``e_1``, so the **fraction of
  probes assigned to arm 0** (the statistic) is a monotone, finely graded function of the released estimate
  along ``e_0`` relative to that reference. The probes' greedy arms are read from the agent's ``scores``
  (an exact tie, the agent's coin flip, counts 1/2).

The audit (:func:`dpbandit.audit.core.audit`) thresholds the statistic and bounds epsilon from below with
Clopper-Pearson intervals; the claim is the agent's reported epsilon at its delta (``EPSILON = 2``,
``DELTA = 0.01``: a Gaussian mechanism's epsilon at a small delta is attained only on regions of
probability about delta, which a few thousand whole-agent runs cannot resolve; at 0.01 they can).

Variants per agent: ``/calibrated`` (must pass), ``/noise-divided-by-4`` (every noise scale divided by 4
after construction, claim unchanged: Gaussian multiplier / 4, selection epsilons x 4, FLIPHAT's Laplace
multiplier / 4, DP-HDB's exponential-mechanism epsilons x 4; :func:`weaken`) and ``/user-released-twice``
(the audited user's round counted in two batches: batch 0 is played twice, as batches 0 and 1, and the
probes come after the second release, so two releases contain the user). Both copies are expected to be
flagged. Audit options of the agents: ``OPTIONS`` (screening and peeling keep every coordinate,
``threshold = 0``: at d = 2 their thresholds would zero the audited coordinate; peeling selects both).
"""

from __future__ import annotations

import copy
import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from dpbandit.agents import AGENTS, agent_class
from dpbandit.audit.core import AuditCase, register
from dpbandit.privacy.release import BlockGaussianRelease

__all__ = ["AGENT_NAMES", "BATCH", "PROBES", "VARIANTS", "weaken"]

ARMS, DIM, BATCH = 2, 2, 32
EPSILON, DELTA = 2.0, 1e-2
#: Probe scales s_i (geometric: the fraction of probes on arm 0 resolves the estimate's ratio to 2.5%).
PROBES = np.geomspace(1e-3, 1e3, 561)
#: Agent options of the audit: d = 2 needs peeling to select both coordinates (its selection is then trivial
#: and the Gaussian values are audited).
OPTIONS: dict[str, dict[str, Any]] = {
    "batched-screening": {"threshold": 0.0},
    "batched-screening-perarm": {"threshold": 0.0},
    "batched-peeling": {"select": 2, "sparsity": 2, "threshold": 0.0},
    "batched-peeling-perarm": {"select": 2, "sparsity": 2, "threshold": 0.0},
}
VARIANTS = ("calibrated", "noise-divided-by-4", "user-released-twice")
#: Every batched agent of the registry.
AGENT_NAMES = tuple(sorted(n for n, target in AGENTS.items()
                           if target.startswith("dpbandit.agents.batched.")))


def weaken(agent: Any, factor: float) -> None:
    """Divide every noise scale of ``agent`` by ``factor`` in place (its claimed epsilon is unchanged)."""
    done = False
    if isinstance(getattr(agent, "release", None), BlockGaussianRelease):
        agent.release.multiplier /= factor
        done = True
    if hasattr(agent, "selection_epsilon"):
        agent.selection_epsilon *= factor
    budget = getattr(agent, "budget", None)
    if budget is not None and hasattr(budget, "eps_s"):
        budget.eps_s *= factor
        budget.eps_q *= factor
        done = True
    if callable(getattr(agent, "multiplier", None)) and hasattr(agent, "sensitivity"):
        calibrated = agent.multiplier
        agent.multiplier = lambda iterations: calibrated(iterations) / factor
        done = True
    if not done:
        raise NotImplementedError(f"No noise scale known for {type(agent).__name__}: extend weaken().")


@functools.lru_cache(maxsize=64)
def _template(name: str) -> Any:
    return agent_class(name)(ARMS, DIM, rng=np.random.default_rng(0), horizon=3 * BATCH + len(PROBES),
                             epsilon=EPSILON, delta=DELTA, first_batch=BATCH, batch_ratio=1.0,
                             **OPTIONS.get(name, {}))


def _agent(name: str, rng: np.random.Generator, factor: float) -> Any:
    """A fresh agent whose randomness is ``rng``, noise scales divided by ``factor``: a copy of one built
    agent with its streams spawned from ``rng`` as ``BatchedAgent.__init__`` does (some constructors
    calibrate for tens of milliseconds)."""
    agent = copy.deepcopy(_template(name))
    agent.rng = rng
    agent.noise_rng, agent._tie_rng = rng.spawn(2)
    if factor != 1.0:
        weaken(agent, factor)
    return agent


def _streams(per_arm: bool, sign: float, twice: bool) -> tuple[np.ndarray, np.ndarray]:
    """Contexts and every arm's rewards of the released batches (module docstring); audited reward sign."""
    e0, e1 = np.eye(DIM)
    if per_arm:
        fixed = (np.tile(e1, (ARMS, 1)), np.ones(ARMS))
        audited = (np.tile(10.0 * e0, (ARMS, 1)), np.full(ARMS, 10.0 * sign))
    else:
        fixed = (e1, np.array([1.0, -1.0]))
        audited = (10.0 * e0, np.array([10.0, -10.0]) * sign)
    batch = [audited] + [fixed] * (BATCH - 1)
    rows = batch * 2 if twice else batch
    return np.stack([x for x, _ in rows]), np.stack([r for _, r in rows])


def _probes(per_arm: bool) -> np.ndarray:
    """Probe ``i``: ``s_i e_0 + e_1`` (per-arm: ``X[0] = s_i e_0``, ``X[1] = e_1``) divided by
    ``max(1, s_i)``: every coordinate in ``[-1, 1]`` (inside DP-HDB's context clip), no greedy arm moved."""
    e0, e1 = np.eye(DIM)
    scale = np.maximum(1.0, PROBES)[:, None]
    if per_arm:
        reference = np.broadcast_to(e1, (len(PROBES), DIM))
        return np.stack([PROBES[:, None] * e0 / scale, reference / scale], axis=1)
    return (PROBES[:, None] * e0 + e1) / scale


def _mechanism(name: str, factor: float, twice: bool
               ) -> Callable[[np.random.Generator, float, int], np.ndarray]:
    per_arm = agent_class(name).observation_model == "per_arm"
    probes = _probes(per_arm)

    def run(rng: np.random.Generator, sign: float, n_runs: int) -> np.ndarray:
        X, R = _streams(per_arm, sign, twice)
        out = np.empty(n_runs)
        for i, child in enumerate(rng.spawn(n_runs)):
            agent = _agent(name, child, factor)
            agent.play_block(X, R)
            scores = agent.scores(agent._observations(probes))
            # the probes' greedy arms (an exact tie, e.g. theta = 0, is the agent's coin flip: counted 1/2)
            out[i] = np.mean(scores[:, 0] > scores[:, 1]) + 0.5 * np.mean(scores[:, 0] == scores[:, 1])
        return out

    return run


def _case(name: str, variant: str) -> AuditCase:
    factor = 4.0 if variant == "noise-divided-by-4" else 1.0
    twice = variant == "user-released-twice"
    claim = _agent(name, np.random.default_rng(0), 1.0).privacy
    return AuditCase(
        name=f"whole-agent/{name}/{variant}", mechanism=_mechanism(name, factor, twice), dataset=1.0,
        neighbour=-1.0, claimed_epsilon=claim.epsilon, delta=DELTA,
        accountant_epsilon=claim.epsilon if variant == "calibrated" else math.nan,
        accountant=claim.accountant,
        expect="pass" if variant == "calibrated" else "flag",
        notes=f"{name} (K = {ARMS}, d = {DIM}, batches of {BATCH}, epsilon {EPSILON:g}, delta {DELTA:g}"
        + (f", {OPTIONS[name]}" if name in OPTIONS else "") + "); statistic: fraction of the "
        f"{len(PROBES)} later probe users assigned to arm 0; neighbours: the audited user's reward at +B vs "
        "-B"
        + ("; noise scales divided by 4" if factor != 1.0 else "")
        + ("; the audited user's round counted in batches 0 and 1" if twice else ""),
    )


def _register(name: str, variant: str) -> None:
    register(f"whole-agent/{name}/{variant}")(lambda: _case(name, variant))


for _name in AGENT_NAMES:
    for _variant in VARIANTS:
        _register(_name, _variant)
