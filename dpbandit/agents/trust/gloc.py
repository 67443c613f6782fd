"""LDP-GLOC: Zheng et al.'s local GLM bandit as the public code of Han et al. has it (a baseline).

Zheng, Cai, Huang, Li and Wang (NeurIPS 2020, arXiv 2006.00701) give an ``(epsilon, delta)``-LDP GLM bandit; its
text was not reachable here. Han, Liang, Wang and Zhang's code (``liangzp/LDP-Bandit``, commit 62d90936) runs it
as their baseline "LDP-GLOC" [C]; this agent replicates that code (``Scheme1/servers/LDP_servers.py``
``LDPGLMServer`` lines 200-265, ``Scheme1/mechanisms/LDP.py`` ``GLMMechanism`` lines 69-98):

* the user plays ``argmax_k <x_k, theta_t> + beta_t ||x_k||_{(V + c I)^{-1}}`` (lines 235-247) and reports,
  with Gaussian noise, ``x x^T``, ``<x, theta_h> x`` and the gradient ``(mu(clip(<x, theta_h>, -5, 5)) - r) x``
  (LDP.py:88-97; ``theta_h`` is the server's online (SGD) estimate, ``theta_t`` the ridge fit of the
  reported predictions: an online-to-confidence-set conversion);
* the server adds the reports, ``theta_t = (V + c I)^{-1} u`` (line 256), then
  ``upsilon = sigma sqrt(t) (4 sqrt(d) + 2 ln(2T/alpha))``, ``c = 2 upsilon``,
  ``beta = sqrt(sigma / mu_min sqrt(d t))`` (lines 262-265) with ``alpha = 0.1`` (Scheme1/utils.py:77) and
  ``mu_min`` = 1 (identity), ``e^-1`` (exponential), ``e^-1 / (1 + e^-1)^2`` (logistic) (lines 222-230), and
  ``theta_h <- theta_h - zeta g`` with ``zeta = 1/sqrt(T)`` (lines 220, 259);
* starts: ``theta_h`` then ``theta_t``, each a normalised ``N(0, I)`` draw (lines 212-216).

``calibration="authors"`` is that code: per-entry std ``6 sqrt(2 ln(2.5/delta)) / epsilon`` on each of the three
parts (LDP.py:72; the Gram noise has i.i.d. upper-triangle entries mirrored, lines 78-82) and the server's
``sigma = 6 sqrt(2 ln(3.75/delta)) / epsilon`` (line 219). The report's sensitivity grows with
``||theta_h||``, which the code never bounds, and the gradient's with the reward, which is unbounded for
Poisson rewards: no epsilon is certified (``privacy.epsilon = inf``; the notes give the ex-post epsilon the
largest ``||theta_h||`` seen would give, which is data-dependent and not a guarantee).

The default (certified) form projects ``theta_h`` onto the ball of radius ``param_bound`` after each step
[derived: GLOC's online learner works on the parameter set] and clips rewards to ``[-reward_bound,
reward_bound]`` (stated, as ``ldp-linucb``); the report is then one Gaussian mechanism (Frobenius geometry on
the Gram part, as :mod:`dpbandit.privacy.local`) with the sensitivity :func:`gloc_sensitivity`, its std
calibrated by dp_accounting's PLD accountant; the server's ``sigma`` is the report's std.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

import numpy as np

from dpbandit import _validate
from dpbandit.agents import size
from dpbandit.agents.base import Agent
from dpbandit.agents.linear import PerArmFeatures
from dpbandit.agents.trust.reports import CALIBRATIONS, count_report
from dpbandit.envs.links import Link, get_link
from dpbandit.privacy.accounting import epsilon_for, gaussian_event, gaussian_sigma
from dpbandit.privacy.budget import check_delta
from dpbandit.privacy.guarantee import PrivacyGuarantee
from dpbandit.privacy.noise import symmetric_gaussian

__all__ = ["LocalGLOC", "authors_sigmas", "gloc_sensitivity"]

#: ``mu_min`` of the authors' server by link [C, LDP_servers.py:222-230].
AUTHORS_MU = {"identity": 1.0, "exponential": math.exp(-1.0),
              "logistic": math.exp(-1.0) / (math.exp(-1.0) + 1.0) ** 2}
#: The failure probability of the authors' runs [C, utils.py:77] and the predictor clip of the gradient [C, LDP.py:90].
AUTHORS_ALPHA = 0.1
AUTHORS_LINEAR_CLIP = 5.0


def authors_sigmas(epsilon: float, delta: float) -> tuple[float, float]:
    """(report std, server sigma) of the authors' code [C, LDP.py:72 and LDP_servers.py:219]."""
    return (6 * math.sqrt(2 * math.log(2.5 / delta)) / epsilon, 6 * math.sqrt(2 * math.log(3.75 / delta)) / epsilon)


