"""Reference privacy arithmetic for the calibration pins, written independently of dpbandit's helpers.

Every function builds its own dp_accounting events (or uses a closed form) from the formula's inputs, so a
test comparing an object's calibration with these values cannot inherit a wrong input from the code.
"""

from __future__ import annotations

import math

import dp_accounting
from dp_accounting import NeighboringRelation
from scipy import optimize, stats


def rdp_epsilon(
    event: dp_accounting.DpEvent,
    delta: float,
    relation: NeighboringRelation = NeighboringRelation.REPLACE_SPECIAL,
) -> float:
    """Epsilon at ``delta`` of ``event`` by dp_accounting's RDP accountant."""
    return float(
        dp_accounting.rdp.RdpAccountant(neighboring_relation=relation).compose(event).get_epsilon(delta)
    )


def tree_epsilon(multiplier: float, steps: int, delta: float) -> float:
    """Binary-mechanism prefix sums over ``steps`` inputs with node noise ``multiplier * Delta``.

    One input lies in ``bit_length(steps)`` nodes (one per level), each an independent Gaussian mechanism:
    the composition is the Gaussian of multiplier ``multiplier / sqrt(bit_length(steps))``.
    """
    return rdp_epsilon(dp_accounting.GaussianDpEvent(multiplier / math.sqrt(steps.bit_length())), delta)


def zcdp_epsilon(rho: float, delta: float) -> float:
    """Epsilon at ``delta`` of a rho-zCDP mechanism (the RDP curve ``alpha rho``)."""
    return rdp_epsilon(dp_accounting.ZCDpEvent(rho), delta)


def solve_increasing(f, target: float, lo: float = 1e-4, hi: float = 1e4) -> float:
    """The ``x`` with ``f(x) = target`` for ``f`` increasing on ``[lo, hi]`` (Brent's method on log x)."""
    return float(
        math.exp(
            optimize.brentq(
                lambda s: f(math.exp(s)) - target, math.log(lo), math.log(hi), xtol=1e-12, rtol=1e-10
            )
        )
    )


def tree_multiplier(epsilon: float, delta: float, steps: int) -> float:
    """Smallest node multiplier whose tree over ``steps`` inputs is (epsilon, delta)-DP (RDP)."""
    return 1.0 / solve_increasing(lambda inv: tree_epsilon(1.0 / inv, steps, delta), epsilon)


def rho_for(epsilon: float, delta: float) -> float:
    """Largest rho whose rho-zCDP converts to (epsilon, delta) (RDP conversion)."""
    return solve_increasing(lambda rho: zcdp_epsilon(rho, delta), epsilon, 1e-8, 1e4)


def gaussian_delta(epsilon: float, mu: float) -> float:
    """Exact delta(epsilon) of the Gaussian mechanism with ``mu = Delta / sigma`` (Balle & Wang 2018, Thm
    8)."""
    return float(
        stats.norm.cdf(mu / 2 - epsilon / mu) - math.exp(epsilon) * stats.norm.cdf(-mu / 2 - epsilon / mu)
    )


def exact_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0, count: int = 1) -> float:
    """Smallest std making ``count`` Gaussian mechanisms of sensitivity ``Delta`` exactly (epsilon, delta)-DP.

    ``count`` compositions of ``N(0, sigma^2)`` on ``Delta`` are one Gaussian with ``mu = sqrt(count) Delta /
    sigma``.
    """
    mu = solve_increasing(lambda m: gaussian_delta(epsilon, m), delta, 1e-3, 1e3)
    return math.sqrt(count) * sensitivity / mu
