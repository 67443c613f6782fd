"""DP-HDB: private high-dimensional GLM bandit (Algorithm 3 of 004), one DP-POFW per arm.

References:
    004_290fd04a1e656565.txt (Han et al.), Algorithm 3, Theorem 4.1 (privacy, proof B.1),
    Lemma B.1 / Section B.2 (t0, h_sub), Section 5.4; notes/ofw_hdb.md Sections 1.6, 2, 6.5-6.8.

Rounds ``1..K t0`` force-sample the arms in blocks of ``t0`` (arm 0 first); only the pulled arm's
DP-POFW instance steps. After warm-up the iterates ``theta_{t0,i}`` are frozen for the
pre-selection ``K_t = {i : zeta(x^T theta_{t0,i}) > max_j zeta(x^T theta_{t0,j}) - h_sub/2}``
(line 13), and the greedy arm among ``K_t`` maximises ``zeta(x^T theta_{t,i})`` with the current
iterates (line 14, which prints theta_{t,i} for theta_{t,a}). Every post-warm-up round steps
**every** arm (line 17): the pulled arm on ``(x_t, r_t)``, the others on the synthetic item
``(0, zeta(0))`` (line 16), whose gradient is zero, so their recursion only shrinks but they draw
fresh selection noise and advance their own step counter.

Step index (notes Section 6.6): each arm keeps its own counter s_i (one increment per item, real
or synthetic), used for rho = eta = 1/(s_i+1) and the Laplace scale; the global-t reading of
line 17 is not implemented.

Per-arm loss: the canonical GLM negative log-likelihood f = m(x^T theta) - r x^T theta with
m' = zeta, so grad f = (zeta(x^T theta) - r) x (implied by Lemma B.2; for the identity link this
is (1/2)(x^T theta - r)^2). Its gradient is clipped explicitly to ||g||_inf <= ``clip_norm`` (the
scalar zeta(z) - r is clipped at clip_norm/||x||_inf, which is 1-Lipschitz, so the smoothness
beta = sup_{|z| <= M r} zeta'(z) M^2 survives; L = clip_norm).

Privacy (notes Section 6.7): a user's round changes one item in at most **two** arms' streams
(the arm pulled under D and the one pulled under D'), at data-independent positions thanks to the
synthetic updates. ``calibration="joint"`` (default) calibrates every arm's Laplace scale so that
the accountant's epsilon of both streams together is the requested epsilon (joint DP of the
action sequence via the billboard lemma); ``"paper"`` uses Algorithm 2 line 8 at (epsilon,
delta) per stream, as Theorem 4.1 does, and the report shows its real two-stream epsilon.

Variants that keep Algorithm 3's structure (issue 13; reported separately from the faithful
default, which they leave bit-identical): ``selection="exponential"`` draws every arm's vertex from
the exponential mechanism with bounded-range zCDP accounting (:mod:`dpbandit.optim.pofw`; Gumbel-max
on both paths); ``preselection=False`` keeps every arm in K_t (line 13 switched off: at small epsilon
the frozen forced-sample estimators are mostly noise and exclude good arms at random). Both are
post-processing of the same private iterates, so the guarantee's form is unchanged.

How the Laplace selection is drawn (``vertex_sampler``; the law of line 9, hence the guarantee, is the same
either way, only the random numbers differ): ``"per-vertex"`` draws one ``Lap(b_t)`` per vertex, ``2 d K``
per round, which is most of the agent's time at large d (5x random play's time at d = 5000, K = 10);
``"topdown"`` draws the noise's largest order statistics first and stops once the winner is settled
(:mod:`dpbandit.privacy.topdown`), 2.5x (d = 50) to 7x (d = 5000) faster per round
(``python benchmarks/dphdb_sampler.py``). ``"auto"`` (default) is ``"topdown"`` from
``d = TOPDOWN_MIN_DIM = 1000`` [Fill]: every published page of this repository at a smaller d (Figure 5.1's
d = 50, the fidelity and epsilon pages) keeps its numbers bit for bit; ``vertex_sampler="topdown"`` gives the
speed at any d.

Defaults and their sources: ``warmup`` t0 = floor(log(dT) log(T) / epsilon^2) [C] (B.2 only
gives O(log(dT/alpha) log T / epsilon^2)); ``h_sub = 1`` [C]; ``radius = 2`` (004 Section 5.3's
radius; [C] uses 1-5); ``clip_norm = 1`` [C]; ``feature_bound = 1`` (||x||_inf = 1 in Section 5.4's
environment, [C]); ``delta = 1/T`` [C].
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from dpbandit import _validate
from dpbandit.agents.base import Agent
from dpbandit.agents.linear import play_loop, shared_block
from dpbandit.optim.pofw import SELECTIONS, VERTEX_SAMPLERS, POFWBank, POFWPrivacy, Selection, line8_scale
from dpbandit.privacy.accounting import zcdp_to_epsilon
from dpbandit.privacy.budget import check_delta, require_reportable_epsilon
from dpbandit.envs.links import Link, get_link

__all__ = ["DPHDB", "TOPDOWN_MIN_DIM", "default_warmup", "vertex_sampler_for"]

if TYPE_CHECKING:  # pragma: no cover
    from dpbandit.privacy.guarantee import PrivacyGuarantee

HDBCalibration = Literal["joint", "paper"]
_CALIBRATION_OF = {"joint": "accountant", "paper": "paper"}

#: ``vertex_sampler="auto"`` draws the Laplace selection top down from this dimension on (module docstring).
TOPDOWN_MIN_DIM = 1000


def vertex_sampler_for(vertex_sampler: str, dim: int, selection: str) -> str:
    """The sampler ``vertex_sampler`` resolves to: ``"auto"`` is ``"topdown"`` for the Laplace selection at
    ``dim >= TOPDOWN_MIN_DIM``, else ``"per-vertex"``; an explicit choice is checked against ``selection``."""
    choice = _validate.one_of(("auto", *VERTEX_SAMPLERS), vertex_sampler=vertex_sampler)
    if choice == "auto":
        return "topdown" if selection == "laplace" and dim >= TOPDOWN_MIN_DIM else "per-vertex"
    if choice == "topdown" and selection != "laplace":
        raise ValueError(f"vertex_sampler='topdown' draws Laplace noise; selection={selection!r} needs "
                         "vertex_sampler='per-vertex' or 'auto'.")
    return choice


def default_warmup(dim: int, horizon: int, epsilon: float) -> int:
    """Forced-sampling length t0 = floor(log(d T) log(T) / epsilon^2), at least 1 ([C]; 120 for Sec 5.4)."""
    return max(1, int(math.log(dim * horizon) * math.log(horizon) / epsilon**2))


def warn_warmup_covers_horizon(
    n_arms: int, dim: int, horizon: int, epsilon: float, warmup: int, default: bool
) -> None:
    """Warn that forced sampling (K t0 rounds) fills the whole horizon: the agent plays arm 0, 1, ... in
    blocks of t0 and never reaches the greedy phase (Algorithm 3 as written; it runs, its guarantee holds).

    With the default t0 = log(dT) log(T) / epsilon^2 the greedy phase starts before T only for epsilon above
    ``sqrt(K log(dT) log(T) / T)``; the message names that bound.
    """
    if default:
        bound = math.sqrt(n_arms * math.log(dim * horizon) * math.log(horizon) / horizon)
        cause = (
            f"the default t0 = floor(log(dT) log(T) / epsilon^2) = {warmup:.4g} at epsilon={epsilon:g}; the "
            f"greedy phase starts before T={horizon} only for epsilon > {bound:.3g}, or pass a smaller warmup"
        )
    else:
        cause = f"warmup={warmup} rounds per arm; pass warmup < {math.ceil(horizon / n_arms)}"
    warnings.warn(
        f"DPHDB: forced sampling takes K t0 = {n_arms} x {warmup:.4g} >= horizon={horizon} rounds, so the "
        f"agent plays arms 0, 1, ... in blocks of t0 and never learns ({cause}).",
        UserWarning,
        stacklevel=3,
    )


def link_smoothness(link: Link, bound: float) -> float:
    """sup of zeta' over |z| <= ``bound`` (evaluated on a 2001-point grid including 0 and the ends)."""
    z = np.linspace(-bound, bound, 2001)
    return float(np.max(np.broadcast_to(link.derivative(z), z.shape)))


