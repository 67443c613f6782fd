"""The exact (epsilon, delta) curve of a composition of Gaussian mechanisms, at any epsilon, in microseconds.

Reference: Balle and Wang 2018, "Improving the Gaussian Mechanism for Differential Privacy", Theorem 8. A
Gaussian mechanism of l2-sensitivity ``Delta`` and noise std ``sigma`` is ``(epsilon, delta)``-DP iff

    ``delta >= Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2)``,  ``mu = Delta / sigma``,

and ``k`` of them (stds ``sigma_i``, sensitivities ``Delta_i``, also chosen adaptively) compose exactly into
one with ``mu = sqrt(sum_i (Delta_i / sigma_i)^2)`` (Dong, Roth and Su 2022, Corollary 3.3; the reduction
dp_accounting applies to ``SelfComposedDpEvent(GaussianDpEvent)``). This is the hockey-stick divergence of
dp_accounting's ``GaussianPrivacyLoss`` (its :meth:`get_delta_for_epsilon`), which its PLD accountant
discretises: the PLD epsilon is this one rounded up by the discretisation (tested, epsilon 0.1 to 64).

Why not the PLD accountant here: its cost grows like ``mu^2`` (0.6 s at ``mu = 1``, 12 s at ``mu = 10``,
epsilon 86; hours and gigabytes at epsilon 1e9). The formula is evaluated in log space
(``scipy.special.log_ndtr``), so it stays accurate where both terms underflow (epsilon 1e9, ``mu`` 4.5e4), and
inverted by bisection in ``log mu`` / ``epsilon`` with a bracket and an iteration cap: every epsilon from
1e-3 to 1e9 costs well under a millisecond. Each result is then certified by one evaluation of
dp_accounting's own ``GaussianPrivacyLoss.get_delta_for_epsilon`` (about 1 ms): the calibration never
rests on this module's arithmetic alone.

Rounding is always towards privacy: :func:`gaussian_mu` returns the lower end of its final bracket (a ``mu``
meeting the target) and :func:`gaussian_epsilon` the upper end (an epsilon that holds).
"""

from __future__ import annotations

import math

from dp_accounting.pld.privacy_loss_mechanism import GaussianPrivacyLoss
from scipy.special import log_ndtr

from dpbandit import _validate as v

__all__ = ["MAX_ITERATIONS", "certified_delta", "gaussian_epsilon", "gaussian_mu", "log_delta"]

#: Cap on the bracket expansions and on the bisection steps of each search (each halves a bracket, so 200
#: reach the 1e-13 relative width from any bracket of floats; the expansions double or halve from a guess).
MAX_ITERATIONS = 200
#: Relative width at which a bisection stops (the rounding of the formula is about 1e-15 relative).
_REL_WIDTH = 1e-13


def log_delta(epsilon: float, mu: float) -> float:
    """``log delta(epsilon)`` of the Gaussian mechanism with ``mu = Delta / sigma`` (Balle-Wang Theorem 8).

    ``delta = A - B`` with ``log A = log Phi(-epsilon/mu + mu/2)`` and ``log B = epsilon + log Phi(-epsilon/mu -
    mu/2)``, so ``log delta = log A + log(1 - e^(log B - log A))``. Where rounding makes ``B >= A`` (``A``
    itself far below any delta, ``mu << epsilon``) it returns ``log A``, an upper bound (``delta <= A``).
    """
    log_a = float(log_ndtr(-epsilon / mu + mu / 2.0))
    log_b = epsilon + float(log_ndtr(-epsilon / mu - mu / 2.0))
    if log_b >= log_a:
        return log_a
    return log_a + math.log(-math.expm1(log_b - log_a))


def certified_delta(epsilon: float, mu: float) -> float:
    """delta at ``epsilon`` from dp_accounting's ``GaussianPrivacyLoss`` (std ``1 / mu``, sensitivity 1)."""
    return float(GaussianPrivacyLoss(1.0 / mu, sensitivity=1.0).get_delta_for_epsilon(epsilon))


