"""Empirical audits of the DP-HDB variants' release mechanisms (registered with :mod:`dpbandit.audit`).

Importing it registers, each with a halved-noise mutant that must be flagged:

* ``dphdb-em-selection/correct``: one step of :class:`dpbandit.optim.pofw.POFWBank` with
  ``selection="exponential"`` (DP-HDB's exponential-mechanism variant), one instance per run, d = 1 (vertices
  ``+-r``), paper calibration. Neighbours: ``d_1 = 0`` vs ``d_1 = beta D + L`` (A.6's full change at t = 1), so
  the scores move by ``Delta_1 = r (beta D + L)`` one-sidedly. Claimed: the step's ``eps_1 = 2 Delta_1 / b_1``.
  The likelihood ratio of the vertex ``-r`` is ``(1 + e^eps_1) / 2``: ``log`` of it is ``1.43`` at
  ``eps_1 = 2`` (passes) and ``3.33`` with the temperature halved (true ``eps = 4``: flagged).
* ``dphdb-em-selection/halved-temperature``: the same with ``multiplier = 0.5``.
* ``dphdb-batched-vertex/correct``: one batch of :class:`dpbandit.agents.batched.frankwolfe.BatchedDPHDB`
  (one Frank-Wolfe step, fixed clips ``B = C = 1``, batch of n = 2 rounds), one arm per run (the agent's own
  ``_end_batch`` over ``n_runs`` arms with the same data). Neighbours: the batch's two users contribute
  gradients ``(+1, -1)`` vs ``(-1, -1)``: averaged gradient 0 vs ``-2 B C / n``, the largest change of one user.
  Claimed: the agent's accountant epsilon (2, one step: ``eps_s``).
* ``dphdb-batched-vertex/halved-temperature``: the agent with its temperature halved.
* ``dphdb-batched-quantile/correct``: the private clip-quantile choice (``BatchedDPHDB._choose``, the
  exponential mechanism on ``-|c_j - q n|``) over 4 candidates; neighbours: utilities ``(-1, -1, -1, -1)`` vs
  ``(-2, 0, 0, 0)`` (each moves by the sensitivity 1). Claimed: ``eps_q``. Ratio of candidate 0:
  ``(1 + 3 e^eps_q) / 4``.
* ``dphdb-batched-quantile/halved-noise``: the choice at ``2 eps_q`` with the same claim.

Use: ``python sims/privacy_audit.py --modules dpbandit.audit.dphdb_variants --only dphdb-``.
"""

from __future__ import annotations

import numpy as np

from dpbandit.agents.batched.frankwolfe import BatchedDPHDB
from dpbandit.optim.pofw import POFWBank, POFWPrivacy, line8_scale
from dpbandit.audit.core import AuditCase, register

__all__: list[str] = []

_RADIUS, _SMOOTH, _LIP = 1.0, 1.0, 1.0
_DELTA = 1e-6
_EM_EPSILON = 5.6  # at horizon 2, delta 0.5: eps_1 = 5.6 / (4 log 2) ~ 2.02


def _em_selection_case(name: str, multiplier: float, expect: str, notes: str) -> AuditCase:
    cal = POFWPrivacy(epsilon=_EM_EPSILON, delta=0.5, horizon=2, calibration="paper", selection="exponential")
    eps_1 = float(cal.step_epsilons()[0])
    constants = dict(radius=_RADIUS, smoothness=_SMOOTH, lipschitz=_LIP)
    b_1 = float(line8_scale(np.array([1.0]), privacy=cal, **constants)[0])
    shift = _SMOOTH * 2.0 * _RADIUS + _LIP  # |d_1 - d_1'| = 2(beta D + L)/2 (A.6 at t = 1)

    def mechanism(rng: np.random.Generator, d1: float, n_runs: int) -> np.ndarray:
        run = POFWPrivacy(epsilon=_EM_EPSILON, delta=0.5, horizon=2, multiplier=multiplier,
                          selection="exponential")
        bank = POFWBank(n_runs, 1, rng=rng, privacy=run, **constants)
        g = np.full((n_runs, 1), 2.0 * d1)  # theta_0 = theta_1: d_1 = g / 2 = d1
        bank.step(g, g)
        return (bank.theta[:, 0] < 0).astype(float)  # 1 if the vertex -r e_1 was selected

    return AuditCase(
        name=name, mechanism=mechanism, dataset=0.0, neighbour=shift, claimed_epsilon=eps_1, delta=_DELTA,
        accountant_epsilon=eps_1 / multiplier, accountant="analytic: exponential mechanism 2 Delta / b",
        expect=expect,
        notes=f"{notes} Temperature {multiplier * b_1:.4g}, score sensitivity {_RADIUS * shift:.4g}.",
    )


