"""Disjoint DP-UCB (K per-arm Gaussian trees, Shariff and Sheffet 2018), compiled.

Mirrors :class:`dpbandit.agents.dpucb_disjoint.DisjointDPUCB`'s ``act`` / ``update`` operation by
operation, on the agent's own arrays: scores ``<x, theta_k> + beta_t ||L_k^{-1} x||`` (BLAS ``dtrsv``
and ``ddot``, as the numpy path), arg-max with ties handed back to the caller; the pulled arm's exact
packed statistics ``[x x^T (lower triangle, row by row); r x]``; one tree step for **every** arm
(the new node's noise, drawn from the agent's Generator in the numpy path's order: arm by arm,
entry by entry, then added to the running sum of the next set bit); and per arm ``V_k`` (lower
triangle) ``= exact + noise prefix + 2 Upsilon I``, LAPACK ``dpotrf`` in place and
``theta_k = L^{-T} L^{-1} u_k``. Same routines, same operands, same order as the numpy path, so the
state is bit-identical and so are the actions.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from dpbandit.agents.kernels import DONE, NOT_POSITIVE_DEFINITE, TIE
from dpbandit.agents.kernels.lapack import cholesky_lower, dot, solve_lower, solve_lower_transposed, workspace
from dpbandit.agents.kernels.ties import best_arms


@numba.njit(cache=True, error_model="numpy")
def _grow_trees(t, noise_sums, scale, rng):
    """Step ``t`` of every arm's tree: the node of level ``ctz(t)`` gets fresh noise; returns that level."""
    level = 0  # ctz(t), then the next set bit above it (dpbandit.privacy.tree.running_levels)
    while not (t >> level) & 1:
        level += 1
    above = level + 1
    has_above = (t >> above) != 0
    while has_above and not (t >> above) & 1:
        above += 1
    K, P = noise_sums.shape[1], noise_sums.shape[2]
    for k in range(K):
        for j in range(P):
            z = scale[j] * rng.standard_normal()
            noise_sums[level, k, j] = noise_sums[above, k, j] + z if has_above else z
    return level


@numba.njit(cache=True, error_model="numpy")
def _factor(k, exact, noise, noisy, factor, u, theta, two_upsilon, ints, chars):
    """Arm ``k``: ``V`` = exact + noise (+ 2 Upsilon on the diagonal) into the lower triangle,
    Cholesky in place, ``u`` and ``theta``; returns LAPACK's info."""
    d = factor.shape[1]
    pos = 0
    for i in range(d):
        for j in range(i + 1):
            v = exact[k, pos] + noise[k, pos] if noisy else exact[k, pos]
            if j == i:
                v += two_upsilon
            factor[k, i, j] = v
            pos += 1
    for i in range(d):
        u[k, i] = exact[k, pos + i] + noise[k, pos + i] if noisy else exact[k, pos + i]
    info = cholesky_lower(factor[k], ints, chars)
    if info != 0:
        return info
    for i in range(d):
        theta[k, i] = u[k, i]
    solve_lower(factor[k], theta[k], ints, chars)
    solve_lower_transposed(factor[k], theta[k], ints, chars)
    return 0


@numba.njit(cache=True, error_model="numpy")
def play(X, R, actions, start, chosen, widths, state, exact, noise_sums, factor, u, theta, scale,
         two_upsilon, reward_bound, noisy, rng, ties):
    """Play rounds ``start..`` of ``X (m, d)``, ``R (m, K)``; returns ``(status, round, n_ties)``.

    ``state = [t, clipped_rewards]``; ``widths[s]`` is beta_t of round ``s``; ``chosen >= 0`` is the
    action of round ``start`` (a tie the caller broke). On ``TIE`` the candidates are
    ``ties[:n_ties]``; on ``NOT_POSITIVE_DEFINITE`` round ``round`` was recorded but arm
    ``n_ties``'s factor failed.
    """
    m, K = R.shape
    d = X.shape[1]
    ints, chars = workspace(d)
    w = np.empty(d)
    scores = np.empty(K)
    for s in range(start, m):
        x = X[s]
        if s == start and chosen >= 0:
            a = chosen
        else:
            for k in range(K):
                for i in range(d):
                    w[i] = x[i]
                solve_lower(factor[k], w, ints, chars)
                variance = dot(w, w, ints)
                scores[k] = dot(x, theta[k], ints) + widths[s] * math.sqrt(max(variance, 0.0))
            n = best_arms(scores, ties)
            if n > 1:
                return TIE, s, n
            a = ties[0]
        reward = min(max(R[s, a], -reward_bound), reward_bound)
        if reward != R[s, a]:
            state[1] += 1
        pos = 0
        for i in range(d):  # the pulled arm's exact statistics: x x^T (lower, by rows), then r x
            for j in range(i + 1):
                exact[a, pos] += x[i] * x[j]
                pos += 1
        for i in range(d):
            exact[a, pos + i] += reward * x[i]
        state[0] += 1
        noise = noise_sums[_grow_trees(state[0], noise_sums, scale, rng)] if noisy else exact
        for k in range(K):
            info = _factor(k, exact, noise, noisy, factor, u, theta, two_upsilon, ints, chars)
            if info != 0:
                actions[s] = a
                return NOT_POSITIVE_DEFINITE, s + 1, k
        actions[s] = a
    return DONE, m, 0
