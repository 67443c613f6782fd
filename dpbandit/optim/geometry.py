"""l_p-ball geometry: norms, dual exponents, linear minimisation oracles and projections.

Everything here is vectorised over leading axes (the vector axis is the last one) and
closed-form or a fixed number of vectorised bisection steps: no general-purpose solver.

References:
    004_290fd04a1e656565.txt (Han et al.), Sections 3.1-3.2: parameters live in the l_p
    ball, gradients are measured in the dual l_q norm, q = p / (p - 1).
    LMO closed forms ([O], standard; see notes/ofw_hdb.md Section 1.1):

    * p = 1:        v = -r sign(d_j*) e_j*, j* = argmax_j |d_j| (a vertex of the ball);
    * 1 < p < inf:  v_j = -r sign(d_j) |d_j|^(q-1) / ||d||_q^(q-1), so <d, v> = -r ||d||_q;
    * p = inf:      v = -r sign(d) (coordinates with d_j = 0 get 0);
    * d = 0:        v = 0 for every p.
"""

from __future__ import annotations

import math

import numpy as np

from dpbandit import _validate

__all__ = [
    "dual_exponent",
    "l1_vertices",
    "lmo",
    "lp_norm",
    "project_l2_ball",
    "project_lp_ball",
]

#: Bisection steps in :func:`project_lp_ball` for 1 < p < inf (interval shrinks by 2^-k).
_BISECTION_STEPS = 60


def dual_exponent(p: float) -> float:
    """Return q with 1/p + 1/q = 1 (``p = 1 -> inf``, ``p = inf -> 1``)."""
    p = _validate.norm_index(p=p)
    if p == 1.0:
        return math.inf
    if math.isinf(p):
        return 1.0
    return p / (p - 1.0)


def lp_norm(x: np.ndarray, p: float, axis: int = -1) -> np.ndarray:
    """l_p norm along ``axis`` (default: the last), for p in [1, inf]."""
    return _norm(np.asarray(x, dtype=float), _validate.norm_index(p=p), axis)


def _norm(x: np.ndarray, p: float, axis: int = -1, keepdims: bool = False) -> np.ndarray:
    """Unvalidated l_p norm (hot loops; ``p`` already validated). Scales by max|x| for large p."""
    a = np.abs(x)
    if p == 1.0:
        return a.sum(axis=axis, keepdims=keepdims)
    if p == 2.0:
        return np.sqrt((a * a).sum(axis=axis, keepdims=keepdims))
    m = a.max(axis=axis, keepdims=True)
    if math.isinf(p):
        return m if keepdims else np.squeeze(m, axis=axis)
    safe = np.where(m > 0, m, 1.0)
    out = safe * ((a / safe) ** p).sum(axis=axis, keepdims=True) ** (1.0 / p)
    return out if keepdims else np.squeeze(out, axis=axis)


def lmo(d: np.ndarray, p: float, radius: float) -> np.ndarray:
    """Linear minimisation oracle ``argmin_{||v||_p <= radius} <d, v>`` (batched over rows).

    Args:
        d: direction(s), shape ``(..., dim)``.
        p: norm index in [1, inf].
        radius: ball radius r > 0.

    Returns:
        Array of the shape of ``d``; each row is feasible and attains ``-radius * ||d||_q``.
        A zero direction maps to the centre 0.
    """
    return _lmo(np.asarray(d, dtype=float), _validate.norm_index(p=p), _validate.positive(radius=radius))


def _lmo(d: np.ndarray, p: float, radius: float) -> np.ndarray:
    """Unvalidated :func:`lmo` for optimiser inner loops (arguments checked at construction)."""
    if p == 1.0:
        j = np.argmax(np.abs(d), axis=-1)[..., None]
        dj = np.take_along_axis(d, j, axis=-1)
        v = np.zeros_like(d)
        np.put_along_axis(v, j, -radius * np.sign(dj), axis=-1)
        return v
    if math.isinf(p):
        return -radius * np.sign(d)
    q = p / (p - 1.0)
    scale = np.max(np.abs(d), axis=-1, keepdims=True)  # rescale first: |d|^(q-1) stays in [0, 1]
    safe = np.where(scale > 0, scale, 1.0)
    a = np.abs(d) / safe
    w = a ** (q - 1.0)
    norm_q = (w * a).sum(axis=-1, keepdims=True) ** (1.0 / q)
    denom = np.where(norm_q > 0, norm_q ** (q - 1.0), 1.0)
    return -radius * np.sign(d) * w / denom


