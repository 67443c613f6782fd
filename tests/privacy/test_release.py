"""BlockGaussianRelease: calibration against the exact analytic Gaussian mechanism, the noise it draws, validation."""

from __future__ import annotations

import math

import dp_accounting
import numpy as np
import pytest
from scipy import optimize, stats

from dpbandit.privacy.release import BlockGaussianRelease

pytestmark = pytest.mark.privacy


def exact_delta(epsilon: float, z: float) -> float:
    """delta(eps) of the Gaussian mechanism with std z and sensitivity 1 (Balle and Wang 2018, Theorem 8)."""
    return stats.norm.cdf(0.5 / z - epsilon * z) - math.exp(epsilon) * stats.norm.cdf(-0.5 / z - epsilon * z)


def analytic_gaussian_multiplier(epsilon: float, delta: float) -> float:
    """Exact noise multiplier meeting (epsilon, delta), solved independently of dp-accounting."""
    return optimize.brentq(lambda z: exact_delta(epsilon, z) - delta, 1e-3, 1e3, xtol=1e-12)


@pytest.mark.parametrize(("epsilon", "delta"), [(1.0, 1e-4), (0.5, 1e-2), (3.0, 1e-5)])
def test_multiplier_matches_the_exact_gaussian_mechanism(epsilon: float, delta: float) -> None:
    """dp-accounting's PLD calibration is never below the exact requirement and within 1% of it."""
    release = BlockGaussianRelease(epsilon, delta, {"a": 1.0})
    exact = analytic_gaussian_multiplier(epsilon, delta)
    assert exact <= release.multiplier <= 1.01 * exact
    assert exact_delta(epsilon, release.multiplier) <= delta * (1 + 1e-9)
    assert exact_delta(epsilon, release.multiplier / 2) > 2 * delta  # halved noise misses the target


def test_block_sigma_formula_and_drawn_noise() -> None:
    """sigma_b = z Delta_b / sqrt(share_b); the draws have that std (halved and doubled noise rejected)."""
    shares = {"sums": 0.8, "counts": 0.15, "hist": 0.05}
    release = BlockGaussianRelease(1.0, 1e-4, shares)
    z = analytic_gaussian_multiplier(1.0, 1e-4)
    sens = {"sums": 2.0 * 3.0 * 0.5, "counts": math.sqrt(2.0), "hist": 1.0}
    rng = np.random.default_rng(11)
    draws = {name: [] for name in shares}
    zeros = {"sums": np.zeros((2, 50)), "counts": np.zeros(2), "hist": np.zeros(())}
    for _ in range(400):
        out = release.release(rng, zeros, sens)
        for name in shares:
            draws[name].append(np.ravel(out[name]))
    for name, share in shares.items():
        expected = z * sens[name] / math.sqrt(share)
        assert release.sigma(name, sens[name]) == pytest.approx(expected, rel=0.01)
        noise = np.concatenate(draws[name])
        n = noise.size
        statistic = float(np.sum(noise**2))  # chi-square with n degrees of freedom under the stated std
        for factor, should_pass in ((1.0, True), (0.5, False), (2.0, False)):
            p = stats.chi2.sf(statistic / (factor * expected) ** 2, n)
            two_sided = 2 * min(p, 1 - p)
            assert bool(two_sided > 1e-3) is should_pass, (name, factor, two_sided)


def test_joint_sensitivity_of_the_rescaled_stack_is_one() -> None:
    """Blocks moved by their full sensitivities move the rescaled stack by sqrt(sum shares) = 1: one GaussianDpEvent(z)."""
    shares = {"a": 0.5, "b": 0.3, "c": 0.2}
    sens = {"a": 4.0, "b": 1.0, "c": 0.25}
    release = BlockGaussianRelease(1.0, 1e-4, shares)
    moved = math.sqrt(sum((sens[b] / release.sigma(b, sens[b])) ** 2 for b in shares))
    assert moved * release.multiplier == pytest.approx(1.0)
    assert isinstance(release.event, dp_accounting.GaussianDpEvent)
    assert release.event.noise_multiplier == release.multiplier
    assert release.accountant_epsilon() == pytest.approx(1.0, abs=1e-3)


def test_noise_off_releases_exact_values_and_has_no_event() -> None:
    release = BlockGaussianRelease(1.0, 1e-4, {"a": 1.0}, noise=False)
    out = release.release(np.random.default_rng(0), {"a": np.arange(3.0)}, {"a": 1.0})
    np.testing.assert_array_equal(out["a"], np.arange(3.0))
    with pytest.raises(ValueError, match="noise=False"):
        release.event


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(epsilon=0.0, delta=1e-4, shares={"a": 1.0}), "epsilon"),
        (dict(epsilon=1.0, delta=1.0, shares={"a": 1.0}), "delta"),
        (dict(epsilon=1.0, delta=1e-4, shares={}), "shares"),
        (dict(epsilon=1.0, delta=1e-4, shares={"a": 0.5, "b": 0.4}), "summing to 1"),
        (dict(epsilon=1.0, delta=1e-4, shares={"a": 1.2, "b": -0.2}), "shares"),
    ],
)
def test_validation(kwargs, match) -> None:
    with pytest.raises(ValueError, match=match):
        BlockGaussianRelease(**kwargs)


def test_release_refuses_missing_or_unknown_blocks_and_bad_values() -> None:
    release = BlockGaussianRelease(1.0, 1e-4, {"a": 0.5, "b": 0.5})
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="exactly the blocks"):
        release.release(rng, {"a": 0.0}, {"a": 1.0, "b": 1.0})
    with pytest.raises(ValueError, match="exactly the blocks"):
        release.release(rng, {"a": 0.0, "b": 0.0}, {"a": 1.0, "c": 1.0})
    with pytest.raises(ValueError, match="finite"):
        release.release(rng, {"a": np.nan, "b": 0.0}, {"a": 1.0, "b": 1.0})
    with pytest.raises(ValueError, match="sensitivity"):
        release.release(rng, {"a": 0.0, "b": 0.0}, {"a": 0.0, "b": 1.0})
    with pytest.raises(ValueError, match="Unknown block"):
        release.sigma("c", 1.0)
