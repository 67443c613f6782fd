"""Replica of the authors' DP-TOFW code (not private): sigma_+, sampler, Table 5.1 cell, privacy label."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import gennorm

from dpbandit.optim.geometry import lp_norm
from dpbandit.optim.metrics import subopt
from dpbandit.optim.tofw_replica import AuthorsCodeTOFW, authors_ggplus
from dpbandit.privacy.guarantee import NOT_PRIVATE_LABEL


def _replica(dim, p, version, *, T=1000, c=0.4, seed=0):
    return AuthorsCodeTOFW(dim, p=p, horizon=T, epsilon=1.0, delta=1 / T, rng=np.random.default_rng(seed),
                           lr_scale=c, code_version=version)


# sigma_+ from the authors' get_sigma_plus (algo.py), T = 1000: m = 11, log(m / delta) = log(11000)
_LOG = math.log(11 * 1000)
_SIGMA = {
    # kappa = min(q-1, e^2(ln d-1)) = 2; c beta D + L = 0.4 * 1 * 4 + 1
    ("615a971", 1.5, 10): math.sqrt(8 * 121 * 2 * _LOG) * (0.4 * 1 * 4 + 1),
    # p = inf: kappa = d, then sigma_+ / d^(1/2)
    ("615a971", math.inf, 5): math.sqrt(8 * 121 * 5 * _LOG) * (0.4 * 4 + 1) / math.sqrt(5),
    ("302d221", 1.5, 10): math.sqrt(8 * 121 * 2 * _LOG) * (1 * 4 + 4),  # L0 = 4, no lr scale
    ("302d221", math.inf, 5): math.sqrt(8 * 121 * _LOG) * (1 * 4 + 4),  # no kappa_q, no division
}


@pytest.mark.privacy
@pytest.mark.parametrize(("version", "p", "dim"), list(_SIGMA))
def test_sigma_plus_and_the_noise_actually_drawn(version, p, dim):
    opt = _replica(dim, p, version)
    assert opt.sigma_plus == pytest.approx(_SIGMA[(version, p, dim)], rel=1e-12)
    index = 2.0 if math.isinf(p) else min(3 - 1, math.log(dim) - 1)
    assert opt.noise_index == pytest.approx(index)
    draws = opt.node_noise(np.random.default_rng(1), 40_000)
    radius_sq = np.sum(np.abs(draws) ** index, axis=1) ** (2 / index)
    sigma = opt.sigma_plus
    # E Gamma(d/2, 2 sigma^2) = d sigma^2 (615a971) vs E Gamma(d/2, 2 sigma) = d sigma (302d221)
    expected = dim * sigma**2 if version == "615a971" else dim * sigma
    np.testing.assert_allclose(radius_sq.mean(), expected, rtol=0.03)


@pytest.mark.parametrize("index", [0.61, 1.3, 2.0])
def test_sampler_direction_matches_utils_recipe(index):
    """Direction law against an independent reference: scipy's gennorm + 1/p, random sign (utils.py:15-18)."""
    dim, n = 5, 60_000
    ours = authors_ggplus(np.random.default_rng(2), 1.0, dim, index, n)
    ours /= np.sum(np.abs(ours) ** index, axis=1, keepdims=True) ** (1 / index)
    ref_rng = np.random.default_rng(3)
    eps = gennorm.rvs(index, size=(n, dim), random_state=ref_rng) + 1 / index
    x = eps * (ref_rng.integers(0, 2, size=(n, dim)) * 2 - 1)
    ref = x / np.sum(np.abs(x) ** index, axis=1, keepdims=True) ** (1 / index)
    smallest = lambda z: np.abs(z).min(axis=1).mean()  # noqa: E731  (the shift lifts small coordinates)
    for stat in (lambda z: np.abs(z).mean(), lambda z: np.abs(z).max(1).mean(), smallest):
        assert stat(ours) == pytest.approx(stat(ref), abs=2e-3)
    assert abs(ours.mean()) < 5e-3  # symmetric
    unshifted = gennorm.rvs(index, size=(n, dim), random_state=ref_rng)
    unshifted /= np.sum(np.abs(unshifted) ** index, axis=1, keepdims=True) ** (1 / index)
    assert smallest(ours) - smallest(unshifted) > 0.002  # the +1/index shift is there (0.004 .. 0.02 here)


def _cell(T, d, p, seed):
    """Section 5.3 data (notes Section 4.1): x ~ N(0, 0.05^2 I) with ||x||_q = 1, theta = 1/||1||_p."""
    rng = np.random.default_rng(seed)
    q = 1.0 if math.isinf(p) else p / (p - 1)
    theta = np.ones(d) / lp_norm(np.ones(d), p)
    X = rng.normal(0, 0.05, size=(T + 2000, d))
    X /= lp_norm(X, q)[:, None]
    y = X @ theta + rng.normal(0, 0.05, size=T + 2000)
    return X[:T], y[:T], X[T:], y[T:], theta


def test_table_5_1_cell_reproduced_by_302d221_not_by_head():
    """(T, d, p) = (1000, 5, inf), scale 0.7: paper SubOpt 0.112 +- 0.0727 (10 seeds)."""
    results = {}
    for version in ("615a971", "302d221"):
        values = []
        for seed in range(10):
            X, y, X_test, y_test, theta = _cell(1000, 5, math.inf, seed)
            res = _replica(5, math.inf, version, c=0.7, seed=seed).run(X, y)
            values.append(subopt(res.theta, X_test, y_test, theta))
        results[version] = np.mean(values)
    assert abs(results["302d221"] - 0.112) <= 2 * 0.0727
    assert results["615a971"] > 0.5


@pytest.mark.privacy
@pytest.mark.parametrize("version", ["615a971", "302d221"])
def test_privacy_certifies_nothing(version):
    guarantee = _replica(10, 1.5, version).privacy
    assert guarantee.epsilon == math.inf and guarantee.claimed_epsilon == 1.0 and not guarantee.holds
    assert NOT_PRIVATE_LABEL in guarantee.mechanism and version in guarantee.mechanism
    assert "beta = 1" in guarantee.notes
    assert ("Gamma(d/2, 2 sigma)" in guarantee.notes) == (version == "302d221")


def test_validation():
    with pytest.raises(ValueError, match="dim"):
        _replica(2, 1.5, "615a971")  # sampler index ln 2 - 1 < 0
    with pytest.raises(ValueError, match="code_version"):
        _replica(5, 1.5, "HEAD")
    with pytest.raises(ValueError, match="lr_scale"):
        _replica(5, math.inf, "615a971", c=3.0)
