from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import check_grad
from scipy.special import comb

from dpbandit.optim.srgd.factorization import (
    _objective,
    factorize,
    identity_factorization,
    sensitivity,
    workload_series,
)


def test_objective_gradient_is_exact():
    w = workload_series(12, "true", momentum=0.9, decay=0.1)
    x0 = np.random.default_rng(1).uniform(0.0, 0.5, 11)
    for epochs in (1, 3):
        f = lambda x, e=epochs: _objective(x, w, e)[0]  # noqa: E731
        g = lambda x, e=epochs: _objective(x, w, e)[1]  # noqa: E731
        assert check_grad(f, g, x0) < 1e-6 * np.linalg.norm(g(x0))


def test_true_workload_is_the_momentum_srg_recursion():
    """W = M A L maps the SRG updates Delta to -(x_t - x_0)/lr for heavy-ball SGD (notes/srgd.md 2.4)."""
    n, mu, c = 9, 0.9, 0.3
    D = np.random.default_rng(2).standard_normal(n)
    x, m, g, xs = 0.0, 0.0, 0.0, []
    for t in range(n):
        g = c * g + D[t]
        m = mu * m + g
        x -= m
        xs.append(-x)
    w = workload_series(n, "true", momentum=mu, decay=c)
    np.testing.assert_allclose(np.convolve(w, D)[:n], xs, rtol=1e-12)
    np.testing.assert_array_equal(
        workload_series(n, "true", momentum=mu, decay=0.0), np.convolve(np.ones(n), mu ** np.arange(n))[:n]
    )


@pytest.mark.privacy
def test_sensitivity_matches_brute_force_over_aligned_participations():
    rng = np.random.default_rng(3)
    C = np.tril(rng.uniform(0, 1, (6, 6)))
    # epochs = 2, b = 3: example j participates in columns j and j + 3
    brute = max(np.linalg.norm(C[:, j] + C[:, j + 3]) for j in range(3))
    assert sensitivity(C, 2) == pytest.approx(brute)
    assert sensitivity(np.eye(6), 3) == pytest.approx(np.sqrt(3))


@pytest.mark.parametrize("workload,epochs", [("ones", 1), ("ones", 3), ("true", 1), ("true", 3)])
def test_factorization_is_feasible_and_beats_baselines(workload, epochs):
    n = 48
    f = factorize(n, workload, epochs=epochs, momentum=0.9)
    C = f.matrix
    assert np.all(f.coeffs >= 0) and sensitivity(C, epochs) == pytest.approx(1.0)
    ident = identity_factorization(n, epochs=epochs, workload=workload, momentum=0.9)
    assert f.error < 0.6 * ident.error
    W = np.tril(np.ones((n, n)))
    if workload == "ones":
        np.testing.assert_allclose(f.error, np.linalg.norm(W @ np.linalg.inv(C)), rtol=1e-8)
        # no worse than the square-root factorisation it starts from (scaled to sensitivity 1)
        j = np.subtract.outer(np.arange(n), np.arange(n))
        sq = np.where(j >= 0, comb(2 * np.maximum(j, 0), np.maximum(j, 0)) / 4.0 ** np.maximum(j, 0), 0.0)
        sq /= sensitivity(sq, epochs)
        assert f.error <= np.linalg.norm(W @ np.linalg.inv(sq)) * (1 + 1e-9)


def test_correlate_is_c_inverse_z():
    f = factorize(20, "ones", epochs=2, bands=5)
    assert np.all(f.coeffs[5:] == 0)
    Z = np.random.default_rng(4).standard_normal((20, 3))
    np.testing.assert_allclose(f.correlate(Z), np.linalg.solve(f.matrix, Z), atol=1e-10)
