"""Parameter generators and context samplers for the GLM bandit environments.

All functions are pure: they take an explicit ``numpy.random.Generator`` and draw in a fixed
row-major order, so drawing ``m1`` rows and then ``m2`` rows gives exactly the numbers of one
draw of ``m1 + m2`` rows (this is what makes chunked round generation reproducible).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "CONTEXT_DISTRIBUTIONS",
    "THETA_VALUES",
    "lp_norm",
    "normalise",
    "sample_contexts",
    "sample_parameters",
]

#: Context laws: i.i.d. ``N(0, std^2)`` coordinates, or i.i.d. ``U[-bound, bound]`` coordinates.
CONTEXT_DISTRIBUTIONS = ("gaussian", "uniform")
#: Values of the non-zero parameter coordinates before normalisation: ``N(0, 1)`` or all ones.
THETA_VALUES = ("gaussian", "ones")


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
    norm: float = 2.0,
    radius: float = 1.0,
) -> np.ndarray:
    """Draw ``count`` parameter vectors of shape ``(count, dim)``, each with l_``norm`` norm ``radius``.

    Args:
        rng: the parameter stream.
        count: number of vectors (K for the shared-context model, 1 for the per-arm model).
        dim: dimension d.
        sparsity: number s of non-zero coordinates, drawn uniformly without replacement per
            vector; ``None`` for dense vectors.
        values: ``"gaussian"`` (N(0, 1) non-zeros) or ``"ones"`` (all non-zeros equal, as in the
            authors' code of 004 Section 5.4 [C]).
        norm: l_p index used for the normalisation (1 <= p <= inf).
        radius: target norm.
    """
    s = dim if sparsity is None else sparsity
    if sparsity is None:
        support = np.broadcast_to(np.arange(dim), (count, dim))
    else:
        support = np.stack([rng.choice(dim, size=s, replace=False) for _ in range(count)])
    nonzero = rng.standard_normal((count, s)) if values == "gaussian" else np.ones((count, s))
    theta = np.zeros((count, dim))
    np.put_along_axis(theta, support, nonzero, axis=1)
    return normalise(theta, norm, radius)


def sample_contexts(
    rng: np.random.Generator,
    shape: tuple[int, ...],
    *,
    distribution: str = "gaussian",
    std: float = 1.0,
    bound: float = 1.0,
    norm: float | None = None,
) -> np.ndarray:
    """Draw contexts of ``shape`` (last axis = d), optionally scaled to unit l_``norm`` norm per row.

    ``"gaussian"``: i.i.d. N(0, std^2) coordinates; ``"uniform"``: i.i.d. U[-bound, bound].
    With ``norm`` set, each row is divided by its l_p norm (the Gaussian ``std`` then cancels).
    """
    if distribution == "gaussian":
        x = std * rng.standard_normal(shape)
    else:
        x = rng.uniform(-bound, bound, size=shape)
    return x if norm is None else normalise(x, norm)
