"""Per-sample loss contract of the nonsmooth optimizers, and a test function with a known Goldstein answer.

A :class:`SampleLoss` evaluates f(x; xi_i) for a batch of samples, each at its own set of points (the two-point
and first-order estimators of paper 002 query the *same* sample at several points), and the full-data objective
F(x) = (1/n) sum_i f(x; xi_i) at a few points (for the stationarity estimator). Samples are rows ``(X[i], y[i])``.
It also offers the optimizer contract of ``dpbandit.optim`` (``value``, ``grad``, ``per_example_grad``).
"""

from __future__ import annotations

import abc
from collections.abc import Callable

import numpy as np

from dpbandit import _validate
from dpbandit.optim.losses import Loss

__all__ = ["SampleLoss", "ShellLoss", "chunked_mean"]

_CHUNK = 65_536


def chunked_mean(fn: Callable[[slice], np.ndarray], n: int, chunk: int = _CHUNK) -> np.ndarray:
    """Mean over rows of ``fn(slice)`` (each returning a row-sum) evaluated in row chunks to bound memory."""
    total = sum(fn(slice(start, min(start + chunk, n))) for start in range(0, n, chunk))
    return total / n


class SampleLoss(Loss):
    """Per-sample loss f(x; xi), L-Lipschitz in x for every xi (Assumption 2.2 of paper 002).

    Subclasses give the batched evaluations; ``value``, ``grad`` and ``per_example_grad`` (the
    ``dpbandit.optim.losses.Loss`` contract) follow from them.
    """

    lipschitz: float

    @abc.abstractmethod
    def values(self, points: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """f(points[i, k]; xi_i): points ``(B, k, d)`` -> ``(B, k)``."""

    @abc.abstractmethod
    def grads(self, points: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """A (sub)gradient of f(.; xi_i) at points[i, k]: ``(B, k, d)`` -> ``(B, k, d)``."""

    @abc.abstractmethod
    def mean_values(self, points: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """F(points[k]) over all samples: points ``(K, d)`` -> ``(K,)``."""

    @abc.abstractmethod
    def mean_grads(self, points: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Gradient of F at points[k]: ``(K, d)`` -> ``(K, d)``."""

    def value(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> float:
        """F(theta), the mean loss over the samples."""
        return float(self.mean_values(np.asarray(theta, dtype=float)[None, :], X, y)[0])

    def grad(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Mean (sub)gradient at theta, shape ``(d,)``."""
        return self.mean_grads(np.asarray(theta, dtype=float)[None, :], X, y)[0]

    def per_example_grad(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Per-example (sub)gradients at theta, shape ``(n, d)``."""
        theta = np.asarray(theta, dtype=float)
        points = np.broadcast_to(theta, (np.shape(y)[0], 1, theta.shape[-1]))
        return self.grads(points, np.atleast_2d(X), np.atleast_1d(y))[:, 0, :]


class ShellLoss(SampleLoss):
    """f(x; xi) = | ||x|| - r | + <xi, x> with zero-mean xi: nonsmooth, nonconvex, known Goldstein answer [Fill].

    With centred data (mean of the xi rows exactly 0) the objective is F(x) = | ||x|| - r |, whose
    (rho, 0)-Goldstein-stationary set is {x : | ||x|| - r | <= rho} union {||x|| <= rho}; elsewhere the min-norm
    element of the Goldstein rho-subdifferential has norm sqrt(1 - rho^2 / ||x||^2) (the gradients +-y/||y|| over
    the ball B(x, rho) fill a spherical cap of half-angle arcsin(rho/||x||)); see :meth:`goldstein_norm`.
    Each f(.; xi) is (1 + ||xi||)-Lipschitz; the rows of ``X`` are the xi, ``y`` is unused.
    """

    def __init__(self, radius: float = 1.0, *, lipschitz: float = 1.0) -> None:
        self.radius = _validate.positive(radius=radius)
        self.lipschitz = _validate.positive(lipschitz=lipschitz)

    def values(self, points: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        norms = np.linalg.norm(points, axis=-1)
        return np.abs(norms - self.radius) + np.einsum("bkd,bd->bk", points, X)

    def grads(self, points: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        return self._shell_grad(points) + X[:, None, :]

    def mean_values(self, points: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.abs(np.linalg.norm(points, axis=-1) - self.radius) + points @ X.mean(axis=0)

    def mean_grads(self, points: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        return self._shell_grad(points) + X.mean(axis=0)

    def _shell_grad(self, points: np.ndarray) -> np.ndarray:
        norms = np.linalg.norm(points, axis=-1, keepdims=True)
        return np.sign(norms - self.radius) * points / norms

    def goldstein_norm(self, x: np.ndarray, rho: float) -> np.ndarray:
        """Exact ||min-norm element of the Goldstein rho-subdifferential|| of F = | ||x|| - r |, x shape ``(..., d)``."""
        norms = np.linalg.norm(x, axis=-1)
        stationary = (np.abs(norms - self.radius) <= rho) | (norms <= rho)
        cap = np.sqrt(np.clip(1.0 - (rho / np.maximum(norms, rho)) ** 2, 0.0, None))
        return np.where(stationary, 0.0, cap)
