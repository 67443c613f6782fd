"""GLM inverse links zeta (mean function) and their derivatives, with each link's own reward law.

In the GLM bandit of 004_290fd04a1e656565.txt Section 4.1 the reward of arm ``a`` is
``r_t = zeta(X_t^T theta_a) + eps_t``; Assumption 4.4 bounds ``zeta'``. Agents read
``env.unwrapped.link.mean`` / ``.derivative``; the environment uses ``mean`` for the expected
rewards and, for ``noise="native"``, the link's own ``distribution`` for the realised rewards.

Native laws are drawn by inversion from uniforms ``u`` (one per arm and round), so that the
reward of every arm is a fixed function of the round's uniforms (common random numbers):

* ``"bernoulli"``: ``r = 1{u < mu}`` (logistic link).
* ``"poisson"``: ``r = F^{-1}_{Poisson(mu)}(u) = min{k : F(k) >= u}`` (exponential link).

Ranges (closed bounds, may be infinite) give an environment's declared reward range:
``DISTRIBUTION_RANGES`` for native rewards, ``Link.mean_range`` (the image of zeta) for noiseless ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import special

from dpbandit import _validate

__all__ = ["DISTRIBUTIONS", "DISTRIBUTION_RANGES", "LINKS", "Link", "get_link", "native_rewards"]

ArrayFn = Callable[[np.ndarray], np.ndarray]


def _bernoulli(u: np.ndarray, mu: np.ndarray) -> np.ndarray:
    return (u < mu).astype(np.float64)


def _poisson(u: np.ndarray, mu: np.ndarray) -> np.ndarray:
    from scipy import stats  # imported on first use: scipy.stats takes ~0.5 s to import

    # scipy returns -1 at u == 0 (probability 2**-53); the generalised inverse there is 0.
    return np.maximum(stats.poisson.ppf(u, mu), 0.0)


#: Native reward laws by name: ``f(uniforms, means) -> rewards`` (inverse-CDF sampling).
DISTRIBUTIONS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "bernoulli": _bernoulli,
    "poisson": _poisson,
}

#: ``(low, high)`` of each native law's values [O]: Bernoulli {0, 1}, Poisson {0, 1, 2, ...}.
DISTRIBUTION_RANGES: dict[str, tuple[float, float]] = {
    "bernoulli": (0.0, 1.0),
    "poisson": (0.0, math.inf),
}


@dataclass(frozen=True)
class Link:
    """An inverse link: ``mean`` = zeta, ``derivative`` = zeta', both vectorised.

    Args:
        mean: zeta, applied elementwise to ``x^T theta``.
        derivative: zeta', applied elementwise.
        name: label used in reprs and result tables.
        distribution: the link's own reward law (a key of ``DISTRIBUTIONS``) or ``None`` if it
            has none (then only Gaussian reward noise is available).
        mean_range: ``(low, high)``, closed bounds of zeta's values (the expected rewards), or
            ``None`` when not known (a custom link that does not say).
    """

    mean: ArrayFn
    derivative: ArrayFn
    name: str = "custom"
    distribution: str | None = None
    mean_range: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        for field in ("mean", "derivative"):
            if not callable(getattr(self, field)):
                raise TypeError(f"Expected Link {field} to be callable, got {getattr(self, field)!r}.")
        if self.distribution is not None:
            _validate.one_of(DISTRIBUTIONS, distribution=self.distribution)
        if self.mean_range is not None:
            low, high = (float(v) for v in self.mean_range)
            if math.isnan(low) or math.isnan(high) or low > high:
                raise ValueError(f"Expected mean_range = (low, high), low <= high; got {self.mean_range!r}.")
            object.__setattr__(self, "mean_range", (low, high))


def _logistic_derivative(z: np.ndarray) -> np.ndarray:
    p = special.expit(z)
    return p * (1.0 - p)


#: Built-in links [O]: identity (linear bandit), logistic (Bernoulli), exponential (Poisson). Mean
#: ranges are closed because floating point reaches the limits (``expit(-800) == 0.0``, ``exp(-800) == 0.0``).
LINKS: dict[str, Link] = {
    "identity": Link(np.asarray, np.ones_like, "identity", None, (-math.inf, math.inf)),
    "logistic": Link(special.expit, _logistic_derivative, "logistic", "bernoulli", (0.0, 1.0)),
    "exponential": Link(np.exp, np.exp, "exponential", "poisson", (0.0, math.inf)),
}


def get_link(link: str | Link) -> Link:
    """Return a :class:`Link` from a name in ``LINKS`` or a ``Link`` instance."""
    if isinstance(link, Link):
        return link
    if not isinstance(link, str):
        raise TypeError(f"Expected link to be a name in {sorted(LINKS)} or a Link, got {link!r}.")
    return LINKS[_validate.one_of(LINKS, link=link)]


def native_rewards(link: Link, uniforms: np.ndarray, means: np.ndarray) -> np.ndarray:
    """Realised rewards from the link's own law by inversion of ``uniforms`` (same shape as ``means``)."""
    if link.distribution is None:
        raise ValueError(f"link={link.name!r} has no native reward distribution; use noise='gaussian'.")
    return DISTRIBUTIONS[link.distribution](uniforms, means)
