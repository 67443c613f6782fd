"""DP-UCB for the disjoint model: one Gaussian tree and one Cholesky factor per arm (K trees of size d).

References:
    Shariff and Sheffet, "Differentially Private Contextual Linear Bandits", NeurIPS 2018, Section 4
    (tree mechanism, shifted regulariser, constants; :mod:`dpbandit.agents.dpucb`);
    004_290fd04a1e656565.txt Algorithm 3 line 16 (synthetic updates keep per-arm streams aligned) and
    proof B.1 (one user changes at most two arms' streams); notes/ofw_hdb.md Sections 2 and 3.5.

Model. A shared context ``x_t`` (``||x_t||_2 <= L``) and one parameter per arm (004 Section 5.4).
:class:`~dpbandit.agents.dpucb.DPUCB` handles it through block features ``e_a kron x_t``: one tree
over ``(dK + 1)^2`` statistics and one ``dK x dK`` factorisation per round. Here arm ``k`` keeps its
own tree over the ``(d+1) x (d+1)`` matrices ``[x; y][x; y]^T`` and its own ``d x d`` factor:
``V_k = M_k[:d, :d] + 2 Upsilon I``, ``u_k = M_k[:d, d]``, ``theta_k = V_k^{-1} u_k``, and arm ``k``
scores ``<x, theta_k> + beta_t ||x||_{V_k^{-1}}``. The constants are the same formulas with ``D = d``
and ``alpha / K`` per arm (union bound over the K trees' accuracy events and the K ellipsoids).

Every arm's tree receives an input every round: ``[x_t; y_t][x_t; y_t]^T`` for the pulled arm, the
zero matrix for the others (as DP-HDB's synthetic updates). So every tree has one leaf per round at
index ``t``, and the node positions never depend on the actions.

Privacy [derived]. Joint DP by the billboard lemma: the noisy prefix sums of all K trees are the board,
and user ``s``'s action is a function of the board before ``s`` and of their own data. Neighbouring
data sets differ in one user ``t``; leaves before ``t`` are equal, leaves after ``t`` depend on the
data only through the board and the other users' own data (the adaptive tree argument), and at index
``t`` the leaves of at most two arms change. With ``z = [x; y]``, ``||z||^2 <= Ltilde^2 = L^2 + B^2``:

* same arm (``a_t = a'_t``): ``||z z^T - z' z'^T||_F^2 = ||z||^4 + ||z'||^4 - 2 <z, z'>^2 <= 2 Ltilde^4``;
* switched arm (``a_t != a'_t``): arm ``a_t`` loses ``z z^T``, arm ``a'_t`` gains ``z' z'^T``, jointly
  ``||z z^T||_F^2 + ||z' z'^T||_F^2 = ||z||^4 + ||z'||^4 <= 2 Ltilde^4``.

So the K leaves at index ``t``, stacked, move by at most ``sqrt(2) Ltilde^2`` in Frobenius norm: the
sensitivity of one replaced round in DPUCB's single tree. The K trees share node positions, so they
are one binary tree over the stacked statistic; every node gets symmetric Gaussian noise in each arm
(isotropic, std ``sqrt(2) sigma`` in Frobenius geometry), a leaf lies in ``depth = bit_length(T)``
nodes, and each node is a Gaussian mechanism with noise multiplier
``sqrt(2) sigma / (sqrt(2) Ltilde^2) = sigma / Ltilde^2``: dp_accounting's
``SingleEpochTreeAggregationDpEvent(sigma / Ltilde^2, T)``, one stream (the same RDP as two trees each
moved by ``Ltilde^2``, the switched case). Hence the calibrations of DPUCB apply unchanged:
``"paper"`` (Shariff-Sheffet's sigma_noise) and ``"accountant"``
(:func:`dpbandit.privacy.accounting.tree_gaussian_sigma` at ``(epsilon, delta, T, Ltilde^2)``).

Noise drawn. Only the lower triangle of ``V_k``'s block and ``u_k`` are released; the ``y^2`` entry
and the mirrored triangle are never formed. Their noise has the law of those entries of
``(Z + Z^T)/sqrt 2`` (diagonal std ``sqrt(2) sigma``, the rest ``sigma``, independent), so the release is
a post-processing of the full mechanism: ``P = d(d+3)/2`` normals per node instead of ``(d+1)^2``.

State (memory O(K d^2 log T)): the exact sums ``exact (K, P)`` (lower triangle row by row, then
``sum r x``), the running noise sums per level ``noise_sums (depth, K, P)`` (the cumulative binary
mechanism of :class:`dpbandit.privacy.tree.TreeAggregator`: node of level ``ctz(t)`` = running sum at
the next set bit + fresh noise; same draws and law, the prefix agrees with the node-by-node sum to
rounding) and the factors ``factor (K, d, d)``. A round draws ``K P`` normals and factors K ``d x d``
matrices (LAPACK ``dpotrf``), instead of ``(dK+1)^2`` normals and one ``dK x dK`` factorisation.

Fast path: :mod:`dpbandit.agents.kernels.dpucb` plays blocks with the same LAPACK/BLAS routines on the
same arrays (bit-identical state and actions, ties broken in Python).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import blas, lapack

from dpbandit.agents import size
from dpbandit.agents.dpucb import ShariffSheffetUCB
from dpbandit.agents.linear import play_loop, shared_block
from dpbandit.privacy.tree import running_levels

__all__ = ["DisjointDPUCB"]


class DisjointDPUCB(ShariffSheffetUCB):
    """DP-UCB on a shared context with one Gaussian tree and one ridge model per arm (module docstring).

    Consumes the shared context ``x_t`` of shape ``(dim,)``. Arguments: those of
    :class:`~dpbandit.agents.dpucb.ShariffSheffetUCB` with ``dim = d`` (so ``feature_bound``
    defaults to ``sqrt(d)``).

    Example:
        >>> import numpy as np
        >>> agent = DisjointDPUCB(3, 4, rng=np.random.default_rng(0), horizon=100, calibration="accountant")
        >>> agent.update(np.full(4, 0.5), agent.act(np.full(4, 0.5)), 0.2)
        >>> round(agent.privacy.epsilon, 3), agent.factor.shape
        (1.0, (3, 4, 4))
    """

    mechanism = "DP-UCB, disjoint model: K Gaussian trees on [x;y][x;y]^T, every arm an input every round"
    relation = "JDP (billboard lemma; one user changes the leaves of <= 2 arms at one index)"

    def footprint(self) -> size.Footprint:
        """Size of a run (before the trees are allocated): ``8 K (P (bit_length(T) + 1) + d^2 + 2d)`` bytes,
        ``P = d (d + 3) / 2`` (docs/performance.md); work per round: every arm's tree step ``P``,
        factorisation ``d^3 / 3`` and score ``d^2``."""
        K, d = self.n_arms, self.dim
        P, depth = d * (d + 3) // 2, (self.horizon or 1).bit_length()
        state = size.FLOAT * K * (P * (depth + 1) + d * d + 2 * d)
        return size.Footprint(state, K * (P + d**3 / 3 + d * d), d)

    def _start_trees(self, tree_rng: np.random.Generator) -> None:
        K, d = self.n_arms, self.dim
        self.tree_rng = tree_rng
        self._rows, self._cols = np.tril_indices(d)  # packed order: lower triangle row by row
        self._tri = self._rows.size
        size = self._tri + d  # P = d(d+3)/2
        self.scale = np.full(size, self.sigma_noise)
        self.scale[np.flatnonzero(self._rows == self._cols)] *= math.sqrt(2.0)
        self.exact = np.zeros((K, size))
        self.noise_sums = np.zeros((self.tree_depth if self.noise else 0, K, size))
        self.factor = np.zeros((K, d, d))
        self._refactor(self.exact)

    # -- statistics ------------------------------------------------------------------------------
    def noisy_sums(self) -> np.ndarray:
        """The released noisy prefix sums ``(K, P)``: exact sums plus the tree noise of round ``t``."""
        if not self.noise or self.t == 0:
            return self.exact.copy()
        return self.exact + self.noise_sums[running_levels(self.t)[0]]

    @property
    def gram(self) -> np.ndarray:
        """``V_k = M_k[:d, :d] + 2 Upsilon I`` of every arm, ``(K, d, d)`` (symmetric, formed on demand)."""
        sums = self.noisy_sums()
        V = np.zeros_like(self.factor)
        V[:, self._rows, self._cols] = sums[:, : self._tri]
        V[:, self._cols, self._rows] = sums[:, : self._tri]
        V[:, np.arange(self.dim), np.arange(self.dim)] += 2.0 * self.upsilon
        return V

    def _refactor(self, sums: np.ndarray, t: int = 0) -> None:
        """Every arm: ``V_k`` from ``sums`` (round ``t``) into the lower triangle of ``factor[k]``,
        dpotrf in place, theta_k."""
        rows, cols = self._rows, self._cols
        lower = sums[:, : self._tri].copy()
        lower[:, rows == cols] += 2.0 * self.upsilon
        self.factor[:, rows, cols] = lower
        self.u[:] = sums[:, self._tri :]
        for k in range(self.n_arms):
            upper = self.factor[k].T  # Fortran view: LAPACK's upper triangle is our lower one
            _, info = lapack.dpotrf(upper, lower=0, clean=0, overwrite_a=1)
            if info != 0:
                raise self._accuracy_error(t, arm=k)
            w = blas.dtrsv(upper, self.u[k], lower=0, trans=1)
            self.theta_hat[k] = blas.dtrsv(upper, w, lower=0, trans=0, overwrite_x=1)

    def _mean_and_variance(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mean, variance = np.empty(self.n_arms), np.empty(self.n_arms)
        for k, x in enumerate(features):
            w = blas.dtrsv(self.factor[k].T, x, lower=0, trans=1)
            mean[k], variance[k] = blas.ddot(x, self.theta_hat[k]), blas.ddot(w, w)
        return mean, variance

    def _record(self, model: int, feature: np.ndarray, reward: float) -> None:
        """Add ``[x; y][x; y]^T`` to the pulled arm's tree and zero to the others; one tree step for all."""
        reward = self._bounded_reward(feature, reward)
        self.exact[model, : self._tri] += feature[self._rows] * feature[self._cols]
        self.exact[model, self._tri :] += reward * feature
        if not self.noise:
            self._refactor(self.exact, self.t + 1)
            return
        level, above = running_levels(self.t + 1)
        node = self.noise_sums[level]
        noise = self.tree_rng.standard_normal(node.shape)
        noise *= self.scale
        if above is None:
            node[:] = noise
        else:
            np.add(self.noise_sums[above], noise, out=node)
        self._refactor(self.exact + node, self.t + 1)

    # -- fast path -------------------------------------------------------------------------------
    def play_block(
        self, observations: np.ndarray, rewards: np.ndarray, *, compiled: bool = True
    ) -> np.ndarray:
        """Play rounds: contexts ``(m, d)``, every arm's reward ``(m, K)`` -> actions ``(m,)``.

        Equivalent to ``act`` then ``update`` with ``rewards[s, action]`` round by round (the numpy
        path, ``compiled=False``); the compiled path (:mod:`dpbandit.agents.kernels.dpucb`) draws the
        same noise, calls the same LAPACK/BLAS routines and breaks ties with the same generator.
        """
        X, R = shared_block(self, observations, rewards)
        if not compiled or type(self) is not DisjointDPUCB:
            return play_loop(self, X, R)
        if X.size and np.max(np.linalg.norm(X, axis=1)) > self.feature_bound * (1.0 + 1e-12):
            raise ValueError(f"Expected ||x||_2 <= feature_bound={self.feature_bound:.6g}.")
        from dpbandit.agents import kernels
        from dpbandit.agents.kernels.dpucb import play

        widths = np.array([self._width_at(self.t + s) for s in range(X.shape[0])])
        state = np.array([self.t, self.clipped_rewards], dtype=np.int64)
        actions = np.empty(X.shape[0], dtype=np.int64)
        ties = np.empty(self.n_arms, dtype=np.int64)
        start, chosen = 0, -1
        while start < X.shape[0]:
            status, start, n = play(X, R, actions, start, chosen, widths, state, self.exact, self.noise_sums,
                                    self.factor, self.u, self.theta_hat, self.scale, 2.0 * self.upsilon,
                                    self.reward_bound, self.noise, self.tree_rng, ties)
            self.t, self.clipped_rewards = int(state[0]), int(state[1])
            chosen = -1
            if status == kernels.TIE:
                chosen = self._break_tie(ties[:n].copy())
            elif status == kernels.NOT_POSITIVE_DEFINITE:
                raise self._accuracy_error(self.t, arm=n)
        return actions
