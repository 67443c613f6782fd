"""Privacy amplification by shuffling: the numerical "clones" bound of Feldman, McMillan and Talwar (FOCS 2021).

FMT21 = "Hiding among the clones: a simple and nearly optimal analysis of privacy amplification by
shuffling" (arXiv 2012.12803). Theorem 3.2 there [P]: shuffling the reports of ``n`` users, each through an
``eps0``-DP local randomizer, is ``(eps, delta)``-DP whenever the hockey-stick divergence
``D_{e^eps}`` between

    P = (A + Delta, C - A + 1 - Delta)   and   Q = (A + 1 - Delta, C - A + Delta)

is at most ``delta`` in both directions, where ``C ~ Bin(n - 1, e^{-eps0})`` (the other users who are
"clones" of the differing one), ``A ~ Bin(C, 1/2)`` and ``Delta ~ Bern(e^{eps0} / (e^{eps0} + 1))``.
:func:`clone_delta` evaluates that divergence exactly (sum over every ``c`` whose binomial probability is above
:data:`TAIL`, and for each over a window of 10 standard deviations of ``A``; the mass left out of either is
added to delta, so the result is an upper bound); the authors' code
(``apple/ml-shuffling-amplification``, ``computeamplification.py``, [C]) evaluates it on steps of ``c`` with
the interval's worst end, an upper bound that is looser than the exact sum. :func:`shuffle_epsilon`
inverts it by bisection.

Approximate local DP [P, FMT21 Theorem 3.8, as we read it; not re-derived here]: with
``(eps0, delta0)``-DP randomizers the shuffled output is ``(eps, delta + (e^eps + 1)(1 + e^{-eps0}/2) n
delta0)``-DP, where ``(eps, delta)`` is the pure bound above. The Gaussian randomizer of
:mod:`dpbandit.privacy.local` is only approximately DP, so :func:`gaussian_shuffle_calibration` splits the
total delta in half between the two terms [Fill] and returns the largest local ``eps0`` whose shuffled
epsilon meets the target.

The 2023 "stronger" clone analysis (Feldman, McMillan, Talwar, SODA 2023) is not implemented: its reduction
could not be checked against the paper in this session, and a bound we cannot check is not one to trust.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dpbandit import _validate as v

__all__ = [
    "TAIL",
    "ShuffleCalibration",
    "approximate_shuffle_delta",
    "clone_delta",
    "gaussian_shuffle_calibration",
    "largest_local_epsilon",
    "shuffle_epsilon",
]

#: Binomial mass of one value ``c`` of ``C`` below which it is not summed (the mass left out, at most
#: ``n * TAIL``, is added to delta instead).
TAIL = 1e-18


def _log_binom_pmf(k: np.ndarray, n: np.ndarray | int, logp: float, log1mp: float) -> np.ndarray:
    from scipy.special import gammaln

    return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1) + k * logp + (n - k) * log1mp


def clone_delta(eps0: float, n: int, eps: float) -> float:
    """Upper bound on ``max(D_{e^eps}(P||Q), D_{e^eps}(Q||P))`` of FMT21 Theorem 3.2 (module docstring).

    ``eps0``: the local randomizer's pure epsilon; ``n``: users shuffled together; ``eps``: the central
    epsilon at which delta is wanted.
    """
    eps0 = v.positive(eps0=eps0)
    n = v.integer(n=n, minimum=1)
    eps = v.nonnegative(eps=eps)
    if n == 1:  # no other users to hide among: the local guarantee itself
        return _pure_delta(eps0, eps)
    from scipy import stats

    p_clone = math.exp(-eps0)
    every = np.arange(n)
    pmf = stats.binom.pmf(every, n - 1, p_clone)
    c = every[pmf > TAIL]
    weight = pmf[c]
    hi = int(c.max())
    left_out = max(0.0, 1.0 - float(weight.sum()))
    alpha = math.exp(eps0) / (math.exp(eps0) + 1.0)
    # first coordinate of the pair (A + Delta, or A + 1 - Delta) on a window of 10 std of Bin(c, 1/2) around
    # c / 2; the Bin(c, 1/2) mass outside the window is added to delta below
    w = int(math.ceil(5.0 * math.sqrt(hi))) + 2
    k = (c // 2)[:, None] + np.arange(-w, w + 2)[None, :]
    a_k = _half_binomial(k, c)
    shifted = _half_binomial(k - 1, c)
    left_out += float(weight @ np.maximum(0.0, 1.0 - a_k.sum(axis=1)))
    p = alpha * shifted + (1.0 - alpha) * a_k
    q = (1.0 - alpha) * shifted + alpha * a_k
    factor = math.exp(eps)
    d_pq = np.maximum(p - factor * q, 0.0).sum(axis=1)
    d_qp = np.maximum(q - factor * p, 0.0).sum(axis=1)
    return float(max(weight @ d_pq, weight @ d_qp) + left_out)


def _half_binomial(k: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``Bin(c, 1/2)`` pmf at ``k`` (rows: one ``c`` each), 0 outside ``0 .. c``."""
    cc = c[:, None]
    inside = (k >= 0) & (k <= cc)
    kk = np.clip(k, 0, cc)
    half = math.log(0.5)
    return np.where(inside, np.exp(_log_binom_pmf(kk, cc, half, half)), 0.0)


