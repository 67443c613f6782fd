from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import approx_fprime

from dpbandit.optim.kl import kl_instance
from dpbandit.optim.kl.objective import mean_grad


@pytest.mark.parametrize("kappa", [2.0, 1.5, 3.0])
def test_kl_inequality_and_exact_minimum(kappa: float) -> None:
    inst = kl_instance(np.random.default_rng(1), kappa=kappa, dim=6, n=1001)
    rng = np.random.default_rng(2)
    ratios = []
    for _ in range(500):
        w = inst.w_star + rng.standard_normal(6) * rng.uniform(0.0, 1.0)
        gap, g = inst.excess(w), np.linalg.norm(mean_grad(inst, w))
        assert inst.value(w) - inst.f_star == pytest.approx(gap, abs=1e-12)  # F* is the exact minimum
        ratios.append(gap / (inst.gamma * g) ** kappa)
    assert max(ratios) <= 1.0  # (gamma, kappa)-KL, eq. (1)
    assert max(ratios) > 0.5  # and reasonably tight
    assert inst.excess(inst.w_star) == 0.0
    assert inst.value(inst.w0) - inst.f_star <= inst.F0


@pytest.mark.parametrize("kappa", [2.0, 1.5, 3.0])
def test_gradient_matches_finite_differences(kappa: float) -> None:
    inst = kl_instance(np.random.default_rng(3), kappa=kappa, dim=4, n=50)
    w = np.random.default_rng(4).standard_normal(4) * 0.3
    np.testing.assert_allclose(mean_grad(inst, w), approx_fprime(w, inst.value, 1e-7), atol=1e-5)


def test_constants_bound_per_example_gradients_on_the_region() -> None:
    inst = kl_instance(np.random.default_rng(5), kappa=2.0, dim=8, n=100, radius=1.0)
    rng = np.random.default_rng(6)
    for _ in range(200):
        u = rng.standard_normal(8)
        w, w2 = u / np.linalg.norm(u) * rng.uniform(0, 1), rng.standard_normal(8) * 0.1
        w2 = w2 + w if np.linalg.norm(w + w2) <= 1 else w
        G, G2 = inst.per_example_grad(w), inst.per_example_grad(w2)
        assert np.linalg.norm(G, axis=1).max() <= inst.L0
        assert np.linalg.norm(G - G2, axis=1).max() <= inst.L1 * np.linalg.norm(w - w2) + 1e-12


def test_invalid_parameters_are_named() -> None:
    with pytest.raises(ValueError, match="kappa"):
        kl_instance(np.random.default_rng(0), kappa=1.0, dim=2, n=10)
    with pytest.raises(ValueError, match="a"):
        kl_instance(np.random.default_rng(0), kappa=2.0, dim=2, n=10, a=1.0)
