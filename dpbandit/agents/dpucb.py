"""DP-UCB: linear UCB with additive Gaussian noise via the tree mechanism (Shariff and Sheffet 2018).

References:
    Shariff and Sheffet, "Differentially Private Contextual Linear Bandits", NeurIPS 2018,
    Section 4 (tree-based scheme, shifted regulariser, (rho_min, rho_max, gamma)-accuracy) and
    Section 4.2 (additive Gaussian noise); constants as summarised in notes/ofw_hdb.md Section 3.5
    [O]; 004_290fd04a1e656565.txt Section 5.4 (the DP-UCB baseline of Figure 5.1).

Statistics. One tree (:func:`dpbandit.privacy.tree.gaussian_tree`, symmetric node noise
``(Z + Z^T)/sqrt 2``) aggregates the ``(D+1) x (D+1)`` matrices ``[x; y][x; y]^T`` of the played
features and rewards. With ``M_t`` its noisy prefix sum over the rounds so far,
``V_t = M_t[:D, :D] + 2 Upsilon I`` (the shifted regulariser) and ``u_t = M_t[:D, D]``;
``theta_t = V_t^{-1} u_t`` and the widths ``||x||_{V_t^{-1}}`` come from one Cholesky factor
(triangular solves, never an explicit inverse). Each tree node is drawn once, when it completes;
the tree keeps running sums per level (``cumulative=True``), so a step costs one noise draw, O(1)
matrix additions and one O(D^3) factorisation; memory is O(D^2 log T) (no T x D x D array).

The constants, calibrations, bounds and privacy report below live in :class:`ShariffSheffetUCB`, the
base of both variants: :class:`DPUCB` (one parameter, this module) and
:class:`dpbandit.agents.dpucb_disjoint.DisjointDPUCB` (one parameter and one tree per arm on a shared
context, K trees of dimension d instead of one of dimension dK).

Constants (m = 1 + ceil(log2 T), D = dimension of one model, alpha = failure probability; with
several models each gets alpha / n_models, a union bound [derived]; one model here):

* ``sigma_noise^2 = 16 m Ltilde^4 ln(4/delta)^2 / epsilon^2`` with ``Ltilde^2 = L^2 + B^2``;
* ``Upsilon = sigma_noise sqrt(2m) (4 sqrt(D) + 2 ln(2T/alpha))``, ``rho_min = Upsilon``,
  ``rho_max = 3 Upsilon``, ``gamma = sigma_noise sqrt(m / Upsilon) (sqrt(D) + sqrt(2 ln(2T/alpha)))``;
* ``beta_t = sigma sqrt(2 ln(2/alpha) + D ln(rho_max/rho_min + t L^2/(D rho_min)))``
  ``+ S sqrt(rho_max) + gamma``.

``calibration="paper"`` (default) uses sigma_noise above; ``"accountant"`` uses the smallest node
std for which dp_accounting's tree-aggregation RDP gives (epsilon, delta) (Upsilon and gamma follow
it). Privacy accounting: the symmetric noise is isotropic with std sqrt(2) sigma in Frobenius
geometry and a replaced round moves ``[x;y][x;y]^T`` by at most ``sqrt(2) Ltilde^2`` in Frobenius
norm, so the Gaussian noise multiplier is ``sigma / Ltilde^2`` per node [derived].

Bounds: features must satisfy ``||x||_2 <= feature_bound`` (larger ones are rejected); rewards are
clipped to ``[-reward_bound, reward_bound]`` (explicit; :attr:`clipped_rewards` counts it).

Differences from the authors' public DP-UCB code (liangzp/DP-Streaming-SCO, [C]), not copied:
fresh matrix noise every round instead of tree noise, no ``2 Upsilon I`` shift, a ``T x D x D``
noise array, and the bonus ``beta_t x^T V^{-1} x`` without the square root.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np
from scipy import linalg

from dpbandit import _validate
from dpbandit.agents import size
from dpbandit.agents.linear import LinearUCBAgent, PerArmFeatures
from dpbandit.privacy import accounting
from dpbandit.privacy.budget import check_delta, require_reportable_epsilon
from dpbandit.privacy.tree import TreeAggregator, gaussian_tree

__all__ = ["DPUCB", "ShariffSheffetUCB"]

if TYPE_CHECKING:  # pragma: no cover
    from dpbandit.privacy.guarantee import PrivacyGuarantee

UCBCalibration = Literal["paper", "accountant"]


class ShariffSheffetUCB(LinearUCBAgent):
    """Shared maths of the DP-UCB variants: bounds, constants, width beta_t, calibration, privacy report.

    Subclasses choose the features and models (``_model_shape`` / ``_arm_features``) and keep the
    tree-noised statistics (``_start_trees``, ``_record``, ``_mean_and_variance``).

    Args:
        n_arms: K >= 2.
        dim: feature dimension D of one model.
        rng: the agent's generator (split into tree-noise and tie-breaking streams).
        horizon: T (required).
        epsilon, delta: requested JDP guarantee (delta defaults to 1/T; a warning above 1/T; with the accountant
            calibration, a budget below what the accountant resolves is an error naming epsilon).
        noise_std: sub-Gaussian scale sigma of the reward noise (0.05 in Section 5.4, [C]).
        param_bound: S >= ||theta*||_2 (1 for Section 5.4, where ||theta_a||_1 = 1).
        feature_bound: L >= ||x||_2 (default sqrt(D): the worst case for ||x||_inf <= 1, [C]).
        reward_bound: B; rewards are clipped to [-B, B] (default 1 + 3 noise_std, notes 4.3).
        confidence: alpha (default 1/T), shared by the models (alpha / n_models each).
        calibration: ``"paper"`` (default) or ``"accountant"`` (module docstring).
        noise: ``False`` = debugging switch: exact statistics, same shift and widths, no privacy.
    """

    trust_model = "central"

    #: ``PrivacyGuarantee.mechanism`` and ``relation`` of the variant.
    mechanism: ClassVar[str] = "DP-UCB (Shariff-Sheffet 2018): Gaussian tree on [x;y][x;y]^T"
    relation: ClassVar[str] = "JDP (billboard lemma)"

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        horizon: int | None = None,
        epsilon: float = 1.0,
        delta: float | None = None,
        noise_std: float = 0.05,
        param_bound: float = 1.0,
        feature_bound: float | None = None,
        reward_bound: float | None = None,
        confidence: float | None = None,
        calibration: UCBCalibration = "paper",
        noise: bool = True,
    ) -> None:
        super().__init__(n_arms, dim, rng=rng, horizon=horizon)
        if self.horizon is None:
            raise ValueError(f"{type(self).__name__} needs horizon=T (it calibrates the tree noise).")
        T = self.horizon
        self.epsilon = _validate.positive(epsilon=epsilon)
        self.delta = check_delta(1.0 / max(T, 2) if delta is None else delta, T, owner=type(self).__name__)
        self.noise_std = _validate.positive(noise_std=noise_std)
        self.param_bound = _validate.positive(param_bound=param_bound)
        self.feature_bound = _validate.positive(
            feature_bound=math.sqrt(dim) if feature_bound is None else feature_bound
        )
        self.reward_bound = _validate.positive(
            reward_bound=1.0 + 3.0 * self.noise_std if reward_bound is None else reward_bound
        )
        confidence = 1.0 / max(T, 2) if confidence is None else confidence
        self.confidence = _validate.probability(confidence=confidence)
        self.model_confidence = self.confidence / self.u.shape[0]  # union bound over the models
        self.calibration = _validate.one_of(("paper", "accountant"), calibration=calibration)
        self.noise = bool(noise)
        self.levels = 1 + math.ceil(math.log2(T)) if T > 1 else 1  # m of Shariff-Sheffet
        self.sensitivity = self.feature_bound**2 + self.reward_bound**2  # Ltilde^2
        self.sigma_noise = self._sigma_noise(self.epsilon)
        if self.noise and self.calibration == "accountant":  # a 0 there means the request is below resolution
            owner = type(self).__name__
            require_reportable_epsilon(owner, self.epsilon, self.delta, self._accountant_epsilon)
        if self.noise and self.calibration == "paper":
            self._check_paper_calibration()
        D, m, log_term = self.dim, self.levels, math.log(2.0 * T / self.model_confidence)
        self.upsilon = self.sigma_noise * math.sqrt(2.0 * m) * (4.0 * math.sqrt(D) + 2.0 * log_term)
        self.rho_min, self.rho_max = self.upsilon, 3.0 * self.upsilon
        root = math.sqrt(D) + math.sqrt(2.0 * log_term)
        self.gamma = self.sigma_noise * math.sqrt(m / self.upsilon) * root
        tree_rng, self._tie_rng = self.rng.spawn(2)
        self.clipped_rewards = 0
        self._start_trees(tree_rng)

    def _sigma_noise(self, epsilon: float) -> float:
        """Node std for ``epsilon``: Shariff-Sheffet's formula, or the accountant's smallest std for (epsilon,
        delta)."""
        if self.calibration == "paper":
            return 4.0 * math.sqrt(self.levels) * self.sensitivity * math.log(4.0 / self.delta) / epsilon
        return accounting.tree_gaussian_sigma(epsilon, self.delta, self.horizon, self.sensitivity)

    def _paper_holds(self, epsilon: float) -> bool:
        """True if the accountant certifies the paper's sigma_noise for ``epsilon`` (1e-9 relative slack)."""
        return self._accountant_epsilon(epsilon) <= epsilon * (1.0 + 1e-9)

    def _check_paper_calibration(self) -> None:
        """Refuse, before any round, an epsilon the paper's formula does not deliver.

        Shariff-Sheffet's ``sigma_noise`` (Sec 4.2) rests on the classical Gaussian bound, which holds for
        small epsilon only: at T = 1000, delta = 1/T the accountant's epsilon of that noise passes the request
        near epsilon 2e3 and is 4.5e14 at 1e9. The message names the largest power of ten (from 1e-3) the
        formula delivers here, found with one accountant evaluation per power, and the two ways on.
        """
        if self._paper_holds(self.epsilon):
            return
        powers = [10.0**k for k in range(-3, math.floor(math.log10(self.epsilon)) + 1)]
        holds = [e for e in powers if e < self.epsilon and self._paper_holds(e)]
        limit = f"up to epsilon {holds[-1]:g} here" if holds else "at no epsilon from 1e-3 here"
        raise ValueError(
            f"Expected a smaller epsilon={self.epsilon:g} for {type(self).__name__} with calibration='paper': "
            f"Shariff-Sheffet's sigma_noise gives epsilon={self._accountant_epsilon(self.epsilon):.4g} at "
            f"delta={self.delta:g} by the accountant, above the request (the formula holds {limit}, T="
            f"{self.horizon}); use calibration='accountant' (any epsilon) or noise=False (no privacy)."
        )

    def _accountant_epsilon(self, epsilon: float) -> float:
        """dp-accounting's epsilon at ``delta`` of the tree noise calibrated for a requested ``epsilon``."""
        event = accounting.tree_aggregation_event(self._sigma_noise(epsilon) / self.sensitivity, self.horizon)
        return accounting.epsilon_for(event, self.delta, "rdp")

    # -- size ------------------------------------------------------------------------------------
    #: [Fill] The guard bounds the state only: the authors' baseline is measured where its per-round
    #: factorisations are thousands of times the environment's round (d = 500, K = 10: docs/performance.md).
    limit_work = False
    instead = "private (or batched-screening)"

    def footprint(self) -> size.Footprint:
        """Size of a run (before the trees are allocated; block features of ``D = dim`` columns): the tree's
        running sums, one ``(D + 1)^2`` matrix per level (``bit_length(T)``), plus the noisy sum, ``V_t``
        and its Cholesky factor; work per round: the factorisation ``D^3 / 3``, the node noise ``(D + 1)^2``
        and every arm's triangular solve ``n_arms D^2``."""
        D, depth = self.dim, (self.horizon or 1).bit_length()
        work = D**3 / 3 + (D + 1) ** 2 + self.n_arms * D * D
        return size.Footprint(size.FLOAT * (D + 1) ** 2 * (depth + 3), work, self.n_arms * D)

    # -- hooks of the variants --------------------------------------------------------------------
    def _init_statistics(self, n_models: int, feature_dim: int) -> None:
        """No exact inverse: the noisy statistics are set up by ``_start_trees`` once sigma is known."""

    def _start_trees(self, tree_rng: np.random.Generator) -> None:
        """Create the trees on ``tree_rng`` and the statistics of round 0 (``V_0 = 2 Upsilon I``)."""
        raise NotImplementedError

    def _accuracy_error(self, t: int, arm: int | None = None) -> np.linalg.LinAlgError:
        """The error raised when ``V_t`` (of ``arm``) is not positive definite (probability <= alpha)."""
        which = "V_t" if arm is None else f"V_t of arm {arm}"
        return np.linalg.LinAlgError(
            f"{which} is not positive definite at t={t}: the tree noise left the "
            f"(rho_min, rho_max, gamma)-accurate event (probability <= alpha={self.confidence})."
        )

    def _bounded_reward(self, feature: np.ndarray, reward: float) -> float:
        """Reject ``||x||_2 > L``; return the reward clipped to ``[-B, B]`` (counted in ``clipped_rewards``)."""
        if np.linalg.norm(feature) > self.feature_bound * (1.0 + 1e-12):
            raise ValueError(f"Expected ||x||_2 <= feature_bound={self.feature_bound:.6g}.")
        clipped = float(np.clip(reward, -self.reward_bound, self.reward_bound))
        self.clipped_rewards += clipped != reward
        return clipped

    def _width(self) -> float:
        return self._width_at(self.t)

    def _width_at(self, t: int) -> float:
        """beta_t of the module docstring after ``t`` rounds."""
        D, L2 = self.dim, self.feature_bound**2
        log_det = D * math.log(self.rho_max / self.rho_min + t * L2 / (D * self.rho_min))
        return (
            self.noise_std * math.sqrt(2.0 * math.log(2.0 / self.model_confidence) + log_det)
            + self.param_bound * math.sqrt(self.rho_max)
            + self.gamma
        )

    # -- privacy ---------------------------------------------------------------------------------
    @property
    def tree_depth(self) -> int:
        """Nodes containing one round's input: ``bit_length(T)`` (one per level of the binary mechanism)."""
        return self.horizon.bit_length()

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """JDP guarantee: the claim next to dp_accounting's tree-aggregation RDP epsilon."""
        if not self.noise:
            return None
        multiplier = self.sigma_noise / self.sensitivity
        claim = "Shariff-Sheffet 2018 Sec 4.2" if self.calibration == "paper" else "accountant-calibrated"
        from dpbandit.privacy.guarantee import PrivacyGuarantee

        return PrivacyGuarantee(
            mechanism=self.mechanism,
            claimed_epsilon=self.epsilon,
            claimed_delta=self.delta,
            epsilon=self._accountant_epsilon(self.epsilon),
            relation=self.relation,
            accountant="rdp (SingleEpochTreeAggregation)",
            calibration=self.calibration,
            notes=f"node std {self.sigma_noise:.4g}, noise multiplier {multiplier:.4g} "
            f"(sensitivity Ltilde^2 = {self.sensitivity:.4g}), depth {self.tree_depth}; claim: {claim}.",
        )

    @property
    def params(self) -> dict[str, Any]:
        """Identifying hyper-parameters."""
        return {
            **{k: v for k, v in super().params.items() if k not in ("alpha", "regularization")},
            "epsilon": self.epsilon,
            "delta": self.delta,
            "noise_std": self.noise_std,
            "param_bound": self.param_bound,
            "feature_bound": self.feature_bound,
            "reward_bound": self.reward_bound,
            "calibration": self.calibration,
            "noise": self.noise,
        }


