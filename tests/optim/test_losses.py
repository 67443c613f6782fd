"""Tests of the losses: gradients against finite differences, clipping and its constants."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandit.optim.geometry import lp_norm
from dpbandit.optim.losses import ClippedLoss, LogisticLoss, Loss, SquaredLoss


def _data(rng, n=40, dim=4):
    X = rng.normal(size=(n, dim))
    y = rng.uniform(size=n)
    return X, y


@pytest.mark.parametrize("loss", [SquaredLoss(), LogisticLoss()])
def test_gradient_matches_finite_differences(loss):
    rng = np.random.default_rng(0)
    X, y = _data(rng)
    theta = rng.normal(size=4)
    h = 1e-6
    fd = np.array(
        [(loss.value(theta + h * e, X, y) - loss.value(theta - h * e, X, y)) / (2 * h) for e in np.eye(4)]
    )
    np.testing.assert_allclose(loss.grad(theta, X, y), fd, rtol=1e-6, atol=1e-8)
    per = loss.per_example_grad(theta, X, y)
    assert per.shape == (40, 4)
    np.testing.assert_allclose(per.mean(axis=0), loss.grad(theta, X, y))


def test_squared_loss_is_the_paper_loss():
    X = np.array([[1.0, 2.0]])
    assert SquaredLoss().value(np.array([1.0, 1.0]), X, np.array([1.0])) == pytest.approx(4.0)
    assert SquaredLoss().smoothness(1.0) == 2.0


def test_shape_mismatch_raises():
    with pytest.raises(ValueError, match="Shape mismatch"):
        SquaredLoss().grad(np.zeros(3), np.zeros((2, 4)), np.zeros(2))


@pytest.mark.parametrize("p", [1.5, math.inf])
def test_clipped_loss_bounds_and_keeps_smoothness(p):
    rng = np.random.default_rng(1)
    X, _ = _data(rng, n=200, dim=5)
    q = p / (p - 1) if math.isfinite(p) else 1.0
    X = X / lp_norm(X, q)[:, None]  # ||x||_q = 1
    y = 3.0 * rng.normal(size=200)
    loss = ClippedLoss(SquaredLoss(), clip_norm=1.0, p=p)
    t1, t2 = rng.normal(size=5), rng.normal(size=5)
    g1, g2 = loss.per_example_grad(t1, X, y), loss.per_example_grad(t2, X, y)
    assert np.all(lp_norm(g1, q) <= 1.0 + 1e-12)
    assert 0.2 < loss.clipped_fraction(t1, X, y) < 1.0  # clipping is really active here
    # GLM radial clipping keeps beta = 2 ||x||_q^2 (smoothness_factor 1)
    beta = loss.smoothness(1.0)
    assert beta == 2.0 and loss.lipschitz == 1.0
    assert np.all(lp_norm(g1 - g2, q) <= beta * lp_norm(t1 - t2, p) + 1e-12)
    # unclipped examples keep their gradient; value is the base loss
    small = lp_norm(SquaredLoss().per_example_grad(t1, X, y), q) <= 1.0
    np.testing.assert_allclose(g1[small], SquaredLoss().per_example_grad(t1, X, y)[small])
    assert loss.value(t1, X, y) == SquaredLoss().value(t1, X, y)


def test_clipped_loss_validates():
    with pytest.raises(ValueError, match="clip_norm"):
        ClippedLoss(SquaredLoss(), clip_norm=0.0, p=2)
    with pytest.raises(TypeError, match="base"):
        ClippedLoss("squared", clip_norm=1.0, p=2)


@pytest.mark.parametrize(
    "loss", [SquaredLoss(), LogisticLoss(), ClippedLoss(SquaredLoss(), clip_norm=0.5, p=1.5)]
)
def test_grads_at_matches_per_example_grad(loss):
    rng = np.random.default_rng(4)
    thetas, x, y = rng.normal(size=(3, 4)), rng.normal(size=4), 0.7
    expected = np.stack([loss.per_example_grad(th, x[None], np.array([y]))[0] for th in thetas])
    np.testing.assert_allclose(loss.grads_at(thetas, x, y), expected, rtol=1e-12)
    np.testing.assert_allclose(Loss.grads_at(loss, thetas, x, y), expected, rtol=1e-12)  # generic path
