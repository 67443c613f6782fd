"""Parameter generators and context samplers for the GLM bandit environments.

All functions are pure: they take an explicit ``numpy.random.Generator`` and draw in a fixed
row-major order, so drawing ``m1`` rows and then ``m2`` rows gives exactly the numbers of one
draw of ``m1 + m2`` rows (this is what makes chunked round generation reproducible). Correlated
Gaussian contexts are filtered row by row (:func:`ar1_filter`), which keeps that property.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.signal import lfilter

__all__ = [
    "CONTEXT_DISTRIBUTIONS",
    "THETA_SUPPORTS",
    "THETA_VALUES",
    "ar1_filter",
    "lp_norm",
    "normalise",
    "sample_contexts",
    "sample_parameters",
]

#: Context laws: i.i.d. ``N(0, std^2)`` coordinates, or i.i.d. ``U[-bound, bound]`` coordinates.
CONTEXT_DISTRIBUTIONS = ("gaussian", "uniform")
#: Values of the non-zero parameter coordinates before normalisation: ``N(0, 1)``, all ones, or
#: magnitudes ``U(0.5, 1)`` with random signs (FLIPHAT's simulations, sunritc/FLIPHAT ``simulation.py`` [C]).
THETA_VALUES = ("gaussian", "ones", "uniform-signs")
#: Where the non-zeros sit: ``"random"`` (uniform without replacement per vector) or ``"first"`` (the first
#: ``s`` coordinates, as FLIPHAT's simulations [C]).
THETA_SUPPORTS = ("random", "first")


def lp_norm(x: np.ndarray, p: float) -> np.ndarray:
    """The l_p norm of each row (last axis) of ``x``, ``p`` in [1, inf]."""
    a = np.abs(x)
    if math.isinf(p):
        return a.max(axis=-1)
    if p == 1.0:
        return a.sum(axis=-1)
    if p == 2.0:
        return np.sqrt((a * a).sum(axis=-1))
    return (a**p).sum(axis=-1) ** (1.0 / p)


def normalise(x: np.ndarray, p: float, radius: float = 1.0) -> np.ndarray:
    """Scale each row (last axis) of ``x`` to l_p norm ``radius``; all-zero rows raise."""
    norms = lp_norm(x, p)
    if np.any(norms == 0.0):
        raise ValueError("Cannot normalise an all-zero row (l_p norm 0).")
    return x * (radius / norms)[..., None]


def sample_parameters(
    rng: np.random.Generator,
    count: int,
    dim: int,
    *,
    sparsity: int | None = None,
    values: str = "gaussian",
    support: str = "random",
    norm: float | None = 2.0,
    radius: float = 1.0,
) -> np.ndarray:
    """Draw ``count`` parameter vectors of shape ``(count, dim)``, each with l_``norm`` norm ``radius``.

    Args:
        rng: the parameter stream.
        count: number of vectors (K for the shared-context model, 1 for the per-arm model).
        dim: dimension d.
        sparsity: number s of non-zero coordinates; ``None`` for dense vectors.
        values: ``"gaussian"`` (N(0, 1) non-zeros), ``"ones"`` (all non-zeros equal, as in the
            authors' code of 004 Section 5.4 [C]) or ``"uniform-signs"`` (``|theta_j| ~ U(0.5, 1)``
            times an independent fair sign, FLIPHAT's simulations [C]; magnitudes are drawn first,
            then the signs).
        support: ``"random"`` (s coordinates uniformly without replacement, per vector) or
            ``"first"`` (coordinates ``0, ..., s-1``; no draw).
        norm: l_p index used for the normalisation (1 <= p <= inf); ``None`` keeps the values as
            drawn (``radius`` unused).
        radius: target norm.
    """
    s = dim if sparsity is None else sparsity
    if sparsity is None or support == "first":
        positions = np.broadcast_to(np.arange(s), (count, s))
    else:
        positions = np.stack([rng.choice(dim, size=s, replace=False) for _ in range(count)])
    if values == "gaussian":
        nonzero = rng.standard_normal((count, s))
    elif values == "uniform-signs":
        magnitude = rng.uniform(0.5, 1.0, (count, s))
        nonzero = np.where(rng.random((count, s)) < 0.5, -magnitude, magnitude)
    else:
        nonzero = np.ones((count, s))
    theta = np.zeros((count, dim))
    np.put_along_axis(theta, positions, nonzero, axis=1)
    return theta if norm is None else normalise(theta, norm, radius)


def ar1_filter(z: np.ndarray, correlation: float) -> np.ndarray:
    """Map i.i.d. ``N(0, 1)`` rows (last axis) to ``N(0, Sigma)`` rows with ``Sigma_ij = rho^|i-j|`` (AR(1)).

    The stationary AR(1) recursion ``x_0 = z_0``, ``x_j = rho x_{j-1} + sqrt(1 - rho^2) z_j`` gives unit
    variances and ``Cov(x_i, x_j) = rho^|i-j|`` exactly, i.e. ``x = L z`` with ``L`` the Cholesky factor of
    ``Sigma`` [O]. Computed by ``scipy.signal.lfilter`` along the last axis: each row uses only its own
    draws, so the result does not depend on how many rows are filtered at once. (FLIPHAT's code [C] forms
    ``z @ L``, whose covariance is ``L^T L``: for ``rho = 0.1`` its entries differ from ``Sigma`` by at most
    ``0.0101``, e.g. variances from 0.99 to 1.0101 along the coordinates.)
    """
    rho = float(correlation)
    if rho == 0.0:
        return z
    scale = math.sqrt(1.0 - rho * rho)
    z = np.array(z, dtype=float)
    z[..., 0] /= scale  # so that x_0 = scale * (z_0 / scale) = z_0
    return lfilter([scale], [1.0, -rho], z, axis=-1)


def sample_contexts(
    rng: np.random.Generator,
    shape: tuple[int, ...],
    *,
    distribution: str = "gaussian",
    std: float = 1.0,
    bound: float = 1.0,
    norm: float | None = None,
    correlation: float = 0.0,
) -> np.ndarray:
    """Draw contexts of ``shape`` (last axis = d), optionally scaled to unit l_``norm`` norm per row.

    ``"gaussian"``: N(0, std^2 Sigma) rows with the AR(1) correlation ``Sigma_ij = correlation^|i-j|``
    (i.i.d. coordinates for ``correlation = 0``; :func:`ar1_filter`); ``"uniform"``: i.i.d.
    U[-bound, bound]. With ``norm`` set, each row is divided by its l_p norm afterwards (the Gaussian
    ``std`` then cancels).
    """
    if distribution == "gaussian":
        x = std * ar1_filter(rng.standard_normal(shape), correlation)
    else:
        x = rng.uniform(-bound, bound, size=shape)
    return x if norm is None else normalise(x, norm)
