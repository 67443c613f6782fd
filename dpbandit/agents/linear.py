"""Linear-UCB family: one scoring rule, with the statistics and the width as hooks.

Every agent here scores arm ``k`` as ``<f_k, theta_hat> + width * ||f_k||_{V^{-1}}`` and pulls the
arg-max (ties broken at random with the agent's generator). They differ only in

* where the features ``f_k`` and the model of arm ``k`` come from (``_arm_features``):
  the *disjoint* form keeps one ridge model per arm on the shared context (Li et al. 2010,
  "A contextual-bandit approach to personalized news article recommendation", Algorithm 1), the
  *shared-parameter* form keeps one model on per-arm features (Abbasi-Yadkori, Pal and Szepesvari
  2011, "Improved algorithms for linear stochastic bandits", OFUL);
* how the ridge statistics are kept (``_mean_and_variance`` / ``_record``): exact Sherman-Morrison
  updates here, tree-noised statistics with Cholesky solves in :class:`dpbandit.agents.dpucb.DPUCB`;
* the width (``_width``): a constant ``alpha``, zero for greedy least squares, or OFUL's beta_t.

Every one takes ``centring`` (:mod:`dpbandit.agents.centring`, issue 40 item 4): the rewards as they come
(``"none"``, the published algorithms and the default here), centred at the declared ``reward_range``'s
midpoint (``"range"``), or with a fitted intercept (``"intercept"``: a constant feature appended).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from dpbandit import _validate
from dpbandit.agents.base import Agent
from dpbandit.agents import size
from dpbandit.agents.centring import RewardCentring


def play_loop(agent: Agent, observations: np.ndarray, rewards: np.ndarray) -> np.ndarray:
    """The pure-numpy block path: ``act`` then ``update`` with ``rewards[s, action]``, round by round."""
    actions = np.empty(len(observations), dtype=np.int64)
    for s, observation in enumerate(observations):
        action = agent.act(observation)
        agent.update(observation, action, float(rewards[s, action]))
        actions[s] = action
    return actions


def shared_block(agent: Agent, observations: np.ndarray, rewards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``play_block``'s inputs on a shared context, as finite float arrays: contexts ``(m, d)``, rewards
    ``(m, K)`` (checked before any compiled path: a kernel would carry a NaN into its state silently)."""
    X = np.asarray(observations, dtype=float)
    R = np.asarray(rewards, dtype=float)
    if X.ndim != 2 or X.shape[1] != agent.dim or R.shape != (X.shape[0], agent.n_arms):
        raise ValueError(
            f"Expected observations (m, {agent.dim}) and rewards (m, {agent.n_arms}), "
            f"got {X.shape} and {R.shape}."
        )
    return _validate.finite_array(observations=X), _validate.finite_array(rewards=R)


