"""The arg-max step every kernel shares: the arms with the best score, handed back to Python on a tie."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, inline="always")
def best_arms(scores: np.ndarray, ties: np.ndarray) -> int:
    """Write the arms whose score equals ``max(scores)`` to ``ties`` (in order); return their count.

    A count above one is a tie: the kernel stops and the caller breaks it with the agent's
    tie-breaking generator, as ``act`` does (``np.flatnonzero(scores == scores.max())``).
    """
    best = scores.max()
    n = 0
    for k in range(scores.shape[0]):
        if scores[k] == best:
            ties[n] = k
            n += 1
    return n
