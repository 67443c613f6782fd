"""LDP-SGD (Han, Liang, Wang and Zhang, NeurIPS 2021) and its shuffle form: greedy GLM bandits on privatised gradients.

"Generalized linear bandits with local differential privacy" (arXiv 2106.03365). The paper's text was not
reachable here; the agent follows the authors' public code [C] (``liangzp/LDP-Bandit``, commit 62d90936,
``Scheme1/``; file and line for every constant):

* policy: greedy, ``argmax_k <x_k, theta>`` (``servers/LDP_servers.py:185-193``, ``GreedySGDServer.decide``;
  the first of tied arms, as ``np.argmax``);
* start: ``theta_0 = g / ||g||``, ``g ~ N(0, I_d)`` (lines 169-170), drawn from the agent's own stream;
* the user's report: the gradient of the GLM loss at the played arm, ``(mu(clip(<x, theta>, -20, 20)) - r) x``
  (``mechanisms/LDP.py:54``), through the l2-ball randomizer of Duchi et al. (lines 50-66,
  :class:`dpbandit.privacy.l2ball.L2BallRandomizer`) with the code's unstated clip to norm 1 as the explicit
  ``gradient_clip`` (default 1.0);
* the server: ``theta <- theta - eta_t (z + lambda theta)``, ``eta_t = 5 / (t + 1)`` with ``t = 0, 1, ...``
  (lines 197-198, ``eta_constant = 5`` on lines 175, 179, 183); ridge ``lambda = 0`` for the identity link
  (line 174), ``0.05`` for the exponential (Poisson, line 178) and logistic (line 182) links.

Forms. Per-arm features ``(K, d)`` with one parameter (``ldp-sgd``: their setting, Figures 6-8), and the
disjoint form on a shared context (``ldp-sgd-disjoint``): one parameter per arm, the report is the block
feature ``e_a (x) x`` gradient of length ``K d`` (the played arm's block holds the gradient, the others
zero), randomised as one vector, so the report does not reveal the arm [derived]; the start is the
authors' start per arm.

Privacy. Each report is pure ``epsilon``-LDP (:mod:`dpbandit.privacy.l2ball`); a user who sends
``reports_per_user = m`` reports gets ``epsilon / m`` per report. dp_accounting's PLD accountant certifies the
composition at delta 0 (:func:`dpbandit.privacy.l2ball.pure_epsilon`). The server only post-processes the
reports, so the run is ``epsilon``-LDP and joint DP at the same level.

Shuffle form (``shuffle-sgd``, ours, issue 37 item 3): users are grouped in batches of ``B``; within a batch the
parameter is fixed; a trusted shuffler permutes the batch's reports and the server takes one step on their
mean, ``eta_s = 5 / (s + 1)`` for its ``s``-th step [Fill: the authors' schedule per server step]. Each report
is pure ``eps0``-LDP with ``eps0`` the largest local epsilon whose shuffled batch is ``(epsilon, delta)``-DP by
the numerical clone bound of Feldman, McMillan and Talwar (2021, Theorem 3.2;
:func:`dpbandit.privacy.shuffle.largest_local_epsilon`). Each user is in one batch, so one batch's guarantee
is the run's (parallel composition; later batches post-process it). Default ``B = ceil(T^(3/5))`` [Fill, as
``shuffle-linucb``]. A P_Vec form (:mod:`dpbandit.privacy.vector_sum`) is not added: the report is already a
bounded vector and the clone bound amplifies the pure randomizer directly.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from dpbandit import _validate
from dpbandit.agents.base import Agent
from dpbandit.agents.trust.reports import count_report
from dpbandit.envs.links import Link, get_link
from dpbandit.privacy.accounting import MAX_PURE_EPSILON
from dpbandit.privacy.budget import check_delta, require_calibratable_epsilon
from dpbandit.privacy.guarantee import PrivacyGuarantee
from dpbandit.privacy.l2ball import L2BallRandomizer, pure_epsilon
from dpbandit.privacy.shuffle import clone_delta, largest_local_epsilon, shuffle_epsilon

__all__ = ["AUTHORS_RIDGE", "LocalSGD", "LocalSGDDisjoint", "ShuffleSGD", "ShuffleSGDDisjoint"]

#: Ridge of the authors' server by link [C, LDP_servers.py:174, 178, 182].
AUTHORS_RIDGE = {"identity": 0.0, "exponential": 0.05, "logistic": 0.05}
#: Step constant [C, LDP_servers.py:175, 179, 183] and the clip of the linear predictor [C, LDP.py:54].
AUTHORS_STEP = 5.0
AUTHORS_LINEAR_CLIP = 20.0


class _GradientReports(Agent):
    """Greedy GLM agent stepping on privatised gradients published in batches (module docstring).

    Args:
        n_arms, dim, rng, horizon: as for every agent.
        epsilon: the guarantee (local: each user's; shuffle: central after shuffling).
        link: GLM inverse link, a name of :data:`dpbandit.envs.links.LINKS` (``"identity"``, ``"logistic"``,
            ``"exponential"`` for Poisson rewards) or a :class:`~dpbandit.envs.links.Link`.
        step: ``c`` of ``eta = c / (s + 1)`` (authors: 5).
        ridge: ``lambda`` (``None``: the authors' value for the link, :data:`AUTHORS_RIDGE`; a custom link needs it).
        gradient_clip: ``C``, the norm a gradient is clipped to before it is randomised (authors: 1, unstated).
        linear_clip: the linear predictor is clipped to ``[-c, c]`` inside the link (authors: 20).
        reports_per_user: reports one user may send (``None``: one per privacy unit, as ``ldp-linucb``).
        noise: ``False`` = debugging switch: exact clipped gradients, no privacy.
    """

    trust_model: ClassVar[str] = "local"
    mechanism: ClassVar[str] = ""
    batch: int = 1

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        horizon: int | None = None,
        epsilon: float = 1.0,
        link: str | Link = "identity",
        step: float = AUTHORS_STEP,
        ridge: float | None = None,
        gradient_clip: float = 1.0,
        linear_clip: float = AUTHORS_LINEAR_CLIP,
        reports_per_user: int | None = None,
        noise: bool = True,
    ) -> None:
        super().__init__(n_arms, dim, rng=rng, horizon=horizon)
        self.epsilon = _validate.positive(epsilon=epsilon)
        self.link = get_link(link)
        if ridge is None and self.link.name not in AUTHORS_RIDGE:
            raise ValueError(f"Expected ridge for the custom link {self.link.name!r} (authors' values: {AUTHORS_RIDGE}).")
        self.ridge = AUTHORS_RIDGE.get(self.link.name, 0.0) if ridge is None else _validate.nonnegative(ridge=ridge)
        self.step = _validate.positive(step=step)
        self.gradient_clip = _validate.positive(gradient_clip=gradient_clip)
        self.linear_clip = _validate.positive(linear_clip=linear_clip)
        self.reports_per_user = (
            None if reports_per_user is None else _validate.integer(reports_per_user=reports_per_user, minimum=1)
        )
        self.noise = bool(noise)
        self._start_rng, self._noise_rng = self.rng.spawn(2)
        n_models = self._n_models()
        start = self._start_rng.standard_normal((n_models, dim))
        self.theta = start / np.linalg.norm(start, axis=1, keepdims=True)  # LDP_servers.py:169-170
        self.randomizer = L2BallRandomizer(n_models * dim, self._report_epsilon(), self.gradient_clip)
        self._pending = np.zeros(n_models * dim)
        self.pending = 0
        self.steps = 0
        self.t = 0
        self._reports: dict[int, int] = {}

    # -- hooks -----------------------------------------------------------------------------------
    def _n_models(self) -> int:
        """Parameters kept: 1 (per-arm features) or ``n_arms`` (disjoint form)."""
        raise NotImplementedError

    def _arm_features(self, observation: np.ndarray) -> np.ndarray:
        """Every arm's feature row ``(K, d)``."""
        raise NotImplementedError

    def _report_epsilon(self) -> float:
        """Pure epsilon of one report of the randomizer."""
        raise NotImplementedError

    # -- contract --------------------------------------------------------------------------------
    def act(self, observation: np.ndarray) -> int:
        """Greedy: the first arm with the largest ``<x_k, theta_k>`` (LDP_servers.py:185-193)."""
        return self._act(self._arm_features(observation))

    def _act(self, features: np.ndarray) -> int:
        if self.theta.shape[0] == 1:
            return int(np.argmax(features @ self.theta[0]))
        return int(np.argmax(np.einsum("kd,kd->k", features, self.theta)))

    def gradient(self, observation: np.ndarray, action: int, reward: float) -> np.ndarray:
        """The report's input, flattened ``(n_models * d,)``: ``(mu(clip(<x, theta>)) - r) x`` in the played
        arm's block (LDP.py:54)."""
        action = self.check_action(action)
        return self._gradient(self._arm_features(observation), action, _validate.finite(reward=reward))

    def _gradient(self, features: np.ndarray, action: int, reward: float) -> np.ndarray:
        model = action if self.theta.shape[0] > 1 else 0
        x = features[action]
        z = min(max(float(x @ self.theta[model]), -self.linear_clip), self.linear_clip)
        out = np.zeros_like(self.theta)
        out[model] = (float(self.link.mean(np.asarray(z))) - reward) * x
        return out.ravel()

    def update(self, observation: np.ndarray, action: int, reward: float, user_id: int | None = None) -> None:
        """One user's report: randomise the gradient, queue it; step on the batch's mean when it is full."""
        self._update(self._arm_features(observation), self.check_action(action), _validate.finite(reward=reward),
                     user_id)

    def _update(self, features: np.ndarray, action: int, reward: float, user_id: int | None) -> None:
        g = self._gradient(features, action, reward)
        count_report(self._reports, user_id, self.reports_per_user)
        report = self.randomizer.randomize(self._noise_rng, g) if self.noise else self.randomizer.clipped(g)
        self._pending += report
        self.pending += 1
        self.t += 1
        if self.pending == self.batch:
            self._publish()

    def _publish(self) -> None:
        """``theta <- theta - eta_s (mean report + lambda theta)``, ``eta_s = step / (s + 1)`` (LDP_servers.py:197-198)."""
        eta = self.step / (self.steps + 1)
        mean = (self._pending / self.pending).reshape(self.theta.shape)
        self.theta = self.theta - eta * (mean + self.ridge * self.theta)
        self._pending[:] = 0.0
        self.pending = 0
        self.steps += 1

    def play_block(self, observations: np.ndarray, rewards: np.ndarray, *, user_ids: np.ndarray | None = None,
                   compiled: bool = True) -> np.ndarray:
        """``act`` then ``update`` round by round (``user_ids`` passed on); the block is validated once."""
        del compiled
        shape = (self.n_arms, self.dim) if self.observation_model == "per_arm" else (self.dim,)
        X = _validate.finite_array(observations=observations)
        R = _validate.finite_array(rewards=rewards)
        if X.shape[1:] != shape or R.shape != (X.shape[0], self.n_arms):
            raise ValueError(f"Expected observations (m, {', '.join(map(str, shape))}) and rewards "
                             f"(m, {self.n_arms}), got {X.shape} and {R.shape}.")
        actions = np.empty(len(X), dtype=np.int64)
        for s, observation in enumerate(X):
            features = self._block_features(observation)
            a = actions[s] = self._act(features)
            self._update(features, int(a), float(R[s, a]), None if user_ids is None else int(user_ids[s]))
        return actions

    def _block_features(self, observation: np.ndarray) -> np.ndarray:
        """Features of an already validated observation."""
        return observation if self.observation_model == "per_arm" else np.broadcast_to(
            observation, (self.n_arms, self.dim))

    # -- privacy ---------------------------------------------------------------------------------
    @property
    def _per_user(self) -> int:
        return self.reports_per_user or 1

    @property
    def params(self) -> dict[str, Any]:
        """Identifying hyper-parameters."""
        return {**super().params, "epsilon": self.epsilon, "link": self.link.name, "step": self.step,
                "ridge": self.ridge, "gradient_clip": self.gradient_clip, "linear_clip": self.linear_clip,
                "reports_per_user": self.reports_per_user, "batch": self.batch, "noise": self.noise}


class _PerArm:
    """Per-arm features ``(K, d)``, one parameter (the authors' setting)."""

    observation_model = "per_arm"
    n_arms: int
    dim: int

    def _n_models(self) -> int:
        return 1

    def _arm_features(self, observation: np.ndarray) -> np.ndarray:
        return _validate.finite_array(observation=observation, shape=(self.n_arms, self.dim))


class _Disjoint:
    """Shared context ``(d,)``, one parameter per arm; the report spans every arm's block."""

    observation_model = "shared"
    n_arms: int
    dim: int

    def _n_models(self) -> int:
        return self.n_arms

    def _arm_features(self, observation: np.ndarray) -> np.ndarray:
        x = _validate.finite_array(observation=observation, shape=(self.dim,))
        return np.broadcast_to(x, (self.n_arms, self.dim))


class _Local(_GradientReports):
    """Local model: every report is published at once; the randomizer spends the user's whole budget."""

    def _report_epsilon(self) -> float:
        require_calibratable_epsilon(
            type(self).__name__, self.epsilon, MAX_PURE_EPSILON,
            "its accountant composes the reports as randomized response, whose flip probability 1/(e^epsilon + 1) "
            "underflows above it",
            "noise=False (no noise, no privacy) still sizes the randomizer by this calibration, so it needs the "
            "same limit")
        return self.epsilon / self._per_user

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """Pure LDP of one user's reports: dp_accounting PLD at delta 0 (:func:`~dpbandit.privacy.l2ball.pure_epsilon`)."""
        if not self.noise:
            return None
        m = self._per_user
        eps = pure_epsilon(self.randomizer.epsilon, m)
        return PrivacyGuarantee(
            mechanism=self.mechanism, claimed_epsilon=self.epsilon, claimed_delta=0.0, epsilon=eps,
            relation=f"replace one user's reports (gradient clipped to norm {self.gradient_clip:g}; "
                     f"{m} report(s) per user)",
            accountant="pld at delta 0 (randomized response, dp_accounting)",
            calibration=f"l2-ball radius {self.randomizer.radius:.4g}, hemisphere probability "
                        f"{self.randomizer.hemisphere:.4g} (pure eps {self.randomizer.epsilon:.4g} per report)",
            notes="each report is pure-DP on its own (local model), which implies joint DP at the same level.",
            user_epsilon=math.inf if self.reports_per_user is None else eps,
            max_rounds_per_user=self.reports_per_user, trust_model="local", local_epsilon=eps,
        )


class LocalSGD(_PerArm, _Local):
    """LDP-SGD (Han et al. 2021, authors' code ``GreedySGDServer`` + ``SGDLDPMechanism``): per-arm features."""

    mechanism = "LDP-SGD (Han et al. 2021): l2-ball randomised GLM gradients"


class LocalSGDDisjoint(_Disjoint, _Local):
    """LDP-SGD on a shared context, one parameter per arm (every block randomised together)."""

    mechanism = "LDP-SGD disjoint (per-arm models; l2-ball randomised block gradients)"


class _Shuffled(_GradientReports):
    """Shuffle model: batches of ``batch`` reports, one step on each batch's mean.

    Extra args: ``delta`` (central, default ``1/T``), ``batch`` (default ``ceil(T^(3/5))`` [Fill]). With
    ``reports_per_user = m`` each batch gets ``(epsilon/m, delta/m)`` (basic composition [O]).
    """

    trust_model = "shuffle"

    def __init__(self, n_arms: int, dim: int, *, rng: np.random.Generator, horizon: int | None = None,
                 delta: float | None = None, batch: int | None = None, **kwargs: Any) -> None:
        if horizon is None:
            raise ValueError(f"{type(self).__name__} needs horizon=T (its batch and delta default to it).")
        horizon = _validate.integer(horizon=horizon, minimum=1)
        self.batch = _validate.integer(batch=math.ceil(horizon**0.6) if batch is None else batch, minimum=1)
        self.delta = check_delta(1.0 / max(horizon, 2) if delta is None else delta, horizon,
                                 owner=type(self).__name__)
        super().__init__(n_arms, dim, rng=rng, horizon=horizon, **kwargs)

    #: Largest epsilon calibrated (issue 38 item 1), as P_Amp's (:class:`~dpbandit.agents.trust.shuffle.ShuffleLinUCB`).
    max_epsilon: ClassVar[float] = 300.0
    max_epsilon_reason: ClassVar[str] = (
        "the FMT21 clone bound of its calibration evaluates e^epsilon0 at local epsilon0 up to twice epsilon, "
        "which overflows a float above 709"
    )

    def _report_epsilon(self) -> float:
        require_calibratable_epsilon(
            type(self).__name__, self.epsilon, self.max_epsilon, self.max_epsilon_reason,
            "noise=False (no noise, no privacy) still sizes the randomizer by this calibration, so it needs the "
            "same limit")
        m = self._per_user
        return largest_local_epsilon(self.epsilon / m, self.delta / m, self.batch)

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """Central guarantee of one shuffled batch (FMT21 clone bound at the report's pure epsilon), times the
        batches a user may sit in; the local epsilon of one report from dp_accounting at delta 0."""
        if not self.noise:
            return None
        m = self._per_user
        local = pure_epsilon(self.randomizer.epsilon)
        per_batch = shuffle_epsilon(local, self.batch, self.delta / m)
        if clone_delta(self.randomizer.epsilon, self.batch, self.epsilon / m) <= self.delta / m:
            # the request itself is checked by the clone bound; shuffle_epsilon's bisection rounds up (1e-6
            # absolute, 1e-3 relative at epsilon 1e-3), which would state more than was asked (issue 38 item 1)
            per_batch = min(per_batch, self.epsilon / m)
        central = m * per_batch
        return PrivacyGuarantee(
            mechanism=self.mechanism, claimed_epsilon=self.epsilon, claimed_delta=self.delta, epsilon=central,
            relation=f"replace one user's reports (gradient clipped to norm {self.gradient_clip:g}; {m} report(s) "
                     "per user)",
            accountant="analytic: FMT21 Thm 3.2 numerical clone bound (pure local randomizer)",
            calibration=f"batch {self.batch}: pure local eps0 {self.randomizer.epsilon:.4g} per report, l2-ball "
                        f"radius {self.randomizer.radius:.4g}",
            notes=f"local epsilon of one report {local:.4g} (pld at delta 0); {m} batch(es) per user composed "
                  "(basic composition).",
            user_epsilon=math.inf if self.reports_per_user is None else central,
            max_rounds_per_user=self.reports_per_user, trust_model="shuffle", local_epsilon=local,
        )

    @property
    def params(self) -> dict[str, Any]:
        return {**super().params, "delta": self.delta}


class ShuffleSGD(_PerArm, _Shuffled):
    """Shuffle form of LDP-SGD (ours): per-arm features, shuffled batches of l2-ball reports."""

    mechanism = "shuffle-SGD: shuffled batches of l2-ball randomised GLM gradients (FMT21 amplification)"


class ShuffleSGDDisjoint(_Disjoint, _Shuffled):
    """Shuffle form of LDP-SGD on a shared context, one parameter per arm."""

    mechanism = "shuffle-SGD disjoint (per-arm models; shuffled l2-ball block gradients)"