def gloc_sensitivity(feature_bound: float, param_bound: float, reward_bound: float, link: Link) -> float:
    """l2-sensitivity of one report ``(x x^T, <x, theta> x, (mu(<x, theta>) - r) x)`` over ``||x|| <= L``,
    ``||theta|| <= S`` (the projection), ``|r| <= R`` [derived, each part's supremum bounded alone]:
    ``sqrt(2 L^4 + (L^2 S)^2 + (2 L G)^2)`` with ``G = sup |mu(z) - r|`` over ``|z| <= min(L S, 5)``. Gram:
    ``||x x^T - y y^T||_F^2 = |x|^4 + |y|^4 - 2 <x, y>^2 <= 2 L^4``; prediction: ``<x, theta> x - <y, theta> y =
    (x x^T - y y^T) theta`` and ``-y y^T <= x x^T - y y^T <= x x^T``, so its operator norm is at most ``L^2``;
    gradient: ``L |g_x| + L |g_y| <= 2 L G``. An upper bound, not tight: the brute-force search of
    tests/privacy/test_gloc.py finds suprema 1.19x to 1.66x below it (the parts peak at different pairs)."""
    L = _validate.positive(feature_bound=feature_bound)
    S = _validate.positive(param_bound=param_bound)
    R = _validate.nonnegative(reward_bound=reward_bound)
    z = min(L * S, AUTHORS_LINEAR_CLIP)
    lo, hi = (float(link.mean(np.asarray(s))) for s in (-z, z))
    G = max(hi + R, R - lo, abs(hi - lo))
    return math.sqrt(2 * L**4 + (L**2 * S) ** 2 + (2 * L * G) ** 2)