@register("dphdb-em-selection/correct")
def _em_correct() -> AuditCase:
    return _em_selection_case("dphdb-em-selection/correct", 1.0, "pass", "DP-POFW step, exponential selection.")


@register("dphdb-em-selection/halved-temperature")
def _em_halved() -> AuditCase:
    return _em_selection_case("dphdb-em-selection/halved-temperature", 0.5, "flag", "Temperature halved.")


class _HalvedTemperature(BatchedDPHDB):
    """Mutant: the batch's exponential mechanism runs at half the calibrated temperature."""

    def temperature(self, n: int, residual_clip: float) -> float:
        return 0.5 * super().temperature(n, residual_clip)


def _batched_agent(cls: type[BatchedDPHDB], n_arms: int, rng: np.random.Generator) -> BatchedDPHDB:
    return cls(n_arms, 1, rng=rng, horizon=1000, epsilon=2.0, delta=_DELTA, first_batch=2, steps_per_batch=1,
               residual_quantile=None, context_quantile=None)


def _batched_vertex_case(name: str, cls: type[BatchedDPHDB], expect: str, notes: str) -> AuditCase:
    reference = _batched_agent(BatchedDPHDB, 2, np.random.default_rng(0))
    as_run = _batched_agent(cls, 2, np.random.default_rng(0))
    # one step, no quantile choice: pure eps_s scales with 1 / temperature
    accountant = reference.privacy.epsilon * reference.temperature(2, 1.0) / as_run.temperature(2, 1.0)

    def mechanism(rng: np.random.Generator, gradient_sum: float, n_runs: int) -> np.ndarray:
        agent = _batched_agent(cls, n_runs, rng)  # one arm per run, all with the same batch data
        agent._sums[:, 0, 0] = gradient_sum
        agent._end_batch()  # eta = 1: theta_k is the chosen vertex
        return (agent.theta[:, 0] < 0).astype(float)

    return AuditCase(
        name=name, mechanism=mechanism, dataset=0.0, neighbour=-2.0, claimed_epsilon=reference.privacy.epsilon,
        delta=_DELTA, accountant_epsilon=accountant,
        accountant="min(pld pure-DP, rdp bounded-range zCDP)", expect=expect,
        notes=f"{notes} eps_s {reference.budget.eps_s:.4g}, temperature {reference.temperature(2, 1.0):.4g} "
        "(calibrated), sum of the batch's gradients 0 vs -2 B C.",
    )


@register("dphdb-batched-vertex/correct")
def _batched_correct() -> AuditCase:
    return _batched_vertex_case("dphdb-batched-vertex/correct", BatchedDPHDB, "pass",
                                "Batched DP-HDB vertex choice (one step per batch).")


@register("dphdb-batched-vertex/halved-temperature")
def _batched_halved() -> AuditCase:
    return _batched_vertex_case("dphdb-batched-vertex/halved-temperature", _HalvedTemperature, "flag",
                                "Temperature halved.")


def _quantile_case(name: str, factor: float, expect: str, notes: str) -> AuditCase:
    agent = BatchedDPHDB(2, 1, rng=np.random.default_rng(0), horizon=1000, epsilon=12.0, delta=_DELTA)
    eps_q = agent.budget.eps_q
    n = 100  # median target 50: counts 50 + u give the utilities u

    def mechanism(rng: np.random.Generator, utility: tuple[float, ...], n_runs: int) -> np.ndarray:
        run = BatchedDPHDB(2, 1, rng=rng, horizon=1000, epsilon=12.0, delta=_DELTA)
        run.budget.eps_q = factor * eps_q  # the mutant spends twice the choice's budget
        inside = np.tile(50.0 + np.asarray(utility), (n_runs, 1))
        return (run._choose(inside, 0.5, n) == 0).astype(float)

    return AuditCase(
        name=name, mechanism=mechanism, dataset=(-1.0, -1.0, -1.0, -1.0), neighbour=(-2.0, 0.0, 0.0, 0.0),
        claimed_epsilon=eps_q, delta=_DELTA, accountant_epsilon=factor * eps_q,
        accountant="analytic: exponential mechanism, sensitivity 1", expect=expect,
        notes=f"{notes} eps_q {eps_q:.4g} (BatchedDPHDB at epsilon 12).",
    )


@register("dphdb-batched-quantile/correct")
def _quantile_correct() -> AuditCase:
    return _quantile_case("dphdb-batched-quantile/correct", 1.0, "pass", "Private clip-quantile choice.")


@register("dphdb-batched-quantile/halved-noise")
def _quantile_halved() -> AuditCase:
    return _quantile_case("dphdb-batched-quantile/halved-noise", 2.0, "flag", "Choice at 2 eps_q.")
