"""Robust phase retrieval with the absolute loss (notes 002, section 6; the paper has no experiments).

f(x; (a, b)) = | |<a, x>| - b |, nonsmooth and nonconvex, ||a||-Lipschitz, so 1-Lipschitz when ||a|| <= 1.
Subgradient: sign(|<a, x>| - b) sign(<a, x>) a. Data [ours]: a ~ N(0, I/d) projected onto the unit ball,
b = |<a, x*>| with ||x*|| = 1, and a fraction of the b replaced by |N(0, 1/d)| outliers.
"""

from __future__ import annotations

import numpy as np

from dpbandit import _validate
from dpbandit.optim.nonsmooth.losses import SampleLoss, chunked_mean

__all__ = ["PhaseRetrievalData", "RobustPhaseRetrieval", "make_phase_retrieval"]


class RobustPhaseRetrieval(SampleLoss):
    """Absolute-loss robust phase retrieval; samples are rows ``(X[i], y[i]) = (a_i, b_i)``.

    Args:
        lipschitz: bound on ||a|| over the data (1 for :func:`make_phase_retrieval`), which is the Lipschitz
            constant L of every f(.; xi) (Assumption 2.2 of paper 002).
    """

    def __init__(self, *, lipschitz: float = 1.0) -> None:
        self.lipschitz = _validate.positive(lipschitz=lipschitz)

    def values(self, points: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        inner = np.einsum("bkd,bd->bk", points, X)
        return np.abs(np.abs(inner) - y[:, None])

    def grads(self, points: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        inner = np.einsum("bkd,bd->bk", points, X)
        coef = np.sign(np.abs(inner) - y[:, None]) * np.sign(inner)
        return coef[:, :, None] * X[:, None, :]

    def mean_values(self, points: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        def block(s: slice) -> np.ndarray:
            return np.abs(np.abs(X[s] @ points.T) - y[s, None]).sum(axis=0)

        return chunked_mean(block, y.shape[0])

    def mean_grads(self, points: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        def block(s: slice) -> np.ndarray:
            inner = X[s] @ points.T
            coef = np.sign(np.abs(inner) - y[s, None]) * np.sign(inner)
            return coef.T @ X[s]

        return chunked_mean(block, y.shape[0])


class PhaseRetrievalData:
    """Samples ``X (n, d)``, ``y (n,)`` and the planted signal ``x_star`` (unit norm)."""

    def __init__(self, X: np.ndarray, y: np.ndarray, x_star: np.ndarray) -> None:
        self.X, self.y, self.x_star = X, y, x_star

    def recovery_error(self, x: np.ndarray) -> np.ndarray:
        """min(||x - x*||, ||x + x*||) (the sign of x* is not identifiable), x shape ``(..., d)``."""
        return np.minimum(np.linalg.norm(x - self.x_star, axis=-1), np.linalg.norm(x + self.x_star, axis=-1))


def make_phase_retrieval(
    n: int,
    dim: int,
    *,
    rng: np.random.Generator,
    outlier_fraction: float = 0.1,
    x_star: np.ndarray | None = None,
) -> PhaseRetrievalData:
    """Draw n samples of the robust phase-retrieval model of notes 002 section 6 (``x_star`` drawn if None)."""
    n = _validate.integer(n=n, minimum=1)
    dim = _validate.integer(dim=dim, minimum=1)
    outlier_fraction = _validate.probability(outlier_fraction=outlier_fraction, open_interval=False)
    rng = _validate.rng(rng=rng)
    if x_star is None:
        x_star = rng.standard_normal(dim)
        x_star /= np.linalg.norm(x_star)
    X = rng.standard_normal((n, dim)) / np.sqrt(dim)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    y = np.abs(X @ x_star)
    outliers = rng.random(n) < outlier_fraction
    y[outliers] = np.abs(rng.standard_normal(outliers.sum()) / np.sqrt(dim))
    return PhaseRetrievalData(X, y, x_star)
