"""Replica of the authors' DP-HDB code, a NON-PRIVATE reference (registry name ``dphdb-authors-code``).

What it is: the bandit of liangzp/DP-Streaming-SCO at commit 615a971 (``bandit_algo.py`` class
``OFW_peq1``, driven by ``env.py`` ``bandits_env`` and ``main.py``), re-implemented on dpbandit's
agent contract so that it plays the same environments, seeds and harness as the faithful
:class:`dpbandit.agents.dphdb.DPHDB`. It exists to show where the published Figure 5.1 number
(DP-HDB ~62 at T = 10^4, epsilon = 1) comes from; it is **not differentially private** and must never
appear in a table without the label "replica of the authors' code — not private".

Deviations from Algorithm 3 / Algorithm 2 of 004 that it reproduces (file:line of the authors' code
at 615a971; each one is also a deviation from :class:`~dpbandit.agents.dphdb.DPHDB`):

=====  ==================================================================  ===========================
 #     the authors' code                                                    Algorithm 2 / 3 of 004
=====  ==================================================================  ===========================
 1     Laplace scale ``4 sqrt(log T log(1/delta)) / (eps sqrt(t+1))``       line 8: ``4 D (beta D + L)
       (bandit_algo.py:95): no ``D (beta D + L)`` factor                    sqrt(log n log(1/delta)) /
                                                                            (eps sqrt t)``
 2     noise added to the d gradient coordinates, ``argmax_j |d_j + n_j|``  report-noisy-min over the 2d
       (bandit_algo.py:96)                                                  vertices, one draw each
 3     the vertex sign is ``-sign(d_j)`` of the noise-free ``d_j``          the vertex (index and sign)
       (bandit_algo.py:97): the sign is released without privacy           comes from the noisy argmin
 4     one gradient estimate ``d_t`` shared by all arms (``self.dt``,       one DP-POFW (own ``d_t``)
       bandit_algo.py:77, 94), updated with the pulled arm's gradients      per arm
 5     only the pulled arm updates (bandit_algo.py:98-99); no synthetic     line 16-17: every other arm
       ``(0, zeta(0))`` items                                               steps on ``(0, zeta(0))``
 6     step size and ``rho`` from the global round ``t``: ``1/(t+1)``       each arm's own step count
       (bandit_algo.py:87-88)                                               (notes Section 6.6)
 7     warm-up round-robin ``a_t = t mod K`` for rounds ``t = 0..K t0``     blocks of ``t0`` rounds per
       (0-based, ``K t0 + 1`` rounds, bandit_algo.py:108-109); the frozen   arm (lines 3-10); frozen
       estimators are taken at ``t = K t0 + 1`` (bandit_algo.py:106-107)    after ``K t0`` rounds
 8     pre-selection compares the *current* estimate ``x^T theta_{t,i}``    line 13: frozen estimates
       with ``max_j x^T theta_{t0,j} - h_sub/2`` (bandit_algo.py:112-118)   on both sides
 9     ties and an empty pre-selected set go to the lowest index            (unspecified)
       (``np.argmax``, bandit_algo.py:119)
 10    loss ``(theta^T x - r)^2`` with gradient ``2 (theta^T x - r) x``     (not specified; DPHDB uses
       (utils.py:59-60), projected onto the l_inf ball of radius           the GLM NLL ``(1/2)(...)^2``
       ``L0 = 1`` (utils.py:43-56, main.py:28, 89)                         and clip_norm)
 11    l1 radius ``lr_scale`` (bandit_algo.py:81) = 1 (main.py:15, 85)      Section 5.3: radius 2
=====  ==================================================================  ===========================

Details: ``t0 = int(log(dT) log T / eps^2)`` (bandit_algo.py:83, :func:`default_warmup`),
``h_sub = 1`` (bandit_algo.py:84), ``delta = 1/T`` (main.py:35). The l_inf projection of utils.py
is a numerical SLSQP solve started at the radial rescaling ``g min(1, L0/||g||_inf)``, which already
attains the minimal l_inf distance ``||g||_inf - L0``; the replica uses that radial rescaling
(:class:`~dpbandit.optim.losses.ClippedLoss`). The environment is dpbandit's (Section 5.4's
``dpbandit/HDBSection54-v0``: K = 2 as the paper states, 5 *distinct* support coordinates), not
``env.py``'s (K = 5 by default, support drawn with replacement).

The published number needs one more deviation, in the authors' *environment*: env.py:119 divides
each DP-HDB context by ``np.linalg.norm(X, np.inf)`` of the ``(1, d)`` matrix ``X``, which is the
matrix infinity norm, i.e. the row's **l1** norm. The contexts then have ``||x||_1 = 1`` (about 17
times smaller than ``||x||_inf = 1`` at d = 50) and every regret shrinks accordingly: random play
scores ~60 at T = 10^4. Their DP-UCB branch (env.py:136) normalises rows in l_inf. Reproduce the
DP-HDB side with the environment keyword ``context_norm=1`` (``sims/fig5_1.py`` does).

Why it is not private: (3) alone makes every step's output a deterministic function of the sign
of a data-dependent coordinate, so two neighbouring streams whose ``d_j`` differ in sign give
disjoint output distributions (epsilon = infinity). (1) and (4)-(6) would, in addition, break the
calibration of Theorems 3.4 and 4.1 even with a noisy sign. Hence :attr:`privacy` reports
``epsilon = inf`` next to the nominal epsilon the code was run with.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpbandit import _validate
from dpbandit.agents.base import Agent
from dpbandit.agents.dphdb import default_warmup
from dpbandit.agents.linear import play_loop
from dpbandit.optim.losses import ClippedLoss, SquaredLoss
from dpbandit.privacy.guarantee import PrivacyGuarantee
from dpbandit.privacy.noise import laplace

__all__ = ["AUTHORS_COMMIT", "DPHDBAuthorsCode"]

#: The commit of liangzp/DP-Streaming-SCO this module replicates.
AUTHORS_COMMIT = "615a971"


class DPHDBAuthorsCode(Agent):
    """The authors' DP-HDB (``OFW_peq1`` at 615a971) on a shared context x_t of shape (dim,); NOT private.

    Args:
        n_arms: K >= 2.
        dim: context dimension d.
        rng: the agent's generator (all Laplace draws).
        horizon: T (required: the noise scale and t0 use it).
        epsilon, delta: the nominal budget the code is run with (delta defaults to 1/T, main.py:35);
            it is **not** a guarantee (see :attr:`privacy`).
        warmup: t0 (default ``int(log(dT) log T / eps^2)``, bandit_algo.py:83).
        h_sub: pre-selection gap (bandit_algo.py:84: 1).
        radius: l1 radius (bandit_algo.py:81: ``lr_scale``, 1 by default in main.py).
        clip_norm: ``L0``, the l_inf bound of the projected gradients (main.py: 1).
    """

    observation_model = "shared"

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        horizon: int | None = None,
        epsilon: float = 1.0,
        delta: float | None = None,
        warmup: int | None = None,
        h_sub: float = 1.0,
        radius: float = 1.0,
        clip_norm: float = 1.0,
    ) -> None:
        super().__init__(n_arms, dim, rng=rng, horizon=horizon)
        if self.horizon is None or self.horizon < 2:
            raise ValueError("DPHDBAuthorsCode needs horizon=T >= 2 (the noise scale uses log T).")
        self.epsilon = _validate.positive(epsilon=epsilon)
        self.delta = _validate.probability(delta=1.0 / self.horizon if delta is None else delta)
        default = default_warmup(dim, self.horizon, self.epsilon)
        self.warmup = _validate.integer(warmup=default if warmup is None else warmup, minimum=1)
        self.h_sub = _validate.positive(h_sub=h_sub)
        self.radius = _validate.positive(radius=radius)
        self.loss = ClippedLoss(SquaredLoss(), clip_norm=clip_norm, p=1.0)
        log_term = math.sqrt(math.log(self.horizon) * math.log(1.0 / self.delta))
        self.scale_numerator = 4.0 * log_term / self.epsilon
        self.round = 0  # 0-based round index t of env.py
        self.theta = np.zeros((self.n_arms, self.dim))
        self.theta_old = np.zeros((self.n_arms, self.dim))
        self.direction = np.zeros(self.dim)  # the one d_t shared by every arm (deviation 4)
        self.frozen_theta: np.ndarray | None = None

    @property
    def warmup_rounds(self) -> int:
        """Round-robin rounds ``t = 0..K t0`` (deviation 7): ``K t0 + 1``."""
        return self.n_arms * self.warmup + 1

    def noise_scale(self, step: int) -> float:
        """Laplace scale at the 1-based round ``step``: 4 sqrt(log T log(1/delta)) / (eps sqrt(step+1))."""
        return self.scale_numerator / math.sqrt(step + 1.0)

    def perturbed_direction(self, step: int) -> np.ndarray:
        """``d_t + n_t`` with ``d`` i.i.d. ``Lap(noise_scale(step))`` draws (bandit_algo.py:96)."""
        return self.direction + laplace(self.rng, self.noise_scale(step), self.dim)

    def _context(self, observation: np.ndarray) -> np.ndarray:
        return _validate.finite_array(observation=observation, shape=(self.dim,))

    def act(self, observation: np.ndarray) -> int:
        """Round-robin during warm-up; then greedy among arms whose current estimate passes (dev. 7-9)."""
        x = self._context(observation)
        if self.round < self.warmup_rounds:
            return self.round % self.n_arms
        current = self.theta @ x
        passes = current > np.max(self.frozen_theta @ x) - self.h_sub / 2.0
        return int(np.argmax(np.where(passes, current, -np.inf)))

    def update(self, observation: np.ndarray, action: int, reward: float) -> None:
        """One step of the shared recursion on the pulled arm only (deviations 1-6)."""
        x = self._context(observation)
        action = self.check_action(action)
        reward = _validate.finite(reward=reward)
        step = self.round + 1
        rho = 1.0 / (step + 1.0)  # global round (deviation 6)
        thetas = np.stack([self.theta[action], self.theta_old[action]])
        grad_now, grad_old = self.loss.grads_at(thetas, x, reward)
        self.direction = grad_now + (1.0 - rho) * (self.direction - grad_old)
        j = int(np.argmax(np.abs(self.perturbed_direction(step))))
        vertex = np.zeros(self.dim)
        vertex[j] = -np.sign(self.direction[j]) * self.radius  # noise-free sign (deviation 3)
        self.theta_old[action] = self.theta[action]
        self.theta[action] = self.theta[action] + rho * (vertex - self.theta[action])
        self.round = step
        if self.round == self.warmup_rounds:
            self.frozen_theta = self.theta.copy()

    def play_block(self, observations: np.ndarray, rewards: np.ndarray) -> np.ndarray:
        """``act`` then ``update`` round by round (the harness's block path; no compiled kernel)."""
        return play_loop(self, np.asarray(observations, dtype=float), np.asarray(rewards, dtype=float))

    @property
    def privacy(self) -> PrivacyGuarantee:
        """``epsilon = inf`` next to the nominal epsilon: this replica is not differentially private."""
        return PrivacyGuarantee.not_private(
            f"DP-HDB as in the authors' code (liangzp/DP-Streaming-SCO@{AUTHORS_COMMIT}, OFW_peq1)",
            self.epsilon,
            self.delta,
            calibration="Lap(4 sqrt(log T log(1/delta)) / (eps sqrt(t+1))) on the d coordinates "
            "(bandit_algo.py:95-96), without Algorithm 2 line 8's factor D(beta D + L)",
            reason="the sign of the selected coordinate d_j is released without noise (bandit_algo.py:97); "
            "one d_t is shared across arms, there are no synthetic updates and the step size uses the "
            "global t, so Theorem 4.1's calibration does not apply either.",
        )

    @property
    def params(self) -> dict[str, Any]:
        """Identifying hyper-parameters (the nominal epsilon is not a guarantee)."""
        return {
            **super().params,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "warmup": self.warmup,
            "h_sub": self.h_sub,
            "radius": self.radius,
            "clip_norm": self.loss.clip_norm,
            "authors_commit": AUTHORS_COMMIT,
            "private": False,
        }
