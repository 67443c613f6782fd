"""The l2-ball randomizer of Duchi, Jordan and Wainwright (2018), as LDP-SGD releases a gradient.

Duchi, Jordan and Wainwright, "Minimax optimal procedures for locally private estimation" (JASA 2018), the
l2-ball privatisation of a vector ``v`` with ``||v||_2 <= 1``; used by LDP-SGD of Han, Liang, Wang and Zhang
("Generalized linear bandits with local differential privacy", NeurIPS 2021). The papers' texts were not
reachable here; the mechanism is replicated from the authors' public code [C] (``liangzp/LDP-Bandit`` at
commit 62d90936, ``Scheme1/mechanisms/LDP.py``, class ``SGDLDPMechanism``, lines 50-66):

1. sign: ``v_tilde = +v/||v||`` with probability ``(1 + ||v||)/2``, else ``-v/||v||`` (line 57; the code
   writes the complementary event and the complementary hemisphere on lines 57-62, the same law);
2. hemisphere: with probability ``a = e^eps / (e^eps + 1)`` (line 51) ``z`` is uniform on the half of the
   sphere of radius ``B`` with ``<z, v_tilde> > 0``, else on the other half (lines 58-63, by rejection);
3. radius (line 50): ``B = (e^eps + 1)/(e^eps - 1) * sqrt(pi)/2 * d * Gamma((d-1)/2 + 1) / Gamma(d/2 + 1)``,
   which makes ``E z = v`` (unbiased; tests/privacy/test_l2ball.py checks it by simulation).

The code divides by ``||v||`` and takes ``(1 + ||v||)/2`` as a probability, so a gradient of norm above 1 is
treated as one of norm 1 (the sign is then always kept): an unstated clip to the unit ball. Here the clip is
the explicit parameter ``clip`` (``C``): ``v = g min(1, C/||g||) / C`` is randomised and the output is scaled
by ``C``, so ``E z = g min(1, C/||g||)``; ``C = 1`` is the code's behaviour. A zero vector (the code divides
by zero) gets the sign of a fair coin along the first axis [Fill]: its output is then uniform on the sphere.

Sampling (vectorised) [derived]: ``z`` uniform on the sphere, then reflected through the hyperplane
orthogonal to ``v_tilde`` when it lies in the unwanted half; the reflection preserves the uniform law and
swaps the halves, so the law is the code's rejection sampler's.

Privacy [derived]: for any input the output's density with respect to the uniform law on the sphere takes the
values ``2 (p a + (1 - p)(1 - a))`` and ``2 (p (1 - a) + (1 - p) a)`` on the two halves, all within
``[2 (1 - a), 2 a]``, so any two inputs' densities differ by at most ``a / (1 - a) = e^eps``: pure
``eps``-LDP, attained by ``v`` and ``-v`` at ``||v|| = 1`` (the exact audit in tests/privacy/test_l2ball.py).
That worst pair is binary randomized response on the half ``z`` falls in, so :func:`pure_epsilon` accounts it
with dp_accounting's PLD accountant at delta 0 as ``RandomizedResponseDpEvent`` (``pure_dp_event``).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from functools import lru_cache

import dp_accounting
import numpy as np
from dp_accounting import NeighboringRelation
from scipy import special

from dpbandit import _validate as v
from dpbandit.privacy.accounting import _unroll_rr, pure_dp_event

__all__ = ["L2BallRandomizer", "ball_radius", "hemisphere_probability", "pure_epsilon"]

#: PLD discretization of :func:`pure_epsilon`: its pessimistic rounding adds at most this per report, well
#: under :data:`dpbandit.privacy.guarantee._REL_TOL` of any epsilon >= 1e-3 (the default 1e-4 would not be).
PURE_DISCRETIZATION = 1e-12


def hemisphere_probability(epsilon: float) -> float:
    """``a = e^eps / (e^eps + 1)``: probability of the half aligned with ``v_tilde`` [C, LDP.py:51]."""
    epsilon = v.positive(epsilon=epsilon)
    return 1.0 / (1.0 + math.exp(-epsilon))


def ball_radius(dim: int, epsilon: float) -> float:
    """``B`` of a unit-ball input [C, LDP.py:50], written with log-Gamma so that large ``d`` stays finite."""
    dim = v.integer(dim=dim, minimum=1)
    epsilon = v.positive(epsilon=epsilon)
    ratio = math.exp(special.gammaln((dim - 1) / 2 + 1) - special.gammaln(dim / 2 + 1))
    return 1.0 / math.tanh(epsilon / 2.0) * math.sqrt(math.pi) / 2.0 * dim * ratio


@lru_cache(maxsize=256)
def pure_epsilon(epsilon: float, reports: int = 1) -> float:
    """Epsilon at delta 0 of ``reports`` ``epsilon``-DP reports: dp_accounting PLD of binary randomized response
    (module docstring; ``REPLACE_ONE``, see :mod:`dpbandit.privacy.accounting`), or basic composition's
    ``reports * epsilon`` where that is smaller (one report; hundreds of reports, where the PLD's tail truncation
    leaves mass it cannot bound at delta 0)."""
    epsilon = v.positive(epsilon=epsilon)
    reports = v.integer(reports=reports, minimum=1)
    acc = dp_accounting.pld.PLDAccountant(
        neighboring_relation=NeighboringRelation.REPLACE_ONE, value_discretization_interval=PURE_DISCRETIZATION
    )
    acc.compose(_unroll_rr(pure_dp_event(epsilon, reports)))  # unrolled: PLD's self-composition of RR is wrong
    # basic composition (reports x epsilon) also holds at delta 0; the PLD's discretisation rounds up by about
    # 1e-12, which would state more than was asked for one report (issue 38 item 1)
    return min(float(acc.get_epsilon(0.0)), reports * epsilon)


@dataclass(frozen=True)
class L2BallRandomizer:
    """One report of a vector through the l2-ball mechanism (module docstring): pure ``epsilon``-LDP.

    Attributes:
        dim: length of the vector.
        epsilon: the report's pure epsilon.
        clip: ``C``; a vector longer than ``C`` is scaled to norm ``C`` before it is randomised (the authors'
            code: ``C = 1``, unstated).
    """

    dim: int
    epsilon: float
    clip: float = 1.0

    def __post_init__(self) -> None:
        v.integer(dim=self.dim, minimum=1)
        v.positive(epsilon=self.epsilon)
        v.positive(clip=self.clip)

    @property
    def radius(self) -> float:
        """Norm of every output: ``C B`` (:func:`ball_radius`)."""
        return self.clip * ball_radius(self.dim, self.epsilon)

    @property
    def hemisphere(self) -> float:
        """``a``: probability of the half aligned with the signed direction (:func:`hemisphere_probability`)."""
        return hemisphere_probability(self.epsilon)

    @property
    def achieved_epsilon(self) -> float:
        """Pure epsilon of one report, from dp_accounting (:func:`pure_epsilon`)."""
        return pure_epsilon(self.epsilon)

    def clipped(self, g: np.ndarray) -> np.ndarray:
        """``g min(1, C/||g||)`` row by row: the vector whose unbiased estimate a report is."""
        g = v.finite_array(g=g)
        if g.shape[-1:] != (self.dim,):
            raise ValueError(f"Expected vectors of length dim={self.dim}, got shape {g.shape}.")
        norm = np.linalg.norm(g, axis=-1, keepdims=True)
        return g * np.minimum(1.0, self.clip / np.maximum(norm, np.finfo(float).tiny))

    def _signed_direction(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(u, p)``: unit directions of the clipped rows (first axis for a zero row) and ``p = (1 + ||v||)/2``,
        the probability of keeping the direction's sign (LDP.py:57)."""
        unit = self.clipped(g) / self.clip
        rho = np.linalg.norm(unit, axis=-1)
        direction = np.zeros_like(unit)
        direction[..., 0] = 1.0
        nonzero = rho > 0.0
        direction[nonzero] = unit[nonzero] / rho[nonzero, None]
        return direction, (1.0 + np.minimum(rho, 1.0)) / 2.0

    def randomize(self, rng: np.random.Generator, g: np.ndarray) -> np.ndarray:
        """Reports of ``g`` (shape ``(dim,)`` or ``(n, dim)``): each of norm :attr:`radius`, ``E = clipped(g)``.

        Draws, in order: one uniform per row (the sign), ``n x dim`` normals (the direction on the sphere), one
        uniform per row (the hemisphere)."""
        v.rng(rng=rng)
        g = np.asarray(g, dtype=float)
        if g.ndim not in (1, 2) or g.shape[-1] != self.dim:
            raise ValueError(f"Expected g of shape (dim,) or (n, dim) with dim={self.dim}, got {g.shape}.")
        if g.ndim == 1:
            return self._one(rng, v.finite_array(g=g))
        rows = g
        direction, keep = self._signed_direction(rows)
        n = rows.shape[0]
        sign = np.where(rng.random(n) < keep, 1.0, -1.0)
        signed = sign[:, None] * direction
        z = rng.standard_normal((n, self.dim))
        z /= np.linalg.norm(z, axis=1, keepdims=True)
        aligned = rng.random(n) < self.hemisphere
        side = np.einsum("ij,ij->i", z, signed)
        flip = (side > 0.0) != aligned
        z[flip] -= 2.0 * side[flip, None] * signed[flip]
        out = self.radius * z
        return out.reshape(g.shape)

    def _one(self, rng: np.random.Generator, g: np.ndarray) -> np.ndarray:
        """One report of a finite vector: the rows path's draws in the same order (one uniform, ``dim`` normals,
        one uniform: the same numbers), without its per-call array overhead (a bandit sends one per round)."""
        norm = math.sqrt(float(g @ g))
        rho = min(norm, self.clip) / self.clip
        if norm > 0.0:
            direction = g / norm
        else:
            direction = np.zeros(self.dim)
            direction[0] = 1.0
        if not rng.random() < (1.0 + rho) / 2.0:
            direction = -direction
        z = rng.standard_normal(self.dim)
        z /= math.sqrt(float(z @ z))
        side = float(z @ direction)
        if (side > 0.0) != (rng.random() < self._hemisphere):
            z -= 2.0 * side * direction
        return self._radius * z

    @functools.cached_property
    def _radius(self) -> float:
        return self.radius

    @functools.cached_property
    def _hemisphere(self) -> float:
        return self.hemisphere

    def density(self, z: np.ndarray, g: np.ndarray) -> np.ndarray:
        """Exact density of the report ``z`` given input ``g``, relative to the uniform law on the sphere of
        radius :attr:`radius` (module docstring): ``2 (p a + (1 - p)(1 - a))`` on the half where
        ``<z, u> > 0``, ``2 (p (1 - a) + (1 - p) a)`` on the other."""
        z = v.finite_array(z=z)
        rows = np.asarray(g, dtype=float).reshape(-1, self.dim)
        direction, p = self._signed_direction(rows)
        a = self.hemisphere
        positive = np.einsum("...j,...j->...", z.reshape(-1, self.dim), direction) > 0.0
        inside = 2.0 * (p * a + (1.0 - p) * (1.0 - a))
        outside = 2.0 * (p * (1.0 - a) + (1.0 - p) * a)
        return np.where(positive, inside, outside).reshape(z.shape[:-1])
