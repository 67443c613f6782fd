"""Losses for private optimisation: value, mean gradient and per-example gradient, vectorised.

A loss is any object with ``value(theta, X, y)`` (mean loss, float), ``grad(theta, X, y)`` (mean
gradient, shape ``(dim,)``) and ``per_example_grad(theta, X, y)`` (shape ``(n, dim)``); ``X`` has
shape ``(n, dim)`` (a single example ``(dim,)`` is promoted to ``(1, dim)``).

The built-in losses are generalised-linear: f(theta; x, y) = ell(x^T theta, y), so
grad f = ell'(x^T theta, y) x. Their constants in the l_p / l_q geometry of
004_290fd04a1e656565.txt (Assumptions 2.2 and 2.4) follow from Hoelder's inequality:

* smoothness  beta = sup|ell''| * R_q^2,  with R_q = sup ||x||_q  (see :meth:`GLMLoss.smoothness`);
* Lipschitz   L    = sup|ell'| * R_q, finite for the logistic loss, *unbounded* for the squared
  loss with unbounded noise, which is why private optimisers use :class:`ClippedLoss`.

Clipping (notes/ofw_hdb.md Section 6.3) is explicit: :class:`ClippedLoss` rescales each
per-example gradient to l_q norm <= ``clip_norm`` and reports the constants a privacy
calibration must use. For a GLM loss the radial clip equals clipping the scalar ell' at
``clip_norm / ||x||_q``, which is 1-Lipschitz, so the clipped gradient keeps the smoothness
beta of the base loss (||c(g1) - c(g2)||_q <= |ell'_1 - ell'_2| ||x||_q <= beta ||theta1 - theta2||_p)
and is ``clip_norm``-bounded: L = clip_norm. For a general (non-GLM) loss the radial
retraction onto a norm ball is only 2-Lipschitz [O], so the smoothness doubles.
"""

from __future__ import annotations

import abc
import math

import numpy as np
from scipy.special import expit

from dpbandit import _validate
from dpbandit.optim.geometry import _norm, dual_exponent

__all__ = ["ClippedLoss", "GLMLoss", "LogisticLoss", "Loss", "SquaredLoss"]


def _as_batch(theta: np.ndarray, X: np.ndarray, y: np.ndarray | float) -> tuple[np.ndarray, ...]:
    theta = np.asarray(theta, dtype=float)
    X = np.atleast_2d(np.asarray(X, dtype=float))
    y = np.atleast_1d(np.asarray(y, dtype=float))
    if X.shape[-1] != theta.shape[-1] or y.shape[0] != X.shape[0]:
        raise ValueError(
            f"Shape mismatch: theta {theta.shape}, X {X.shape}, y {y.shape}; "
            "expected theta (dim,), X (n, dim), y (n,)."
        )
    return theta, X, y