def l1_vertices(dim: int, radius: float) -> np.ndarray:
    """The 2*dim vertices of the l_1 ball, rows ``+r e_1, ..., +r e_d, -r e_1, ..., -r e_d``."""
    dim = _validate.integer(dim=dim, minimum=1)
    radius = _validate.positive(radius=radius)
    eye = radius * np.eye(dim)
    return np.concatenate([eye, -eye], axis=0)


def project_l2_ball(x: np.ndarray, radius: float) -> np.ndarray:
    """Euclidean projection onto the l_2 ball of ``radius`` (radial shrink), batched over rows."""
    radius = _validate.positive(radius=radius)
    x = np.asarray(x, dtype=float)
    n = np.linalg.norm(x, axis=-1, keepdims=True)
    return x * np.minimum(1.0, radius / np.where(n > 0, n, 1.0))


def project_lp_ball(x: np.ndarray, p: float, radius: float) -> np.ndarray:
    """Euclidean projection ``argmin_{||u||_p <= r} ||u - x||_2`` onto an l_p ball (batched).

    * p = 1: sort-based simplex projection of |x| (Duchi et al. 2008) [O].
    * p = 2: radial shrink; p = inf: coordinate clipping.
    * 1 < p < inf: KKT form u_j = sign(x_j) s_j with s_j + lam * p * s_j^(p-1) = |x_j|; the
      multiplier lam >= 0 and each s_j are found by vectorised bisection (monotone in both),
      ``_BISECTION_STEPS`` steps each [O]. Accuracy ~ 1e-12 relative.
    """
    p = _validate.norm_index(p=p)
    radius = _validate.positive(radius=radius)
    x = np.asarray(x, dtype=float)
    if math.isinf(p):
        return np.clip(x, -radius, radius)
    if p == 2.0:
        return project_l2_ball(x, radius)
    inside = _norm(x, p, keepdims=True) <= radius
    a = np.abs(x)
    if p == 1.0:
        s = -np.sort(-a, axis=-1)
        cs = np.cumsum(s, axis=-1) - radius
        k = np.arange(1, x.shape[-1] + 1)
        cond = s - cs / k > 0
        rho = np.sum(cond, axis=-1, keepdims=True)  # cond is a prefix of True values
        tau = np.take_along_axis(cs, rho - 1, axis=-1) / rho
        u = np.sign(x) * np.maximum(a - tau, 0.0)
        return np.where(inside, x, u)

    def shrink(lam: np.ndarray) -> np.ndarray:
        # solve s + lam * p * s^(p-1) = a for s in [0, a] (left side increasing in s)
        lo, hi = np.zeros_like(a), a.copy()
        for _ in range(_BISECTION_STEPS):
            mid = 0.5 * (lo + hi)
            big = mid + lam * p * mid ** (p - 1.0) > a
            hi = np.where(big, mid, hi)
            lo = np.where(big, lo, mid)
        return 0.5 * (lo + hi)

    # ||s(lam)||_p decreases in lam; bracket lam in [0, lam_hi] with ||s(lam_hi)||_p <= r.
    amax = np.max(a, axis=-1, keepdims=True)
    lam_lo = np.zeros_like(amax)
    lam_hi = np.maximum(amax, 1.0) / (p * (radius / x.shape[-1] ** (1.0 / p)) ** (p - 1.0)) + 1.0
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (lam_lo + lam_hi)
        big = _norm(shrink(mid), p, keepdims=True) > radius
        lam_lo = np.where(big, mid, lam_lo)
        lam_hi = np.where(big, lam_hi, mid)
    u = np.sign(x) * shrink(lam_hi)
    return np.where(inside, x, u)
