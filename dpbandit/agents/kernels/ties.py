"""The arg-max step every kernel shares: the arms with the best score, handed back to Python on a tie.

:func:`array_max` is ``ndarray.max`` written as a loop: the same value (a NaN propagates), but numba
compiles it in milliseconds where its generic ``.max()`` reduction (``npy_max``, which pulls in
``numpy_take``) added about 0.6 s to the cold compile of the DP-HDB kernel (first call 2.9 -> 2.3 s at
load 1, numba's compile events; issue 16).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, inline="always")
def array_max(values: np.ndarray) -> float:
    """``values.max()`` of a non-empty 1-d array, NaN propagating as in NumPy."""
    best = values[0]
    for k in range(1, values.shape[0]):
        value = values[k]
        if value > best or value != value:  # once best is NaN, nothing compares above it: it stays
            best = value
    return best


@numba.njit(cache=True, inline="always")
def best_arms(scores: np.ndarray, ties: np.ndarray) -> int:
    """Write the arms whose score equals ``max(scores)`` to ``ties`` (in order); return their count.

    A count above one is a tie: the kernel stops and the caller breaks it with the agent's
    tie-breaking generator, as ``act`` does (``np.flatnonzero(scores == scores.max())``).
    """
    best = array_max(scores)
    n = 0
    for k in range(scores.shape[0]):
        if scores[k] == best:
            ties[n] = k
            n += 1
    return n
