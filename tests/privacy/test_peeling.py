"""Peeling (private top-s): selection and value laws, PLD accounting against an independent computation,
calibrations, and the REPLACE_SPECIAL pitfall."""

from __future__ import annotations

import math

import dp_accounting
import numpy as np
import pytest
from dp_accounting import NeighboringRelation
from scipy import signal, stats

from dpbandit.privacy import peeling

pytestmark = pytest.mark.privacy

ALPHA = 1e-3


def _p_first_wins(gap: float, scale: float) -> float:
    """P(L0 - L1 > -gap) for scores (gap, 0) + i.i.d. Lap(scale): CDF of a Laplace difference [O]."""
    u = abs(gap) / scale
    less = 1 - 0.5 * math.exp(-u) * (1 + u / 2)
    return less if gap >= 0 else 1 - less


def test_selection_law_two_candidates_and_halved_or_doubled_noise_is_rejected() -> None:
    gap, scale, n = 0.6, 0.5, 40_000
    chosen = peeling.report_noisy_top(np.random.default_rng(0), np.tile([gap, 0.0], (n, 1)), 1, scale)[:, 0]
    k = int(np.sum(chosen == 0))
    for factor, ok in ((1.0, True), (0.5, False), (2.0, False)):
        p = stats.binomtest(k, n, _p_first_wins(gap, factor * scale)).pvalue
        assert (p > ALPHA) == ok, (factor, p)


def test_selection_is_without_replacement_and_in_selection_order() -> None:
    scores = np.tile(np.array([0.0, 5.0, 1.0, 9.0, 3.0]), (200, 1))
    chosen = peeling.report_noisy_top(np.random.default_rng(1), scores, 5, 1e-6)
    np.testing.assert_array_equal(chosen, np.tile([3, 1, 4, 2, 0], (200, 1)))
    noisy = peeling.report_noisy_top(np.random.default_rng(2), scores, 4, 3.0)
    assert all(len(set(row)) == 4 for row in noisy)


def test_released_values_are_laplace_of_the_stated_scale() -> None:
    scale = 0.7
    out = peeling.peel(np.random.default_rng(3), np.zeros((4_000, 5)), 5, scale)
    values = out.ravel()
    assert stats.kstest(values, stats.laplace(scale=scale).cdf).pvalue > ALPHA
    for wrong in (scale / 2, 2 * scale):
        assert stats.kstest(values, stats.laplace(scale=wrong).cdf).pvalue < ALPHA


def test_noiseless_peel_is_the_exact_top_s() -> None:
    v = np.array([0.1, -3.0, 2.0, 0.0, -2.0])
    np.testing.assert_array_equal(peeling.peel(np.random.default_rng(0), v, 2, None), [0, -3.0, 2.0, 0, 0])


# ------------------------------------------------------------------ independent accounting reference
def _laplace_loss_pmf(z: float, h: float, up: bool) -> tuple[np.ndarray, np.ndarray]:
    """Privacy loss of Lap(0, z) vs Lap(1, z) under the first, on the grid h Z, rounded up (or down).

    X ~ Lap(0, z): L = 1/z for X <= 0 (mass 1/2), -1/z for X >= 1 (mass e^{-1/z}/2), (1 - 2X)/z between.
    """
    top = 1.0 / z
    K = math.ceil(top / h) + 1
    grid = np.arange(-K, K + 1) * h
    pmf = np.zeros(grid.size)
    rnd = np.ceil if up else np.floor
    pmf[int(rnd(top / h)) + K] += 0.5
    pmf[int(rnd(-top / h)) + K] += 0.5 * math.exp(-1.0 / z)
    x_hi = np.clip((1 - grid[:-1] * z) / 2, 0, 1)  # L in (grid[i], grid[i+1]] <-> X in [x_lo, x_hi)
    x_lo = np.clip((1 - grid[1:] * z) / 2, 0, 1)
    mass = 0.5 * (np.exp(-x_lo / z) - np.exp(-x_hi / z))
    if up:
        pmf[1:] += mass
    else:
        pmf[:-1] += mass
    return grid, pmf


def _independent_epsilon(z: float, rounds: int, delta: float, up: bool, h: float = 2e-5) -> float:
    """Epsilon of RR(2/z)^R (x) Lap(z)^R from exact losses: binomial RR part, FFT-convolved Laplace part."""
    e0 = 2.0 / z
    j = np.arange(rounds + 1)
    rr_loss = e0 * (rounds - 2 * j)
    rr_mass = stats.binom.pmf(j, rounds, 1.0 / (1.0 + math.exp(e0)))
    grid, pmf = _laplace_loss_pmf(z, h, up)
    total = np.array([1.0])
    for _ in range(rounds):
        total = np.clip(signal.fftconvolve(total, pmf), 0.0, None)
    lap_loss = rounds * grid[0] + h * np.arange(total.size)
    loss = (rr_loss[:, None] + lap_loss[None, :]).ravel()
    mass = (rr_mass[:, None] * total[None, :]).ravel()

    def hockey(eps: float) -> float:
        return float(np.sum(mass * np.clip(1.0 - np.exp(eps - loss), 0.0, None)))

    lo, hi = 0.0, float(loss.max())
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if hockey(mid) > delta else (lo, mid)
    return hi


