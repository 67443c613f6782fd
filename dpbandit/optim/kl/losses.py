"""Synthetic (gamma, kappa)-KL losses with an exactly known minimum value.

Construction (notes ``kl.md`` Section 4, checked here; the paper itself has no experiments): a coordinate-wise
bijection ``phi(w)_j = w_j + (a / omega) sin(omega w_j)`` with ``phi' in [1 - a, 1 + a]`` and ``|phi''| <= a
omega``, and the per-example loss ``f(w; x) = (1/q) ||phi(w) - x||^q``. The minimiser ``w* = r_w u / ||u||``
is drawn from the generator, ``c = phi(w*)`` and ``w0 = 0``.

- ``kappa = 2`` (PL, ``q = 2``): data = ``pairs`` symmetric pairs ``c +- z_j`` (each repeated) plus atoms at
  ``c``, so the mean is exactly ``c`` and ``F - F* = (1/2) ||phi(w) - c||^2`` with ``F* = (1/n) sum_i (1/2)
  ||x_i - c||^2`` and ``gamma = 1 / (sqrt 2 (1 - a))`` (exact, eq. (1)).
- ``kappa != 2``: every sample sits at ``c`` ("single atom"), ``q = kappa / (kappa - 1)``, ``F* = 0`` and ``F
  = (1/q) ||phi(w) - c||^q <= (1/q) (||grad F|| / (1 - a))^kappa``, i.e. ``gamma = q^(-1/kappa) / (1 - a)``.
  For ``kappa > 2`` (``q < 2``) the loss is Lipschitz and ``a omega R^(q-1)``-weakly convex but not smooth
  (the setting of Algorithm 2).

Every constant handed to an algorithm (``gamma``, ``kappa``, ``F0``, ``L0``, ``L1``, weak convexity) is
computed from the *generator's public radii* ``r_w``, ``r_z`` and the declared region radius, never from the
drawn data (notes P4). ``F0 = (1/q) ((1 + a) r_w)^q >= F(w0) - F*`` because ``phi(0) = 0`` and ``phi`` is
``(1+a)``-Lipschitz. On the ball ``B_radius(w0)``: ``R = (1 + a)(radius + r_w) + r_z >= ||phi(w) - x||``, ``L0
= (1 + a) R^(q-1)``, ``L1 = (1 + a)^2 (q - 1) R^(q-2) + a omega R^(q-1)`` (per example, ``q >= 2``) and weak
convexity ``a omega R^(q-1)``. Data are stored as distinct points with weights (see ``objective``), so one
gradient costs O(m d) for any n.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dpbandit import _validate as v

__all__ = ["KLInstance", "kl_instance"]


@dataclass(frozen=True, eq=False)
class KLInstance:
    """One drawn instance; implements the ``Objective`` protocol plus its public constants."""

    n: int
    q: float
    a: float
    omega: float
    points: np.ndarray = field(repr=False)
    weights: np.ndarray = field(repr=False)
    w_star: np.ndarray = field(repr=False)
    center: np.ndarray = field(repr=False)
    f_star: float
    gamma: float
    kappa: float
    F0: float
    L0: float
    L1: float
    weak_convexity: float
    radius: float

    @property
    def dim(self) -> int:
        return self.points.shape[1]

    @property
    def w0(self) -> np.ndarray:
        return np.zeros(self.dim)

    def phi(self, w: np.ndarray) -> np.ndarray:
        return w + (self.a / self.omega) * np.sin(self.omega * w)

    def _residuals(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r = self.phi(np.asarray(w, dtype=float)) - self.points
        return r, np.linalg.norm(r, axis=1)

    def value(self, w: np.ndarray) -> float:
        _, norms = self._residuals(w)
        return float(self.weights @ norms**self.q) / self.q

    def excess(self, w: np.ndarray) -> float:
        """F(w) - F* in closed form, (1/q) ||phi(w) - c||^q (exact for both data designs; no cancellation)."""
        return float(np.linalg.norm(self.phi(np.asarray(w, dtype=float)) - self.center) ** self.q) / self.q

    def per_example_grad(self, w: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=float)
        r, norms = self._residuals(w)
        scale = np.where(norms > 0, norms ** (self.q - 2.0) if self.q != 2 else 1.0, 0.0)
        return (1.0 + self.a * np.cos(self.omega * w)) * (scale[:, None] * r)


def kl_instance(
    rng: np.random.Generator,
    *,
    kappa: float,
    dim: int,
    n: int,
    a: float = 0.5,
    omega: float = 3.0,
    r_w: float = 0.5,
    pairs: int = 4,
    r_z: float = 0.2,
    radius: float = 2.0,
) -> KLInstance:
    """Draw a (gamma, kappa)-KL instance (module docstring); ``pairs`` and ``r_z`` are used only at kappa = 2.

    Args:
        rng: generator for ``w*`` and the pair offsets.
        kappa: KL exponent (> 1); ``q = kappa / (kappa - 1)``.
        dim, n: dimension and number of samples (n may be huge: data are stored compactly).
        a, omega: non-convexity of ``phi`` (``a = 0`` gives a convex loss), ``0 <= a < 1``.
        r_w: ``||w* - w0||``; r_z: ``||z_j||`` of the pair offsets; radius: region radius for L0/L1.
    """
    v.rng(rng=rng)
    kappa = v.positive(kappa=kappa)
    if kappa <= 1:
        raise ValueError(f"Expected kappa > 1, got kappa={kappa}.")
    dim, n = v.integer(dim=dim, minimum=1), v.integer(n=n, minimum=1)
    a = v.nonnegative(a=a)
    if a >= 1:
        raise ValueError(f"Expected a < 1, got a={a}.")
    omega, r_w, radius = v.positive(omega=omega), v.positive(r_w=r_w), v.positive(radius=radius)
    q = kappa / (kappa - 1.0)
    u = rng.standard_normal(dim)
    w_star = r_w * u / np.linalg.norm(u)
    c = w_star + (a / omega) * np.sin(omega * w_star)
    if kappa == 2.0 and pairs > 0:
        pairs, r_z = v.integer(pairs=pairs, minimum=1), v.positive(r_z=r_z)
        reps = n // (2 * pairs)
        if reps == 0:
            raise ValueError(f"Expected n >= 2 * pairs, got n={n}, pairs={pairs}.")
        z = rng.standard_normal((pairs, dim))
        z *= r_z / np.linalg.norm(z, axis=1, keepdims=True)
        points = np.vstack([c + z, c - z, c[None, :]])
        weights = np.concatenate([np.full(2 * pairs, reps / n), [(n - 2 * pairs * reps) / n]])
        f_star = float(2 * pairs * reps / n * 0.5 * r_z**2)
        gamma = 1.0 / (math.sqrt(2.0) * (1.0 - a))
    else:
        r_z = 0.0
        points, weights, f_star = c[None, :], np.ones(1), 0.0
        gamma = q ** (-1.0 / kappa) / (1.0 - a)
    R = (1.0 + a) * (radius + r_w) + r_z
    L1 = (1.0 + a) ** 2 * (q - 1.0) * R ** (q - 2.0) + a * omega * R ** (q - 1.0) if q >= 2 else math.inf
    return KLInstance(
        n=n, q=q, a=a, omega=omega, points=points, weights=weights, w_star=w_star, center=c, f_star=f_star,
        gamma=gamma, kappa=kappa, F0=((1.0 + a) * r_w) ** q / q, L0=(1.0 + a) * R ** (q - 1.0), L1=L1,
        weak_convexity=a * omega * R ** (q - 1.0), radius=radius,
    )