def _pure_delta(eps0: float, eps: float) -> float:
    """Delta at ``eps`` of randomized response at ``eps0`` (the worst eps0-DP pair): ``max(0, a - e^eps (1-a))``
    with ``a = e^eps0 / (1 + e^eps0)``."""
    a = math.exp(eps0) / (1.0 + math.exp(eps0))
    return max(0.0, a - math.exp(eps) * (1.0 - a))


def shuffle_epsilon(eps0: float, n: int, delta: float, *, tol: float = 1e-6) -> float:
    """Smallest central epsilon (to ``tol``, rounded up) with :func:`clone_delta` ``<= delta``: the shuffled
    guarantee of ``n`` users with ``eps0``-DP local randomizers (FMT21 Theorem 3.2, numerical form)."""
    eps0 = v.positive(eps0=eps0)
    delta = v.probability(delta=delta)
    lo, hi = 0.0, eps0  # clone_delta(eps0, n, eps0) = 0: shuffling never hurts
    if clone_delta(eps0, n, lo) <= delta:
        return 0.0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if clone_delta(eps0, n, mid) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


def approximate_shuffle_delta(eps: float, eps0: float, delta0: float, n: int, delta: float) -> float:
    """Total delta of shuffling ``n`` ``(eps0, delta0)``-DP reports (FMT21 Theorem 3.8 as read, module
    docstring): ``delta + (e^eps + 1)(1 + e^{-eps0}/2) n delta0``."""
    return delta + (math.exp(eps) + 1.0) * (1.0 + math.exp(-eps0) / 2.0) * n * delta0


@dataclass(frozen=True)
class ShuffleCalibration:
    """A local randomizer's budget for a shuffled batch: local ``(eps0, delta0)`` and the central guarantee.

    ``epsilon`` is the central epsilon :func:`shuffle_epsilon` certifies at ``delta_clone``; ``delta`` the
    total central delta (:func:`approximate_shuffle_delta`); ``batch`` the users shuffled together.
    """

    eps0: float
    delta0: float
    epsilon: float
    delta: float
    delta_clone: float
    batch: int


@lru_cache(maxsize=256)
def largest_local_epsilon(epsilon: float, delta: float, batch: int) -> float:
    """Largest pure local ``eps0`` (bisection to 1e-4 relative, kept on the feasible side) whose batch of
    ``batch`` shuffled ``eps0``-DP reports is ``(epsilon, delta)``-DP by :func:`clone_delta` (FMT21 Theorem 3.2).

    ``eps0 >= epsilon`` always (with ``eps0 = epsilon`` the clone bound is the local guarantee's own delta, 0).
    """
    epsilon = v.positive(epsilon=epsilon)
    delta = v.probability(delta=delta)
    batch = v.integer(batch=batch, minimum=1)

    def feasible(eps0: float) -> bool:
        return clone_delta(eps0, batch, epsilon) <= delta

    hi = epsilon
    while feasible(2.0 * hi) and hi < 50.0:
        hi *= 2.0
    hi *= 2.0
    lo = hi / 2.0 if feasible(hi / 2.0) else epsilon
    while hi - lo > 1e-4 * lo:
        mid = 0.5 * (lo + hi)
        if feasible(mid):
            lo = mid
        else:
            hi = mid
    return lo


@lru_cache(maxsize=256)
def gaussian_shuffle_calibration(epsilon: float, delta: float, batch: int) -> ShuffleCalibration:
    """Largest local ``eps0`` (bisection to 1e-4 relative, kept on the feasible side) whose batch of
    ``batch`` shuffled reports is ``(epsilon, delta)``-DP centrally, half of ``delta`` to the clone bound and
    half to the local ``delta0`` term [Fill] (module docstring).

    ``eps0 >= epsilon`` always (shuffling never costs privacy); with a small batch the amplification may be
    nil and ``eps0 = epsilon``.
    """
    epsilon = v.positive(epsilon=epsilon)
    delta = v.probability(delta=delta)
    batch = v.integer(batch=batch, minimum=1)
    delta_clone = delta / 2.0

    def delta0_of(eps0: float) -> float:
        return (delta / 2.0) / ((math.exp(epsilon) + 1.0) * (1.0 + math.exp(-eps0) / 2.0) * batch)

    eps0 = largest_local_epsilon(epsilon, delta_clone, batch)
    delta0 = delta0_of(eps0)
    # every lo kept was checked: clone_delta(eps0, batch, epsilon) <= delta_clone, so epsilon itself holds;
    # shuffle_epsilon's bisection (1e-6 absolute, rounded up) could state up to 1e-6 more (1e-3 relative at
    # epsilon 1e-3), above the request
    central = min(shuffle_epsilon(eps0, batch, delta_clone), epsilon)
    total = approximate_shuffle_delta(central, eps0, delta0, batch, delta_clone)
    return ShuffleCalibration(eps0, delta0, central, total, delta_clone, batch)
