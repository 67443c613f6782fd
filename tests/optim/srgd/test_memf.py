from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandit.optim.losses import Loss
from dpbandit.optim.srgd.logreg import SoftmaxRegression
from dpbandit.optim.srgd.memf import DPMEMF, DPSRGMEMF, strategy


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 5))
    return X, (X[:, 0] > 0).astype(int) + (X[:, 1] > 0)


def _kwargs(**over):
    kw = dict(batch_size=10, learning_rate=0.5, clip_norm=0.7, epsilon=3.0, delta=1e-6, epochs=2)
    kw.update(over)
    return kw


@pytest.mark.parametrize("workload", ["ones", "true"])
def test_srg_with_zero_decay_is_exactly_dp_memf(data, workload):
    """Algorithm 3 with c = 0 reduces to Algorithm 2: same seed -> identical iterates (noise on)."""
    X, y = data
    loss = SoftmaxRegression(3, 5)
    a = DPMEMF(loss, workload=workload, rng=np.random.default_rng(7), **_kwargs()).fit(X, y, record=True)
    b = DPSRGMEMF(loss, decay=0.0, workload=workload, rng=np.random.default_rng(7), **_kwargs()).fit(
        X, y, record=True
    )
    np.testing.assert_array_equal(a.history, b.history)
    c = DPSRGMEMF(loss, decay=0.1, workload=workload, rng=np.random.default_rng(7), **_kwargs()).fit(
        X, y, record=True
    )
    assert not np.allclose(a.history[-1], c.history[-1])


def _reference(loss, X, y, *, decay, lr, mu, clip, B, epochs):
    """Noise-free Algorithm 3 (c = decay; DP-MEMF when the difference term is skipped, decay=None)."""
    b = len(X) // B
    x = x_prev = np.zeros(loss.dim)
    m = g = np.zeros(loss.dim)
    for t in range(epochs * b):
        Xb, yb = X[(t % b) * B : (t % b + 1) * B], y[(t % b) * B : (t % b + 1) * B]
        per = loss.per_example_grad(x, Xb, yb)
        if decay is not None and t > 0:
            per = per - decay * loss.per_example_grad(x_prev, Xb, yb)
        per = per * np.minimum(1.0, clip / np.linalg.norm(per, axis=1, keepdims=True))
        g = (0.0 if decay is None else decay) * g + per.mean(axis=0)
        m = mu * m + g
        x_prev, x = x, x - lr * m
    return x


@pytest.mark.parametrize("decay", [None, 0.3])
def test_noiseless_runs_match_the_printed_algorithms(data, decay):
    X, y = data
    loss = SoftmaxRegression(3, 5)
    cls = DPMEMF if decay is None else DPSRGMEMF
    extra = {} if decay is None else {"decay": decay}
    res = cls(loss, noise=False, rng=np.random.default_rng(0), **extra, **_kwargs()).fit(X, y)
    ref = _reference(loss, X, y, decay=decay, lr=0.5, mu=0.9, clip=0.7, B=10, epochs=2)
    np.testing.assert_allclose(res.theta, ref, atol=1e-12)
    assert res.privacy is None and res.info["steps"] == 12


class _Zero(Loss):
    dim = 4000

    def value(self, theta, X, y):
        return 0.0

    def per_example_grad(self, theta, X, y):
        return np.zeros((len(X), self.dim))


@pytest.mark.privacy
@pytest.mark.parametrize("workload", ["identity", "ones"])
def test_noise_scale_is_clip_over_batch_over_sqrt_2rho(workload):
    """x_T = -lr * sum_t (C^{-1} Z)_t: its variance is s^2 ||1^T C^{-1}||^2 with s = (G/B)/sqrt(2 rho)."""
    opt = DPMEMF(
        _Zero(),
        momentum=0.0,
        workload=workload,
        rng=np.random.default_rng(3),
        **_kwargs(epochs=1, learning_rate=1.0),
    )
    res = opt.fit(np.zeros((60, 1)), np.zeros(60))
    s = 0.7 / 10 / math.sqrt(2 * opt.rho)
    cinv = strategy(6, workload, epochs=1, momentum=0.9, decay=0.0).inverse_series
    expected = s**2 * np.sum(np.cumsum(cinv) ** 2)
    assert np.var(res.theta) == pytest.approx(expected, rel=0.08)


@pytest.mark.privacy
@pytest.mark.parametrize("cls", [DPMEMF, DPSRGMEMF])
def test_accountant_epsilon_matches_target(cls):
    opt = cls(SoftmaxRegression(3, 5), rng=np.random.default_rng(0), **_kwargs(epsilon=0.5))
    assert opt.privacy.epsilon == pytest.approx(0.5, rel=0.01) and opt.privacy.holds
    assert "zCDP" in opt.privacy.mechanism


def test_validation():
    loss = SoftmaxRegression(3, 5)
    with pytest.raises(ValueError, match="decay"):
        DPSRGMEMF(loss, decay=1.0, rng=np.random.default_rng(0), **_kwargs())
    with pytest.raises(ValueError, match="workload"):
        DPMEMF(loss, workload="banded", rng=np.random.default_rng(0), **_kwargs())
    with pytest.raises(ValueError, match="momentum"):
        DPMEMF(loss, momentum=1.0, rng=np.random.default_rng(0), **_kwargs())
