"""P_Vec's shuffle vector sum (dpbandit.privacy.vector_sum): the shifted-binomial accounting against an
independent brute force and a Gaussian cross-check, the calibration's minimality, and the randomizer's
encoding (unbiased, bounds enforced)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpbandit.privacy.accounting import epsilon_for, gaussian_event
from dpbandit.privacy.vector_sum import (
    VectorSumRandomizer,
    calibrate_vector_sum,
    coordinate_count,
    default_levels,
    vector_sum_epsilon,
)

pytestmark = pytest.mark.privacy


def hockey_stick(trials: int, p: float, shift: int, eps: float) -> float:
    """Exact ``max(D_{e^eps}(P || P + shift), D_{e^eps}(P + shift || P))`` of ``P = Bin(trials, p)``, summed
    over the whole support (brute force, no dp_accounting)."""
    y = np.arange(-shift, trials + shift + 1)
    a = stats.binom.pmf(y, trials, p)
    b = stats.binom.pmf(y - shift, trials, p)
    f = math.exp(eps)
    return float(max(np.maximum(a - f * b, 0).sum(), np.maximum(b - f * a, 0).sum()))


def test_counts_and_levels_follow_the_report() -> None:
    """d(d+1)/2 Gram entries plus d reward entries; g = ceil(max(2 sqrt B, d, 4)) as in the authors' code."""
    assert [coordinate_count(d) for d in (1, 2, 5)] == [2, 5, 20]
    assert default_levels(379, 5) == 39 and default_levels(20, 5) == 9 and default_levels(1, 2) == 4


def test_larger_shifts_dominate_smaller_ones_brute_force() -> None:
    """The accounting uses the shift-g pair for every shift in [-g, g] (monotone likelihood ratio of the
    log-concave binomial): the exact hockey-stick divergence grows with the shift, at every epsilon."""
    for eps in (0.1, 0.5, 1.0):
        deltas = [hockey_stick(2_000, 0.5, k, eps) for k in range(0, 9)]
        assert all(b > a for a, b in zip(deltas[1:], deltas[2:])) and deltas[0] == 0.0


@pytest.mark.parametrize(("trials", "levels"), [(4_000, 6), (20_000, 10)])
def test_one_coordinate_matches_the_brute_force(trials: int, levels: int) -> None:
    """One coordinate: the epsilon dp_accounting gives is at least the brute-force one (pessimistic) and at
    most 2% above it."""
    eps = vector_sum_epsilon(trials, 0.5, levels, 1, 1e-5)
    assert hockey_stick(trials, 0.5, levels, eps) <= 1e-5 * (1 + 1e-6)
    assert hockey_stick(trials, 0.5, levels, 0.98 * eps) > 1e-5


@pytest.mark.parametrize(("dim", "batch", "epsilon"), [(2, 10, 1.0), (5, 379, 0.5), (3, 50, 2.0)])
def test_composition_over_coordinates_matches_the_gaussian_of_the_same_variance(dim, batch, epsilon) -> None:
    """A binomial of many trials is nearly Gaussian: the calibrated batch's epsilon agrees within 5% with the
    Gaussian of std sqrt(n b / 4), sensitivity g, composed over d(d+1)/2 + d coordinates (counted here)."""
    levels = default_levels(batch, dim)
    m = dim * (dim + 1) // 2 + dim
    b = calibrate_vector_sum(epsilon, 1e-5, batch, levels, coordinate_count(dim))
    eps = vector_sum_epsilon(batch * b, 0.5, levels, coordinate_count(dim), 1e-5)
    gauss = epsilon_for(gaussian_event(math.sqrt(batch * b / 4), levels, m), 1e-5, "pld")
    assert eps <= epsilon
    assert gauss == pytest.approx(eps, rel=0.05)


def test_calibration_is_the_smallest_count_to_one_percent() -> None:
    b = calibrate_vector_sum(1.0, 1e-5, 100, 20, 9)
    assert vector_sum_epsilon(100 * b, 0.5, 20, 9, 1e-5) <= 1.0
    assert vector_sum_epsilon(100 * int(b * 0.98), 0.5, 20, 9, 1e-5) > 1.0


def test_asymmetric_binomial_takes_the_worst_split_of_shift_directions() -> None:
    """p = 1/4 (the authors' code): both directions and every split are composed; the result is at least
    either pure direction's."""
    eps = vector_sum_epsilon(30_000, 0.25, 9, 3, 1e-4)
    one = vector_sum_epsilon(30_000, 0.25, 9, 1, 1e-4)
    assert hockey_stick(30_000, 0.25, 9, one) <= 1e-4 * (1 + 1e-6)
    assert eps > one


def test_encoding_is_unbiased_and_bounds_are_enforced() -> None:
    r = VectorSumRandomizer(3, 1.0, 1.0, batch=10, levels=7, trials=50)
    rng = np.random.default_rng(0)
    x, reward = np.array([0.6, -0.48, 0.2]), -0.7
    gram, vec = zip(*(r.randomize(rng, x, reward) for _ in range(20_000)))
    se = r.sigma / math.sqrt(20_000)
    assert np.abs(np.mean(gram, axis=0)[0] - np.outer(x, x)).max() < 5 * se
    assert np.abs(np.mean(vec, axis=0)[0] - reward * x).max() < 10 * se
    with pytest.raises(ValueError, match="feature_bound"):
        r.randomize(rng, np.array([1.0, 1.0, 0.0]), 0.0)
    with pytest.raises(ValueError, match="reward_bound"):
        r.randomize(rng, x, 1.5)
    with pytest.raises(ValueError, match="models"):
        VectorSumRandomizer(3, 1.0, 1.0, batch=10, levels=7, trials=50, models=2)
