"""The closed-form Gaussian calibration (issue 38 item 1: any epsilon, fast) against independent references:
Balle and Wang's formula written in tests/privacy_reference.py (linear space, epsilon <= 64), dp_accounting's
own ``GaussianPrivacyLoss`` (the exact curve, any epsilon) and its discretised PLD accountant (epsilon 0.1 to
16). A mis-scaled noise (1e-6 relative) or a wrong sensitivity / count misses these pins."""

from __future__ import annotations

import math

import dp_accounting
import numpy as np
import privacy_reference as ref
import pytest
from dp_accounting.pld.privacy_loss_mechanism import GaussianPrivacyLoss

from dpbandit.audit.drawn import gaussian_scale_pvalues, only_stated_scale_fits
from dpbandit.privacy import accounting
from dpbandit.privacy.gaussian_curve import gaussian_epsilon, gaussian_mu, log_delta
from dpbandit.privacy.release import BlockGaussianRelease

EPSILONS = [1e-3, 0.1, 1.0, 100.0, 1e4, 1e6, 1e9]


def _delta(epsilon: float, sigma: float, sensitivity: float = 1.0) -> float:
    """dp_accounting's exact hockey-stick divergence of N(0, sigma^2) on sensitivity Delta (not dpbandit's)."""
    return float(GaussianPrivacyLoss(sigma, sensitivity=sensitivity).get_delta_for_epsilon(epsilon))


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("delta", [1e-5, 1e-10])
def test_sigma_is_the_smallest_meeting_the_exact_curve(epsilon: float, delta: float) -> None:
    """The calibrated std meets delta; 1e-6 less noise (a mis-scaled sigma) does not: the std is the exact one."""
    sigma = accounting.gaussian_sigma(epsilon, delta)
    assert _delta(epsilon, sigma) <= delta * (1 + 1e-9)
    assert _delta(epsilon, sigma * (1 - 1e-6)) > delta * (1 + 1e-7)


@pytest.mark.parametrize("epsilon", [0.01, 0.5, 8.0, 64.0])
def test_sigma_matches_the_linear_space_reference(epsilon: float) -> None:
    assert accounting.gaussian_sigma(epsilon, 1e-6, 2.0, 9) == pytest.approx(
        ref.exact_gaussian_sigma(epsilon, 1e-6, 2.0, 9), rel=1e-6
    )


@pytest.mark.parametrize("epsilon", [1.0, 1e4, 1e9])
def test_sensitivity_and_count_enter_as_sqrt_count_times_delta(epsilon: float) -> None:
    """count mechanisms of sensitivity Delta need sqrt(count) Delta times the unit std: a wrong count or
    sensitivity (e.g. count instead of its square root) breaks the exact curve of the composition."""
    one = accounting.gaussian_sigma(epsilon, 1e-5)
    sigma = accounting.gaussian_sigma(epsilon, 1e-5, sensitivity=3.0, count=16)
    assert sigma == pytest.approx(12.0 * one, rel=1e-12)
    composed = dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(sigma / 3.0), 16)
    assert accounting.epsilon_for(composed, 1e-5, "pld") == pytest.approx(epsilon, rel=1e-9)
    assert _delta(epsilon, sigma / 4.0, 3.0) <= 1e-5 * (1 + 1e-9) < _delta(epsilon, sigma / 4.0 * 0.999, 3.0)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 4.0, 16.0])
def test_agrees_with_the_pld_accountant(epsilon: float) -> None:
    """dp_accounting's discretised PLD gives the calibrated noise epsilon itself, rounded up by at most 1e-6."""
    z = 1.0 / gaussian_mu(epsilon, 1e-5)
    pld = accounting.make_accountant("pld").compose(dp_accounting.GaussianDpEvent(z)).get_epsilon(1e-5)
    assert epsilon * (1 - 1e-9) <= pld <= epsilon * (1 + 1e-6)


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_epsilon_inverts_the_calibration(epsilon: float) -> None:
    mu = gaussian_mu(epsilon, 1e-5)
    assert gaussian_epsilon(mu, 1e-5) == pytest.approx(epsilon, rel=1e-9)
    assert gaussian_epsilon(mu * 1.01, 1e-5) > epsilon * 1.001  # less noise, more epsilon


def test_composed_events_report_the_root_sum_of_squares() -> None:
    """Two releases of multipliers 2 and 3 (one person in each): mu = sqrt(1/4 + 1/9), exactly one Gaussian."""
    event = dp_accounting.ComposedDpEvent([dp_accounting.GaussianDpEvent(2.0), dp_accounting.GaussianDpEvent(3.0)])
    mu = math.sqrt(1 / 4 + 1 / 9)
    assert accounting.gaussian_composition_mu(event) == pytest.approx(mu)
    eps = accounting.epsilon_for(event, 1e-5, "pld")
    assert _delta(eps, 1.0 / mu) == pytest.approx(1e-5, rel=1e-6)
    assert accounting.gaussian_composition_mu(accounting.laplace_event(1.0)) is None
    assert accounting.epsilon_for(dp_accounting.GaussianDpEvent(0.0), 1e-5, "pld") == math.inf


def test_zero_epsilon_when_delta_covers_everything() -> None:
    """delta(0) = 2 Phi(mu/2) - 1: a mechanism with that delta or more is (0, delta)-DP."""
    mu = 0.01
    assert gaussian_epsilon(mu, 2 * 0.5 * math.erfc(-mu / 2 / math.sqrt(2)) - 1 + 1e-12) == 0.0
    assert gaussian_epsilon(mu, 1e-5) > 0.0


def test_log_space_stays_finite_where_both_terms_underflow() -> None:
    """At epsilon 1e9 both Phi terms are far below 1e-300; the log-space curve still matches dp_accounting's."""
    for epsilon, mu in ((1e9, 44721.0), (1e6, 1414.5), (1e-3, 2e-4)):
        assert math.exp(log_delta(epsilon, mu)) == pytest.approx(_delta(epsilon, 1.0 / mu), rel=1e-9)
    assert log_delta(1e9, 10.0) < math.log(1e-300)  # tiny mu: an upper bound far below any delta


@pytest.mark.parametrize("epsilon", [1e4, 1e9])
def test_a_release_draws_the_calibrated_noise_at_large_epsilon(epsilon: float) -> None:
    """The noise a release actually adds at a large epsilon has the std the exact curve calls for: halved or
    doubled scales are rejected."""
    release = BlockGaussianRelease(epsilon, 1e-5, {"sums": 0.8, "counts": 0.2})
    sigma = 2.0 / math.sqrt(0.8) / gaussian_mu(epsilon, 1e-5)
    out = release.release(np.random.default_rng(3), {"sums": np.zeros(20_000), "counts": np.zeros(2)},
                          {"sums": 2.0, "counts": 1.0})
    assert only_stated_scale_fits(gaussian_scale_pvalues(out["sums"], sigma))
    assert release.accountant_epsilon() == pytest.approx(epsilon, rel=1e-9)
