"""Goldstein-stationarity estimator: simplex projection, min-norm QP, upper bound against an analytic answer."""

from __future__ import annotations

import numpy as np

from dpbandit.optim.nonsmooth.losses import ShellLoss
from dpbandit.optim.nonsmooth.stationarity import goldstein_estimate, min_norm_point, project_simplex


def test_project_simplex_is_the_euclidean_projection():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(50, 6)) * 2
    p = project_simplex(v)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert p.min() >= 0
    # optimality: <v - p, q - p> <= 0 for simplex vertices q
    for q in np.eye(6):
        assert np.all(np.einsum("nk,nk->n", v - p, q - p) <= 1e-9)


def test_min_norm_point_matches_known_hulls():
    # segment from (1, 1) to (1, -1): min norm 1 at (1, 0); triangle containing 0: min norm 0
    G = np.array([[[1.0, 1.0], [1.0, -1.0], [2.0, 0.5]], [[1.0, 0.0], [-1.0, 1.0], [-1.0, -1.0]]])
    v, lam, lower = min_norm_point(G)
    np.testing.assert_allclose(v[0], [1.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(v[1]), 0.0, atol=1e-3)
    np.testing.assert_allclose(lam.sum(axis=1), 1.0)
    assert np.all(lower <= np.linalg.norm(v, axis=1) + 1e-12)
    assert lower[0] > 0.999


def test_estimate_upper_bounds_the_analytic_goldstein_norm():
    # F(x) = | ||x|| - 1 |: ||dbar_rho F(x)|| = sqrt(1 - rho^2/||x||^2) away from the shell, 0 on it.
    loss = ShellLoss(1.0)
    X, y = np.zeros((1, 4)), np.zeros(1)
    x = np.array([[3.0, 0, 0, 0], [0, 1.1, 0, 0], [0, 0, 0.15, 0], [0, 0, 0, 1.6], [0.5, 0.5, 0.5, 0.5]])
    rho = 0.3
    exact = loss.goldstein_norm(x, rho)
    est = goldstein_estimate(lambda p: loss.mean_grads(p, X, y), x, rho, rng=np.random.default_rng(1), n_samples=200)
    assert np.all(est.upper >= exact - 1e-9)
    np.testing.assert_allclose(est.upper, exact, atol=0.02)
    np.testing.assert_allclose(exact[[0, 3]], np.sqrt(1 - rho**2 / np.array([9.0, 2.56])))
    assert np.all(exact[[1, 2, 4]] == 0.0)
