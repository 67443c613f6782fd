"""Disjoint LinUCB / greedy ridge (Li et al. 2010, Algorithm 1) with Sherman-Morrison updates, compiled.

Mirrors :meth:`dpbandit.agents.linear.LinearUCBAgent.act` / ``update`` for the disjoint form
(one model per arm on the shared context): scores ``<x, theta_k> + alpha ||x||_{V_k^{-1}}``, arg-max
with ties handed back to the caller (broken with the agent's generator), then
``V^{-1} -= (V^{-1} x)(V^{-1} x)^T / (1 + x^T V^{-1} x)``, ``u += r x``, ``theta = V^{-1} u``.
Sums run sequentially (NumPy's einsum/matmul may order them differently), so the state agrees to
rounding and the actions are identical.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from dpbandit.agents.kernels import DONE, TIE
from dpbandit.agents.kernels.ties import best_arms


@numba.njit(cache=True, error_model="numpy")
def play(X, R, actions, start, chosen, v_inv, u, theta_hat, alpha, ties):
    """Play rounds ``start..`` of ``X (m, d)``, ``R (m, K)``; returns ``(status, round, n_ties)``."""
    m, K = R.shape
    d = X.shape[1]
    scores = np.empty(K)
    vf = np.empty(d)
    for s in range(start, m):
        x = X[s]
        if s == start and chosen >= 0:
            a = chosen
        else:
            for k in range(K):
                mean = 0.0
                for i in range(d):
                    mean += x[i] * theta_hat[k, i]
                score = mean
                if alpha != 0.0:
                    var = 0.0
                    for i in range(d):
                        row = 0.0
                        for j in range(d):
                            row += v_inv[k, i, j] * x[j]
                        var += x[i] * row
                    score = mean + alpha * math.sqrt(max(var, 0.0))
                scores[k] = score
            n = best_arms(scores, ties)
            if n > 1:
                return TIE, s, n
            a = ties[0]
        reward = R[s, a]
        quad = 0.0
        for i in range(d):  # vf = V^{-1} x, then V^{-1} -= (vf / (1 + x^T vf)) vf^T
            row = 0.0
            for j in range(d):
                row += v_inv[a, i, j] * x[j]
            vf[i] = row
            quad += x[i] * row
        denom = 1.0 + quad
        for i in range(d):
            c = vf[i] / denom
            for j in range(d):
                v_inv[a, i, j] -= c * vf[j]
            u[a, i] += reward * x[i]
        for i in range(d):
            row = 0.0
            for j in range(d):
                row += v_inv[a, i, j] * u[a, j]
            theta_hat[a, i] = row
        actions[s] = a
    return DONE, m, 0
