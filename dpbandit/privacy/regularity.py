"""Regularity constants and smooth norms for l_q (Definition 2.2, Lemmas 3.2 and 3.3 of 004).

``q`` is the index of the *dual* norm in which gradients (hence sensitivities) are measured: ``q = p/(p-1)``
for parameters in ``l_p`` (use :func:`dual_index`). A norm ``||.||`` is kappa-regular with smooth norm
``||.||_+`` if ``||x|| <= ||x||_+ <= sqrt(kappa/kappa_+) ||x||`` and ``||.||_+^2 / 2`` is ``kappa_+``-smooth.

Choices (printed Lemma 3.2 uses ``q+ = min{q-1, log d - 1}`` as a norm index, which is the smoothness
constant, not a valid index: for d = 5 it is 0.61 < 1; see notes/ofw_hdb.md section 1.4):

* ``q >= 2`` (``1 < p <= 2``): ``||.||_+ = ||.||_r`` for an ``r in [2, q]``, with ``kappa_+ = r - 1`` and
  ``kappa = kappa_+ * d^(2(1/r - 1/q))`` (valid for every such ``r``). Two candidates, as in Lemma 3.2:
  ``r = q`` (``kappa = q - 1``) and ``r = max(2, ln d)`` (``kappa = e^2 (ln d - 1) d^(-2/q)`` when
  ``ln d >= 2``); the one with the smaller ``kappa`` is used [Fill], so ``kappa <= min{q-1, e^2(ln d - 1)}``
  (the printed ``kappa_q``) whenever ``ln d >= 2``. The notes' rule ``r = min(q, max(2, ln d))`` can exceed
  the printed ``kappa_q`` (d = 1000, q = 8: 7.76 > 7), hence the comparison.
  ``q = inf`` (``p = 1``): ``r = max(2, ln d)``, ``kappa = (r-1) d^(2/r)``; for ``d <= 7``: ``r = 2``, ``kappa = d``.
* ``1 <= q < 2`` (``2 < p <= inf``), Lemma 3.3: ``||.||_+ = d^(1/q - 1/2) ||.||_2`` (``= d^(1/2-1/p)``),
  ``kappa = d^(2/q - 1)`` (``= d^(1-2/p)``), ``kappa_+ = 1``; ``G_+(0, sigma^2)`` is then the isotropic
  Gaussian ``N(0, sigma^2 / d^(1-2/p) I)``. ``q = 1`` (``p = inf``) gives scale ``sqrt(d)``, ``kappa = d``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpbandit import _validate as v
from dpbandit.privacy.noise import Size, generalized_gaussian

__all__ = ["SmoothNorm", "dual_index", "smooth_norm"]


def dual_index(p: float) -> float:
    """Hölder conjugate ``q = p / (p - 1)`` of ``p in [1, inf]`` (``1 -> inf``, ``inf -> 1``)."""
    p = v.norm_index(p=p)
    if p == 1.0:
        return math.inf
    if math.isinf(p):
        return 1.0
    return p / (p - 1.0)


@dataclass(frozen=True)
class SmoothNorm:
    """The smooth norm ``||x||_+ = scale * ||x||_r`` of ``l_q`` in dimension ``dim`` with its constants.

    Attributes:
        q: index of the regularised norm ``l_q`` (the gradient / dual norm), in ``[1, inf]``.
        dim: dimension ``d``.
        r: index of the smooth norm, ``r >= 2``.
        scale: multiplier of ``||.||_r`` (1 for ``q >= 2``; ``d^(1/q - 1/2)`` for ``q < 2``).
        kappa: regularity constant ``kappa_q`` (enters Lemma 2.1 and Eq. 3.2).
        kappa_plus: smoothness constant ``kappa_+`` of ``||.||_+^2 / 2``.
    """

    q: float
    dim: int
    r: float
    scale: float
    kappa: float
    kappa_plus: float

    def norm(self, x: np.ndarray) -> np.ndarray:
        """``||x||_+`` over the last axis (vectorised)."""
        return self.scale * np.linalg.norm(np.asarray(x, dtype=float), ord=self.r, axis=-1)

    def sample(self, rng: np.random.Generator, sigma: float, size: Size = ()) -> np.ndarray:
        """Draw ``G_{||.||_+}(0, sigma^2)`` (density proportional to ``exp(-||z||_+^2/(2 sigma^2))``), shape ``(*size, dim)``.

        Since ``||z||_+ = scale ||z||_r`` this is ``generalized_gaussian(rng, sigma / scale, dim, r)``; for
        ``q < 2`` it is ``N(0, (sigma/scale)^2 I)`` (Lemma 3.3). ``||Z||_+^2 ~ Gamma(dim/2, 2 sigma^2)``.
        """
        sigma = v.positive(sigma=sigma)
        return generalized_gaussian(rng, sigma / self.scale, self.dim, self.r, size)


def smooth_norm(q: float, dim: int) -> SmoothNorm:
    """Smooth norm and regularity constants of ``l_q`` in ``R^dim`` (Lemmas 3.2 / 3.3 of 004, see module doc).

    >>> sn = smooth_norm(2.0, 10); (sn.r, sn.kappa)
    (2.0, 1.0)
    """
    q = v.norm_index(q=q)
    dim = v.integer(dim=dim, minimum=1)
    if q < 2.0:
        scale = dim ** (1.0 / q - 0.5)
        return SmoothNorm(q=q, dim=dim, r=2.0, scale=scale, kappa=scale**2, kappa_plus=1.0)
    candidates = {r for r in (q, max(2.0, math.log(dim))) if r <= q and math.isfinite(r)}
    kappas = {r: (r - 1.0) * dim ** (2.0 * (1.0 / r - 1.0 / q)) for r in candidates}
    r = min(kappas, key=lambda c: (kappas[c], c))
    return SmoothNorm(q=q, dim=dim, r=r, scale=1.0, kappa=kappas[r], kappa_plus=r - 1.0)
