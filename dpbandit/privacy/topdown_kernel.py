"""The compiled loop of :mod:`dpbandit.privacy.topdown` (steps 1-4 of its docstring), shared by the numpy
path (:func:`dpbandit.privacy.topdown.report_noisy_min_topdown`) and DP-HDB's kernel
(:mod:`dpbandit.agents.kernels.hdb`), so both draw the same numbers. Imported on first use: numba is not
loaded by importing the privacy core.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from dpbandit import _numba_cache

_numba_cache.install()  # before the kernels below are decorated

__all__ = ["LAZY_LIMIT", "noisy_argmin_topdown", "rows_argmin"]

#: Order statistics placed one by one before the remaining noise is drawn at once (step 4).
LAZY_LIMIT = 32

_LOG_HALF = math.log(0.5)
_LOG_TWO = math.log(2.0)


@numba.njit(cache=True, error_model="numpy")
def _laplace_quantile(log_cdf):
    """``F^{-1}`` of ``Lap(1)`` at ``exp(log_cdf)``, accurate in the upper tail (``1 - F`` by ``expm1``)."""
    if log_cdf >= _LOG_HALF:
        return -math.log(-2.0 * math.expm1(log_cdf))
    return _LOG_TWO + log_cdf


@numba.njit(cache=True, error_model="numpy", inline="always")
def _candidate(z, m, i):
    """Score of candidate ``i``: ``z[i]``, or ``-z[i - m]`` for the mirrored half (``i >= m``)."""
    return z[i] if i < m else -z[i - m]


@numba.njit(cache=True, error_model="numpy")
def noisy_argmin_topdown(rng, z, mirrored, placed, order):
    """``argmin_i (c_i + L_i)`` with ``L_i`` i.i.d. ``Lap(1)`` (module docstring, steps 1-4).

    The candidates ``c`` are ``z`` (``mirrored=False``) or ``z`` followed by ``-z`` (``mirrored=True``: the
    2d vertices ``+-r e_j`` of an l1 ball, without building the negated copy). ``placed`` (bool, one per
    candidate, all False) and ``order`` (int64, ``LAZY_LIMIT``) are scratch space; ``placed`` is all False
    again on return.
    """
    m = z.shape[0]
    n = 2 * m if mirrored else m
    lo, hi = np.inf, -np.inf
    for i in range(m):
        lo = min(lo, z[i])
        hi = max(hi, z[i])
    c_min = min(lo, -hi) if mirrored else lo
    log_cdf = 0.0  # log F(N_(k)) of the k-th largest N = -L
    best, best_val = -1, np.inf
    k = 0
    limit = min(LAZY_LIMIT, n)
    settled = False
    top = np.inf
    while k < limit and not settled:
        log_cdf -= rng.standard_exponential() / (n - k)
        top = _laplace_quantile(log_cdf)  # N_(k+1)
        i = rng.integers(0, n)
        while placed[i]:
            i = rng.integers(0, n)
        placed[i] = True
        order[k] = i
        k += 1
        val = _candidate(z, m, i) - top
        if val < best_val:
            best, best_val = i, val
        settled = best_val <= c_min - top  # every unplaced c_j - N_j exceeds c_min - N_(k)
    if not settled and k < n:  # step 4: the unplaced values, i.i.d. Lap(1) below N_(k), in index order
        for i in range(n):
            if placed[i]:
                continue
            noise = rng.standard_exponential() - rng.standard_exponential()
            while noise > top:
                noise = rng.standard_exponential() - rng.standard_exponential()
            val = _candidate(z, m, i) - noise
            if val < best_val:
                best, best_val = i, val
    for j in range(k):
        placed[order[j]] = False
    return best


@numba.njit(cache=True, error_model="numpy")
def rows_argmin(rng, z, mirrored):
    """:func:`noisy_argmin_topdown` on every row of ``z`` (one generator, rows in order)."""
    index = np.empty(z.shape[0], dtype=np.int64)
    placed = np.zeros(z.shape[1] * (2 if mirrored else 1), dtype=np.bool_)
    order = np.empty(LAZY_LIMIT, dtype=np.int64)
    for r in range(z.shape[0]):
        index[r] = noisy_argmin_topdown(rng, z[r], mirrored, placed, order)
    return index
