from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import approx_fprime

from dpbandit.optim.srgd.logreg import SoftmaxRegression


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.standard_normal((7, 4)), rng.integers(0, 3, 7), rng.standard_normal(15)


def test_per_example_gradients_match_finite_differences(data):
    X, y, theta = data
    loss = SoftmaxRegression(n_classes=3, n_features=4)
    G = loss.per_example_grad(theta, X, y)
    assert G.shape == (7, 15)
    for i in range(7):
        num = approx_fprime(theta, lambda th, i=i: loss.value(th, X[i : i + 1], y[i : i + 1]), 1e-7)
        np.testing.assert_allclose(G[i], num, atol=1e-5)
    np.testing.assert_allclose(loss.grad(theta, X, y), G.mean(axis=0), atol=1e-12)


def test_value_accuracy_and_validation(data):
    X, y, _ = data
    loss = SoftmaxRegression(n_classes=3, n_features=4)
    assert loss.value(np.zeros(loss.dim), X, y) == pytest.approx(np.log(3))
    W = np.zeros((3, 5))
    W[np.arange(3), np.arange(3)] = 100.0  # class = argmax of the first three features
    assert loss.accuracy(W.ravel(), X, np.argmax(X[:, :3], axis=1)) == 1.0
    with pytest.raises(ValueError, match="n_classes"):
        SoftmaxRegression(n_classes=1, n_features=4)
