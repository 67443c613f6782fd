"""Multi-class logistic (softmax) regression with vectorised per-example gradients.

The loss of the experiments in Section 5.1 of 000_e95584ca0dc4dbfd.txt ("multiclass logistic
regression"). The paper does not state its parameterisation; we use the standard one [O]:
``theta`` is the row-major flattening of a weight matrix ``W`` of shape
``(n_classes, n_features + 1)`` whose last column is the bias, and

    f(theta; x, y) = -log softmax(W [x, 1])_y,
    grad f(theta; x, y) = (softmax(W [x, 1]) - onehot(y)) outer [x, 1].

It implements the ``dpbandit.optim.losses.Loss`` contract (``value``, ``grad``, ``per_example_grad``).
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_softmax, softmax

from dpbandit._validate import integer
from dpbandit.optim.losses import Loss

__all__ = ["SoftmaxRegression"]


class SoftmaxRegression(Loss):
    """Softmax cross-entropy loss of a linear classifier with a bias term.

    Args:
        n_classes: number of classes K >= 2; labels are integers in ``[0, K)``.
        n_features: number of input features d >= 1 (the bias is added internally).

    Example:
        >>> loss = SoftmaxRegression(n_classes=3, n_features=2)
        >>> theta = np.zeros(loss.dim)
        >>> X, y = np.array([[1.0, 2.0]]), np.array([0])
        >>> round(float(loss.value(theta, X, y)), 4)  # log(3)
        1.0986
    """

    def __init__(self, n_classes: int, n_features: int) -> None:
        self.n_classes = integer(n_classes=n_classes, minimum=2)
        self.n_features = integer(n_features=n_features, minimum=1)
        self.dim = self.n_classes * (self.n_features + 1)

    def _logits(self, theta: np.ndarray, X: np.ndarray) -> np.ndarray:
        W = np.asarray(theta, dtype=float).reshape(self.n_classes, self.n_features + 1)
        return X @ W[:, :-1].T + W[:, -1]

    def value(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> float:
        """Mean cross-entropy over the rows of ``X``."""
        logp = log_softmax(self._logits(theta, X), axis=1)
        return float(-logp[np.arange(len(y)), y].mean())

    def per_example_grad(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Per-example gradients, shape ``(n, dim)``: ``(softmax - onehot) outer [x, 1]``."""
        residual = softmax(self._logits(theta, X), axis=1)
        residual[np.arange(len(y)), y] -= 1.0
        Xb = np.hstack([X, np.ones((X.shape[0], 1))])
        return (residual[:, :, None] * Xb[:, None, :]).reshape(len(y), self.dim)

    def grad(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Mean gradient, shape ``(dim,)``."""
        residual = softmax(self._logits(theta, X), axis=1)
        residual[np.arange(len(y)), y] -= 1.0
        Xb = np.hstack([X, np.ones((X.shape[0], 1))])
        return (residual.T @ Xb).ravel() / len(y)

    def predict(self, theta: np.ndarray, X: np.ndarray) -> np.ndarray:
        """Most likely class of each row."""
        return np.argmax(self._logits(theta, X), axis=1)

    def accuracy(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> float:
        """Fraction of rows classified correctly."""
        return float(np.mean(self.predict(theta, X) == y))
