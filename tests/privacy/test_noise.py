"""Statistical tests of the samplers (fixed seeds; each test also checks a mis-scaled variant is rejected)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpbandit import privacy as P

pytestmark = pytest.mark.privacy

ALPHA = 1e-3
N = 20_000


def _ks(x: np.ndarray, cdf) -> float:
    return float(stats.kstest(x, cdf).pvalue)


@pytest.mark.parametrize("sigma", [0.5, 3.0])
def test_gaussian_and_laplace_scales(sigma: float) -> None:
    rng = np.random.default_rng(0)
    g = P.gaussian(rng, sigma, N)
    assert _ks(g, stats.norm(scale=sigma).cdf) > ALPHA
    assert _ks(g, stats.norm(scale=sigma / 2).cdf) < ALPHA
    lap = P.laplace(rng, sigma, N)
    assert _ks(lap, stats.laplace(scale=sigma).cdf) > ALPHA
    assert _ks(lap, stats.laplace(scale=sigma / 2).cdf) < ALPHA


@pytest.mark.parametrize("scale", [0.3, 1.0, 12.0])
def test_laplace_sampler_is_laplace(scale: float) -> None:
    """KS against Lap(scale); halved or doubled noise and a Gaussian of the same variance are rejected."""
    lap = P.laplace(np.random.default_rng(int(10 * scale)), scale, (N // 4, 4))
    assert lap.shape == (N // 4, 4)
    x = lap.ravel()
    assert _ks(x, stats.laplace(scale=scale).cdf) > ALPHA
    assert _ks(x, stats.laplace(scale=scale / 2).cdf) < ALPHA
    assert _ks(x, stats.laplace(scale=2 * scale).cdf) < ALPHA
    assert _ks(x, stats.norm(scale=math.sqrt(2) * scale).cdf) < ALPHA
    assert _ks(np.abs(x), stats.expon(scale=scale).cdf) > ALPHA  # |X| ~ Exp(scale) ...
    assert stats.binomtest(int(np.sum(x > 0)), x.size).pvalue > ALPHA  # ... with a fair sign


def test_laplace_draw_order_is_the_documented_one() -> None:
    """Entry k is scale * (E_2k - E_2k+1) of the stream's exponentials (the compiled kernels rely on it)."""
    n = 2 * 40_000  # more than one internal chunk
    e = np.random.default_rng(5).standard_exponential(2 * n + 1)
    rng = np.random.default_rng(5)
    lap = P.laplace(rng, 1.7, (2, 40_000))
    np.testing.assert_array_equal(lap.ravel(), 1.7 * (e[0 : 2 * n : 2] - e[1 : 2 * n : 2]))
    assert rng.standard_exponential() == e[-1]  # the stream continues after exactly 2n exponentials


def test_symmetric_gaussian_entries() -> None:
    sigma, d = 2.0, 3
    w = P.symmetric_gaussian(np.random.default_rng(1), sigma, d, size=(N // 3,))
    off, diag = w[:, 0, 1], w[:, 2, 2]
    assert _ks(off, stats.norm(scale=sigma).cdf) > ALPHA
    assert _ks(diag, stats.norm(scale=math.sqrt(2) * sigma).cdf) > ALPHA
    assert _ks(diag, stats.norm(scale=sigma).cdf) < ALPHA
    assert abs(np.corrcoef(w[:, 0, 1], w[:, 0, 2])[0, 1]) < 0.05  # distinct entries independent


# (q, d): Lemma 3.2 regime with r = q, with r = ln d, with r = 2 (small d), q = inf, and Lemma 3.3 (q < 2)
CASES = [(3.0, 40), (10.0, 100), (4.0, 5), (math.inf, 30), (1.5, 10), (1.0, 7)]


@pytest.mark.parametrize("q,d", CASES)
def test_smooth_norm_radius_is_gamma(q: float, d: int) -> None:
    """Lemma 3.1: ||Z||_+^2 ~ Gamma(d/2, scale 2 sigma^2); the printed scale 2 sigma is rejected."""
    sigma = 1.6
    sn = P.smooth_norm(q, d)
    z = sn.sample(np.random.default_rng(int(d)), sigma, size=N)
    r2 = sn.norm(z) ** 2
    assert _ks(r2, stats.gamma(d / 2, scale=2 * sigma**2).cdf) > ALPHA
    assert _ks(r2, stats.gamma(d / 2, scale=2 * sigma).cdf) < ALPHA  # Algorithm 4 as printed
    assert _ks(r2, stats.gamma(d / 2, scale=2 * (sigma / 2) ** 2).cdf) < ALPHA  # noise halved
    assert np.mean(r2) == pytest.approx(d * sigma**2, rel=0.03)


@pytest.mark.parametrize("q,d", CASES)
def test_marginals_symmetric_and_exchangeable(q: float, d: int) -> None:
    z = P.smooth_norm(q, d).sample(np.random.default_rng(100 + d), 1.0, size=N)
    assert stats.ks_2samp(z[:, 0], -z[:, 0]).pvalue > ALPHA
    assert stats.ks_2samp(z[:, 0], z[:, -1]).pvalue > ALPHA
    assert stats.binomtest(int(np.sum(z[:, 1] > 0)), N).pvalue > ALPHA


def test_lemma_3_3_is_rescaled_isotropic_gaussian() -> None:
    """For q < 2 the noise is N(0, sigma^2 / d^(1 - 2/p) I) per coordinate (p = q/(q-1))."""
    d, sigma, q = 9, 2.0, 1.25
    p = q / (q - 1)
    z = P.smooth_norm(q, d).sample(np.random.default_rng(7), sigma, size=N // 4)
    std = sigma / d ** (0.5 - 1 / p)
    assert _ks(z.ravel(), stats.norm(scale=std).cdf) > ALPHA
    assert _ks(z.ravel(), stats.norm(scale=sigma).cdf) < ALPHA


@pytest.mark.parametrize("r", [4.0, math.inf])
def test_direction_follows_the_density(r: float) -> None:
    """In d = 2 the angle of Z has density proportional to 1/||(cos a, sin a)||_r^2 (integrate the radius out).

    This checks the whole law of Algorithm 4, not only its radius; an isotropic direction is rejected.
    """
    z = P.generalized_gaussian(np.random.default_rng(9), 1.0, 2, r, size=N)
    angle = np.mod(np.arctan2(z[:, 1], z[:, 0]), math.pi / 2)  # the law is invariant under quarter turns

    def dens(a: float) -> float:
        return 1.0 / float(np.linalg.norm([math.cos(a), math.sin(a)], ord=r)) ** 2

    grid = np.linspace(0.0, math.pi / 2, 501)
    cum = np.concatenate([[0.0], np.cumsum([integrate.quad(dens, a, b)[0] for a, b in zip(grid[:-1], grid[1:])])])
    cum /= cum[-1]
    assert _ks(angle, lambda a: np.interp(a, grid, cum)) > ALPHA
    assert _ks(angle, stats.uniform(0.0, math.pi / 2).cdf) < ALPHA


def test_one_dimension_is_gaussian_for_any_norm() -> None:
    z = P.generalized_gaussian(np.random.default_rng(2), 1.3, 1, 3.0, size=N)[:, 0]
    assert _ks(z, stats.norm(scale=1.3).cdf) > ALPHA