class LinearUCBAgent(Agent):
    """Shared maths of the linear-UCB family; subclasses choose features, statistics and width.

    State: ``n_models`` ridge models of dimension ``feature_dim`` with ``V = lambda I + sum f f^T``
    (kept as its inverse via Sherman-Morrison) and ``u = sum r f``. Sized before it allocates
    (:meth:`footprint`, :mod:`dpbandit.agents.size`): at d = 5000, K = 10 it refuses.
    """

    #: The agents a refused size points to (:mod:`dpbandit.agents.size`).
    instead: ClassVar[str] = "linucb-diag (LinUCB with a diagonal Gram: K d floats) or private"
    #: Whether the size guard bounds the work per round as well as the state.
    limit_work: ClassVar[bool] = True
    #: ``centring`` when none is given and a reward range is declared (:mod:`dpbandit.agents.centring`).
    default_centring: ClassVar[str] = "none"

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        horizon: int | None = None,
        regularization: float = 1.0,
        reward_range: tuple[float, float] | None = None,
        centring: str | None = None,
    ) -> None:
        super().__init__(n_arms, dim, rng=rng, horizon=horizon)
        self.regularization = _validate.positive(regularization=regularization)
        #: What each reward and feature row enter the ridge as (:mod:`dpbandit.agents.centring`).
        self.centring = RewardCentring.make(centring, reward_range, default=self.default_centring)
        size.check(type(self).__name__, self.footprint(), n_arms=self.n_arms, dim=self.dim,
                   per_arm=self.observation_model == "per_arm", instead=self.instead, limit_work=self.limit_work)
        self.t = 0
        self._tie_rng = self.rng  # subclasses may give tie-breaking its own stream
        n_models, feature_dim = self._model_shape()
        self.u = np.zeros((n_models, feature_dim))
        self.theta_hat = np.zeros((n_models, feature_dim))
        self._init_statistics(n_models, feature_dim)

    def footprint(self) -> size.Footprint:
        """Size of a run (read before anything is allocated): ``n_models`` models of ``F`` features,
        state ``8 n_models (F^2 + 2F)`` bytes (``V^{-1}``, ``u``, ``theta_hat``); work per round: every arm's
        width ``n_arms F^2`` and the rank-one update ``3 F^2``."""
        n_models, F = self._model_shape()
        input_per_round = self.dim if self.observation_model == "shared" else self.n_arms * self.dim
        return size.Footprint(size.FLOAT * n_models * (F * F + 2 * F), (self.n_arms + 3) * F * F, input_per_round)

    # -- hooks ---------------------------------------------------------------------------------
    def _init_statistics(self, n_models: int, feature_dim: int) -> None:
        """Allocate the exact ridge statistics: ``V^{-1} = I / lambda`` per model (Sherman-Morrison form)."""
        self.v_inv = np.tile(np.eye(feature_dim) / self.regularization, (n_models, 1, 1))

    def _model_shape(self) -> tuple[int, int]:
        """Return ``(n_models, feature_dim)``: ``(n_arms, dim)`` for the disjoint form (one more column with an
        intercept)."""
        return self.n_arms, self.centring.feature_dim(self.dim)

    def _arm_features(self, observation: np.ndarray) -> np.ndarray:
        """Return the feature row of every arm, shape ``(n_arms, feature_dim)``."""
        x = _validate.finite_array(observation=observation, shape=(self.dim,))
        return np.broadcast_to(x, (self.n_arms, self.dim))

    def _model_of(self, action: int) -> int:
        """Index of the ridge model that learns from ``action``'s rounds."""
        return action if self.u.shape[0] == self.n_arms else 0

    def _mean_and_variance(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return ``<f_k, theta_hat_{m(k)}>`` and ``||f_k||^2_{V_{m(k)}^{-1}}`` for every arm."""
        if self.u.shape[0] == 1:
            mean = features @ self.theta_hat[0]
            variance = np.einsum("ki,ki->k", features @ self.v_inv[0], features)  # BLAS product first
        else:
            mean = np.einsum("ki,ki->k", features, self.theta_hat)
            variance = np.einsum("ki,kij,kj->k", features, self.v_inv, features)
        return mean, variance

    def _record(self, model: int, feature: np.ndarray, reward: float) -> None:
        """Add ``(feature, reward)`` to model ``model`` (Sherman-Morrison rank-one update)."""
        v_inv = self.v_inv[model]
        vf = v_inv @ feature
        v_inv -= np.outer(vf / (1.0 + feature @ vf), vf)
        self.u[model] += reward * feature
        self.theta_hat[model] = v_inv @ self.u[model]

    def _width(self) -> float:
        """Multiplier of the confidence width at the current round."""
        raise NotImplementedError

    def _break_tie(self, candidates: np.ndarray) -> int:
        """Pick one of several arms with the same score, uniformly, from the tie-breaking stream."""
        return int(self._tie_rng.choice(candidates))

    # -- contract ------------------------------------------------------------------------------
    def act(self, observation: np.ndarray) -> int:
        """Pull the arm with the largest upper confidence bound (random tie-breaking)."""
        features = self.centring.features(self._arm_features(observation))
        mean, variance = self._mean_and_variance(features)
        width = self._width()
        scores = mean if width == 0.0 else mean + width * np.sqrt(np.maximum(variance, 0.0))
        best = np.flatnonzero(scores == scores.max())
        return int(best[0] if best.size == 1 else self._break_tie(best))

    def update(self, observation: np.ndarray, action: int, reward: float) -> None:
        """Learn from ``(observation, action, reward)``."""
        action = self.check_action(action)
        reward = _validate.finite(reward=reward)
        features = self.centring.features(self._arm_features(observation))
        self._record(self._model_of(action), features[action], self.centring.rewards(reward))
        self.t += 1

    def play_block(
        self, observations: np.ndarray, rewards: np.ndarray, *, compiled: bool = True
    ) -> np.ndarray:
        """Play rounds: observations ``(m, ...)``, every arm's reward ``(m, K)`` -> actions ``(m,)``.

        Equivalent to ``act`` then ``update`` with ``rewards[s, action]`` round by round (the
        pure-numpy path, ``compiled=False``, also used by agents without a kernel). Disjoint
        :class:`LinUCB` and :class:`GreedyLeastSquares` run :mod:`dpbandit.agents.kernels.linucb`,
        which breaks ties with the same generator, so the actions are identical.
        """
        X = np.asarray(observations, dtype=float)
        R = np.asarray(rewards, dtype=float)
        if R.shape != (X.shape[0], self.n_arms):
            raise ValueError(f"Expected rewards of shape ({X.shape[0]}, {self.n_arms}), got {R.shape}.")
        if not compiled or type(self) not in (LinUCB, GreedyLeastSquares):
            return play_loop(self, X, R)
        if X.shape[1:] != (self.dim,):
            raise ValueError(f"Expected observations of shape (m, {self.dim}), got {X.shape}.")
        if not (np.all(np.isfinite(X)) and np.all(np.isfinite(R))):
            raise ValueError("Expected finite observations and rewards.")
        X, R = self.centring.features(X), self.centring.rewards(R)
        from dpbandit.agents import kernels
        from dpbandit.agents.kernels.linucb import play

        actions = np.empty(X.shape[0], dtype=np.int64)
        ties = np.empty(self.n_arms, dtype=np.int64)
        start, chosen = 0, -1
        while start < X.shape[0]:
            status, stop, n = play(X, R, actions, start, chosen, self.v_inv, self.u, self.theta_hat,
                                   float(self._width()), ties)
            self.t += stop - start
            start, chosen = stop, -1
            if status == kernels.TIE:
                chosen = self._break_tie(ties[:n].copy())
        return actions

    @property
    def params(self) -> dict[str, Any]:
        """Identifying hyper-parameters."""
        return {**super().params, "regularization": self.regularization, "centring": self.centring.mode}


class LinUCB(LinearUCBAgent):
    """Disjoint LinUCB (Li et al. 2010, Algorithm 1): one ridge model per arm on the shared context.

    Args:
        alpha: constant confidence-width multiplier (>= 0; Li et al.'s alpha).
        regularization: ridge parameter lambda (> 0).
        reward_range: the environment's declared ``(low, high)`` (the harness passes it).
        centring: ``"none"`` (default: Li et al. as published), ``"range"`` or ``"intercept"``
            (:mod:`dpbandit.agents.centring`).

    Example:
        >>> import numpy as np
        >>> agent = LinUCB(3, 2, rng=np.random.default_rng(0))
        >>> agent.act(np.array([1.0, 0.0])) in (0, 1, 2)
        True
    """

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        horizon: int | None = None,
        alpha: float = 1.0,
        regularization: float = 1.0,
        reward_range: tuple[float, float] | None = None,
        centring: str | None = None,
    ) -> None:
        super().__init__(n_arms, dim, rng=rng, horizon=horizon, regularization=regularization,
                         reward_range=reward_range, centring=centring)
        self.alpha = _validate.nonnegative(alpha=alpha)

    def _width(self) -> float:
        return self.alpha

    @property
    def params(self) -> dict[str, Any]:
        """Identifying hyper-parameters."""
        return {**super().params, "alpha": self.alpha}


class GreedyLeastSquares(LinUCB):
    """Greedy per-arm ridge regression: LinUCB with zero width (exploits the current estimates)."""

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        horizon: int | None = None,
        regularization: float = 1.0,
        reward_range: tuple[float, float] | None = None,
        centring: str | None = None,
    ) -> None:
        super().__init__(n_arms, dim, rng=rng, horizon=horizon, alpha=0.0, regularization=regularization,
                         reward_range=reward_range, centring=centring)


class PerArmFeatures:
    """Mixin of the shared-parameter form: one model on per-arm features ``X_t`` of shape ``(n_arms, dim)``."""

    observation_model = "per_arm"
    n_arms: int
    dim: int
    centring: RewardCentring

    def _model_shape(self) -> tuple[int, int]:
        return 1, self.centring.feature_dim(self.dim)

    def _arm_features(self, observation: np.ndarray) -> np.ndarray:
        return _validate.finite_array(observation=observation, shape=(self.n_arms, self.dim))


class SharedLinUCB(PerArmFeatures, LinUCB):
    """LinUCB with one shared parameter on per-arm features ``X_t`` of shape ``(n_arms, dim)``."""

    instead = "linucb-diag (on a shared context: a diagonal Gram per arm) or private-perarm"


class OFUL(SharedLinUCB):
    """OFUL (Abbasi-Yadkori et al. 2011, Theorem 2): shared-parameter LinUCB with the width

    ``beta_t = noise_std * sqrt(dim * log((1 + t * feature_bound^2 / lambda) / confidence))
    + sqrt(lambda) * param_bound``.

    Args:
        noise_std: sub-Gaussian scale R of the reward noise (> 0).
        param_bound: bound S on ``||theta*||_2`` (> 0).
        feature_bound: bound L on ``||x||_2`` (> 0).
        confidence: failure probability delta of the confidence ellipsoid, in (0, 1).
        reward_range, centring: as :class:`LinUCB` (with an intercept, ``dim`` in the width counts it).
    """

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        horizon: int | None = None,
        noise_std: float = 0.1,
        param_bound: float = 1.0,
        feature_bound: float = 1.0,
        confidence: float = 0.01,
        regularization: float = 1.0,
        reward_range: tuple[float, float] | None = None,
        centring: str | None = None,
    ) -> None:
        super().__init__(n_arms, dim, rng=rng, horizon=horizon, alpha=0.0, regularization=regularization,
                         reward_range=reward_range, centring=centring)
        self.noise_std = _validate.positive(noise_std=noise_std)
        self.param_bound = _validate.positive(param_bound=param_bound)
        self.feature_bound = _validate.positive(feature_bound=feature_bound)
        self.confidence = _validate.probability(confidence=confidence)

    def _width(self) -> float:
        lam = self.regularization
        log_term = math.log((1.0 + self.t * self.feature_bound**2 / lam) / self.confidence)
        return self.noise_std * math.sqrt(self.u.shape[1] * log_term) + math.sqrt(lam) * self.param_bound

