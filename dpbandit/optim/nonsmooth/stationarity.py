"""Estimated Goldstein stationarity by gradient sampling (notes 002 section 6; Def 2.1 of paper 002).

For a point x and radius rho, draw K points uniformly in the closed ball B(x, rho) (plus x itself), take the
full-data gradients G = [grad F(y_k)] (they exist almost surely) and solve the min-norm-point QP
min_{lambda in simplex} ||G^T lambda||. Because conv{grad F(y_k)} is a subset of the Goldstein subdifferential
partial_rho F(x), the QP value is an **upper bound** on ||min-norm element of partial_rho F(x)|| (Def 2.1: x is
(rho, beta)-stationary iff that norm is <= beta); it tightens as K grows. The QP is solved only approximately
(accelerated projected gradient, FISTA with sort-based simplex projection, batched over points), which can only
increase the reported value, so the estimate stays an upper bound. ``lower`` is a certified lower bound on the
hull's min norm (a separating-hyperplane bound), reported to show the QP accuracy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpbandit import _validate
from dpbandit.optim.nonsmooth.estimators import unit_ball

__all__ = ["GoldsteinEstimate", "goldstein_estimate", "min_norm_point", "project_simplex"]


def project_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection of each row of ``v (..., K)`` onto the probability simplex (sort-based, [O])."""
    K = v.shape[-1]
    u = -np.sort(-v, axis=-1)
    css = np.cumsum(u, axis=-1) - 1.0
    idx = np.arange(1, K + 1)
    rho = np.sum(u - css / idx > 0, axis=-1, keepdims=True)
    theta = np.take_along_axis(css, rho - 1, axis=-1) / rho
    return np.maximum(v - theta, 0.0)


def min_norm_point(G: np.ndarray, *, iters: int = 3000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Approximate min-norm point of conv(rows of G) for a batch ``G (N, K, d)``.

    Returns ``(v, lam, lower)``: ``v = lam @ G`` (``(N, d)``, a feasible hull point, so ``||v||`` upper-bounds the
    minimum norm), the weights ``lam (N, K)``, and ``lower (N,)`` = max(0, min_k <v, g_k>) / ||v||, a lower bound on
    the minimum norm (every hull point has a projection on v/||v|| of at least that).
    """
    G = np.asarray(G, dtype=float)
    N, K, _ = G.shape
    Q = G @ np.swapaxes(G, 1, 2)  # (N, K, K)
    step = 1.0 / np.maximum(np.linalg.norm(Q, ord=2, axis=(1, 2)), 1e-300)[:, None]
    lam = np.full((N, K), 1.0 / K)
    mom, t = lam.copy(), 1.0
    for _ in range(iters):
        grad = np.einsum("nkj,nj->nk", Q, mom)
        new = project_simplex(mom - step * grad)
        t_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        mom = new + ((t - 1.0) / t_next) * (new - lam)
        lam, t = new, t_next
    v = np.einsum("nk,nkd->nd", lam, G)
    vnorm = np.linalg.norm(v, axis=1)
    proj = np.einsum("nkd,nd->nk", G, v).min(axis=1)
    lower = np.where(vnorm > 0, np.maximum(proj, 0.0) / np.maximum(vnorm, 1e-300), 0.0)
    return v, lam, lower


@dataclass(frozen=True)
class GoldsteinEstimate:
    """Per-point upper bound ``upper`` on ||dbar_rho F(x)||, QP lower bound ``lower`` on the sampled hull, ``rho``."""

    upper: np.ndarray
    lower: np.ndarray
    rho: float

    @property
    def mean(self) -> float:
        """Mean upper bound over the points (= E over a uniformly chosen output of Algorithm 2)."""
        return float(np.mean(self.upper))


def goldstein_estimate(
    grad_fn: Callable[[np.ndarray], np.ndarray],
    x: np.ndarray,
    rho: float,
    *,
    rng: np.random.Generator,
    n_samples: int | None = None,
    iters: int = 3000,
) -> GoldsteinEstimate:
    """Upper-bound ||dbar_rho F(x)|| at each row of ``x (N, d)`` by gradient sampling in B(x, rho).

    Args:
        grad_fn: full-data gradient of F, points ``(P, d)`` -> ``(P, d)`` (e.g. ``lambda p: loss.mean_grads(p, X, y)``).
        x: points, shape ``(N, d)`` or ``(d,)``.
        rho: Goldstein radius (for Algorithm 2 run with smoothing alpha, the certified radius is 2 alpha, Lemma 2.4).
        rng: stream for the sample points.
        n_samples: K points per ball (default 2(d+1), notes section 6), plus the centre.
        iters: FISTA iterations of the QP.
    """
    rho = _validate.positive(rho=rho)
    rng = _validate.rng(rng=rng)
    x = np.atleast_2d(np.asarray(x, dtype=float))
    N, d = x.shape
    K = 2 * (d + 1) if n_samples is None else _validate.integer(n_samples=n_samples, minimum=1)
    pts = np.concatenate([x[:, None, :], x[:, None, :] + rho * unit_ball(rng, (N, K), d)], axis=1)
    G = grad_fn(pts.reshape(-1, d)).reshape(N, K + 1, d)
    v, _, lower = min_norm_point(G, iters=iters)
    return GoldsteinEstimate(upper=np.linalg.norm(v, axis=1), lower=lower, rho=rho)
