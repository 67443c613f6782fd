"""Fixtures of the KL optimizer tests: a PL least-squares instance with constants known by construction."""

from __future__ import annotations

import numpy as np
import pytest

from dpbandit.optim.kl import EmpiricalRisk
from dpbandit.optim.losses import SquaredLoss


class PLLeastSquares:
    """F(w) = mean (y - x^T w)^2 with X^T X / n = diag(s), s in [0.5, 1]: Hessian 2 diag(s), so F is PL with
    F - F* <= ||grad F||^2 / (4 min s) (gamma = 1 / sqrt(4 min s)) and 2-smooth; F* by least squares."""

    def __init__(self, seed: int = 0, n: int = 200, d: int = 5) -> None:
        rng = np.random.default_rng(seed)
        Q, _ = np.linalg.qr(rng.standard_normal((n, d)))
        s = np.linspace(0.5, 1.0, d)
        X = np.sqrt(n) * Q * np.sqrt(s)
        y = X @ (0.5 * rng.standard_normal(d)) + 0.1 * rng.standard_normal(n)
        self.objective = EmpiricalRisk(SquaredLoss(), X, y)
        self.f_star = self.objective.value(np.linalg.lstsq(X, y, rcond=None)[0])
        self.gamma, self.L1, self.L0 = 1.0 / np.sqrt(4 * s.min()), 2 * s.max(), 50.0
        self.F0 = self.objective.value(np.zeros(d)) - self.f_star + 1.0  # generous public bound

    def excess(self, w: np.ndarray) -> float:
        return self.objective.value(w) - self.f_star


@pytest.fixture(scope="module")
def pl_ls() -> PLLeastSquares:
    return PLLeastSquares()
