"""DP-HDB (Algorithm 3 of 004) over K DP-POFW instances (Algorithm 2), identity link, compiled.

Mirrors :meth:`dpbandit.agents.dphdb.DPHDB.act` / ``update`` and
:meth:`dpbandit.optim.pofw.POFWBank.step` operation by operation: the same clipped gradients,
recursion ``d_t = g_t + (1 - rho_t)(d_{t-1} - g_{t-1})``, report-noisy-min over the 2d vertices
with one ``Lap(1)`` draw per vertex in C order over ``(instances, 2d)`` on the scores divided by
the line-8 scale ``b_t = scale1 / sqrt(t)``, and the Frank-Wolfe step
``theta + (v - theta) / (t + 1)``. Only the summation order of the dot products ``x^T theta``
differs (sequential here), so iterates agree to rounding and the actions are identical.

The selection is report-noisy-min with Laplace noise (Algorithm 2 line 9), drawn per vertex
(``PER_VERTEX``) or top down (``TOPDOWN``, :func:`dpbandit.privacy.topdown_kernel.noisy_argmin_topdown` on the d scores
``r d_j / b_t`` mirrored by their negatives: the same function and draws as the numpy path), or, with
``GUMBEL``, the exponential mechanism by Gumbel-max (``DPHDB(selection="exponential")``): argmax over the vertices of
``-s_v / b_t + G_v`` with one standard Gumbel draw per vertex, in the same C order, as
:func:`dpbandit.privacy.rnm.exponential_mechanism` computes it (:func:`dpbandit.optim.pofw.private_vertex`).
The Gumbel draws follow NumPy's ``Generator.gumbel``: ``-log(-log(U))`` with ``U = 1 - rng.random()``,
``U = 1`` rejected (:func:`_gumbel1`).

The Laplace draws follow :func:`dpbandit.privacy.noise.laplace` exactly: ``E1 - E2`` from two
consecutive ``rng.standard_exponential()`` calls (:func:`_lap1`), the project's one sampler and draw
order, so the agent's Generator ends in the same state on both paths. ``_lap1`` is inlined into the
loop over the vertices (``inline="always"``: no call per draw, 1.4-1.5x faster than the called
version, same numbers); the noiseless scores ``r d_j / b_t`` are computed first in a loop of their
own (the scores of ``-r e_j`` are their exact negatives), and the pre-selection sums run two arms at
a time in registers (each sum still sequential over the coordinates, as before).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from dpbandit.agents.kernels import DONE, STEP_LIMIT, TIE, WARMUP_END
from dpbandit.agents.kernels.ties import array_max, best_arms
from dpbandit.privacy.topdown_kernel import LAZY_LIMIT, noisy_argmin_topdown

#: ``sampler`` codes of :func:`play`: Laplace per vertex, Gumbel per vertex, Laplace top down.
PER_VERTEX, GUMBEL, TOPDOWN = 0, 1, 2


@numba.njit(cache=True, error_model="numpy", inline="always")
def _lap1(rng):
    """One ``Lap(1)`` draw in the draw order of :func:`dpbandit.privacy.noise.laplace` (E1, then E2)."""
    e1 = rng.standard_exponential()
    e2 = rng.standard_exponential()
    return e1 - e2


@numba.njit(cache=True, error_model="numpy", inline="always")
def _gumbel1(rng):
    """One standard Gumbel draw as NumPy's ``Generator.gumbel(0, 1)`` makes it (``U = 1`` rejected)."""
    u = 1.0 - rng.random()
    while u >= 1.0:
        u = 1.0 - rng.random()
    return -math.log(-math.log(u))


