"""Epoch-batched DP-HDB: per-arm l1-ball Frank-Wolfe with one private vertex choice per arm per step and batch.

Keeps the structure of DP-HDB (004 Algorithm 3: one l1-ball Frank-Wolfe iterate ``theta_k`` per arm, greedy play
``argmax_k zeta(x^T theta_k)``) but spends the privacy budget as the batched agents do
(:mod:`dpbandit.agents.batched`): within batch ``l`` (``n_l`` rounds, a public geometric schedule) the agent
plays greedily on the iterates fixed at the batch's start; at the batch's end it takes ``steps_per_batch``
Frank-Wolfe steps per arm on **that batch's** averaged gradient, each with one private vertex choice, and
never touches the batch's users again. Batches partition the users, so the whole run is as private as one
batch's mechanism (parallel composition; joint DP of the actions by the billboard lemma).

One batch, for arms ``k`` at their iterates ``theta_k`` (fixed during the batch) [Fill, measured in
docs/private_agents.md, DP-HDB variants]:

1. *Residual clip* ``B`` (``residual_quantile`` not ``None``): on the public grid
   ``B_j = clip_norm * 2^(-j/2)``, ``j < clip_grid``, the exponential mechanism picks ``j`` with utility
   ``u_j = -|c_j - q n_l|``, ``c_j`` the number of the batch's rounds whose residual
   ``|zeta(x~^T theta_a) - r|`` is ``<= B_j`` (a private ``q``-quantile, default the median; the lead's
   adaptive clipping to the median |reward| of :mod:`dpbandit.agents.batched.clipping`, here on the loss's
   own residual, chosen from the same batch). Without it ``B = clip_norm``.
2. *Frank-Wolfe steps* ``s = 1..steps_per_batch``: the averaged clipped GLM gradient
   ``g_k = (1/n_l) sum_{t in batch, a_t = k} clip(zeta(x~_t^T theta_k) - r_t, +-B) x~_t`` with
   ``x~ = clip(x, +-C)`` coordinate-wise, a vertex ``v_k`` of the radius-``r`` l1 ball from the exponential
   mechanism ``P(v) ~ exp(-<g_k, v> / tau)`` (Gumbel-max, :func:`dpbandit.optim.pofw.private_vertex`), and
   ``theta_k <- theta_k + eta (v_k - theta_k)``.
3. *Context clip* ``C`` for the **next** batch (``context_quantile`` not ``None``): on the grid
   ``C_j = context_clip * 2^(-j/2)`` the exponential mechanism picks ``j`` with utility
   ``-|f_j - q n_l|``, ``f_j`` the number of the batch's context coordinates with ``|x_ti| <= C_j`` divided by
   ``d`` (default ``q = 0.9``). The first batch uses ``C = context_clip``.

Sensitivity (replace-one user, i.e. one round's context and reward; conditional on everything released
before, so on the iterates and the clips):

* quantile choices: one user moves every ``c_j`` by at most 1 and every ``f_j`` by at most ``d / d = 1``, so
  both utilities have sensitivity 1 and each choice is ``eps_q``-DP and ``eps_q``-bounded-range;
* vertex choices: every summand of ``n_l g_k`` has ``||clip(.) x~||_inf <= B C``. If the user plays the same arm
  ``k`` under both datasets only ``g_k`` changes, by at most ``2 B C / n_l`` in l_inf, so each score
  ``<g_k, +-r e_j>`` moves by ``Delta <= 2 r B C / n_l`` and the exponential mechanism's privacy loss spans at
  most ``2 Delta / tau = 4 r B C / (n_l tau)``. If the played arm switches (``a_t`` depends on ``x_t``), ``g_k``
  loses a summand and ``g_k'`` gains one, each moving by at most ``B C / n_l``: two choices of loss range
  ``2 r B C / (n_l tau)`` each, together again ``4 r B C / (n_l tau)``. So each step (all K arms) is
  ``eps_s``-DP and ``eps_s``-bounded-range with the temperature ``tau = 4 r B C / (n_l eps_s)``.

Accounting of one batch (hence of the run) [O], both computed with dp_accounting, the smaller one reported:

* pure-DP composition of the quantile choices and ``steps_per_batch`` vertex steps: every eps-DP mechanism is a
  post-processing of randomized response with the same eps (Kairouz, Oh and Viswanath 2015), so the PLD of the
  composed randomized responses (:func:`dpbandit.privacy.accounting.pure_dp_event`) is valid (tight for one
  step);
* bounded-range zCDP: an eps-BR mechanism is ``eps^2/8``-zCDP (Cesar and Rogers 2021), so the batch is
  ``rho = (n_q eps_q^2 + steps_per_batch eps_s^2) / 8``-zCDP, converted by the RDP accountant (tighter for many
  steps).

Calibration: ``n_q eps_q^2 = clip_share E^2`` (``n_q`` quantile choices) and
``eps_s^2 = (1 - clip_share) E^2 / steps_per_batch`` with ``E`` the largest value whose reported epsilon is
``<= epsilon`` (bisection through the accountants).

Defaults [Fill]: ``radius = 2`` and ``clip_norm = 1`` as DP-HDB; ``context_clip = 1`` (the ``||x||_inf = 1`` of
the Section 5.4 environment); median residual clip and 0.9-quantile context clip with ``clip_share = 0.1``
over 16-point grids; 16 Frank-Wolfe steps per batch; step ``eta = 2 / (tau + 2)`` at the agent's ``tau``-th step
(the standard Frank-Wolfe step, Jaggi 2013; ``step_rule="pofw"`` uses Algorithm 2's ``1 / (tau + 1)``);
doubling batches from 32 rounds.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import dp_accounting
import numpy as np

from dpbandit import _validate
from dpbandit.agents import size
from dpbandit.agents.batched.base import BatchedAgent
from dpbandit.agents.batched.clipping import check_rewards, validate_reward_range
from dpbandit.optim.geometry import lmo
from dpbandit.optim.pofw import private_vertex
from dpbandit.privacy import accounting
from dpbandit.privacy.budget import agent_delta, require_calibratable_epsilon
from dpbandit.privacy.rnm import exponential_mechanism
from dpbandit.envs.links import Link, get_link

if TYPE_CHECKING:  # pragma: no cover
    from dpbandit.privacy.guarantee import PrivacyGuarantee

__all__ = [
    "STEP_RULES",
    "BatchSelectionPrivacy",
    "BatchedDPHDB",
    "batch_epsilons",
    "batch_events",
    "batch_split",
    "calibrated_scale",
]

STEP_RULES = ("fw", "pofw")


#: Largest epsilon :func:`calibrated_scale` brackets: its upper end ``E = 2 epsilon`` gives one choice up to
#: ``E`` (pure DP), whose randomized-response event exists up to ``accounting.MAX_PURE_EPSILON`` = 700.
MAX_EPSILON = accounting.MAX_PURE_EPSILON / 2.0
MAX_EPSILON_REASON = (
    "its calibration accounts each private choice as randomized response (dp_accounting PLD), up to twice "
    f"epsilon per choice, and e^epsilon overflows a float above {accounting.MAX_PURE_EPSILON:g}"
)


def batch_split(scale: float, steps: int, quantiles: int, clip_share: float) -> tuple[float, float]:
    """``(eps_q, eps_s)`` at scale ``E``: ``quantiles eps_q^2 = share E^2``, ``eps_s^2 = (1 - share) E^2 / steps``."""
    share = clip_share if quantiles else 0.0
    eps_q = math.sqrt(share / quantiles) * scale if quantiles else 0.0
    return eps_q, math.sqrt((1.0 - share) / steps) * scale


def batch_events(
    eps_q: float, eps_s: float, steps: int, quantiles: int
) -> tuple[dp_accounting.DpEvent, dp_accounting.DpEvent]:
    """One batch as pure-DP choices (randomized response events) and as bounded-range zCDP (module docstring)."""
    pure = [accounting.pure_dp_event(eps_s, steps)]
    if quantiles:
        pure.insert(0, accounting.pure_dp_event(eps_q, quantiles))
    rho = (quantiles * eps_q**2 + steps * eps_s**2) / 8.0
    return dp_accounting.ComposedDpEvent(pure), accounting.zcdp_event(rho)


def batch_epsilons(eps_q: float, eps_s: float, steps: int, quantiles: int, delta: float) -> tuple[float, float]:
    """Epsilon at ``delta`` by the two accountings: (PLD of the pure-DP choices, RDP of the BR zCDP)."""
    pure, zcdp = batch_events(eps_q, eps_s, steps, quantiles)
    return accounting.epsilon_for(pure, delta, "pld"), accounting.epsilon_for(zcdp, delta, "rdp")


@functools.lru_cache(maxsize=128)
def calibrated_scale(epsilon: float, delta: float, steps: int, quantiles: int, clip_share: float) -> float:
    """Largest ``E`` (to 1e-9 relative) whose reported epsilon, the smaller accounting, is ``<= epsilon``.

    Bisection in ``log E`` keeping the lower end feasible, so the calibrated noise never overshoots the
    budget (the PLD epsilon is a step function of ``E`` at its discretisation); memoised for sweeps.
    """

    def within(log_e: float) -> bool:
        eps_q, eps_s = batch_split(math.exp(log_e), steps, quantiles, clip_share)
        return min(batch_epsilons(eps_q, eps_s, steps, quantiles, delta)) <= epsilon

    # E = epsilon / (2 sqrt(steps + quantiles)) keeps the pure-DP sum below epsilon; E = 2 epsilon is above
    low, high = math.log(epsilon / (2.0 * math.sqrt(steps + quantiles))), math.log(2.0 * epsilon)
    if not within(low) or within(high):
        raise ValueError(f"Cannot calibrate epsilon={epsilon} at delta={delta} with steps_per_batch={steps}.")
    while high - low > 1e-9:
        middle = 0.5 * (low + high)
        low, high = (middle, high) if within(middle) else (low, middle)
    return math.exp(low)


class BatchSelectionPrivacy:
    """Budget of one batch: ``quantiles`` clip choices of ``eps_q`` and ``steps`` vertex steps of ``eps_s`` each.

    Args:
        epsilon, delta: the requested guarantee of one batch (hence of the run).
        steps: Frank-Wolfe steps per batch (sequential composition).
        quantiles: private clip choices per batch (0, 1 or 2).
        clip_share: share of ``E^2`` spent on the clip choices, in (0, 1) (unused without any).
    """

    def __init__(self, epsilon: float, delta: float, steps: int, quantiles: int, clip_share: float) -> None:
        self.epsilon = _validate.positive(epsilon=epsilon)
        self.delta = _validate.probability(delta=delta)
        self.steps = _validate.integer(steps_per_batch=steps, minimum=1)
        self.quantiles = _validate.integer(quantiles=quantiles, minimum=0, maximum=2)
        self.clip_share = _validate.probability(clip_share=clip_share)
        #: The calibrated scale E; ``eps_q`` (0 without clip choices) and ``eps_s`` per step.
        self.scale = calibrated_scale(self.epsilon, self.delta, self.steps, self.quantiles, self.clip_share)
        self.eps_q, self.eps_s = batch_split(self.scale, self.steps, self.quantiles, self.clip_share)

    def epsilons(self) -> tuple[float, float]:
        """Epsilon at ``delta``: (PLD of the pure-DP choices, RDP of the bounded-range zCDP)."""
        return batch_epsilons(self.eps_q, self.eps_s, self.steps, self.quantiles, self.delta)


class BatchedDPHDB(BatchedAgent):
    """Epoch-batched DP-HDB (module docstring): shared context ``x_t`` of shape ``(dim,)``, K arm parameters.

    Args:
        n_arms, dim, rng, horizon: the Agent contract (``horizon`` or ``delta`` is required).
        epsilon, delta: the (epsilon, delta)-JDP target of the run (``delta`` defaults to
            :func:`~dpbandit.privacy.budget.default_delta` of T, ``min(1e-5, 1/(10 T))``).
        link: inverse link zeta (name in ``dpbandit.envs.links.LINKS`` or a ``Link``); the loss is the GLM NLL.
        radius: l1-ball radius r of every arm's parameter.
        clip_norm: largest residual clip ``B`` (top of the grid; the clip itself without ``residual_quantile``).
        residual_quantile: target quantile of the residuals for the private clip ``B``; ``None``: fixed.
        context_clip: largest coordinate clip ``C`` of the contexts (explicit; the first batch's clip).
        context_quantile: target quantile of the coordinates ``|x_ti|`` for the next batch's ``C``; ``None``: fixed.
        clip_share: share of the budget (``E^2``) spent on the clip choices, in (0, 1).
        clip_grid: number of candidates of each clip grid (``top * 2^(-j/2)``, >= 2).
        steps_per_batch: Frank-Wolfe steps per arm on each batch's data (>= 1).
        step_rule: ``"fw"`` (``2/(tau+2)``) or ``"pofw"`` (``1/(tau+1)``, Algorithm 2).
        reward_range: the rewards' declared range ``(low, high)`` (finite, ``low < high``; the harness passes
            the environment's when both bounds are finite). It sets nothing: the loss is the GLM negative
            log-likelihood, whose residual ``zeta(x^T theta) - r`` is clipped by the private quantile ``B``
            (no centre); a reward outside the range is an error (the environment broke its declared bounds).
        first_batch, batch_ratio: the batch schedule (:class:`~dpbandit.agents.batched.base.BatchSchedule`).
        max_rounds_per_user: with user ids, learn from at most this many rounds of each person
            (:mod:`~dpbandit.agents.batched.base`; the user-level epsilon is in ``privacy.user_epsilon``).
        noise: ``False`` = debugging switch: exact LMO and exact quantiles; ``privacy`` is ``None``.
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
        link: str | Link = "identity",
        radius: float = 2.0,
        clip_norm: float = 1.0,
        residual_quantile: float | None = 0.5,
        context_clip: float = 1.0,
        context_quantile: float | None = 0.9,
        clip_share: float = 0.1,
        clip_grid: int = 16,
        steps_per_batch: int = 16,
        step_rule: str = "fw",
        reward_range: tuple[float, float] | None = None,
        first_batch: int = 32,
        batch_ratio: float = 2.0,
        max_rounds_per_user: int | None = None,
        noise: bool = True,
    ) -> None:
        # footprint() reads these four
        self.steps_per_batch = _validate.integer(steps_per_batch=steps_per_batch, minimum=1)
        grid = 2.0 ** (-np.arange(_validate.integer(clip_grid=clip_grid, minimum=2)) / 2.0)
        self._grid = grid.size if residual_quantile is not None else 1
        self._clip_grid = grid.size
        super().__init__(n_arms, dim, rng=rng, horizon=horizon, first_batch=first_batch,
                         batch_ratio=batch_ratio, max_rounds_per_user=max_rounds_per_user)
        self.epsilon = _validate.positive(epsilon=epsilon)
        self.delta = agent_delta(delta, self.horizon, owner=type(self).__name__)
        self.link = get_link(link)
        #: The declared range of the rewards (``None``: undeclared); a reward outside it is an error.
        self.reward_range = validate_reward_range(reward_range)
        self.radius = _validate.positive(radius=radius)
        self.clip_norm = _validate.positive(clip_norm=clip_norm)
        self.context_clip = _validate.positive(context_clip=context_clip)
        self.residual_quantile = _quantile(residual_quantile=residual_quantile)
        self.context_quantile = _quantile(context_quantile=context_quantile)
        clip_share = _validate.probability(clip_share=clip_share)
        self.step_rule = _validate.one_of(STEP_RULES, step_rule=step_rule)
        self.noise = bool(noise)
        #: Public candidates of the residual clip B and of the context clip C.
        self.residual_candidates = self.clip_norm * (grid if self.residual_quantile is not None else grid[:1])
        self.context_candidates = self.context_clip * grid
        quantiles = (self.residual_quantile is not None) + (self.context_quantile is not None)
        if self.noise:
            require_calibratable_epsilon(type(self).__name__, self.epsilon, MAX_EPSILON, MAX_EPSILON_REASON)
        self.budget = (
            BatchSelectionPrivacy(self.epsilon, self.delta, self.steps_per_batch, quantiles, clip_share)
            if self.noise
            else None
        )
        self.clip = self.context_clip  #: the context clip C of the current batch
        self.fw_steps = 0  #: Frank-Wolfe steps taken per arm
        self.clips: list[tuple[float, float]] = []  #: (B, C) used in each finished batch
        self._reset_batch()

    def footprint(self) -> size.Footprint:
        """Size of a run (``G`` residual-clip candidates, at most ``clip_grid``; ``S = steps_per_batch``).

        state: the batch's sums ``K G d`` and, with ``S > 1``, the batch's rows, at most twice while they are
        joined into one array per arm at its end (an arm's blocks and their join): ``2 n d`` floats for the
        largest batch ending within the horizon (without one: rows are unbounded, left out); work per
        round: the scores (``K d``), residual and clip (``3 d``), the gradient sums (``2 G d``) and the
        context quantile's counts (``clip_grid d``: one comparison per candidate), plus per batch ``(S - 1)`` passes of ``5 n d`` (residuals,
        gradient sums) and ``S`` vertex choices over ``2 d`` vertices per arm (``20 K d``), over the
        horizon's ``T`` rounds. At d = 5000, K = 10: 0.09 GB at T = 3000, 1.3 GB up to T = 65,503; from
        T = 65,504 (the batch of 32,768 rounds ends within it) 2.6 GB: refused.
        """
        d, K, S, G = self.dim, self.n_arms, self.steps_per_batch, self._grid
        per_round = K * d + 3 * d + 2 * G * d + self._clip_grid * d
        batches = self.schedule.released_batches(self.horizon)
        rows = 2 * max(batches, default=0) * d if S > 1 else 0
        work = sum((S - 1) * 5 * n * d + S * 20 * K * d for n in batches)
        amortised = work / self.horizon if batches else 0.0
        return size.Footprint(size.FLOAT * (K * G * d + rows), per_round + amortised, self.input_per_round)

    def _reset_batch(self) -> None:
        self._sums = np.zeros((self.n_arms, self.residual_candidates.size, self.dim))  # sum clip_j(res) x~
        self._residual_inside = np.zeros(self.residual_candidates.size)  # c_j
        self._context_inside = np.zeros(self.context_candidates.size)  # f_j
        # the batch's clipped rows and rewards per arm, in order (kept only for steps_per_batch > 1)
        # (lists of blocks while the batch runs, one array per arm once it ends)
        self._rows: list[Any] = [[] for _ in range(self.n_arms)]
        self._rewards: list[Any] = [[] for _ in range(self.n_arms)]

    # -- model -----------------------------------------------------------------------------------
    def _clip_contexts(self, X: np.ndarray) -> np.ndarray:
        return np.clip(X, -self.clip, self.clip)

    def scores(self, observations: np.ndarray) -> np.ndarray:
        """Greedy scores ``x~^T theta_k`` (zeta is increasing, so the greedy arm is the same), shape (m, K)."""
        return self._clip_contexts(observations) @ self.theta.T

    def _residuals(self, X: np.ndarray, arms: np.ndarray, rewards: np.ndarray) -> np.ndarray:
        """``zeta(x~_t^T theta_{a_t}) - r_t`` for clipped contexts ``X``."""
        return self.link.mean(np.einsum("nd,nd->n", X, self.theta[arms])) - rewards

    def _gradient_sums(self, X: np.ndarray, arms: np.ndarray, clipped: np.ndarray) -> np.ndarray:
        """Per arm ``sum_t clipped[t, j] x~_t``: shape ``(K, J, d)`` for ``clipped`` of shape ``(n, J)``."""
        out = np.zeros((self.n_arms, clipped.shape[1], self.dim))
        for k in range(self.n_arms):
            mine = arms == k
            out[k] = clipped[mine].T @ X[mine]
        return out

    # -- batched hooks ---------------------------------------------------------------------------
    def _observe(self, rows: np.ndarray, models: np.ndarray, rewards: np.ndarray) -> None:
        check_rewards(rewards, self.reward_range)
        X = self._clip_contexts(rows)
        residual = self._residuals(X, models, rewards)
        B = self.residual_candidates
        self._sums += self._gradient_sums(X, models, np.clip(residual[:, None], -B, B))
        self._residual_inside += np.sum(np.abs(residual)[:, None] <= B, axis=0)
        if self.context_quantile is not None:
            inside = np.abs(rows)  # one count per candidate: the grid is short, a sort of n d values is not
            counts = np.array([np.count_nonzero(inside <= c) for c in self.context_candidates])
            self._context_inside += counts / self.dim
        if self.steps_per_batch > 1:
            for k in np.unique(models):
                mine = models == k
                self._rows[k].append(X[mine])
                self._rewards[k].append(np.asarray(rewards, dtype=float)[mine])

    def _arm_direction(self, k: int, B: float) -> np.ndarray:
        """Arm ``k``'s ``sum_t clip(zeta(x~_t^T theta_k) - r_t, +-B) x~_t`` over its rounds of the batch.

        The values of ``_residuals`` and ``_gradient_sums`` on the whole batch, bit for bit (each row's dot
        product and each arm's product have the same operands, in the same order), without gathering
        ``theta[arms]`` and ``X[arms == k]`` (``n d`` floats each) at every step.
        """
        X, rewards = self._rows[k], self._rewards[k]
        residual = self.link.mean(np.einsum("nd,nd->n", X, np.broadcast_to(self.theta[k], X.shape))) - rewards
        return (np.clip(residual, -B, B)[:, None].T @ X)[0]

    def _choose(self, inside: np.ndarray, quantile: float, n: int) -> np.ndarray:
        """Private ``quantile`` choice on a grid: the exponential mechanism on ``-|inside_j - q n|`` (sensitivity 1).

        ``inside`` has the grid on its last axis (leading axes batch independent choices); returns the index.
        """
        utility = -np.abs(np.asarray(inside, dtype=float) - quantile * n)
        if self.budget is None:
            return np.argmax(utility, axis=-1)
        return exponential_mechanism(self.noise_rng, utility, self.budget.eps_q, 1.0)

    def _end_batch(self) -> None:
        n = self.batch_learned  # = batch_size unless rounds past max_rounds_per_user were left out
        if n == 0:  # every round of the batch was past its person's cap: nothing to learn from
            self._reset_batch()
            return
        j = 0 if self.residual_quantile is None else int(self._choose(self._residual_inside, self.residual_quantile, n))
        B = float(self.residual_candidates[j])
        self.clips.append((B, self.clip))
        direction = self._sums[:, j, :] / n
        if self.steps_per_batch > 1:  # one array per arm, its blocks released as they are joined
            for k in range(self.n_arms):
                rows, rewards = self._rows[k], self._rewards[k]
                self._rows[k] = np.concatenate(rows) if rows else np.empty((0, self.dim))
                self._rewards[k] = np.concatenate(rewards) if rewards else np.empty(0)
                rows.clear()
                rewards.clear()
        for step in range(self.steps_per_batch):
            if step > 0:  # the same batch at the moved iterates
                sums = np.zeros((self.n_arms, self.dim))
                for k in range(self.n_arms):
                    sums[k] = self._arm_direction(k, B)
                direction = sums / n
            self._frank_wolfe(direction, self.temperature(n, B))
        if self.context_quantile is not None:
            i = int(self._choose(self._context_inside, self.context_quantile, n))
            self.clip = float(self.context_candidates[i])
        self._reset_batch()

    def temperature(self, n: int, residual_clip: float) -> float:
        """Exponential-mechanism temperature ``tau = 4 r B C / (n eps_s)`` for a batch of ``n`` rounds."""
        if self.budget is None:
            return 0.0
        return 4.0 * self.radius * residual_clip * self.clip / (n * self.budget.eps_s)

    def _frank_wolfe(self, direction: np.ndarray, temperature: float) -> None:
        if self.budget is None:
            vertex = lmo(direction, 1.0, self.radius)
        else:
            tau = np.full(self.n_arms, temperature)
            vertex = private_vertex(self.noise_rng, direction, self.radius, tau, "exponential")
        self.fw_steps += 1
        eta = 2.0 / (self.fw_steps + 1.0) if self.step_rule == "fw" else 1.0 / (self.fw_steps + 1.0)
        self.theta = self.theta + eta * (vertex - self.theta)

    # -- privacy ---------------------------------------------------------------------------------
    def _user_epsilon(self, max_rounds: int) -> float:
        """Epsilon of a person with at most ``m = max_rounds`` learned rounds: one batch at ``m eps``.

        A person with ``k_l`` rounds in batch ``l`` moves every quantile count by at most ``k_l`` and every
        vertex score by at most ``k_l`` times the one-round sensitivity (sums over rounds; the iterates and
        clips are fixed by earlier choices), so each choice of the batch is ``k_l eps``-DP and ``k_l
        eps``-bounded-range instead of ``eps``. Bounded-range zCDP: ``sum_l k_l^2 rho <= m^2 rho``. Pure DP:
        per choice index, the choices over batches compose to a ``(sum_l k_l) eps <= m eps``-DP mechanism,
        dominated by randomized response at ``m eps`` (Kairouz, Oh and Viswanath 2015), and the order of an
        adaptive composition does not change its tradeoff function (Dong, Roth and Su 2022). Both worst cases
        are all ``m`` rounds in one batch: :func:`batch_epsilons` at ``(m eps_q, m eps_s)``, the smaller
        reported as for one round.
        """
        b = self.budget
        m = max_rounds
        return min(batch_epsilons(m * b.eps_q, m * b.eps_s, b.steps, b.quantiles, self.delta))

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """JDP of the action sequence: one batch's mechanism per user (parallel composition over batches)."""
        if self.budget is None:
            return None
        from dpbandit.privacy.guarantee import PrivacyGuarantee

        b = self.budget
        pure, zcdp = b.epsilons()
        clips = f"{b.quantiles} clip-quantile EM(s) eps_q={b.eps_q:.4g} (sensitivity 1) + " if b.quantiles else ""
        return self._user_level(PrivacyGuarantee(
            mechanism=f"BatchedDPHDB: per batch {clips}{b.steps} x K exponential-mechanism vertex choices, "
            f"eps_s={b.eps_s:.4g} per step",
            claimed_epsilon=self.epsilon,
            claimed_delta=self.delta,
            epsilon=min(pure, zcdp),
            relation="JDP (billboard lemma); replace-one user record; batches compose in parallel",
            accountant=f"min(pld of the pure-DP choices as randomized response: {pure:.4g}, "
            f"rdp of the bounded-range zCDP: {zcdp:.4g})",
            calibration=f"accountant: E={b.scale:.4g}, eps_q^2 = share E^2 / n_q, eps_s^2 = (1 - share) E^2 / steps",
            notes="score sensitivity 2 r B C / n_l per step (same arm; r B C / n_l on each of two arms if it "
            "switches); temperature 4 r B C / (n_l eps_s).",
        ))

    @property
    def params(self) -> dict[str, Any]:
        """Identifying hyper-parameters."""
        return {
            **super().params,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "link": self.link.name,
            "radius": self.radius,
            "clip_norm": self.clip_norm,
            "residual_quantile": self.residual_quantile,
            "context_clip": self.context_clip,
            "context_quantile": self.context_quantile,
            "steps_per_batch": self.steps_per_batch,
            "step_rule": self.step_rule,
            "noise": self.noise,
        }


def _quantile(**kwargs: float | None) -> float | None:
    """A target quantile in (0, 1), or ``None`` (no private choice)."""
    (name, value), = kwargs.items()
    return None if value is None else _validate.probability(**{name: value})
