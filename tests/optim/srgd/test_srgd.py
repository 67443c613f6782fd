from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandit.optim.losses import SquaredLoss
from dpbandit.optim.srgd.memf import DPMEMF
from dpbandit.optim.srgd.srgd import AcceleratedDPSRGD


def _fixed_design(eig: np.ndarray, theta_star: np.ndarray, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Every batch has empirical covariance diag(eig): batch gradients equal the population gradient."""
    batch = np.diag(np.sqrt(len(eig) * eig))
    X = np.tile(batch, (steps, 1))
    return X, X @ theta_star


def _excess(theta, theta_star, eig):
    e = theta - theta_star
    return float(e @ (eig * e))  # F(theta) - F* for f = (y - x^T theta)^2


@pytest.mark.parametrize("eig", [np.linspace(0.2, 1.0, 5), 1.0 / np.arange(1, 101) ** 2], ids=["well", "ill"])
def test_noiseless_accelerated_rate_on_least_squares(eig):
    """Must show 1: noise off, F(y_T) - F* <= 4 beta ||x*||^2 / (T (T + 1)) (Thm 4.7 of 000, Q = b = 0)."""
    d = len(eig)
    theta_star = np.ones(d) / np.sqrt(d)
    beta = 2.0 * eig.max()  # smoothness of F
    errors = {}
    for T in (4, 8, 16, 32, 64, 128):
        X, y = _fixed_design(eig, theta_star, T)
        opt = AcceleratedDPSRGD(
            SquaredLoss(),
            dim=d,
            batch_size=d,
            beta=beta,
            clip_norm=math.inf,
            rng=np.random.default_rng(0),
            noise=False,
            radius=2.0,
        )
        res = opt.fit(X, y)
        assert res.privacy is None and res.info["steps"] == T
        errors[T] = _excess(res.theta, theta_star, eig)
        assert errors[T] <= 4.0 * beta / (T * (T + 1))
    if d == 100:  # on the ill-conditioned problem acceleration is visible against plain GD (rate 1/T)
        X, y = _fixed_design(eig, theta_star, 64)
        gd = DPMEMF(
            SquaredLoss(),
            dim=d,
            batch_size=d,
            learning_rate=1.0 / beta,
            momentum=0.0,
            clip_norm=math.inf,
            workload="identity",
            rng=np.random.default_rng(0),
            noise=False,
        ).fit(X, y)
        assert errors[64] < 0.2 * _excess(gd.theta, theta_star, eig)


def test_matches_algorithm_1_as_printed():
    """Noise off: lines 3-7 of Algorithm 1 (with grad_t recursion and b_t = 0) give the same y_t."""
    rng = np.random.default_rng(5)
    d, B, T, beta, G, R = 4, 6, 9, 3.0, 1.5, 0.8
    X, y = rng.standard_normal((B * T, d)), rng.standard_normal(B * T)
    loss = SquaredLoss()
    res = AcceleratedDPSRGD(
        loss, dim=d, batch_size=B, beta=beta, clip_norm=G, radius=R, rng=rng, noise=False
    ).fit(X, y, record=True)

    def proj(v):
        return v * min(1.0, R / np.linalg.norm(v))

    x = z = x_prev = np.zeros(d)
    grad = np.zeros(d)
    for t in range(T):
        Xb, yb = X[t * B : (t + 1) * B], y[t * B : (t + 1) * B]
        per = (t + 1) * loss.per_example_grad(x, Xb, yb) - t * loss.per_example_grad(x_prev, Xb, yb)
        per *= np.minimum(1.0, G / np.linalg.norm(per, axis=1, keepdims=True))
        grad = per.mean(axis=0) / (t + 1) + t / (t + 1) * grad  # line 4, equivalent form
        z = proj(z - (t + 1) / beta * grad)
        y_next = proj(x - grad / beta)
        x_prev, x = x, (1 - 2 / (t + 3)) * y_next + 2 / (t + 3) * z
        np.testing.assert_allclose(res.history[t + 1], y_next, atol=1e-12)
    assert res.n_gradients == (2 * T - 1) * B


@pytest.mark.privacy
def test_privacy_matches_target_and_noise_is_used():
    rng = np.random.default_rng(6)
    X, y = rng.standard_normal((400, 3)), rng.standard_normal(400)
    kwargs = dict(dim=3, batch_size=20, beta=5.0, clip_norm=1.0, epsilon=2.0, delta=1e-6)
    a = AcceleratedDPSRGD(SquaredLoss(), rng=np.random.default_rng(1), **kwargs).fit(X, y)
    b = AcceleratedDPSRGD(SquaredLoss(), rng=np.random.default_rng(2), **kwargs).fit(X, y)
    exact = AcceleratedDPSRGD(SquaredLoss(), rng=np.random.default_rng(1), noise=False, **kwargs).fit(X, y)
    assert a.privacy.epsilon == pytest.approx(2.0, rel=0.01) and a.privacy.holds
    assert not np.allclose(a.theta, b.theta) and not np.allclose(a.theta, exact.theta)
    assert a.info["noise_multiplier"] > 1.0


def test_validation():
    with pytest.raises(ValueError, match="clip_norm"):
        AcceleratedDPSRGD(
            SquaredLoss(),
            dim=2,
            batch_size=2,
            beta=1.0,
            clip_norm=math.inf,
            epsilon=1.0,
            delta=1e-6,
            rng=np.random.default_rng(0),
        )
    with pytest.raises(ValueError, match="epsilon"):
        AcceleratedDPSRGD(
            SquaredLoss(), dim=2, batch_size=2, beta=1.0, clip_norm=1.0, rng=np.random.default_rng(0)
        )
    opt = AcceleratedDPSRGD(
        SquaredLoss(),
        dim=2,
        batch_size=2,
        beta=1.0,
        clip_norm=1.0,
        steps=5,
        noise=False,
        rng=np.random.default_rng(0),
    )
    with pytest.raises(ValueError, match="steps"):
        opt.fit(np.ones((8, 2)), np.ones(8))