@numba.njit(cache=True, error_model="numpy")
def _pofw_step(i, x, reward, real, theta, theta_prev, direction, counts, rng, radius, scale1, clip_norm, scores,
               sampler, placed, order):
    """One Algorithm 2 step of instance ``i``: on ``(x, reward)`` if ``real``, else on (0, zeta(0)=0).

    ``scores`` is scratch space of length d for the noiseless vertex scores ``r d_j / b_t``; ``placed`` (2d)
    and ``order`` are the top-down sampler's (``sampler == TOPDOWN``).
    """
    d = theta.shape[1]
    t = counts[i] + 1
    keep = t / (t + 1.0)
    if real:
        x_norm = 0.0
        for j in range(d):
            x_norm = max(x_norm, abs(x[j]))
        limit = clip_norm / (x_norm if x_norm > 0 else 1.0)
        dot_now, dot_prev = 0.0, 0.0
        for j in range(d):  # two independent sequential sums
            dot_now += x[j] * theta[i, j]
            dot_prev += x[j] * theta_prev[i, j]
        c_now = min(max(dot_now - reward, -limit), limit)
        c_prev = min(max(dot_prev - reward, -limit), limit)
        for j in range(d):
            direction[i, j] = c_now * x[j] + keep * (direction[i, j] - c_prev * x[j])
    else:  # the synthetic item has zero gradient: d_t = (1 - rho_t) d_{t-1}
        for j in range(d):
            direction[i, j] = keep * direction[i, j]
    scale = scale1 / math.sqrt(t)
    for j in range(d):  # the scores of +r e_j, without noise (a vectorisable loop of divisions)
        scores[j] = radius * direction[i, j] / scale
    best = 0
    if sampler == TOPDOWN:  # the same law as the per-vertex draws below (dpbandit.privacy.topdown)
        best = noisy_argmin_topdown(rng, scores, True, placed, order)  # vertices +r e_j, then -r e_j
    elif sampler == GUMBEL:  # argmax of -s_v / b + G_v (first maximum, as np.argmax)
        best_val = -np.inf
        for j in range(d):  # vertices +r e_j (draws in C order over the 2d vertices)
            val = -scores[j] + _gumbel1(rng)
            if val > best_val:
                best, best_val = j, val
        for j in range(d):  # vertices -r e_j: -(r (-d_j)) / b = r d_j / b exactly (IEEE negation)
            val = scores[j] + _gumbel1(rng)
            if val > best_val:
                best, best_val = d + j, val
    else:  # argmin of s_v / b + Lap(1) (first minimum, as np.argmin)
        best_val = np.inf
        for j in range(d):  # vertices +r e_j (draws in C order over the 2d vertices)
            val = scores[j] + _lap1(rng)
            if val < best_val:
                best, best_val = j, val
        for j in range(d):  # vertices -r e_j: (r (-d_j)) / b = -(r d_j / b) exactly (IEEE negation)
            val = -scores[j] + _lap1(rng)
            if val < best_val:
                best, best_val = d + j, val
    index = best % d
    vertex = radius if best < d else -radius
    at_vertex = theta[i, index]
    for j in range(d):  # Frank-Wolfe step towards 0 on every coordinate (vectorisable) ...
        old = theta[i, j]
        theta_prev[i, j] = old
        theta[i, j] = old + (0.0 - old) / (t + 1.0)
    theta[i, index] = at_vertex + (vertex - at_vertex) / (t + 1.0)  # ... and towards +-r on the vertex's
    counts[i] = t


@numba.njit(cache=True, error_model="numpy")
def play(X, R, actions, start, chosen, state, theta, theta_prev, direction, counts, frozen, rng,
         n_steps, warmup, radius, scale1, clip_norm, h_sub, ties, sampler):
    """Play rounds ``start..`` of the block ``X (m, d)``, ``R (m, K)``; write ``actions``.

    ``state[0]`` is the agent's round counter; ``chosen >= 0`` is the action of round ``start``
    (a tie the caller broke). Returns ``(status, round, n_ties)``; on ``TIE`` the candidate arms
    are ``ties[:n_ties]``.
    """
    m, K = R.shape
    forced_rounds = K * warmup
    scores = np.empty(K)
    forced = np.empty(K)
    vertex_scores = np.empty(X.shape[1])
    placed = np.zeros(2 * X.shape[1] if sampler == TOPDOWN else 0, dtype=np.bool_)
    order = np.empty(LAZY_LIMIT, dtype=np.int64)
    for s in range(start, m):
        x = X[s]
        forced_round = state[0] < forced_rounds  # a run-time bool (a literal True would compile twice)
        if forced_round:  # lines 3-10: forced sampling, only the pulled arm steps, on its data
            a = state[0] // warmup
            if counts[a] + 1 > n_steps:
                return STEP_LIMIT, s, 0
            _pofw_step(a, x, R[s, a], forced_round, theta, theta_prev, direction, counts, rng, radius, scale1,
                       clip_norm, vertex_scores, sampler, placed, order)
        else:
            if s == start and chosen >= 0:
                a = chosen
            else:  # lines 13-14: pre-selection with the frozen iterates, greedy with the current ones
                for k0 in range(0, K, 2):  # two arms at a time: 4 independent sequential sums in registers
                    k1 = min(k0 + 1, K - 1)  # (K odd: the last arm is summed twice, identically)
                    f0, s0, f1, s1 = 0.0, 0.0, 0.0, 0.0
                    for j in range(X.shape[1]):
                        f0 += frozen[k0, j] * x[j]
                        s0 += theta[k0, j] * x[j]
                        f1 += frozen[k1, j] * x[j]
                        s1 += theta[k1, j] * x[j]
                    forced[k0], scores[k0], forced[k1], scores[k1] = f0, s0, f1, s1
                top = array_max(forced)
                for k in range(K):
                    if not forced[k] > top - h_sub / 2.0:
                        scores[k] = -np.inf
                n = best_arms(scores, ties)
                if n > 1:
                    return TIE, s, n
                a = ties[0]
            for k in range(K):
                if counts[k] + 1 > n_steps:
                    return STEP_LIMIT, s, 0
            for k in range(K):  # lines 15-17: every arm steps, the others on (0, zeta(0))
                _pofw_step(k, x, R[s, a], k == a, theta, theta_prev, direction, counts, rng, radius, scale1,
                           clip_norm, vertex_scores, sampler, placed, order)
        actions[s] = a
        state[0] += 1
        if state[0] == forced_rounds:
            return WARMUP_END, s + 1, 0
    return DONE, m, 0