class DPUCB(PerArmFeatures, ShariffSheffetUCB):
    """Shariff-Sheffet DP-UCB (Gaussian noise, tree mechanism), jointly differentially private.

    Consumes per-arm features (``observation_model = "per_arm"``): for the disjoint model of
    004 Section 5.4 the harness supplies the block embedding ``e_a kron x_t`` (D = d K; registry
    name ``dpucb-block``, the authors' baseline; :class:`~dpbandit.agents.dpucb_disjoint.DisjointDPUCB`
    keeps one tree per arm instead). Arguments: :class:`ShariffSheffetUCB`.
    """

    def _start_trees(self, tree_rng: np.random.Generator) -> None:
        shape = (self.dim + 1, self.dim + 1)
        T = self.horizon
        self.tree: TreeAggregator = (
            gaussian_tree(shape, self.sigma_noise, tree_rng, T, symmetric=True, cumulative=True)
            if self.noise
            else TreeAggregator(shape, noise=None, rng=tree_rng, horizon=T, cumulative=True)
        )
        self._set_statistics(np.zeros(shape))

    def _set_statistics(self, noisy_sum: np.ndarray) -> None:
        """V_t = top-left block + 2 Upsilon I, u_t = top-right column; Cholesky factor and theta_t."""
        D = self.dim
        self.gram = noisy_sum[:D, :D].copy()
        self.gram.flat[:: D + 1] += 2.0 * self.upsilon
        self.u[0] = noisy_sum[:D, D]
        try:  # the tree's inputs are validated finite, so the Cholesky input is finite
            self._chol = linalg.cholesky(self.gram, lower=True, check_finite=False)
        except linalg.LinAlgError as err:
            raise self._accuracy_error(self.t) from err
        self.theta_hat[0] = linalg.cho_solve((self._chol, True), self.u[0], check_finite=False)

    def _mean_and_variance(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mean = features @ self.theta_hat[0]
        w = linalg.solve_triangular(self._chol, features.T, lower=True, check_finite=False)
        return mean, np.einsum("ij,ij->j", w, w)

    def _record(self, model: int, feature: np.ndarray, reward: float) -> None:
        clipped = self._bounded_reward(feature, reward)
        z = np.append(feature, clipped)
        self._set_statistics(self.tree.add(np.outer(z, z)))