class Loss(abc.ABC):
    """Per-example loss f(theta; x, y) with vectorised value and gradients."""

    @abc.abstractmethod
    def value(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> float:
        """Mean loss (1/n) sum_i f(theta; x_i, y_i)."""

    @abc.abstractmethod
    def per_example_grad(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Per-example gradients, shape ``(n, dim)``."""

    def grad(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Mean gradient, shape ``(dim,)``."""
        return self.per_example_grad(theta, X, y).mean(axis=0)

    def grads_at(self, thetas: np.ndarray, x: np.ndarray, y: float) -> np.ndarray:
        """Gradients of one example (x, y) at each row of ``thetas`` ``(k, dim)`` -> ``(k, dim)``.

        Streaming optimisers need grad f(theta_t; x_t) and grad f(theta_{t-1}; x_t) every step.
        """
        X, Y = np.asarray(x, dtype=float)[None, :], np.array([y], dtype=float)
        return np.stack([self.per_example_grad(th, X, Y)[0] for th in thetas])

    #: Multiplier on the base smoothness a gradient transformation may introduce (1 = none).
    smoothness_factor: float = 1.0


class GLMLoss(Loss):
    """f(theta; x, y) = ell(x^T theta, y); subclasses give ell, ell' and sup |ell''|."""

    #: sup_z |ell''(z, y)| (curvature bound used by :meth:`smoothness`).
    curvature: float = math.nan

    @abc.abstractmethod
    def link_value(self, z: np.ndarray, y: np.ndarray) -> np.ndarray:
        """ell(z, y), elementwise."""

    @abc.abstractmethod
    def link_derivative(self, z: np.ndarray, y: np.ndarray) -> np.ndarray:
        """d ell / dz at (z, y), elementwise."""

    def value(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> float:
        theta, X, y = _as_batch(theta, X, y)
        return float(np.mean(self.link_value(X @ theta, y)))

    def per_example_grad(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        theta, X, y = _as_batch(theta, X, y)
        return self.link_derivative(X @ theta, y)[:, None] * X

    def grads_at(self, thetas: np.ndarray, x: np.ndarray, y: float) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        return self.link_derivative(thetas @ x, float(y))[:, None] * x

    def smoothness(self, feature_norm: float) -> float:
        """beta of Assumption 2.2 in (l_p, l_q) when every ||x||_q <= ``feature_norm``."""
        feature_norm = _validate.positive(feature_norm=feature_norm)
        return self.curvature * feature_norm**2


class SquaredLoss(GLMLoss):
    """f = (y - x^T theta)^2, the loss of Section 5.2 of 004 (no 1/2): ell' = 2(z - y), ell'' = 2."""

    curvature = 2.0

    def link_value(self, z: np.ndarray, y: np.ndarray) -> np.ndarray:
        return (y - z) ** 2

    def link_derivative(self, z: np.ndarray, y: np.ndarray) -> np.ndarray:
        return 2.0 * (z - y)


class LogisticLoss(GLMLoss):
    """Canonical logistic GLM loss f = log(1 + e^z) - y z, z = x^T theta, y in [0, 1].

    This is the negative log-likelihood form used by DP-HDB (notes/ofw_hdb.md Section 2,
    "Per-arm loss"): grad f = (sigmoid(z) - y) x, so ell' is bounded by 1 and ell'' <= 1/4.
    """

    curvature = 0.25

    def link_value(self, z: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.logaddexp(0.0, z) - y * z

    def link_derivative(self, z: np.ndarray, y: np.ndarray) -> np.ndarray:
        return expit(z) - y


class ClippedLoss(Loss):
    """Explicit per-example gradient clipping: g -> g * min(1, clip_norm / ||g||_q).

    ``value`` is the base (unclipped) loss, the quantity the metrics report; the gradients are
    the clipped ones. Use :attr:`lipschitz` (= ``clip_norm``) and :meth:`smoothness` (base
    smoothness times :attr:`smoothness_factor`: 1 for a GLM base loss, 2 otherwise; see the
    module docstring) when calibrating privacy noise. :meth:`clipped_fraction` reports how
    often clipping is active on a batch, so its effect is visible, never silent.

    Args:
        base: the loss whose gradients are clipped.
        clip_norm: the bound C on ||grad||_q, > 0.
        p: the primal norm index; gradients are measured in the dual l_q, q = p / (p - 1).
    """

    def __init__(self, base: Loss, *, clip_norm: float, p: float) -> None:
        if not isinstance(base, Loss):
            raise TypeError(f"Expected base to be a Loss, got {type(base).__name__}.")
        self.base = base
        self.clip_norm = _validate.positive(clip_norm=clip_norm)
        self.p = _validate.norm_index(p=p)
        self.q = dual_exponent(self.p)
        self.smoothness_factor = 1.0 if isinstance(base, GLMLoss) else 2.0

    @property
    def lipschitz(self) -> float:
        """L of Assumption 2.4 for the clipped gradients (in l_q)."""
        return self.clip_norm

    def smoothness(self, feature_norm: float) -> float:
        """beta for the clipped gradients (needs a GLM base loss for ``base.smoothness``)."""
        return self.smoothness_factor * self.base.smoothness(feature_norm)  # type: ignore[attr-defined]

    def value(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> float:
        return self.base.value(theta, X, y)

    def per_example_grad(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        g = self.base.per_example_grad(theta, X, y)
        norms = _norm(g, self.q, keepdims=True)
        return g * np.minimum(1.0, self.clip_norm / np.where(norms > 0, norms, 1.0))

    def grads_at(self, thetas: np.ndarray, x: np.ndarray, y: float) -> np.ndarray:
        g = self.base.grads_at(thetas, x, y)
        norms = _norm(g, self.q, keepdims=True)
        return g * np.minimum(1.0, self.clip_norm / np.where(norms > 0, norms, 1.0))

    def clipped_fraction(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> float:
        """Fraction of examples whose gradient is clipped at ``theta``."""
        g = self.base.per_example_grad(theta, X, y)
        return float(np.mean(_norm(g, self.q) > self.clip_norm))
