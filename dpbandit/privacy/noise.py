"""Vectorised noise samplers of the privacy core.

Every sampler takes an explicit ``numpy.random.Generator`` and a ``size`` (leading batch shape), so many
vectors or many steps are drawn in one call.

References:
    004_290fd04a1e656565.txt (Han et al.): Lemma 2.1 (generalized Gaussian mechanism), Lemma 3.1 (law of
    ``||Z||_+^2``), Algorithm 4 / Lemma 5.1 (sampler). Algorithm 4 prints ``r^2 ~ Gamma(d/2, 2 sigma)``; the
    proof of Lemma 3.1 (Eq. A.2) needs scale ``2 sigma^2``, which is what is implemented here.
"""

from __future__ import annotations

import math

import numpy as np

from dpbandit import _validate as v

__all__ = ["gaussian", "generalized_gaussian", "laplace", "symmetric_gaussian"]

Size = int | tuple[int, ...]

_LAPLACE_CHUNK = 65_536  # Laplace entries per buffer of exponential pairs (1 MB)


def _shape(size: Size | None) -> tuple[int, ...]:
    if size is None:
        return ()
    shape = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
    for k in shape:
        v.integer(size=k, minimum=0)
    return tuple(int(k) for k in shape)


def gaussian(rng: np.random.Generator, sigma: float, size: Size) -> np.ndarray:
    """I.i.d. ``N(0, sigma^2)`` entries of shape ``size`` (Gaussian mechanism noise) [O]."""
    v.rng(rng=rng)
    sigma = v.positive(sigma=sigma)
    return sigma * rng.standard_normal(_shape(size))


def laplace(rng: np.random.Generator, scale: float, size: Size) -> np.ndarray:
    """I.i.d. ``Lap(scale)`` entries (density ``exp(-|x|/scale) / (2 scale)``, variance ``2 scale^2``) [O].

    The project's only Laplace sampler. Construction: ``scale * (E1 - E2)`` with ``E1, E2`` i.i.d.
    ``Exp(1)``. This is exactly Laplace: the difference of two i.i.d. exponentials has characteristic
    function ``1/(1 - i u) * 1/(1 + i u) = 1/(1 + u^2)``, that of ``Lap(1)`` (equivalently, ``|E1 - E2|``
    is ``Exp(1)`` by memorylessness and its sign is a fair coin independent of it). Why: NumPy's
    ziggurat ``standard_exponential`` costs about a quarter of ``Generator.laplace`` (which takes a
    logarithm per draw), so two exponentials and a subtraction cost about half of it.

    Fixed draw order (compiled kernels reproduce it exactly, e.g. :mod:`dpbandit.agents.kernels.hdb`):
    the entries are produced in C order over ``size``; entry ``k`` consumes the ``2k``-th and
    ``(2k+1)``-th values of ``rng.standard_exponential`` (``E1`` then ``E2``), i.e. one
    ``rng.standard_exponential((*size, 2))`` call. A scalar loop ``e1 = rng.standard_exponential();
    e2 = rng.standard_exponential(); x = scale * (e1 - e2)`` gives the same numbers. The pairs are
    drawn in chunks of ``_LAPLACE_CHUNK`` entries into one buffer (the same stream and numbers as one
    call), so a large draw needs no temporary beyond 1 MB.
    """
    v.rng(rng=rng)
    scale = v.positive(scale=scale)
    out = np.empty(_shape(size))
    flat = out.reshape(-1)  # a view: out is C-contiguous
    pairs = np.empty((min(flat.size, _LAPLACE_CHUNK), 2))
    for start in range(0, flat.size, _LAPLACE_CHUNK):
        e = pairs[: min(_LAPLACE_CHUNK, flat.size - start)]
        rng.standard_exponential(out=e)
        np.subtract(e[:, 0], e[:, 1], out=flat[start : start + e.shape[0]])
    out *= scale
    return out


def symmetric_gaussian(rng: np.random.Generator, sigma: float, dim: int, size: Size = ()) -> np.ndarray:
    """Symmetric Gaussian matrices ``(Z + Z^T) / sqrt(2)`` with ``Z_ij ~ N(0, sigma^2)`` i.i.d.

    Shape ``(*size, dim, dim)``. Off-diagonal entries have variance ``sigma^2``, diagonal entries ``2 sigma^2``;
    equivalently the density is proportional to ``exp(-||W||_F^2 / (4 sigma^2))`` on symmetric matrices, i.e.
    an isotropic Gaussian of std ``sqrt(2) sigma`` in Frobenius geometry. Privacy: for a symmetric statistic
    of Frobenius sensitivity ``Delta_F`` (e.g. a Gram update ``x x^T``), the Gaussian noise multiplier is
    ``sqrt(2) sigma / Delta_F`` [derived]. Used for DP-UCB's Gram matrix (Shariff & Sheffet 2018) [O].
    """
    v.rng(rng=rng)
    sigma = v.positive(sigma=sigma)
    dim = v.integer(dim=dim, minimum=1)
    z = rng.standard_normal((*_shape(size), dim, dim))
    return (sigma / math.sqrt(2.0)) * (z + np.swapaxes(z, -1, -2))


def _unit_gennorm(rng: np.random.Generator, r: float, shape: tuple[int, ...]) -> np.ndarray:
    """I.i.d. generalized normal with density proportional to ``exp(-|x|^r)`` (``r = inf``: uniform[-1, 1])."""
    if math.isinf(r):
        return rng.uniform(-1.0, 1.0, shape)
    magnitude = rng.standard_gamma(1.0 / r, shape) ** (1.0 / r)
    return np.where(rng.random(shape) < 0.5, -magnitude, magnitude)


def generalized_gaussian(
    rng: np.random.Generator, sigma: float, dim: int, r: float, size: Size = ()
) -> np.ndarray:
    """Generalized Gaussian ``G_{||.||_r}(0, sigma^2)``: density proportional to ``exp(-||z||_r^2 / (2 sigma^2))``.

    Algorithm 4 of 004 with the corrected Gamma scale: ``R^2 ~ Gamma(dim/2, scale=2 sigma^2)`` (Lemma 3.1),
    ``x_i`` i.i.d. with density proportional to ``exp(-|x|^r)``, output ``R x / ||x||_r``. ``x / ||x||_r``
    follows the cone measure of the ``l_r`` sphere independent of ``R`` (Calafiore et al. 1998), hence
    ``||Z||_r^2 ~ Gamma(dim/2, 2 sigma^2)`` exactly and ``E||Z||_r^2 = dim sigma^2``. ``r = 2`` is
    ``N(0, sigma^2 I)``; ``r = inf`` uses uniform[-1, 1] coordinates (the ``r -> inf`` limit) [Fill].

    Args:
        rng: random generator.
        sigma: scale ``sigma > 0`` (the "sigma^2" argument of Lemma 2.1 is ``sigma**2``).
        dim: dimension ``d >= 1``.
        r: norm index in ``[1, inf]`` of the (smooth) norm, e.g. ``SmoothNorm.r``.
        size: leading batch shape; output shape ``(*size, dim)``.
    """
    v.rng(rng=rng)
    sigma = v.positive(sigma=sigma)
    dim = v.integer(dim=dim, minimum=1)
    r = v.norm_index(r=r)
    shape = _shape(size)
    radius = np.sqrt(rng.gamma(dim / 2.0, 2.0 * sigma**2, shape))
    x = _unit_gennorm(rng, r, (*shape, dim))
    norm = np.linalg.norm(x, ord=r, axis=-1, keepdims=True)
    return radius[..., None] * x / norm
