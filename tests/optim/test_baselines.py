"""Tests of the baselines: convergence without noise, noise calibration, fast kernel vs reference."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandit.optim.baselines import LocalMD, NoisySFW, NoisySGD
from dpbandit.optim.geometry import lp_norm
from dpbandit.optim.losses import ClippedLoss, Loss, SquaredLoss
from dpbandit.optim.metrics import subopt


def _least_squares(seed, n, dim, p, scale=0.5):
    rng = np.random.default_rng(seed)
    theta_star = scale * np.ones(dim) / lp_norm(np.ones(dim), p)  # interior: the known minimiser
    X = rng.normal(size=(n, dim))
    return X, X @ theta_star + 0.05 * rng.normal(size=n), theta_star


class _Opaque(Loss):
    """Same loss behind a type the NoisySGD kernel does not recognise (forces the reference loop)."""

    def __init__(self, base: Loss) -> None:
        self.base = base

    def value(self, theta, X, y):
        return self.base.value(theta, X, y)

    def per_example_grad(self, theta, X, y):
        return self.base.per_example_grad(theta, X, y)


def test_noisy_sfw_converges_without_noise():
    X, y, theta_star = _least_squares(0, 10000, 5, 1.5)
    res = NoisySFW(5, loss=SquaredLoss(), p=1.5, radius=2.0, epsilon=1.0, delta=1e-4, smoothness=2.0,
                   lipschitz=1.0, rng=np.random.default_rng(1), lr_scale=0.1, noise=False).fit(
                       X, y, record=True)
    s = subopt(res.history, X, y, theta_star)
    assert s[-1] < 0.01 and s[-1] < s[5] / 5
    assert res.privacy is None
    assert len(res.history) == math.isqrt(10000) + 1  # theta_0, theta_1 and t = 1..sqrt(n) - 1


@pytest.mark.privacy
def test_noisy_sfw_noise_scales_and_privacy():
    X, y, _ = _least_squares(0, 400, 5, 1.5)
    opt = NoisySFW(5, loss=ClippedLoss(SquaredLoss(), clip_norm=1.0, p=1.5), p=1.5, radius=2.0, epsilon=1.0,
                   delta=1e-3, smoothness=2.0, lipschitz=1.0, rng=np.random.default_rng(1), lr_scale=0.5)
    res = opt.fit(X, y)
    kappa = opt.norm_plus.kappa
    eta = 0.5 * math.log(400) / 40
    assert res.info["sigma_0"] == pytest.approx(4 * math.sqrt(2 * kappa * math.log(1e3)) / 400)
    sigma_t = math.sqrt(32 * kappa * 4.0**2 * 4 * eta**2 * math.log(1e3) / 400)  # beta = 2, D = 4
    assert res.info["sigma_t"] == pytest.approx(sigma_t)
    assert res.privacy.holds  # d = 5: the smooth norm is l_2, so the RDP accountant certifies it


def test_noisy_sgd_converges_without_noise():
    X, y, theta_star = _least_squares(2, 300, 4, math.inf)
    opt = NoisySGD(4, loss=SquaredLoss(), p=math.inf, radius=2.0, epsilon=1.0, delta=1e-3, lipschitz=1.0,
                   rng=np.random.default_rng(3), noise=False)
    res = opt.fit_scales(X, y, [30.0], record=True)[0]  # n^2 = 90,000 steps
    s = subopt(res.history, X, y, theta_star)
    assert s[-1] < 0.01 and s[-1] < s[0] / 10
    assert res.n_gradients == 90000


def test_noisy_sgd_kernel_matches_reference_loop():
    X, y, _ = _least_squares(4, 30, 3, math.inf)
    loss = ClippedLoss(SquaredLoss(), clip_norm=1.0, p=math.inf)
    kw = dict(p=math.inf, radius=2.0, epsilon=1.0, delta=0.01, lipschitz=1.0, steps=400)
    fast = NoisySGD(3, loss=loss, rng=np.random.default_rng(5), **kw).fit_scales(
        X, y, [1.0, 50.0], record=True)
    slow = NoisySGD(3, loss=_Opaque(loss), rng=np.random.default_rng(5), **kw).fit_scales(
        X, y, [1.0, 50.0], record=True)
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a.theta, b.theta, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(a.history, b.history, rtol=1e-10, atol=1e-12)
    assert np.all(np.abs(fast[1].history) <= 2.0)


@pytest.mark.privacy
def test_noisy_sgd_calibration_and_privacy():
    X, y, _ = _least_squares(4, 50, 3, math.inf)
    opt = NoisySGD(3, loss=SquaredLoss(), p=math.inf, radius=2.0, epsilon=1.0, delta=0.01, lipschitz=1.0,
                   rng=np.random.default_rng(0))
    assert opt.sigma == pytest.approx(math.sqrt(8 * math.log(100)))
    rate = min(1 / math.sqrt(50), 1 / math.sqrt(3 * math.log(100)))
    assert opt.step_size(50) == pytest.approx(2.0 / 50 * rate)
    opt.fit(X, y)
    assert opt.privacy.accountant == "rdp" and opt.privacy.holds


def test_local_md_converges_without_noise():
    X, y, theta_star = _least_squares(5, 4000, 5, 1.5)
    res = LocalMD(5, loss=SquaredLoss(), p=1.5, radius=2.0, epsilon=1.0, delta=1e-4, lipschitz=1.0,
                  rng=np.random.default_rng(6), lr_scale=10.0, noise=False).fit(X, y, record=True)
    s = subopt(res.history, X, y, theta_star)
    assert s[-1] < 0.01 and s[0] == pytest.approx(1.0)
    assert res.privacy is None


def test_local_md_mirror_step_is_the_constrained_minimiser():
    """One phase step equals brute-force minimisation of <g,u> + D_h(u, u_j)/eta over ||u||_p <= R."""
    from dpbandit.optim.baselines.local_md import _dual_map, _radial

    rng = np.random.default_rng(7)
    p, q, eta, R = 1.5, 3.0, 0.3, 0.4
    u_j, g = 0.1 * rng.normal(size=3), rng.normal(size=3)
    theta = _dual_map(u_j, p) / (p - 1) - eta * g
    u_new = _radial((p - 1) * _dual_map(theta, q), p, R)

    def objective(u):  # <g,u> eta + D_h(u, u_j), vectorised over rows of u
        h = lp_norm(u, p) ** 2 / (2 * (p - 1))
        h_j = lp_norm(u_j, p) ** 2 / (2 * (p - 1))
        return eta * u @ g + h - h_j - (u - u_j) @ (_dual_map(u_j, p) / (p - 1))

    cand = rng.normal(size=(20000, 3))
    cand *= (R * rng.uniform(size=(20000, 1)) ** (1 / 3)) / lp_norm(cand, p)[:, None]
    assert lp_norm(u_new, p) <= R + 1e-12
    assert objective(u_new[None])[0] <= objective(cand).min() + 1e-12


@pytest.mark.parametrize("cls", [NoisySFW, LocalMD, NoisySGD])
def test_validation(cls):
    kw = dict(loss=SquaredLoss(), radius=2.0, epsilon=1.0, delta=0.01, lipschitz=1.0,
              rng=np.random.default_rng(0))
    if cls is NoisySFW:
        kw["smoothness"] = 2.0
    with pytest.raises(ValueError, match="epsilon"):
        cls(3, p=1.5, **{**kw, "epsilon": 0.0})
    with pytest.raises(TypeError, match="rng"):
        cls(3, p=1.5, **{**kw, "rng": 0})
