"""Gradient estimators of the randomised-smoothing loss f_alpha (paper 002, Fact 2.3, eqs. (4) and (10)).

Notation (paper 002, Kornowski, Liu, Talwar): ``alpha`` is the smoothing radius, f_alpha(x) = E_{y~Unif(B_alpha)} f(x+y),
``m`` the number of directions averaged per sample ("gradient validation size").

* Zeroth order, eq. (4) with the trailing ``y_j`` restored (notes 002 section 7.2):
  (1/m) sum_j d/(2 alpha) (f(x + alpha y_j) - f(x - alpha y_j)) y_j with y_j ~ Unif(S^{d-1}) -- the **unit sphere**
  in both the anchor and the increment lines of Algorithms 3/4 (the increment lines print Unif(B_alpha), a typo:
  only sphere directions make the estimator unbiased, Fact 2.3(iv)).
* First order, eq. (10) as used by Algorithm 5: (1/m) sum_j grad f(x + y_j) with y_j ~ Unif(B_alpha) -- the
  **ball** of radius alpha (eq. (10) prints the sphere; Fact 2.3(iv) needs the ball).

Every per-sample term has a deterministic norm bound (``L d`` for ZO, ``L`` for FO), which gives the explicit
deviation bound :func:`deviation_bound` ([ours] in the notes: McDiarmid instead of the unspecified constant of Thm C.2).
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from dpbandit.optim.nonsmooth.losses import SampleLoss

__all__ = ["Order", "deviation_bound", "per_sample_estimates", "unit_ball", "unit_sphere"]

Order = Literal["zeroth", "first"]


def unit_sphere(rng: np.random.Generator, size: tuple[int, ...], dim: int) -> np.ndarray:
    """Draw ``size`` i.i.d. points uniform on the unit sphere S^{dim-1}; shape ``(*size, dim)``."""
    g = rng.standard_normal((*size, dim))
    return g / np.linalg.norm(g, axis=-1, keepdims=True)


def unit_ball(rng: np.random.Generator, size: tuple[int, ...], dim: int) -> np.ndarray:
    """Draw ``size`` i.i.d. points uniform in the closed unit ball (direction times U^{1/dim}); shape ``(*size, dim)``."""
    radius = rng.random((*size, 1)) ** (1.0 / dim)
    return unit_sphere(rng, size, dim) * radius


def per_sample_estimates(
    loss: SampleLoss,
    z: np.ndarray,
    X: np.ndarray,
    y: np.ndarray,
    *,
    alpha: float,
    m: int,
    order: Order,
    rng: np.random.Generator,
) -> np.ndarray:
    """Per-sample estimates of grad f_alpha(z; xi_i), one row per sample (paper 002, eqs. (4) and (10)).

    Args:
        loss: per-sample loss with ``values(points, X, y)`` / ``grads(points, X, y)``.
        z: query point, shape ``(d,)``.
        X, y: the samples xi_i = (X[i], y[i]); ``B = len(y)``.
        alpha: smoothing radius (> 0).
        m: directions per sample (>= 1); the same sample is used at every point of its estimate.
        order: ``"zeroth"`` (two-point, sphere directions) or ``"first"`` (gradients at ball perturbations).
        rng: stream for the directions (data independent).

    Returns:
        array ``(B, d)``.
    """
    d = z.shape[-1]
    B = y.shape[0]
    if order == "zeroth":
        u = unit_sphere(rng, (B, m), d)
        points = np.concatenate([z + alpha * u, z - alpha * u], axis=1)  # (B, 2m, d)
        vals = loss.values(points, X, y)
        diff = vals[:, :m] - vals[:, m:]
        return (d / (2.0 * alpha)) * np.einsum("bj,bjd->bd", diff, u) / m
    points = z + alpha * unit_ball(rng, (B, m), d)
    return loss.grads(points, X, y).mean(axis=1)


def deviation_bound(*, lipschitz: float, dim: int, m: int, order: Order, gamma: float) -> float:
    """Radius ``dev`` with Pr[||mean of m terms - grad f_alpha(x; xi)|| > dev] <= gamma ([ours], notes section 2).

    The m terms are i.i.d. with norm <= b (b = L d for ZO, b = L for FO), so E||mean - mu|| <= b / sqrt(m) and,
    by McDiarmid (bounded differences 2b/m), dev = (b / sqrt(m)) (1 + sqrt(2 log(1/gamma))).
    """
    b = lipschitz * dim if order == "zeroth" else lipschitz
    return b / math.sqrt(m) * (1.0 + math.sqrt(2.0 * math.log(1.0 / gamma)))