class LocalGLOC(PerArmFeatures, Agent):
    """LDP-GLOC (Zheng et al. 2020 as in Han et al.'s code; a baseline, module docstring): per-arm features.

    Args:
        n_arms, dim, rng, horizon (required: ``zeta`` and the width depend on it).
        epsilon, delta: the local guarantee (authors' delta: 0.01, utils.py:100; default ``1/T``).
        link: ``"identity"``, ``"logistic"`` or ``"exponential"``.
        feature_bound, param_bound, reward_bound: ``L``, ``S`` (the projection radius), ``R`` (rewards clipped to
            ``[-R, R]``) of the certified form; a feature row above ``L`` is an error.
        reports_per_user: reports one user may send (``None``: one per privacy unit).
        calibration: ``"certified"`` (default) or ``"authors"`` (module docstring; side by side only).
    """

    trust_model: ClassVar[str] = "local"
    mechanism: ClassVar[str] = "LDP-GLOC (Zheng et al. 2020, as in Han et al.'s code; baseline): Gaussian reports"

    def __init__(
        self, n_arms: int, dim: int, *, rng: np.random.Generator, horizon: int | None = None,
        epsilon: float = 1.0, delta: float | None = None, link: str | Link = "identity",
        feature_bound: float = 1.0, param_bound: float = 1.0, reward_bound: float = 1.0,
        reports_per_user: int | None = None, calibration: str = "certified",
    ) -> None:
        if horizon is None:
            raise ValueError("LocalGLOC needs horizon=T (its step 1/sqrt(T) and width depend on it).")
        super().__init__(n_arms, dim, rng=rng, horizon=horizon)
        # state: the Gram matrix and its shifted inverse; work per round: one d x d solve and inverse [derived]
        footprint = size.Footprint(2 * dim * dim * size.FLOAT, 2 * dim**3 + n_arms * dim**2, n_arms * dim)
        size.check("LocalGLOC", footprint, n_arms=n_arms, dim=dim, per_arm=True,
                   instead="ldp-sgd-disjoint (shared context, K d floats of state) or a smaller dim")
        self.epsilon = _validate.positive(epsilon=epsilon)
        self.delta = check_delta(1.0 / max(self.horizon, 2) if delta is None else delta, self.horizon,
                                 owner="LocalGLOC")
        self.link = get_link(link)
        if self.link.name not in AUTHORS_MU:
            raise ValueError(f"Expected link in {sorted(AUTHORS_MU)}, got link={self.link.name!r}.")
        self.feature_bound = _validate.positive(feature_bound=feature_bound)
        self.param_bound = _validate.positive(param_bound=param_bound)
        self.reward_bound = _validate.positive(reward_bound=reward_bound)
        self.reports_per_user = (
            None if reports_per_user is None else _validate.integer(reports_per_user=reports_per_user, minimum=1)
        )
        self.calibration = _validate.one_of(CALIBRATIONS, calibration=calibration)
        self.sensitivity = gloc_sensitivity(self.feature_bound, self.param_bound, self.reward_bound, self.link)
        if self.calibration == "authors":
            self.sigma, self.server_sigma = authors_sigmas(self.epsilon, self.delta)
        else:
            self.sigma = gaussian_sigma(self.epsilon, self.delta, self.sensitivity, self.reports_per_user or 1)
            self.server_sigma = self.sigma
        start_rng, self._noise_rng = self.rng.spawn(2)
        starts = start_rng.standard_normal((2, dim))
        self.theta_h, self.theta_t = starts / np.linalg.norm(starts, axis=1, keepdims=True)  # lines 212-216
        if self.calibration == "certified":
            self._project()
        self.zeta = 1.0 / math.sqrt(self.horizon)
        self.mu_min = AUTHORS_MU[self.link.name]
        self.gram = np.zeros((dim, dim))
        self.u = np.zeros(dim)
        self.t = 1
        self.max_theta_h = float(np.linalg.norm(self.theta_h))
        self._reports: dict[int, int] = {}
        self._update_params()

    def _project(self) -> None:
        """``theta_h`` onto the ball of radius ``param_bound`` (the certified form's premise)."""
        self.theta_h = self.theta_h * min(1.0, self.param_bound / max(float(np.linalg.norm(self.theta_h)), 1e-300))

    def _update_params(self) -> None:
        """LDP_servers.py:262-265."""
        s, d = self.server_sigma, self.dim
        self.upsilon = s * math.sqrt(self.t) * (4 * math.sqrt(d) + 2 * math.log(2 * self.horizon / AUTHORS_ALPHA))
        self.c = 2 * self.upsilon
        self.beta = math.sqrt(s / self.mu_min * math.sqrt(d * self.t))
        self.v_inv = np.linalg.inv(self.gram + self.c * np.eye(d))

    def act(self, observation: np.ndarray) -> int:
        """UCB on ``theta_t`` with ``(V + c I)^{-1}`` (lines 235-247)."""
        x = self._arm_features(observation)
        width = np.sqrt(np.maximum(np.einsum("ki,ij,kj->k", x, self.v_inv, x), 0.0))
        return int(np.argmax(x @ self.theta_t + self.beta * width))

    def report(self, x: np.ndarray, reward: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One user's noisy ``(x x^T, <x, theta_h> x, gradient)`` (LDP.py:88-97)."""
        pred = float(x @ self.theta_h)
        grad = (float(self.link.mean(np.asarray(np.clip(pred, -AUTHORS_LINEAR_CLIP, AUTHORS_LINEAR_CLIP))))
                - reward) * x
        s, d, rng = self.sigma, self.dim, self._noise_rng
        if self.calibration == "authors":  # i.i.d. upper triangle, mirrored (LDP.py:78-82)
            upper = np.triu(rng.normal(0.0, s, (d, d)))
            gram_noise = upper + np.triu(upper, 1).T
        else:  # isotropic std sigma in Frobenius geometry (dpbandit.privacy.local)
            gram_noise = symmetric_gaussian(rng, s / math.sqrt(2.0), d)
        return (np.outer(x, x) + gram_noise, pred * x + rng.normal(0.0, s, d), grad + rng.normal(0.0, s, d))

    def update(self, observation: np.ndarray, action: int, reward: float, user_id: int | None = None) -> None:
        """Fold the report in, refit ``theta_t``, step and (certified form) project ``theta_h`` (lines 249-260)."""
        action = self.check_action(action)
        reward = _validate.finite(reward=reward)
        x = self._arm_features(observation)[action]
        if self.calibration == "certified":
            if np.linalg.norm(x) > self.feature_bound * (1 + 1e-12):
                raise ValueError(f"Expected ||x||_2 <= feature_bound={self.feature_bound}, got {np.linalg.norm(x):.6g}.")
            reward = min(max(reward, -self.reward_bound), self.reward_bound)
        count_report(self._reports, user_id, self.reports_per_user)
        gram, yx, grad = self.report(x, reward)
        self.t += 1
        self.gram += gram
        self.u += yx
        self.theta_t = np.linalg.solve(self.gram + self.c * np.eye(self.dim), self.u)
        self._update_params()
        self.theta_h = self.theta_h - self.zeta * grad
        if self.calibration == "certified":
            self._project()
        self.max_theta_h = max(self.max_theta_h, float(np.linalg.norm(self.theta_h)))

    def play_block(self, observations: np.ndarray, rewards: np.ndarray, *, compiled: bool = True) -> np.ndarray:
        """``act`` then ``update`` round by round."""
        from dpbandit.agents.linear import play_loop

        del compiled
        return play_loop(self, np.asarray(observations, dtype=float), np.asarray(rewards, dtype=float))

    @property
    def privacy(self) -> PrivacyGuarantee:
        """Certified: dp_accounting PLD of the report's Gaussian at its sensitivity; authors': nothing (``inf``)."""
        m = self.reports_per_user or 1
        if self.calibration == "authors":
            sens = gloc_sensitivity(self.feature_bound, max(self.max_theta_h, 1e-12), self.reward_bound, self.link)
            ex_post = epsilon_for(gaussian_event(self.sigma, sens, m), self.delta, "pld")
            return dataclasses.replace(PrivacyGuarantee.not_private(
                self.mechanism, self.epsilon, self.delta,
                reason=("the report's sensitivity grows with ||theta_h||, which the code never projects (and with "
                        "the reward, unbounded for Poisson); ex post, at the largest ||theta_h|| seen "
                        f"({self.max_theta_h:.3g}) and rewards in [-{self.reward_bound:g}, {self.reward_bound:g}], "
                        f"the noise would give epsilon {ex_post:.3g}: data-dependent, not a guarantee"),
                calibration=f"authors' code: per-entry std 6 sqrt(2 ln(2.5/delta))/eps = {self.sigma:.4g}",
            ), trust_model="local")
        eps = epsilon_for(gaussian_event(self.sigma, self.sensitivity, m), self.delta, "pld")
        return PrivacyGuarantee(
            mechanism=self.mechanism, claimed_epsilon=self.epsilon, claimed_delta=self.delta, epsilon=eps,
            relation=f"replace one user's reports (l2 sensitivity {self.sensitivity:.4g}; theta_h projected to "
                     f"radius {self.param_bound:g}; {m} report(s) per user)",
            accountant="pld (local Gaussian report)",
            calibration=f"report std {self.sigma:.4g} (PLD)",
            notes="each report is DP on its own (local model), which implies joint DP at the same level.",
            user_epsilon=math.inf if self.reports_per_user is None else eps,
            max_rounds_per_user=self.reports_per_user, trust_model="local", local_epsilon=eps,
        )

    @property
    def params(self) -> dict[str, Any]:
        return {**super().params, "epsilon": self.epsilon, "delta": self.delta, "link": self.link.name,
                "feature_bound": self.feature_bound, "param_bound": self.param_bound,
                "reward_bound": self.reward_bound, "reports_per_user": self.reports_per_user,
                "calibration": self.calibration}
