"""Estimators of grad f_alpha: sphere directions for zeroth order (printed-bug fix), ball for first order."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import LinearLoss

from dpbandit.optim.nonsmooth.estimators import deviation_bound, per_sample_estimates, unit_ball, unit_sphere
from dpbandit.optim.nonsmooth.oracles import OracleParams, SinglePassOracle
from dpbandit.optim.nonsmooth.phase_retrieval import RobustPhaseRetrieval


def test_zeroth_order_queries_lie_on_the_sphere_of_radius_alpha_in_anchor_and_increment():
    # Notes 7.2: Alg 3 line 12 prints y ~ Unif(B_alpha); the corrected increment uses the unit sphere.
    rng = np.random.default_rng(0)
    d, alpha = 6, 0.3
    X = rng.standard_normal((40, d)) / np.sqrt(d)
    loss = LinearLoss(lipschitz=2.0)
    params = OracleParams(order="zeroth", alpha=alpha, period=4, m=5, B1=4, B2=2)
    oracle = SinglePassOracle(
        loss, X, np.zeros(40), params, steps=8, D=0.1, epsilon=1.0, delta=1e-5, rng=rng, noise=False
    )
    zs = rng.standard_normal((8, d))
    for z in zs:
        oracle(z)
    assert len(loss.queries) == 2 + 6 * 2  # two anchors, six increments with two points each
    for q in loss.queries:
        centre = 0.5 * (q[:, : q.shape[1] // 2] + q[:, q.shape[1] // 2 :])  # z + alpha u and z - alpha u
        radii = np.linalg.norm(q[:, : q.shape[1] // 2] - centre, axis=-1)
        np.testing.assert_allclose(radii, alpha, rtol=1e-12)


def test_zeroth_order_estimator_is_unbiased_on_a_linear_loss():
    # With ball directions the mean would be d/(d+2) xi (0.71 xi for d = 5): the sphere makes it exact in mean.
    rng = np.random.default_rng(1)
    d, B = 5, 4000
    xi = np.tile([0.6, -0.8, 0.0, 0.0, 0.0], (B, 1))
    est = per_sample_estimates(LinearLoss(), np.ones(d), xi, np.zeros(B), alpha=0.1, m=4, order="zeroth", rng=rng)
    np.testing.assert_allclose(est.mean(axis=0), xi[0], atol=0.06)


def test_first_order_perturbations_fill_the_ball_not_the_sphere():
    rng = np.random.default_rng(2)
    d, alpha, B, m = 3, 0.5, 2000, 4
    loss = LinearLoss()
    z = np.array([1.0, 2.0, 3.0])
    per_sample_estimates(loss, z, np.ones((B, d)), np.zeros(B), alpha=alpha, m=m, order="first", rng=rng)
    radii = np.linalg.norm(loss.queries[0] - z, axis=-1).ravel()
    assert radii.max() <= alpha
    # Unif(B_alpha) in d = 3: P(r <= alpha/2) = 1/8, E r = 3/4 alpha.
    assert abs(np.mean(radii <= alpha / 2) - 0.125) < 0.015
    assert abs(radii.mean() - 0.75 * alpha) < 0.01


def test_samplers_shapes_and_norms():
    rng = np.random.default_rng(3)
    s = unit_sphere(rng, (7, 3), 4)
    b = unit_ball(rng, (7, 3), 4)
    assert s.shape == b.shape == (7, 3, 4)
    np.testing.assert_allclose(np.linalg.norm(s, axis=-1), 1.0)
    assert np.all(np.linalg.norm(b, axis=-1) <= 1.0)


@pytest.mark.parametrize("order", ["zeroth", "first"])
def test_deviation_bound_holds_empirically(order):
    # f(x; xi) = |x_1| near its kink: the m-term means are random in both orders; their mean over B samples
    # stands in for grad f_alpha(z) (its error ~ std / sqrt(B) is negligible against dev).
    rng = np.random.default_rng(4)
    d, m, gamma, B = 4, 16, 0.05, 3000
    X = np.tile(np.eye(d)[0], (B, 1))
    est = per_sample_estimates(
        RobustPhaseRetrieval(), np.full(d, 0.05), X, np.zeros(B), alpha=0.2, m=m, order=order, rng=rng
    )
    assert est.std() > 0.01
    dev = deviation_bound(lipschitz=1.0, dim=d, m=m, order=order, gamma=gamma)
    assert np.mean(np.linalg.norm(est - est.mean(axis=0), axis=1) > dev) <= gamma
