"""Tests of the l_p-ball geometry: LMOs against brute force, projections against KKT facts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandit.optim.geometry import (
    dual_exponent,
    l1_vertices,
    lmo,
    lp_norm,
    project_l2_ball,
    project_lp_ball,
)

P_VALUES = [1.0, 1.5, 2.0, 3.0, math.inf]


def _random_feasible(rng: np.random.Generator, n: int, dim: int, p: float, radius: float) -> np.ndarray:
    """Points on / inside the l_p sphere of ``radius`` (random directions, radius-normalised)."""
    z = rng.standard_t(2, size=(n, dim))
    return radius * z / lp_norm(z, p)[:, None] * rng.uniform(0.5, 1.0, size=(n, 1)) ** 0.1


def test_dual_exponent():
    assert dual_exponent(1) == math.inf
    assert dual_exponent(math.inf) == 1.0
    assert dual_exponent(1.5) == pytest.approx(3.0)
    assert dual_exponent(2) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="p"):
        dual_exponent(0.5)


@pytest.mark.parametrize("p", P_VALUES)
def test_lmo_feasible_and_optimal(p):
    rng = np.random.default_rng(1)
    dim, radius = 6, 2.0
    d = rng.normal(size=(50, dim))
    v = lmo(d, p, radius)
    assert np.all(lp_norm(v, p) <= radius * (1 + 1e-12))
    achieved = np.sum(d * v, axis=1)
    # attains -r ||d||_q (Hoelder), and no random feasible point does better
    np.testing.assert_allclose(achieved, -radius * lp_norm(d, dual_exponent(p)), rtol=1e-10)
    cand = _random_feasible(rng, 4000, dim, p, radius)
    best_random = (d @ cand.T).min(axis=1)
    assert np.all(achieved <= best_random + 1e-12)


@pytest.mark.parametrize("p", [1.0, math.inf])
def test_lmo_matches_vertex_brute_force(p):
    rng = np.random.default_rng(2)
    dim, radius = 4, 1.5
    d = rng.normal(size=(30, dim))
    if p == 1.0:
        vertices = l1_vertices(dim, radius)
    else:  # the 2^d vertices of the cube
        grid = np.array(np.meshgrid(*[[-1.0, 1.0]] * dim)).reshape(dim, -1).T
        vertices = radius * grid
    brute = (d @ vertices.T).min(axis=1)
    np.testing.assert_allclose(np.sum(d * lmo(d, p, radius), axis=1), brute, rtol=1e-12)


@pytest.mark.parametrize("p", P_VALUES)
def test_lmo_zero_direction_and_extreme_values(p):
    assert np.all(lmo(np.zeros(3), p, 1.0) == 0)
    v = lmo(np.array([1e300, -1e-300, 0.0]), p, 1.0)  # no overflow / nan for huge ranges
    assert np.all(np.isfinite(v)) and v[0] < 0


@pytest.mark.parametrize("p", P_VALUES)
def test_projection_is_euclidean_nearest_point(p):
    rng = np.random.default_rng(3)
    dim, radius = 5, 1.0
    x = 2.0 * rng.normal(size=(20, dim))
    u = project_lp_ball(x, p, radius)
    norms = lp_norm(u, p)
    assert np.all(norms <= radius * (1 + 1e-9))
    outside = lp_norm(x, p) > radius
    np.testing.assert_allclose(norms[outside], radius, rtol=1e-8)
    # optimality of a projection: <x - u, w - u> <= 0 for every feasible w
    w = _random_feasible(rng, 3000, dim, p, radius)
    inner = np.einsum("nd,nmd->nm", x - u, w[None, :, :] - u[:, None, :])
    assert inner.max() <= 1e-7
    # points inside are fixed
    inside = x / (2 * lp_norm(x, p)[:, None]) * radius
    np.testing.assert_allclose(project_lp_ball(inside, p, radius), inside)


def test_project_l2_ball_is_radial():
    x = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])
    np.testing.assert_allclose(project_l2_ball(x, 1.0), [[0.6, 0.8], [0.3, 0.4], [0.0, 0.0]])
