"""Small losses for the nonsmooth tests: a query recorder, a linear loss and a zero loss."""

from __future__ import annotations

import numpy as np

from dpbandit.optim.nonsmooth.losses import SampleLoss


class LinearLoss(SampleLoss):
    """f(x; xi) = <xi, x> (rows of X are the xi); ||xi||-Lipschitz, f_alpha = f, grad = xi."""

    def __init__(self, lipschitz: float = 1.0) -> None:
        self.lipschitz = lipschitz
        self.queries: list[np.ndarray] = []

    def values(self, points, X, y):
        self.queries.append(points.copy())
        return np.einsum("bkd,bd->bk", points, X)

    def grads(self, points, X, y):
        self.queries.append(points.copy())
        return np.broadcast_to(X[:, None, :], points.shape).copy()

    def mean_values(self, points, X, y):
        return points @ X.mean(axis=0)

    def mean_grads(self, points, X, y):
        return np.broadcast_to(X.mean(axis=0), points.shape).copy()


class ZeroLoss(LinearLoss):
    """f = 0: the clean oracle output is exactly 0, so a release is pure privacy noise."""

    def values(self, points, X, y):
        return np.zeros(points.shape[:2])

    def grads(self, points, X, y):
        return np.zeros(points.shape)
