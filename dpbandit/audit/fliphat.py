"""Empirical audit of FLIPHAT's peeling release (registered with :mod:`dpbandit.audit` on import).

Cases:

* ``fliphat-peeling/calibrated``: one N-IHT iteration of :class:`dpbandit.agents.batched.fliphat.FLIPHAT`
  with ``s = 1`` on ``d = 2`` coordinates, i.e. :func:`dpbandit.privacy.peeling.peel` at the Laplace scale
  ``b = z lam`` with the agent's tight multiplier ``z`` for (epsilon = 1, delta = 1e-5). Neighbouring pair
  (the worst case for non-monotone scores): ``v = (0, lam)`` vs ``v' = (lam, 0)``; every coordinate moves by
  ``lam``, one score up and one down, and the released value of either coordinate by ``lam``. Output: the
  selected index ``j`` and its noisy value ``u``; statistic: the exact log-likelihood ratio
  ``log P_v(j) / P_v'(j) + (|u - v'_j| - |u - v_j|) / b`` (optimal for the pair).
* ``fliphat-peeling/noise-halved``: the same release with ``b / 2`` and the same claim; its true epsilon is
  about twice the claim, so the audit must flag it.

Use: ``python sims/privacy_audit.py --modules dpbandit.audit.fliphat --only fliphat``.
"""

from __future__ import annotations

import math

import numpy as np

from dpbandit.audit.core import AuditCase, register
from dpbandit.privacy.peeling import peel, peeling_epsilon

__all__: list[str] = []

_EPSILON, _DELTA, _LAM = 1.0, 1e-5, 1.0


def _select_first(gap: float, scale: float) -> float:
    """P(coordinate 0 wins) for scores ``(gap, 0)`` plus i.i.d. ``Lap(scale)`` (Laplace-difference CDF)."""
    u = abs(gap) / scale
    less = 1.0 - 0.5 * math.exp(-u) * (1.0 + u / 2.0)
    return less if gap >= 0 else 1.0 - less


def _multiplier() -> float:
    from dpbandit.agents.batched.fliphat import FLIPHAT

    agent = FLIPHAT(2, 2, rng=np.random.default_rng(0), epsilon=_EPSILON, delta=_DELTA, sparsity=1,
                    iteration_scale=0.0)
    return agent.multiplier(1)


def _case(name: str, factor: float, expect: str, notes: str) -> AuditCase:
    z = _multiplier()
    scale = factor * z * _LAM
    v, v_prime = np.array([0.0, _LAM]), np.array([_LAM, 0.0])
    p_first = _select_first(-_LAM, scale)  # under v: |v| = (0, lam)
    log_sel = np.log(np.array([p_first, 1 - p_first]) / np.array([1 - p_first, p_first]))

    def mechanism(rng: np.random.Generator, vector: np.ndarray, n_runs: int) -> np.ndarray:
        return peel(rng, np.broadcast_to(vector, (n_runs, 2)), 1, scale)

    def llr(outputs: np.ndarray) -> np.ndarray:
        j = np.argmax(outputs != 0.0, axis=1)
        u = outputs[np.arange(len(j)), j]
        return log_sel[j] + (np.abs(u - v_prime[j]) - np.abs(u - v[j])) / scale

    return AuditCase(
        name=name, mechanism=mechanism, dataset=v, neighbour=v_prime, claimed_epsilon=_EPSILON, delta=_DELTA,
        statistic=llr, accountant_epsilon=peeling_epsilon(scale / _LAM, 1, _DELTA),
        accountant="pld (RR REPLACE_ONE x Laplace)", expect=expect,
        notes=f"{notes} s=1, d=2, Laplace scale {scale:.4g} = {factor:g} z lam, z={z:.4g} (tight, agent's).",
    )


@register("fliphat-peeling/calibrated")
def _calibrated() -> AuditCase:
    return _case("fliphat-peeling/calibrated", 1.0, "pass", "FLIPHAT peeling release (N-IHT iteration).")


@register("fliphat-peeling/noise-halved")
def _halved() -> AuditCase:
    return _case("fliphat-peeling/noise-halved", 0.5, "flag", "Laplace scale halved, same claim.")