@pytest.mark.parametrize(("z", "rounds", "delta"), [(13.0, 10, 0.01), (6.0, 5, 1e-4), (40.0, 20, 1e-3)])
def test_pld_epsilon_matches_an_independent_computation(z: float, rounds: int, delta: float) -> None:
    ours = peeling.peeling_epsilon(z, rounds, delta)
    lower = _independent_epsilon(z, rounds, delta, up=False)
    upper = _independent_epsilon(z, rounds, delta, up=True)
    assert lower - 1e-9 <= upper
    # dp_accounting's pessimistic PLD: an upper bound, within its 1e-4 discretisation per composition
    assert lower - 1e-4 <= ours <= upper + 2 * rounds * peeling.DISCRETIZATION


def test_two_rounds_count_and_sensitivity_matter() -> None:
    """A wrong number of releases or sensitivity (2x) changes epsilon far beyond the accounting error."""
    base = peeling.peeling_epsilon(13.0, 10, 0.01)
    assert peeling.peeling_epsilon(13.0, 20, 0.01) > 1.3 * base  # twice the releases
    assert peeling.peeling_epsilon(6.5, 10, 0.01) > 1.8 * base  # twice the sensitivity (z halved)


def test_switch_case_is_half_shift_on_twice_the_releases() -> None:
    z, rounds, delta = 10.0, 6, 0.01
    single = _independent_epsilon(z, rounds, delta, up=True)
    switch = _independent_epsilon(2 * z, 2 * rounds, delta, up=True)  # shift lam/2 <=> multiplier 2z
    got = peeling.peeling_epsilon(z, rounds, delta, cases=((1, 1.0), (2, 0.5)))
    assert got == pytest.approx(max(single, switch), abs=2 * 2 * rounds * peeling.DISCRETIZATION)
    assert peeling.peeling_epsilon(z, rounds, delta, cases=((2, 0.5),)) == pytest.approx(switch, abs=0.01)


def test_replace_special_route_under_reports() -> None:
    """The pitfall avoided: dp_accounting's PLDAccountant under REPLACE_SPECIAL compares RR with a uniform
    output and reports less than the true (REPLACE_ONE) randomized-response loss."""
    z, rounds, delta = 13.0, 10, 0.01
    e0 = 2.0 / z
    rr = dp_accounting.RandomizedResponseDpEvent(2.0 / (1.0 + math.exp(e0)), 2)
    event = dp_accounting.ComposedDpEvent([rr] * rounds + [dp_accounting.LaplaceDpEvent(z)] * rounds)
    acc = dp_accounting.pld.PLDAccountant(neighboring_relation=NeighboringRelation.REPLACE_SPECIAL)
    special = acc.compose(event).get_epsilon(delta)
    assert special < 0.9 * peeling.peeling_epsilon(z, rounds, delta)


@pytest.mark.parametrize(("epsilon", "delta", "rounds"), [(1.0, 0.01, 10), (0.5, 1e-4, 20)])
def test_tight_multiplier_meets_the_target_and_is_tight(epsilon: float, delta: float, rounds: int) -> None:
    z = peeling.tight_multiplier(epsilon, delta, rounds)
    assert peeling.peeling_epsilon(z, rounds, delta) <= epsilon
    assert peeling.peeling_epsilon(z / 1.002, rounds, delta) > epsilon


def test_paper_multiplier_formula() -> None:
    # z = 2 sqrt(3 s log(M / delta)) M / epsilon, typed from the peeling lemma at (eps/M, delta/M)
    assert peeling.paper_multiplier(1.0, 0.01, 10, 1) == pytest.approx(2 * math.sqrt(30 * math.log(100)))
    expected = 2 * math.sqrt(30 * math.log(300)) * 3 / 2
    assert peeling.paper_multiplier(2.0, 0.01, 10, 3) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: peeling.peeling_epsilon(-1.0, 3, 0.1), "multiplier"),
        (lambda: peeling.peeling_epsilon(1.0, 0, 0.1), "rounds"),
        (lambda: peeling.peeling_epsilon(1.0, 3, 1.5), "delta"),
        (lambda: peeling.peeling_epsilon(1.0, 3, 0.1, cases=((1, 2.0),)), "case_shift"),
        (lambda: peeling.tight_multiplier(0.0, 0.1, 3), "epsilon"),
        (lambda: peeling.paper_multiplier(1.0, 0.1, 0, 1), "sparsity"),
        (lambda: peeling.report_noisy_top(np.random.default_rng(0), np.zeros(3), 4, 1.0), "count"),
        (lambda: peeling.report_noisy_top(np.random.default_rng(0), np.zeros(3), 1, 0.0), "scale"),
    ],
)
def test_validation_names_the_parameter(call, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        call()
