"""Shuffle amplification (FMT21 numerical clone bound): against the authors' published numbers, the closed-form
bound, its limits, and the calibration of a batch's local budget."""

from __future__ import annotations

import math

import pytest

from dpbandit.privacy.shuffle import (
    approximate_shuffle_delta,
    clone_delta,
    gaussian_shuffle_calibration,
    shuffle_epsilon,
)

pytestmark = pytest.mark.privacy


def closed_form_epsilon(eps0: float, n: int, delta: float) -> float:
    """FMT21 Theorem 3.1 (closed form, valid for eps0 <= log(n / (16 log(2/delta))))."""
    a = 8 * math.sqrt(math.exp(eps0) * math.log(4 / delta)) / math.sqrt(n) + 8 * math.exp(eps0) / n
    return math.log(1 + (math.exp(eps0) - 1) / (math.exp(eps0) + 1) * a)


def test_the_authors_published_example() -> None:
    """README of apple/ml-shuffling-amplification (the paper's code, Appendix E of arXiv 2012.12803):
    shuffling 100,000 4-DP reports is (eps, 1e-6)-DP "for eps between 0.1675385583317841 and
    0.172790550755978" (their lower and upper numerical bounds); the exact sum must lie between them."""
    eps = shuffle_epsilon(4.0, 100_000, 1e-6)
    assert 0.1675385583317841 <= eps <= 0.172790550755978


@pytest.mark.parametrize(("eps0", "n", "delta"), [(4.0, 100_000, 1e-6), (1.0, 10_000, 1e-6), (2.0, 5_000, 1e-5)])
def test_numerical_bound_is_below_the_closed_form(eps0: float, n: int, delta: float) -> None:
    """The numerical bound is never weaker than Theorem 3.1 (0.5346 for the published example) and, in this
    regime, at most a third of it."""
    assert eps0 <= math.log(n / (16 * math.log(2 / delta)))
    closed = closed_form_epsilon(eps0, n, delta)
    eps = shuffle_epsilon(eps0, n, delta)
    assert eps <= closed
    assert eps <= closed / 3 + 0.01


def test_more_users_hide_better_and_one_user_is_randomized_response() -> None:
    eps = [shuffle_epsilon(2.0, n, 1e-6) for n in (1, 100, 1_000, 10_000)]
    assert eps == sorted(eps, reverse=True) and eps[-1] < 0.5 * eps[0]
    a = math.exp(2.0) / (1 + math.exp(2.0))
    assert clone_delta(2.0, 1, 1.0) == pytest.approx(a - math.e * (1 - a))
    assert clone_delta(2.0, 50, 2.0) == pytest.approx(0.0, abs=1e-15)  # at eps0 shuffling costs nothing


def test_delta_decreases_in_eps() -> None:
    deltas = [clone_delta(3.0, 2_000, e) for e in (0.1, 0.3, 0.6, 1.0)]
    assert deltas == sorted(deltas, reverse=True) and deltas[-1] < 1e-6 < deltas[0]


@pytest.mark.parametrize(("epsilon", "delta", "batch"), [(1.0, 1e-4, 20), (1.0, 1e-4, 1_000), (0.2, 1e-5, 400)])
def test_calibration_meets_the_target_and_is_the_largest_local_budget(epsilon, delta, batch) -> None:
    """The local (eps0, delta0) shuffles to (epsilon, delta): clone bound at delta/2 plus Theorem 3.8's term;
    0.5% more local epsilon would not."""
    cal = gaussian_shuffle_calibration(epsilon, delta, batch)
    assert cal.eps0 >= epsilon
    assert shuffle_epsilon(cal.eps0, batch, delta / 2) <= epsilon
    assert cal.epsilon <= epsilon and cal.delta <= delta * (1 + 1e-12)
    assert approximate_shuffle_delta(cal.epsilon, cal.eps0, cal.delta0, batch, delta / 2) == pytest.approx(cal.delta)
    assert clone_delta(cal.eps0 * 1.005, batch, epsilon) > delta / 2


def test_approximate_dp_term_counts_every_user() -> None:
    """Theorem 3.8's extra delta is (e^eps + 1)(1 + e^{-eps0}/2) n delta0: linear in n and in delta0."""
    base = approximate_shuffle_delta(0.5, 2.0, 1e-9, 100, 1e-6) - 1e-6
    assert base == pytest.approx((math.exp(0.5) + 1) * (1 + math.exp(-2.0) / 2) * 100 * 1e-9)
    assert approximate_shuffle_delta(0.5, 2.0, 1e-9, 200, 1e-6) - 1e-6 == pytest.approx(2 * base)
