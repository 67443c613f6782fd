"""The l2-ball randomizer of LDP-SGD (Duchi et al. 2018, as in liangzp/LDP-Bandit ``mechanisms/LDP.py:50-66``):
its drawn law against the exact density (a mis-scaled radius or hemisphere probability is rejected), its
unbiasedness, the exact audit of one report (pure DP: tight), the accountant's pure epsilon, input checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

from dpbandit.audit.core import epsilon_lower_bound
from dpbandit.privacy.l2ball import L2BallRandomizer, ball_radius, hemisphere_probability, pure_epsilon

pytestmark = pytest.mark.privacy


def authors_radius(d: int, eps: float) -> float:
    """LDP.py:50, written as the authors' code writes it (independent of the module's log-Gamma form)."""
    return (math.exp(eps) + 1) / (math.exp(eps) - 1) * math.sqrt(math.pi) / 2 * d * special.gamma(
        (d - 1) / 2 + 1) / special.gamma(d / 2 + 1)


def projection_cdf(t: np.ndarray, q: float) -> np.ndarray:
    """Exact CDF of ``<z, u> / radius`` in d = 3: the half ``t > 0`` has mass ``q``; within each half the
    projection of a uniform point on S^2 is uniform (Archimedes)."""
    return np.where(t < 0, (1 - q) * (t + 1), (1 - q) + q * t)


@pytest.mark.parametrize("d", [1, 2, 3, 10, 200])
@pytest.mark.parametrize("eps", [0.5, 1.0, 4.0])
def test_radius_and_hemisphere_are_the_authors(d: int, eps: float) -> None:
    assert ball_radius(d, eps) == pytest.approx(authors_radius(d, eps), rel=1e-12)
    assert hemisphere_probability(eps) == pytest.approx(math.exp(eps) / (math.exp(eps) + 1), rel=1e-14)


def test_drawn_law_matches_the_exact_density_and_rejects_mis_scaled_parameters() -> None:
    """40,000 reports of one input in d = 3 (||v|| = 0.6 of the clip 2): every norm is C B exactly; the projection
    on the input's direction passes a KS test against the exact law and fails it (p < 1e-6) at a hemisphere
    probability of 1.15 epsilon; the angle around the direction is uniform; the sample mean is the input (a
    radius 10% off is rejected at > 4 standard errors)."""
    eps, clip, d, n = 1.0, 2.0, 3, 40_000
    rand = L2BallRandomizer(d, eps, clip)
    u = np.array([2.0, -1.0, 2.0]) / 3.0
    g = 1.2 * u
    z = rand.randomize(np.random.default_rng(11), np.tile(g, (n, 1)))
    radius = clip * authors_radius(d, eps)
    assert np.allclose(np.linalg.norm(z, axis=1), radius, rtol=1e-12)
    t = z @ u / radius
    p, a = (1 + 0.6) / 2, hemisphere_probability(eps)
    q = p * a + (1 - p) * (1 - a)
    assert stats.kstest(t, lambda s: projection_cdf(s, q)).pvalue > 1e-3
    a_bad = hemisphere_probability(1.15 * eps)
    assert stats.kstest(t, lambda s: projection_cdf(s, p * a_bad + (1 - p) * (1 - a_bad))).pvalue < 1e-6
    e1 = np.cross(u, [1.0, 0.0, 0.0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(u, e1)
    angle = np.arctan2(z @ e2, z @ e1)
    assert stats.kstest(angle, stats.uniform(-math.pi, 2 * math.pi).cdf).pvalue > 1e-3
    mean = z.mean(axis=0)
    se = z.std(axis=0) / math.sqrt(n)
    assert np.all(np.abs(mean - g) < 4 * se)
    se_u = float(np.std(z @ u)) / math.sqrt(n)
    assert abs(mean @ u - 1.2) < 4 * se_u
    assert abs(0.9 * mean @ u - 1.2) > 4 * se_u  # a radius 10% short is visible


def test_density_is_the_drawn_frequencies() -> None:
    """The exact density (relative to the uniform law) of the half each report falls in, averaged over the
    reports, estimates E[density] = sum over halves of q_h^2 / (1/2): matches the drawn frequencies."""
    rand = L2BallRandomizer(4, 0.7, 1.0)
    g = np.array([0.3, 0.0, -0.4, 0.0])
    z = rand.randomize(np.random.default_rng(2), np.tile(g, (50_000, 1)))
    dens = rand.density(z, g)
    inside = dens.max()
    freq = float(np.mean(dens == inside))
    assert freq == pytest.approx(inside / 2, abs=0.01)  # the half's mass is its density over 2


def test_exact_audit_of_one_report_is_tight() -> None:
    """The worst neighbours: v = C u and v' = -C u. Exactly, the density ratio of any report is e^eps at most
    and reaches it (every report). From 100,000 drawn reports of each, the half ``<z, u> > 0`` has frequencies
    whose log ratio is eps within 3%, a Clopper-Pearson lower bound above 0.9 eps, and the accountant's epsilon
    is eps (pure, delta 0)."""
    eps, clip, d, n = 1.0, 1.5, 5, 100_000
    rand = L2BallRandomizer(d, eps, clip)
    u = np.zeros(d)
    u[1] = 1.0
    rng = np.random.default_rng(5)
    z0 = rand.randomize(rng, np.tile(clip * u, (n, 1)))
    z1 = rand.randomize(rng, np.tile(-clip * u, (n, 1)))
    ratio = rand.density(np.vstack([z0, z1]), clip * u) / rand.density(np.vstack([z0, z1]), -clip * u)
    assert np.max(np.abs(np.log(ratio))) == pytest.approx(eps, rel=1e-12)
    k0, k1 = int(np.sum(z0 @ u > 0)), int(np.sum(z1 @ u > 0))
    assert math.log(k0 / k1) == pytest.approx(eps, rel=0.03)
    assert epsilon_lower_bound(k0, k1, n, 1e-12) > 0.9 * eps
    assert rand.achieved_epsilon == pytest.approx(eps, rel=1e-9)
    # a report of a shorter vector is less revealing: the ratio on the same pair at half the norm is smaller
    half = rand.density(z0, 0.5 * clip * u) / rand.density(z0, -0.5 * clip * u)
    assert np.max(np.abs(np.log(half))) < 0.6 * eps


@pytest.mark.parametrize("reports", [1, 3, 20])
def test_pure_epsilon_composes_at_delta_zero(reports: int) -> None:
    """dp_accounting's PLD of ``reports`` epsilon-DP reports at delta 0 is ``reports * epsilon`` (pure DP composes
    exactly), up to its 1e-12 discretization."""
    assert pure_epsilon(0.37, reports) == pytest.approx(0.37 * reports, rel=1e-9)


def test_clip_is_explicit_and_zero_vectors_are_unbiased() -> None:
    rand = L2BallRandomizer(2, 1.0, clip=1.0)
    long = np.array([3.0, 4.0])
    assert np.allclose(rand.clipped(long), [0.6, 0.8])
    z = rand.randomize(np.random.default_rng(0), np.zeros((20_000, 2)))
    assert np.all(np.isfinite(z))
    assert np.all(np.abs(z.mean(axis=0)) < 4 * z.std(axis=0) / math.sqrt(20_000))


def test_one_vector_path_draws_the_rows_paths_numbers() -> None:
    """A bandit sends one report per round through the one-vector path: same draws, same reports (to round-off)
    as the rows path, for a short, a clipped and a zero vector."""
    rand = L2BallRandomizer(3, 0.8, clip=0.7)
    for g in (np.array([0.3, -0.2, 0.5]), np.array([3.0, 1.0, 0.0]), np.zeros(3)):
        a, b = np.random.default_rng(4), np.random.default_rng(4)
        one = np.array([rand.randomize(a, g) for _ in range(50)])
        rows = np.array([rand.randomize(b, g[None])[0] for _ in range(50)])
        assert np.allclose(one, rows, rtol=1e-12, atol=1e-12)


def test_bad_inputs_are_errors() -> None:
    with pytest.raises(ValueError, match="epsilon"):
        L2BallRandomizer(2, 0.0)
    with pytest.raises(ValueError, match="clip"):
        L2BallRandomizer(2, 1.0, clip=-1.0)
    with pytest.raises(ValueError, match="dim"):
        L2BallRandomizer(2, 1.0).randomize(np.random.default_rng(0), np.ones(3))
    with pytest.raises(ValueError, match="g"):
        L2BallRandomizer(2, 1.0).randomize(np.random.default_rng(0), np.array([np.nan, 1.0]))
