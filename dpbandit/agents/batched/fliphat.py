"""FLIPHAT: forgetful private sparse linear bandits (Chakraborty, Roy & Basu 2024, arXiv 2405.14038).

Structure (notes/fliphat.md section 2): doubling episodes (batch sizes 1, 2, 4, ...; the batch schedule of
:class:`~dpbandit.agents.batched.base.BatchedAgent`), greedy play on the current estimate, and at the end of
episode ``l`` one run of N-IHT (noisy iterative hard thresholding) on **that episode's** ``n_l`` rounds only
(forgetting). N-IHT with the mean squared loss, ``theta_0 = 0``, for ``m < M_l``:

    ``v = theta_m - eta * (1/n) sum_i x_i (<x_i, theta_m> - y_i)``      (full-batch gradient step)
    ``theta_{m+1} = Proj_{||.||_1 <= C}(peel(v; s, b_m))``               (private top-s, then l1 projection)

with ``x_i`` clipped coordinate-wise to ``[-x_max, x_max]`` and ``y_i`` to ``[-R, R]``.
:func:`dpbandit.privacy.peeling.peel` selects ``s`` coordinates by report-noisy-max on ``|v_j|`` and adds
``Lap(b_m)`` to their values; the projection is post-processing. Models: ``FLIPHAT`` (per-arm features, one
shared beta: one regression on the played rows, the paper's model) and ``FLIPHATDisjoint`` (one context,
one beta per arm: one N-IHT per arm on that arm's rounds, normalised by the public episode length ``n``).

Sensitivity [derived; corrects FLIPHAT's code, notes section 3.2 and 6]. Replacing one user changes one
term of the gradient sum; with ``|x_ij| <= x_max`` and ``|<x, theta_m>| <= x_max ||theta_m||_1``, every
coordinate of ``v`` moves by at most

    ``lam_m = 2 eta x_max (x_max ||theta_m||_1 + R) / n``.

``theta_m`` is public (a release of the previous iteration; ``theta_0 = 0``), so its actual l1 norm
(``<= C``) may be used. Disjoint model, a user whose played arm switches: the old arm's sum loses a term
and the new arm's gains one, each moving by at most ``lam / 2``. The Laplace scale is ``b_m = z lam_m``
with one noise multiplier ``z`` per episode, so every iteration is the same release in units of its own
sensitivity and the accounting depends on ``z``, ``s`` and ``M_l`` only.

Privacy (replace-one user record: the K context rows and the reward of one round; joint DP of the actions).
Episode ``l`` makes ``s M_l`` peeling rounds (:mod:`dpbandit.privacy.peeling`: randomized response for each
noisy max, Laplace for each value, composed as PLDs by dp_accounting); neighbour cases: per-arm ``(1, lam)``;
disjoint ``(1, lam)`` and ``(2, lam/2)``. Episodes partition the users and each episode's N-IHT reads only
its own users and the public earlier estimates, so the run is as private as the worst episode (parallel
composition, no composition across episodes); a user's action depends on the public estimate and their own
contexts (billboard lemma, Hsu et al. 2014). Calibrations (``calibration``): ``"tight"`` picks the smallest
``z`` whose accountant epsilon is the target; ``"paper"`` uses the peeling lemma at ``(eps/M, delta/M)`` per
iteration with basic composition (FLIPHAT's ``utils.NIHT`` [C]); ``privacy`` reports the accountant's epsilon
beside the claim for both.

Notation (keyword: symbol, default, source):

* ``sparsity``: s, ``min(10, dim)`` (the paper's simulations use s = 10 for s* = 5 [C]);
* ``context_bound``: x_max, ``max(1, sqrt(2 log dim))`` (the code's simulation class [C]; there it is not
  enforced, here every context coordinate is clipped to it);
* ``reward_clip``: R, 1, or ``max(|low|, |high|)`` of a declared ``reward_range`` [Fill] (the code uses
  ``x_max b_max + sqrt(2 log(1 + n))`` with the oracle ``b_max = ||beta*||_1``); clipping shrinks
  ``E[x clip(y)]`` but, for Gaussian designs, not its direction;
* ``l1_radius``: C, 1 [Fill] (the code uses the oracle ``||beta*||_1``);
* ``step_size``: eta on the *mean* gradient, 0.5 [Fill] (below ``2 / lambda_max(Sigma)`` for near-isotropic
  contexts; the code's ``eta0 / n`` on the summed loss ``||X theta - y||^2`` is a mean-gradient step of
  ``2 eta0 = 2e-4``, which leaves later iterations inert);
* ``iteration_scale``: M_0 in ``M_l = max(1, floor(M_0 log(1 + n_l)))``, 0.2 [Fill] (order log n as the
  analysis assumes; the code's ``floor(M_0 log(1 + n b_max^2))`` is 0 for small n and returns beta = 0).

Adaptive clipping (``adaptive_clipping=True``, off by default) [Fill]: x_max and R start at the values above
and move from episode to episode by the geometric update of Andrew et al. (2021) towards the
``clip_quantile``-quantile of the rows' ``||x||_inf`` and of ``|y|``
(:class:`~dpbandit.agents.batched.clipping.AdaptiveClipping`, with coordinate-wise context clipping). Why: the
sensitivity is proportional to ``x_max R`` and the defaults suit unit-variance contexts and unit-scale rewards
only; the data's scale is private. Each episode releases the two counts "rows inside" and "rewards inside"
(replace-one sensitivity 1 each) with ``Lap(c)``, ``c = 2 / (count_share epsilon)`` (pure cost of both:
``count_share epsilon``); they enter the episode's PLD as two Laplace mechanisms and the tight calibration
fits the peeling noise to what is left (for every episode, whether it releases counts or not). Counts are
released, and the clips move, only in episodes of ``n >= 4 c`` rounds: in shorter ones the noise would move
the inside fraction by more than about 0.35 (sd) and drive the clips by random factors ``e^{+-rate}``
(measured: with the 0.9-quantile and no minimum, Setting 2's regret at epsilon = 1 rose to random play's).
The clips used in episode ``l`` depend only on earlier releases. Measured (6 seeds, epsilon = 1): Figure 5.1
setting (``fliphat-disjoint``) 932 -> 367 (random 917); FLIPHAT Setting 2, d = 400 (4 seeds) 4,223 -> 3,794.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from dpbandit import _validate
from dpbandit.agents import size as sizes
from dpbandit.agents.batched.base import BatchedAgent
from dpbandit.agents.batched.clipping import AdaptiveClipping, check_rewards, validate_reward_range
from dpbandit.optim.geometry import project_lp_ball
from dpbandit.privacy import peeling
from dpbandit.privacy.budget import agent_delta, require_calibratable_epsilon, require_reportable_epsilon
from dpbandit.privacy.noise import laplace

if TYPE_CHECKING:  # pragma: no cover
    from dpbandit.privacy.guarantee import PrivacyGuarantee

__all__ = ["FLIPHAT", "CoordinateClipping", "EpisodeData", "EpisodeRelease", "FLIPHATDisjoint"]

#: Rows an episode buffers before switching to Gram statistics (float64 elements: 128 MiB) [Fill].
ROW_ELEMENTS = 2**24

#: Largest epsilon FLIPHAT calibrates and accounts [Fill] (benchmarks/calibration_time.py): dp_accounting's
#: PLD of the peeling rounds (randomized response and Laplace at multiplier ``z``) spans a privacy-loss range
#: of order ``1 / z``, so its cost grows with epsilon: about 1 s cold at epsilon 1, 4 s at 10 and 30 s at 100
#: (load 15, K = 2, d = 50), and ``e^(2/z)`` overflows near epsilon 1e3.
MAX_EPSILON = 10.0
MAX_EPSILON_REASON = (
    "its PLD accounting of the peeling rounds (randomized response and Laplace, dp_accounting) grows with "
    "epsilon (about 30 s cold at epsilon 100)"
)


class EpisodeData:
    """One episode's clipped rows and rewards, enough for exact full-batch gradients of every model.

    Stored as rows (``length x dim``) unless the episode is longer than ``dim`` and its rows exceed
    ``ROW_ELEMENTS``; then as per-model Gram matrices ``sum x x^T`` and ``sum x y`` (exact for the squared
    loss, ``O(dim^2)`` memory). ``keep=False`` stores nothing (an episode that ends after the horizon never
    releases).
    """

    def __init__(self, n_models: int, dim: int, length: int, *, keep: bool = True) -> None:
        self.n_models, self.dim, self.keep = n_models, dim, keep
        self.gram = keep and length > dim and length * dim > ROW_ELEMENTS
        self.count = 0
        if self.gram:
            self._xx = np.zeros((n_models, dim, dim))
            self._xy = np.zeros((n_models, dim))
        elif keep:
            self._rows = np.empty((length, dim))
            self._rewards = np.empty(length)
            self._models = np.empty(length, dtype=np.int64)

    def add(self, rows: np.ndarray, models: np.ndarray, rewards: np.ndarray) -> None:
        """Append clipped rows, their model indices and clipped rewards."""
        if not self.keep:
            return
        if self.gram:
            for k in np.unique(models):
                sel = models == k
                self._xx[k] += rows[sel].T @ rows[sel]
                self._xy[k] += rows[sel].T @ rewards[sel]
        else:
            stop = self.count + len(rewards)
            self._rows[self.count : stop] = rows
            self._rewards[self.count : stop] = rewards
            self._models[self.count : stop] = models
        self.count += len(rewards)

    def gradients(self, theta: np.ndarray, n: int) -> np.ndarray:
        """``(1/n) sum_{i of model k} x_i (<x_i, theta_k> - y_i)`` per model, shape ``(n_models, dim)``."""
        if self.gram:
            return (np.einsum("kij,kj->ki", self._xx, theta) - self._xy) / n
        X, m = self._rows[: self.count], self._models[: self.count]
        residual = (X @ theta.T)[np.arange(self.count), m] - self._rewards[: self.count]
        if self.n_models == 1:
            return (residual @ X)[None] / n
        weights = np.zeros((self.count, self.n_models))
        weights[np.arange(self.count), m] = residual
        return weights.T @ X / n


class CoordinateClipping(AdaptiveClipping):
    """:class:`AdaptiveClipping` with the context clip applied per coordinate: ``x -> clip(x, -C, C)``, and
    a row counted inside when ``||x||_inf <= C`` (FLIPHAT's sensitivity needs ``|x_ij| <= x_max``)."""

    def clip_rows(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows clipped to ``[-C, C]`` coordinate-wise and the indicator of rows already inside."""
        inside = np.abs(rows).max(axis=1) <= self.context_clip
        return np.clip(rows, -self.context_clip, self.context_clip), inside


@dataclass(frozen=True)
class EpisodeRelease:
    """What one episode released (public): size, iterations, noise multiplier, Laplace scales, clips.

    ``scales[m, k]`` is the Laplace scale ``z lam_m`` of iteration ``m`` for model ``k`` (0 with noise off);
    ``context_bound`` and ``reward_clip`` are the clips the episode used; ``counts`` the released
    (rows inside, rewards inside) of adaptive clipping, ``None`` without it.
    """

    batch: int
    size: int
    iterations: int
    multiplier: float
    scales: np.ndarray
    context_bound: float
    reward_clip: float
    counts: np.ndarray | None = None


class FLIPHAT(BatchedAgent):
    """FLIPHAT, per-arm features and one shared sparse beta (module docstring; notes/fliphat.md).

    Args:
        n_arms, dim, rng, horizon: the Agent contract (``horizon`` or ``delta`` is required).
        epsilon, delta: the (epsilon, delta)-JDP target (``delta`` defaults to
            :func:`~dpbandit.privacy.budget.default_delta` of T, ``min(1e-5, 1/(10 T))``).
        sparsity, context_bound, reward_clip, l1_radius, step_size, iteration_scale: s, x_max, R, C, eta, M_0
            (module docstring: notation and defaults).
        reward_range: the rewards' declared range ``(low, high)`` (finite, ``low < high``; the harness passes
            the environment's when both bounds are finite): unless ``reward_clip`` is given, R is
            ``max(|low|, |high|)``, so no reward is clipped [Fill]. The paper's model has no centre, so
            none is set. A reward outside the range is an error (the environment broke its declared bounds).
        calibration: ``"tight"`` (accountant) or ``"paper"`` (the peeling lemma with basic composition).
        adaptive_clipping: adapt x_max and R from private counts (module docstring; needs ``"tight"``).
        clip_quantile, clip_rate, count_share: the target quantile, the update step and the counts' budget.
        first_batch, batch_ratio: the episode schedule (1 and 2: doubling, as the paper).
        max_rounds_per_user: not supported (``None`` only): the user-level accounting of the peeling episodes
            (a person's rounds shifting several models by different amounts, episodes with different ``M_l``)
            is not derived. With user ids every round is learned from and ``privacy.user_epsilon`` is ``inf``.
        noise: ``False`` = debugging switch: the same algorithm with exact top-s; ``privacy`` is ``None``.
    """

    observation_model = "per_arm"
    #: Neighbour cases of one episode (peeling.peeling_epsilon): one model moved by up to lam.
    cases: tuple[tuple[int, float], ...] = peeling.SINGLE

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        horizon: int | None = None,
        epsilon: float = 1.0,
        delta: float | None = None,
        sparsity: int | None = None,
        context_bound: float | None = None,
        reward_clip: float | None = None,
        reward_range: tuple[float, float] | None = None,
        l1_radius: float = 1.0,
        step_size: float = 0.5,
        iteration_scale: float = 0.2,
        calibration: str = "tight",
        adaptive_clipping: bool = False,
        clip_quantile: float = 0.5,
        clip_rate: float = 2.0,
        count_share: float = 0.05,
        first_batch: int = 1,
        batch_ratio: float = 2.0,
        max_rounds_per_user: int | None = None,
        noise: bool = True,
    ) -> None:
        if max_rounds_per_user is not None:
            raise ValueError(
                f"max_rounds_per_user={max_rounds_per_user!r} is not supported by {type(self).__name__}: the "
                "user-level accounting of its peeling episodes is not derived (use batched-screening, "
                "batched-ridge, batched-peeling or dphdb-batched for returning users)."
            )
        self.iteration_scale = _validate.nonnegative(iteration_scale=iteration_scale)  # footprint() reads it
        super().__init__(n_arms, dim, rng=rng, horizon=horizon, first_batch=first_batch,
                         batch_ratio=batch_ratio)
        self.epsilon = _validate.positive(epsilon=epsilon)
        self.delta = agent_delta(delta, self.horizon, owner=type(self).__name__)
        default_s = min(10, self.dim)
        self.sparsity = _validate.integer(sparsity=default_s if sparsity is None else sparsity, minimum=1,
                                          maximum=self.dim)
        default_bound = max(1.0, math.sqrt(2.0 * math.log(self.dim)))
        self.context_bound = _validate.positive(context_bound=default_bound if context_bound is None
                                                else context_bound)
        #: The declared range of the rewards (``None``: undeclared); a reward outside it is an error.
        self.reward_range = validate_reward_range(reward_range)
        if reward_clip is None:  # R covers the declared range (no clipping bias), else 1 [Fill]
            reward_clip = 1.0 if self.reward_range is None else max(map(abs, self.reward_range))
        self.reward_clip = _validate.positive(reward_clip=reward_clip)
        self.l1_radius = _validate.positive(l1_radius=l1_radius)
        self.step_size = _validate.positive(step_size=step_size)
        self.calibration = _validate.one_of(peeling.CALIBRATIONS, calibration=calibration)
        self.adaptive_clipping = bool(adaptive_clipping)
        if self.adaptive_clipping and self.calibration != "tight":
            raise ValueError("adaptive_clipping=True needs calibration='tight' (PLD-accounted counts).")
        self.count_share = _validate.probability(count_share=count_share)
        self.clipping = CoordinateClipping(context_clip=self.context_bound, reward_clip=self.reward_clip,
                                           context_quantile=clip_quantile, reward_quantile=clip_quantile,
                                           rate=clip_rate)
        #: Laplace multipliers of the adaptive-clipping counts (sensitivity 1 each); empty without them.
        self.counts = (2.0 / (self.count_share * self.epsilon),) * 2 if self.adaptive_clipping else ()
        self.noise = bool(noise)
        if self.noise:
            require_calibratable_epsilon(type(self).__name__, self.epsilon, MAX_EPSILON, MAX_EPSILON_REASON)
        if self.noise and self.calibration == "tight":  # calibrate the first episode now, before any round
            rounds = self.sparsity * self.iterations(self.schedule.size(0))

            def first_episode(epsilon: float) -> float:
                counts = (2.0 / (self.count_share * epsilon),) * 2 if self.adaptive_clipping else ()
                z = peeling.tight_multiplier(epsilon, self.delta, rounds, self.cases, counts)
                return peeling.peeling_epsilon(z, rounds, self.delta, self.cases, counts)

            require_reportable_epsilon(type(self).__name__, self.epsilon, self.delta, first_episode)
        self.releases: list[EpisodeRelease] = []  #: one record per finished episode
        self._data: EpisodeData | None = None
        self._inside = np.zeros(2)  # rows and rewards inside the clips in the current episode

    # -- size ------------------------------------------------------------------------------------
    def footprint(self) -> sizes.Footprint:
        """Size of a run (:class:`EpisodeData`; ``K' = n_models``, ``D = dim``), from the episodes that end
        within the horizon (every episode without one).

        state: the largest episode's storage: its rows, ``n (D + 2)`` floats, or, when ``n > D`` and
        ``n D > ROW_ELEMENTS``, the Gram statistics ``K' (D^2 + D)``; work per round: the scores
        (``n_arms D``) and the played row's clipping (``2 D``), plus per stored round ``D`` (rows) or ``D^2``
        (Gram update), plus per episode ``M_l`` N-IHT iterations of ``2 K' n D`` (rows: two passes over the
        episode) or ``K' D^2`` (Gram) operations and ``10 K' D`` (peeling), over the horizon's ``T`` rounds.
        Without a horizon: the Gram statistics, and per round the Gram update. At d = 5000, K = 10,
        ``fliphat-disjoint`` runs up to T = 16,382 (from T = 16,383 its episodes of 8,192 rounds keep
        ``10 x 5000^2`` Grams: 2.0 GB and ``d^2`` operations per round); ``fliphat`` on block features
        (``D = 50,000``) refuses (each round's features are 500,000 floats).
        """
        return self._footprint(self.dim, self.n_models, self.input_per_round)

    @property
    def instead(self) -> str:  # type: ignore[override]  (a class attribute elsewhere)
        """The agents a refused size points to: ``fliphat-disjoint`` on the shared context these block features
        come from (``dim / n_arms`` per arm, the same horizon) only when it fits there, and ``private``."""
        d, K = self.dim // self.n_arms, self.n_arms
        shared = self.dim % K == 0 and not sizes.reasons(self._footprint(d, K, d), n_arms=K, dim=d, per_arm=False)
        return ("fliphat-disjoint (on a shared context: the same model without block features) or private" if shared
                else "private (on a shared context: FLIPHAT without block features would refuse there too)")

    def _footprint(self, D: int, models: int, input_per_round: int) -> sizes.Footprint:
        """:meth:`footprint` with ``D`` features, ``models`` models and ``input_per_round`` floats per round."""

        def gram(n: int) -> bool:
            return n > D and n * D > ROW_ELEMENTS

        per_round = self.n_arms * D + 2 * D
        if self.horizon is None:
            return sizes.Footprint(sizes.FLOAT * models * (D**2 + D), per_round + D**2, input_per_round)
        episodes = self.schedule.released_batches(self.horizon)
        state = max((models * (D**2 + D) if gram(n) else n * (D + 2) for n in episodes), default=0)
        work = sum(
            n * (D**2 if gram(n) else D)
            + self.iterations(n) * ((models * D**2 if gram(n) else 2 * models * n * D) + 10 * models * D)
            for n in episodes
        )
        return sizes.Footprint(sizes.FLOAT * state, per_round + work / self.horizon, input_per_round)

    # -- calibration -----------------------------------------------------------------------------
    def iterations(self, size: int) -> int:
        """``M_l = max(1, floor(M_0 log(1 + n_l)))`` for an episode of ``size`` rounds."""
        return max(1, math.floor(self.iteration_scale * math.log1p(size)))

    def multiplier(self, iterations: int) -> float:
        """Noise multiplier ``z = b / lam`` of an episode with ``iterations`` N-IHT iterations."""
        if self.calibration == "paper":
            return peeling.paper_multiplier(self.epsilon, self.delta, self.sparsity, iterations)
        return peeling.tight_multiplier(self.epsilon, self.delta, self.sparsity * iterations, self.cases,
                                        self.counts)

    def sensitivity(self, theta: np.ndarray, size: int) -> np.ndarray:
        """Per-coordinate sensitivity ``lam_m = 2 eta x_max (x_max ||theta_m||_1 + R) / n`` of each model,
        at the current clips x_max and R."""
        l1 = np.abs(theta).sum(axis=-1)
        x_max, R = self.clipping.context_clip, self.clipping.reward_clip
        return 2.0 * self.step_size * x_max * (x_max * l1 + R) / size

    # -- batched hooks ---------------------------------------------------------------------------
    def _observe(self, rows: np.ndarray, models: np.ndarray, rewards: np.ndarray) -> None:
        check_rewards(rewards, self.reward_range)
        if self.horizon is not None and self.round + len(rewards) > self.horizon:
            raise RuntimeError(f"{type(self).__name__} was built for horizon={self.horizon} rounds (privacy "
                               "accounting, episode storage); build it with a larger horizon.")
        if self._data is None:
            keep = self.horizon is None or self.batch_start + self.batch_size <= self.horizon
            self._data = EpisodeData(self.n_models, self.dim, self.batch_size, keep=keep)
            self._inside = np.zeros(2)
        clipped_rows, rows_inside = self.clipping.clip_rows(rows)
        clipped_rewards, rewards_inside = self.clipping.clip_rewards(rewards)
        self._data.add(clipped_rows, models, clipped_rewards)
        self._inside += (rows_inside.sum(), rewards_inside.sum())

    def _end_batch(self) -> None:
        n = self.batch_size
        M = self.iterations(n)
        z = self.multiplier(M) if self.noise else 0.0
        theta = np.zeros((self.n_models, self.dim))
        scales = np.zeros((M, self.n_models))
        for m in range(M):
            step = theta - self.step_size * self._data.gradients(theta, n)
            scales[m] = z * self.sensitivity(theta, n)
            theta = np.stack([
                peeling.peel(self.noise_rng, step[k], self.sparsity, scales[m, k] if self.noise else None)
                for k in range(self.n_models)
            ])
            theta = project_lp_ball(theta, 1.0, self.l1_radius)
        self.theta = theta
        clips = (self.clipping.context_clip, self.clipping.reward_clip)
        counts = self._release_counts(n) if self.adaptive_clipping and n >= 4 * self.counts[0] else None
        self.releases.append(EpisodeRelease(self.batch, n, M, z, scales, *clips, counts))
        self._data = None

    def _release_counts(self, n: int) -> np.ndarray:
        """Release (rows inside, rewards inside) with ``Lap(c)`` each and move the clips (post-processing)."""
        counts = self._inside + (laplace(self.noise_rng, self.counts[0], 2) if self.noise else 0.0)
        self.clipping.update({"context_inside": counts[0], "reward_inside": counts[1]}, n)
        return counts

    # -- privacy ---------------------------------------------------------------------------------
    def _episode_iterations(self) -> set[int]:
        """Iteration counts of the episodes that release within the horizon (or so far, without one)."""
        counts = {r.iterations for r in self.releases}
        start, batch = 0, 0
        while self.horizon is not None:
            size = self.schedule.size(batch)
            if start + size > self.horizon:
                break
            counts.add(self.iterations(size))
            start, batch = start + size, batch + 1
        return counts or {self.iterations(self.schedule.size(0))}

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """JDP of the actions: the worst episode's peeling PLD (episodes compose in parallel)."""
        if not self.noise:
            return None
        from dpbandit.privacy.guarantee import PrivacyGuarantee

        iterations = sorted(self._episode_iterations())
        eps = max(peeling.peeling_epsilon(self.multiplier(M), self.sparsity * M, self.delta, self.cases,
                                          self.counts) for M in iterations)
        multipliers = ", ".join(f"M={M}: z={self.multiplier(M):.4g}" for M in iterations)
        formula = (
            "tight: smallest z with PLD epsilon <= target" if self.calibration == "tight"
            else "paper: z = 2 sqrt(3 s log(M/delta)) M / epsilon (peeling lemma, basic composition over M)"
        )
        return self._user_level(PrivacyGuarantee(
            mechanism=f"{type(self).__name__}: N-IHT with private peeling, s={self.sparsity}, "
            "one episode per user",
            claimed_epsilon=self.epsilon,
            claimed_delta=self.delta,
            epsilon=eps,
            relation="JDP (billboard lemma); replace-one user record; episodes compose in parallel; "
            f"neighbour cases {self.cases} (count, shift of lam)",
            accountant="pld (dp_accounting PLD objects: randomized response REPLACE_ONE (x) Laplace)",
            calibration=f"{formula}; Laplace scale b = z lam_m, "
            f"lam_m = 2 eta x_max (x_max ||theta_m||_1 + R)/n; {multipliers}",
            notes=f"x_max={self.context_bound:.4g} (contexts clipped), R={self.reward_clip:.4g}"
            + (f" (adaptive: two Laplace counts of multiplier {self.counts[0]:.4g} per episode)"
               if self.adaptive_clipping else "")
            + ", "
            f"C={self.l1_radius:.4g}, eta={self.step_size:.4g}, "
            f"M_l = max(1, floor({self.iteration_scale:.4g} log(1 + n_l)))",
        ))

    @property
    def params(self) -> dict[str, Any]:
        """Identifying hyper-parameters."""
        return {
            **super().params,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "sparsity": self.sparsity,
            "context_bound": self.context_bound,
            "reward_clip": self.reward_clip,
            "l1_radius": self.l1_radius,
            "step_size": self.step_size,
            "iteration_scale": self.iteration_scale,
            "calibration": self.calibration,
            "adaptive_clipping": self.adaptive_clipping,
            "noise": self.noise,
        }


class FLIPHATDisjoint(FLIPHAT):
    """FLIPHAT for one shared context and one sparse beta per arm: one N-IHT per arm on that arm's rounds.

    Each arm's gradient is normalised by the public episode length ``n``. A user whose played arm switches
    moves two arms' vectors by at most ``lam / 2`` each: neighbour cases ``(1, 1)`` and ``(2, 1/2)``.
    """

    observation_model = "shared"
    instead = "batched-screening or private"
    cases = ((1, 1.0), (2, 0.5))
