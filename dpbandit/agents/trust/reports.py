"""Shared machinery of the local-DP and shuffle-model linear UCB agents: noisy reports, published in batches.

Every agent here is the linear-UCB scoring rule of :class:`dpbandit.agents.linear.LinearUCBAgent` on
statistics the server builds only from users' randomised reports (:class:`dpbandit.privacy.local.
LocalGaussianRandomizer`): ``G = sum (x x^T + N)``, ``u = sum (x r + n)``. They differ only in

* the randomizer's budget (:meth:`NoisyReportUCB._randomizer`): the local guarantee itself (local model),
  or the larger local epsilon that shuffling a batch amplifies to the target (shuffle model);
* the batch (``batch``): the server folds reports into ``G`` and ``u`` and refits after every ``batch``
  users (1 in the local model: every round, as in Zheng et al.'s LDP-OFUL; ``B`` in the shuffle model,
  where the shuffler needs ``B`` reports to hide one among, Chowdhury and Zhou's batched framework
  [recall: their Algorithm 1]);
* the form: one shared parameter on per-arm features (the papers' form, ``observation_model = "per_arm"``),
  or one model per arm on a shared context (the disjoint form: each report noises every arm's block,
  :mod:`dpbandit.privacy.local`).

Regularisation and width [C, Chowdhury-Zhou code ``LinBanditPrivate.py``, e.g. ``LDPLinUCB`` lines 155-163;
equation numbers of the papers not checked: only their opening pages were reachable, see the package
docstring]: the noise in ``G`` after ``T`` reports has spectral norm of
order ``sigma sqrt(T d)``; with ``gamma = sigma sqrt(T D)`` the ridge matrix is ``G + 2 gamma I`` (positive
definite with high probability) and the width
``beta = sqrt(gamma) S + noise_std sqrt(D log((1 + t L^2 / gamma) / confidence))``, ``confidence = 1/T``.
The code fixes ``beta`` at ``t = T`` ("cew = confidence_ellipsoid_width(n)"); here ``t`` is the number of
reports published so far, as in the papers' ``beta_t``.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from dpbandit import _validate
from dpbandit.agents import size
from dpbandit.agents.centring import RewardCentring
from dpbandit.agents.linear import LinearUCBAgent
from dpbandit.privacy.budget import check_delta, require_calibratable_epsilon
from dpbandit.privacy.guarantee import PrivacyGuarantee
from dpbandit.privacy.local import LocalGaussianRandomizer

__all__ = ["CALIBRATIONS", "NoisyReportUCB", "count_report"]

#: What a refusal says of ``noise=False`` (:func:`~dpbandit.privacy.budget.require_calibratable_epsilon`).
NOISE_OFF_KEEPS_CALIBRATION = (
    "noise=False (no noise, no privacy) keeps the regulariser of this calibration, so it needs the same limit"
)

#: ``calibration`` values: ours (certified, the default) or the authors' code's noise (side by side only).
CALIBRATIONS = ("certified", "authors")


def count_report(counts: dict[int, int], user_id: int | None, cap: int | None) -> None:
    """Count one report of ``user_id`` in ``counts``; ``ValueError`` once a user exceeds ``cap`` reports (the
    number the calibration composes). Nothing is counted without a user id or a cap."""
    if user_id is None or cap is None:
        return
    seen = counts.get(int(user_id), 0) + 1
    if seen > cap:
        raise ValueError(
            f"user_id={user_id} sent report {seen}, above reports_per_user={cap} (the calibration covers that many)."
        )
    counts[int(user_id)] = seen


class NoisyReportUCB(LinearUCBAgent):
    """Linear UCB on the sum of users' Gaussian-randomised reports, refitted after every ``batch`` reports.

    Args:
        n_arms: K >= 2.
        dim: feature dimension D of one model.
        rng: the agent's generator (split into the users' noise stream and a tie-breaking stream).
        horizon: T (required: the regulariser ``2 gamma`` depends on it).
        epsilon, delta: the guarantee (local for the local agents, central after shuffling for the shuffle
            agents); delta defaults to ``1/T``.
        noise_std: sub-Gaussian scale of the reward noise in the width (0.5 in the authors' code [C]).
        param_bound: S >= ||theta*||_2.
        feature_bound: L >= ||x||_2 of every feature row (default ``sqrt(D)`` [C, DP-UCB's default]); a row
            above it is an error, never clipped.
        reward_bound: B; rewards (centred, see ``centring``) are clipped to [-B, B] before randomising.
            Default: the declared range's half-width when rewards are centred on it (0.5 on {0, 1} rewards:
            :meth:`~dpbandit.agents.centring.RewardCentring.clip_bound`, issue 37 item 6), else 1 (Bernoulli
            rewards uncentred).
        reports_per_user: reports one user may send; the calibration composes them, and a user id seen
            more often is an error. ``None`` (default): the privacy unit is one round's report, as for the
            central agents (``private``); a person who comes back is several reports, and ``user_epsilon``
            reads ``inf``.
        noise: ``False`` = debugging switch: exact reports, same regulariser and width, no privacy.
        calibration: ``"certified"`` (default: noise calibrated by our accountants to ``(epsilon, delta)``) or
            ``"authors"``: the noise of Chowdhury and Zhou's code [C], for side-by-side runs only; the
            guarantee then states the authors' claim as ``claimed_epsilon`` and what we certify as ``epsilon``.
        reward_range: the environment's declared ``(low, high)`` (the harness passes it).
        centring: ``"range"`` (the default under a declared range: rewards centred at its midpoint before the
            clip to ``[-B, B]``, issue 37 item 6) or ``"none"`` (the default without one; the papers' form);
            the centre is a public constant, and the report's sensitivity is that of ``(L, B)``
            (:mod:`dpbandit.agents.centring`).
    """

    #: Rewards centred at a declared range's midpoint by default (issue 37 item 6: Bernoulli rewards sent the
    #: uncentred line the wrong way on some seeds).
    default_centring: ClassVar[str] = "range"

    #: ``PrivacyGuarantee.mechanism`` of the agent.
    mechanism: ClassVar[str] = ""
    #: Largest epsilon the agent calibrates, and why not above (a refusal naming both; issue 38 item 1).
    max_epsilon: ClassVar[float] = math.inf
    max_epsilon_reason: ClassVar[str] = ""

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        horizon: int | None = None,
        epsilon: float = 1.0,
        delta: float | None = None,
        noise_std: float = 0.5,
        param_bound: float = 1.0,
        feature_bound: float | None = None,
        reward_bound: float | None = None,
        reports_per_user: int | None = None,
        noise: bool = True,
        calibration: str = "certified",
        reward_range: tuple[float, float] | None = None,
        centring: str | None = None,
    ) -> None:
        if horizon is None:
            raise ValueError(f"{type(self).__name__} needs horizon=T (its regulariser depends on it).")
        horizon = _validate.integer(horizon=horizon, minimum=1)
        self.epsilon = _validate.positive(epsilon=epsilon)
        self.delta = check_delta(1.0 / max(horizon, 2) if delta is None else delta, horizon,
                                 owner=type(self).__name__)
        self.noise_std = _validate.positive(noise_std=noise_std)
        self.param_bound = _validate.positive(param_bound=param_bound)
        if centring == "intercept":
            raise ValueError(f"Expected centring 'range' or 'none' for {type(self).__name__}, got 'intercept': a "
                             "report of (1, x) would need a randomizer calibrated for its larger feature bound.")
        rule = RewardCentring.make(centring, reward_range, default=self.default_centring)
        self.reward_bound = _validate.positive(
            reward_bound=rule.clip_bound(1.0) if reward_bound is None else reward_bound
        )
        self.reports_per_user = (
            None if reports_per_user is None else _validate.integer(reports_per_user=reports_per_user, minimum=1)
        )
        self.noise = bool(noise)
        # also with noise=False: the regulariser and width follow the calibrated noise
        require_calibratable_epsilon(type(self).__name__, self.epsilon, self.max_epsilon, self.max_epsilon_reason,
                                     NOISE_OFF_KEEPS_CALIBRATION)
        if calibration not in CALIBRATIONS:
            raise ValueError(f"Expected calibration in {CALIBRATIONS}, got {calibration!r}.")
        self.calibration = calibration
        n_models, feature_dim = self._shape_for(n_arms, dim)
        self.feature_bound = _validate.positive(
            feature_bound=math.sqrt(dim) if feature_bound is None else feature_bound
        )
        size.check(type(self).__name__, self._footprint(n_arms, dim, n_models, feature_dim, horizon),
                   n_arms=n_arms, dim=dim, per_arm=self.observation_model == "per_arm",
                   instead="'private' (central model) or a smaller dim")
        self.randomizer = self._randomizer(feature_dim, n_models)
        self.gamma = self._gamma(horizon, feature_dim)
        super().__init__(n_arms, dim, rng=rng, horizon=horizon, regularization=2.0 * self.gamma,
                         reward_range=reward_range, centring=rule.mode)
        self._noise_rng, self._tie_rng = self.rng.spawn(2)
        self.gram = np.zeros((n_models, feature_dim, feature_dim))
        self._pending_gram = np.zeros_like(self.gram)
        self._pending_u = np.zeros((n_models, feature_dim))
        self._u_published = np.zeros((n_models, feature_dim))
        self.pending = 0
        self.published = 0
        self._reports: dict[int, int] = {}

    # -- hooks -----------------------------------------------------------------------------------
    batch: int = 1

    def _shape_for(self, n_arms: int, dim: int) -> tuple[int, int]:
        """``(n_models, feature_dim)`` before the base class exists (mirrors ``_model_shape``)."""
        return (1, dim) if self.observation_model == "per_arm" else (n_arms, dim)

    def _randomizer(self, feature_dim: int, n_models: int) -> LocalGaussianRandomizer:
        """Each user's randomizer (its epsilon and delta are the local budget)."""
        raise NotImplementedError

    def _gamma(self, horizon: int, feature_dim: int) -> float:
        """``gamma = sigma sqrt(T D)``: the spectral scale of ``T`` reports' summed noise (module docstring)."""
        return self.randomizer.sigma * math.sqrt(horizon * feature_dim)

    def _footprint(self, n_arms: int, dim: int, n_models: int, feature_dim: int, horizon: int) -> size.Footprint:
        """State: ``G``, its pending batch and ``V^{-1}``, ``n_models D^2`` floats each; work per round: the
        report's noise (``n_models D^2``) and one refit (``n_models D^3``) per batch [derived]."""
        d2 = n_models * feature_dim**2
        refit = n_models * feature_dim**3 / self.batch
        per_arm = self.observation_model == "per_arm"
        return size.Footprint(4 * d2 * size.FLOAT, 3 * d2 + refit, n_arms * dim if per_arm else dim)

    # -- statistics ------------------------------------------------------------------------------
    def update(self, observation: np.ndarray, action: int, reward: float, user_id: int | None = None) -> None:
        """One user's round: clip the reward to [-B, B], randomise ``(f f^T, f r)`` of the played arm's
        features, queue the report; publish the batch when it is full."""
        action = self.check_action(action)
        reward = _validate.finite(reward=reward)
        count_report(self._reports, user_id, self.reports_per_user)
        feature = self._arm_features(observation)[action]
        clipped = min(max(self.centring.rewards(reward), -self.reward_bound), self.reward_bound)
        model = self._model_of(action)
        if self.noise:
            gram, vec = self.randomizer.randomize(self._noise_rng, feature, clipped, model)
        else:
            feature, clipped = self.randomizer.check(feature, clipped)
            gram = np.zeros_like(self._pending_gram)
            vec = np.zeros_like(self._pending_u)
            gram[model] = np.outer(feature, feature)
            vec[model] = clipped * feature
        self._pending_gram += gram
        self._pending_u += vec
        self.pending += 1
        self.t += 1
        if self.pending == self.batch:
            self._publish()

    def _publish(self) -> None:
        """Fold the pending reports into ``G`` and ``u`` and refit ``theta_hat`` and ``V^{-1}``."""
        self.gram += self._pending_gram
        self._u_published += self._pending_u
        self.published += self.pending
        self._pending_gram[:] = 0.0
        self._pending_u[:] = 0.0
        self.pending = 0
        eye = np.eye(self.gram.shape[-1])
        v_mat = self.gram + self.regularization * eye
        v_mat = 0.5 * (v_mat + np.swapaxes(v_mat, -1, -2))
        self.v_inv = np.linalg.inv(v_mat)
        self.u = self._u_published.copy()
        self.theta_hat = np.einsum("mij,mj->mi", self.v_inv, self.u)

    def _width(self) -> float:
        """``sqrt(gamma) S + noise_std sqrt(D log((1 + t L^2 / gamma) / confidence))`` (module docstring)."""
        D = self.gram.shape[-1]
        confidence = 1.0 / max(self.horizon, 2)
        log_term = math.log((1.0 + self.published * self.feature_bound**2 / self.gamma) / confidence)
        return math.sqrt(self.gamma) * self.param_bound + self.noise_std * math.sqrt(D * log_term)

    def play_block(
        self, observations: np.ndarray, rewards: np.ndarray, *, user_ids: np.ndarray | None = None,
        compiled: bool = True,
    ) -> np.ndarray:
        """``act`` then ``update`` round by round (``user_ids`` passed on to ``update``)."""
        del compiled
        X = np.asarray(observations, dtype=float)
        R = np.asarray(rewards, dtype=float)
        if R.shape != (X.shape[0], self.n_arms):
            raise ValueError(f"Expected rewards of shape ({X.shape[0]}, {self.n_arms}), got {R.shape}.")
        actions = np.empty(len(X), dtype=np.int64)
        for s, observation in enumerate(X):
            action = self.act(observation)
            self.update(observation, action, float(R[s, action]),
                        user_id=None if user_ids is None else int(user_ids[s]))
            actions[s] = action
        return actions

    # -- privacy ---------------------------------------------------------------------------------
    def _guarantee(self, *, epsilon: float, accountant: str, calibration: str, notes: str,
                   local_epsilon: float, sensitivity: str | None = None) -> PrivacyGuarantee | None:
        if not self.noise:
            return None
        if self.calibration == "authors":
            notes = ("calibration='authors': the authors' code's noise; claimed_epsilon is THEIR claim, epsilon "
                     f"what we certify for that noise. {notes}")
        sensitivity = sensitivity or f"l2 sensitivity {self.randomizer.sensitivity:.4g} per report"
        return PrivacyGuarantee(
            mechanism=self.mechanism + (" [authors' calibration]" if self.calibration == "authors" else ""),
            claimed_epsilon=self.epsilon,
            claimed_delta=self.delta,
            epsilon=epsilon,
            relation=f"replace one user's reports ({sensitivity}, {self.reports_per_user or 1} report(s) per user)",
            accountant=accountant,
            calibration=calibration,
            notes=notes,
            user_epsilon=math.inf if self.reports_per_user is None else epsilon,
            max_rounds_per_user=self.reports_per_user,
            trust_model=self.trust_model,
            local_epsilon=local_epsilon,
        )

    @property
    def params(self) -> dict[str, Any]:
        """Identifying hyper-parameters."""
        return {
            **{k: v for k, v in super().params.items() if k != "regularization"},
            "epsilon": self.epsilon,
            "delta": self.delta,
            "noise_std": self.noise_std,
            "param_bound": self.param_bound,
            "feature_bound": self.feature_bound,
            "reward_bound": self.reward_bound,
            "reports_per_user": self.reports_per_user,
            "batch": self.batch,
            "noise": self.noise,
            "calibration": self.calibration,
        }