def _bisect(meets, lo: float, hi: float, *, geometric: bool) -> tuple[float, float]:
    """Shrink a bracket with ``meets(lo)`` and not ``meets(hi)`` to relative width ``_REL_WIDTH``."""
    for _ in range(MAX_ITERATIONS):
        if hi - lo <= _REL_WIDTH * hi:
            break
        mid = math.sqrt(lo * hi) if geometric and lo > 0.0 else 0.5 * (lo + hi)
        if not lo < mid < hi:
            break
        lo, hi = (mid, hi) if meets(mid) else (lo, mid)
    return lo, hi


def gaussian_mu(epsilon: float, delta: float) -> float:
    """Largest ``mu = Delta / sigma`` whose Gaussian mechanism is (epsilon, delta)-DP; the noise multiplier
    ``sigma / Delta`` is ``1 / mu``.

    Bracket from a guess (``epsilon / sqrt(2 log(1.25 / delta))``, the classical calibration) by doubling /
    halving, then bisection in ``log mu``; at most :data:`MAX_ITERATIONS` steps each. Raises ``ValueError``
    naming epsilon and delta if no finite ``mu`` is bracketed within the cap (it never happens for epsilon in
    [1e-300, 1e300] and delta in (0, 1)), or if dp_accounting's evaluation does not certify the result.
    """
    epsilon = v.positive(epsilon=epsilon)
    delta = v.probability(delta=delta)
    target = math.log(delta)

    def meets(mu: float) -> bool:
        return log_delta(epsilon, mu) <= target

    lo = hi = max(epsilon / math.sqrt(2.0 * math.log(1.25 / delta)), 1e-300)
    for _ in range(MAX_ITERATIONS):
        if not meets(lo):
            lo, hi = lo / 2.0, lo
        elif meets(hi):
            lo, hi = hi, hi * 2.0
        else:
            break
    else:
        raise ValueError(f"No Gaussian noise level bracketed for epsilon={epsilon:g} at delta={delta:g}.")
    mu = _bisect(meets, lo, hi, geometric=True)[0]
    if not certified_delta(epsilon, mu) <= delta * (1.0 + 1e-9):
        raise ValueError(
            f"dp_accounting does not certify the Gaussian calibration mu={mu!r} for epsilon={epsilon:g} at "
            f"delta={delta:g}."
        )
    return mu


def gaussian_epsilon(mu: float, delta: float) -> float:
    """Smallest epsilon >= 0 for which the Gaussian mechanism with ``mu = Delta / sigma`` is (epsilon, delta)-DP.

    0 if ``delta(0) = 2 Phi(mu/2) - 1 <= delta``. Otherwise bracketed from ``mu^2/2 + mu sqrt(2 log(1/delta))``
    (where the Gaussian tail alone is below delta) and bisected in epsilon; the upper end is returned, once
    dp_accounting's evaluation certifies it (``ValueError`` otherwise).
    """
    mu = v.positive(mu=mu)
    delta = v.probability(delta=delta)
    target = math.log(delta)

    def holds(epsilon: float) -> bool:
        return log_delta(epsilon, mu) <= target

    if holds(0.0):
        return 0.0
    hi = mu * mu / 2.0 + mu * math.sqrt(2.0 * math.log(1.0 / delta))
    for _ in range(MAX_ITERATIONS):
        if holds(hi):
            break
        hi *= 2.0
    else:
        raise ValueError(f"No epsilon bracketed for mu={mu:g} at delta={delta:g}.")
    # holds(epsilon) is False for epsilon <= lo: bisect the complement, return the end that holds
    epsilon = _bisect(lambda e: not holds(e), 0.0, hi, geometric=False)[1]
    if not certified_delta(epsilon, mu) <= delta * (1.0 + 1e-9):
        raise ValueError(f"dp_accounting does not certify epsilon={epsilon!r} for mu={mu!r} at delta={delta:g}.")
    return epsilon