class DPHDB(Agent):
    """Algorithm 3 (DP-HDB) for the disjoint GLM bandit on a shared context x_t of shape (dim,).

    Args:
        n_arms: K >= 2.
        dim: context dimension d.
        rng: the agent's generator (split into selection-noise and tie-breaking streams).
        horizon: T (required: calibrates the noise and the default t0).
        epsilon, delta: requested guarantee (delta defaults to 1/T, the authors' [C]; a warning above 1/T). A
            budget below what the accountant resolves at (T, delta) is an error naming epsilon (joint
            calibration).
        link: inverse link zeta (name in ``dpbandit.envs.links.LINKS`` or a ``Link``).
        warmup: t0 rounds per arm (default :func:`default_warmup`); a warning names epsilon (or warmup) when
            the K t0 forced rounds fill the horizon, so the agent would never reach its greedy phase.
        h_sub: pre-selection gap (Assumption 4.1; threshold h_sub/2 in line 13), > 0.
        radius: l1-ball radius r of every arm's parameter (D = 2r).
        clip_norm: bound L on ||grad f||_inf (explicit clipping).
        feature_bound: M >= ||x||_inf; larger contexts are rejected.
        calibration: ``"joint"`` (default) or ``"paper"`` (module docstring).
        selection: ``"laplace"`` (default, Algorithm 2 line 9) or ``"exponential"`` (module docstring).
        preselection: ``True`` (default, line 13) or ``False`` (every arm stays in K_t).
        noise: ``False`` = debugging switch (exact LMO, ``privacy`` is ``None``).
        vertex_sampler: ``"auto"`` (default), ``"per-vertex"`` or ``"topdown"``: how the Laplace selection
            draws its noise (module docstring; the same law and guarantee, different random numbers).
    """

    observation_model = "shared"
    trust_model = "central"

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        horizon: int | None = None,
        epsilon: float = 1.0,
        delta: float | None = None,
        link: str | Link = "identity",
        warmup: int | None = None,
        h_sub: float = 1.0,
        radius: float = 2.0,
        clip_norm: float = 1.0,
        feature_bound: float = 1.0,
        calibration: HDBCalibration = "joint",
        selection: Selection = "laplace",
        preselection: bool = True,
        noise: bool = True,
        vertex_sampler: str = "auto",
    ) -> None:
        super().__init__(n_arms, dim, rng=rng, horizon=horizon)
        if self.horizon is None:
            raise ValueError("DPHDB needs horizon=T (it calibrates the noise and t0).")
        self.epsilon = _validate.positive(epsilon=epsilon)
        self.delta = check_delta(1.0 / self.horizon if delta is None else delta, self.horizon, owner="DPHDB")
        self.link = get_link(link)
        default = default_warmup(dim, self.horizon, self.epsilon)
        self.warmup = _validate.integer(warmup=default if warmup is None else warmup, minimum=1)
        if self.n_arms * self.warmup >= self.horizon:
            warn_warmup_covers_horizon(self.n_arms, self.dim, self.horizon, self.epsilon, self.warmup,
                                       warmup is None)
        self.h_sub = _validate.positive(h_sub=h_sub)
        self.radius = _validate.positive(radius=radius)
        self.clip_norm = _validate.positive(clip_norm=clip_norm)
        self.feature_bound = _validate.positive(feature_bound=feature_bound)
        self.calibration = _validate.one_of(_CALIBRATION_OF, calibration=calibration)
        self.selection = _validate.one_of(SELECTIONS, selection=selection)
        if not isinstance(preselection, bool):
            raise ValueError(f"Expected preselection={preselection!r} to be True or False.")
        self.preselection = preselection
        self.noise = bool(noise)
        self.vertex_sampler = vertex_sampler_for(vertex_sampler, self.dim, self.selection)
        self.smoothness = link_smoothness(self.link, self.feature_bound * self.radius) * self.feature_bound**2
        forced = self.n_arms * self.warmup
        steps_per_arm = min(self.horizon, self.warmup + max(0, self.horizon - forced))
        noise_rng, self._tie_rng = self.rng.spawn(2)

        def calibration(epsilon: float) -> POFWPrivacy:
            return POFWPrivacy(
                epsilon=epsilon,
                delta=self.delta,
                horizon=max(self.horizon, 2),
                n_steps=steps_per_arm,
                streams=2,
                calibration=_CALIBRATION_OF[self.calibration],
                selection=self.selection,
            )

        cal = calibration(self.epsilon) if self.noise else None
        if cal is not None and self.calibration == "joint":  # accountant-calibrated: 0 = eps too small
            require_reportable_epsilon(
                "DPHDB", self.epsilon, self.delta, lambda e: zcdp_to_epsilon(calibration(e).rho, self.delta)
            )
        self.bank = POFWBank(
            self.n_arms,
            self.dim,
            radius=self.radius,
            smoothness=self.smoothness,
            lipschitz=self.clip_norm,
            rng=noise_rng,
            privacy=cal,
            noise=self.noise,
            sampler=self.vertex_sampler,
        )
        self.round = 0
        self.frozen_theta: np.ndarray | None = None  # theta_{t0, i}, set when warm-up ends
        self._zeta0 = float(np.asarray(self.link.mean(np.zeros(1)))[0])

    # -- helpers -------------------------------------------------------------------------------
    def _context(self, observation: np.ndarray) -> np.ndarray:
        x = _validate.finite_array(observation=observation, shape=(self.dim,))
        if np.max(np.abs(x)) > self.feature_bound * (1.0 + 1e-12):
            raise ValueError(f"Expected ||observation||_inf <= feature_bound={self.feature_bound}.")
        return x

    def _gradients(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Row-wise clipped GLM NLL gradients ``clip(zeta(x_k^T theta_k) - y_k) x_k``, shape (k, d)."""
        residual = self.link.mean(np.einsum("kd,kd->k", X, theta)) - y
        x_norm = np.max(np.abs(X), axis=1)
        limit = self.clip_norm / np.where(x_norm > 0, x_norm, 1.0)
        return np.clip(residual, -limit, limit)[:, None] * X

    def _step(self, X: np.ndarray, y: np.ndarray, arms: np.ndarray | None) -> None:
        rows = slice(None) if arms is None else arms
        grad_now = self._gradients(self.bank.theta[rows], X, y)
        grad_prev = self._gradients(self.bank.theta_prev[rows], X, y)
        self.bank.step(grad_now, grad_prev, arms)

    @property
    def _h_sub_used(self) -> float:
        """The pre-selection gap of line 13; infinite (every arm pre-selected) with ``preselection=False``."""
        return self.h_sub if self.preselection else math.inf

    @property
    def in_warmup(self) -> bool:
        """Whether the next round is a forced-sampling round (lines 3-10)."""
        return self.round < self.n_arms * self.warmup

    @property
    def step_counts(self) -> np.ndarray:
        """Items (real or synthetic) each arm's DP-POFW instance has consumed."""
        return self.bank.t.copy()

    @property
    def theta(self) -> np.ndarray:
        """Current all-sample iterates theta_{t,i}, shape (K, d)."""
        return self.bank.theta.copy()

    # -- contract ------------------------------------------------------------------------------
    def act(self, observation: np.ndarray) -> int:
        """Forced arm during warm-up; afterwards the greedy arm among the pre-selected ones."""
        x = self._context(observation)
        if self.in_warmup:
            return self.round // self.warmup
        mean = self.link.mean
        forced = mean(self.frozen_theta @ x)
        preselected = forced > forced.max() - self._h_sub_used / 2.0
        scores = np.where(preselected, mean(self.bank.theta @ x), -np.inf)
        best = np.flatnonzero(scores == scores.max())
        return int(best[0] if best.size == 1 else self._tie_rng.choice(best))

    def update(self, observation: np.ndarray, action: int, reward: float) -> None:
        """Add (x_t, r_t) to the pulled arm and (0, zeta(0)) to every other arm (after warm-up)."""
        x = self._context(observation)
        action = self.check_action(action)
        reward = _validate.finite(reward=reward)
        if self.in_warmup:
            forced = self.round // self.warmup
            if action != forced:
                raise ValueError(f"Round {self.round + 1} is forced to arm {forced}, got action={action}.")
            self._step(x[None, :], np.array([reward]), np.array([action]))
        else:
            X = np.zeros((self.n_arms, self.dim))
            X[action] = x
            y = np.full(self.n_arms, self._zeta0)
            y[action] = reward
            self._step(X, y, None)
        self.round += 1
        if self.round == self.n_arms * self.warmup:
            self.frozen_theta = self.bank.theta.copy()

    def play_block(
        self, observations: np.ndarray, rewards: np.ndarray, *, compiled: bool = True
    ) -> np.ndarray:
        """Play consecutive rounds: contexts ``(m, d)``, every arm's reward ``(m, K)`` -> actions ``(m,)``.

        Equivalent to ``act`` then ``update`` with ``rewards[s, action]`` round by round (the
        pure-numpy path, ``compiled=False``). The compiled path (:mod:`dpbandit.agents.kernels.hdb`,
        identity link with noise on, either selection; otherwise the numpy path runs) draws the same
        Laplace or Gumbel numbers and breaks ties with the same generator, so the actions are identical.
        """
        X, R = shared_block(self, observations, rewards)
        if not compiled or not self.noise or self.link.name != "identity" or type(self) is not DPHDB:
            return play_loop(self, X, R)
        if X.size and np.max(np.abs(X)) > self.feature_bound * (1.0 + 1e-12):
            raise ValueError(f"Expected ||observation||_inf <= feature_bound={self.feature_bound}.")
        from dpbandit.agents import kernels
        from dpbandit.agents.kernels.hdb import GUMBEL, PER_VERTEX, TOPDOWN, play

        bank, cal = self.bank, self.bank.privacy_calibration
        scale1 = float(line8_scale(np.ones(1), radius=bank.radius, smoothness=bank.smoothness,
                                   lipschitz=bank.lipschitz, privacy=cal)[0])
        # a t0 beyond the calibrated steps plays as n_steps + 1 (arm 0 reaches the step limit at the same
        # round either way); this keeps it an int64 when epsilon is tiny (t0 ~ 1/epsilon^2)
        warmup = min(self.warmup, cal.n_steps + 1)
        actions = np.empty(X.shape[0], dtype=np.int64)
        state = np.array([self.round], dtype=np.int64)
        ties = np.empty(self.n_arms, dtype=np.int64)
        start, chosen = 0, -1
        sampler = GUMBEL if self.selection == "exponential" else {"per-vertex": PER_VERTEX,
                                                                   "topdown": TOPDOWN}[self.vertex_sampler]
        while start < X.shape[0]:
            frozen = self.frozen_theta if self.frozen_theta is not None else bank.theta
            status, start, n = play(X, R, actions, start, chosen, state, bank.theta, bank.theta_prev,
                                    bank.direction, bank.t, frozen, bank.rng, cal.n_steps, warmup,
                                    bank.radius, scale1, self.clip_norm, self._h_sub_used, ties, sampler)
            self.round = int(state[0])
            chosen = -1
            if status == kernels.TIE:
                chosen = int(self._tie_rng.choice(ties[:n].copy()))
            elif status == kernels.WARMUP_END:
                self.frozen_theta = bank.theta.copy()
            elif status == kernels.STEP_LIMIT:
                raise RuntimeError(f"An instance would exceed its n_steps={cal.n_steps} calibrated steps.")
        return actions

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """JDP of the action sequence (billboard over all arms' iterates); ``None`` with noise off."""
        cal = self.bank.privacy_calibration
        if cal is None:
            return None
        return cal.guarantee(
            "DP-HDB (Alg 3 of 004): K DP-POFW instances with synthetic updates",
            relation="JDP (billboard lemma; one user changes <= 2 arm streams)",
            notes=f"calibration={self.calibration!r} ('joint': total over both streams = requested; "
            "'paper': Alg 2 line 8 per stream, Thm 4.1's claim).",
        )

    @property
    def params(self) -> dict[str, Any]:
        """Identifying hyper-parameters."""
        return {
            **super().params,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "link": self.link.name,
            "warmup": self.warmup,
            "h_sub": self.h_sub,
            "radius": self.radius,
            "clip_norm": self.clip_norm,
            "calibration": self.calibration,
            "selection": self.selection,
            "preselection": self.preselection,
            "noise": self.noise,
            "vertex_sampler": self.vertex_sampler,
        }
