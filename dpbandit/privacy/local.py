"""The local randomizer of the local-DP and shuffle-model linear bandits: Gaussian noise on ``(x x^T, x r)``.

Zheng, Cai, Huang, Li and Wang (NeurIPS 2020, "Locally differentially private (contextual) bandits
learning", their LDP linear / GLM contextual bandits) and Chowdhury and Zhou (ICML 2022, "Shuffle private linear contextual
bandits", the local randomizer of their P_Amp protocol [recall: Algorithm 1]) let every user privatise their own sufficient
statistics before anything leaves their device: the Gram update ``x x^T`` (symmetric noise) and the reward
vector ``x r`` (vector noise). This module holds that randomizer once; the agents (``dpbandit.agents.trust``)
only vary when the server folds the reports into its model.

Geometry [derived]. The report is the pair ``(x x^T, x r)`` in the space ``Sym(d) x R^d`` with the Frobenius
inner product on the first factor. :func:`dpbandit.privacy.noise.symmetric_gaussian` with parameter
``sigma / sqrt 2`` is an isotropic Gaussian of std ``sigma`` in Frobenius geometry, so adding it to ``x x^T``
and ``N(0, sigma^2 I_d)`` to ``x r`` is ONE Gaussian mechanism of std ``sigma`` on the pair, with
l2-sensitivity :func:`report_sensitivity`. Its (epsilon, delta) comes from dp_accounting's PLD accountant
(tight for the Gaussian), composed over the ``reports`` reports one user sends.

Departure of the authors' code [C] (``sayakrc/Differentially-Private-Bandits``, ``LinBanditPrivate.py``,
class ``LDPLinUCB``, the LDP baseline of Chowdhury and Zhou's Figure 1): per-entry std
``sqrt(ln(2.5/delta)) / eps`` with no sensitivity factor and noise ``(N + N^T)/2`` (the same geometry as
here). At their setting (``eps = 0.2, delta = 0.1``, ``||x|| <= sqrt 2``, Bernoulli rewards) that std is
8.97; the PLD calibration of this report needs 4.88 at ``||x|| <= 1`` and 8.13 at ``||x|| <= sqrt 2``
(tests/privacy/test_local.py pins these). So at their setting the code over-noises slightly (it is
private), but its noise does not scale with the sensitivity: at larger feature norms it would not be.

Disjoint (shared-context) form [derived]: a user's report is one pair per arm model, all of them noised,
the played arm's carrying ``(x x^T, x r)`` and the others zero, so the server does not learn the arm from
which block is noisy. Neighbouring users may have played different arms, which changes the sensitivity
(:func:`report_sensitivity` with ``disjoint=True``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpbandit import _validate as v
from dpbandit.privacy.accounting import epsilon_for, gaussian_event, gaussian_sigma
from dpbandit.privacy.noise import gaussian, symmetric_gaussian

__all__ = ["LocalGaussianRandomizer", "authors_local_std", "checked_record", "local_epsilon", "report_sensitivity"]


def report_sensitivity(feature_bound: float, reward_bound: float, *, disjoint: bool = False) -> float:
    """l2-sensitivity of one user's report ``(x x^T, x r)`` over ``||x||_2 <= L``, ``|r| <= R`` [derived].

    Same model (the shared-parameter form, or the disjoint form when both users played the same arm):
    ``sup ||x x^T - y y^T||_F^2 + ||x r - y r'||^2``. At ``||x|| = ||y|| = L``, ``r = r' = R`` and
    ``c = <x, y> / L^2`` this is ``2 L^4 (1 - c^2) + 2 L^2 R^2 (1 - c)``, largest at ``c = -R^2 / (2 L^2)``:
    ``2 L^4 + 2 L^2 R^2 + R^4 / 2`` when ``R^2 <= 2 L^2`` (else ``c = -1``: ``4 L^2 R^2``). Disjoint form with
    different arms: the two reports sit in different blocks, ``sup ||x x^T||^2 + ||x r||^2 + ||y y^T||^2 +
    ||y r'||^2 = 2 (L^4 + L^2 R^2)``, which is smaller; the larger of the two is returned. The brute-force
    search of tests/privacy/test_local.py checks the supremum.
    """
    L = v.positive(feature_bound=feature_bound)
    R = v.nonnegative(reward_bound=reward_bound)
    if R**2 <= 2.0 * L**2:
        same = 2.0 * L**4 + 2.0 * L**2 * R**2 + R**4 / 2.0
    else:
        same = 4.0 * L**2 * R**2
    squared = max(same, 2.0 * (L**4 + L**2 * R**2)) if disjoint else same
    return math.sqrt(squared)


def authors_local_std(epsilon: float, delta: float, batch: int = 1) -> float:
    """The report std of Chowdhury and Zhou's code [C]: ``sqrt(ln(2.5 B / delta)) / (epsilon sqrt(B))``
    (``LDPLinUCB`` line 155 with ``B = 1``; ``SDPLinUCBPAmp`` line 234), no sensitivity factor."""
    epsilon = v.positive(epsilon=epsilon)
    delta = v.probability(delta=delta)
    batch = v.integer(batch=batch, minimum=1)
    return math.sqrt(math.log(2.5 * batch / delta)) / (epsilon * math.sqrt(batch))


def local_epsilon(sigma: float, sensitivity: float, delta: float, reports: int = 1) -> float:
    """Epsilon at ``delta`` of ``reports`` Gaussian reports of std ``sigma`` (PLD accountant of dp_accounting)."""
    return epsilon_for(gaussian_event(sigma, sensitivity, reports), delta, "pld")


def checked_record(
    x: np.ndarray, reward: float, *, dim: int, feature_bound: float, reward_bound: float
) -> tuple[np.ndarray, float]:
    """One user's ``(x, reward)`` as floats, or ``ValueError`` naming the bound it exceeds (nothing clipped): the
    bounds every local randomizer's sensitivity rests on (``||x||_2 <= feature_bound``, ``|r| <= reward_bound``)."""
    x = v.finite_array(x=x, shape=(dim,))
    reward = v.finite(reward=reward)
    norm = float(np.linalg.norm(x))
    if norm > feature_bound * (1 + 1e-12):
        raise ValueError(f"Expected ||x||_2 <= feature_bound={feature_bound}, got {norm:.6g}.")
    if abs(reward) > reward_bound * (1 + 1e-12):
        raise ValueError(f"Expected |reward| <= reward_bound={reward_bound}, got {reward:.6g}.")
    return x, reward

@dataclass(frozen=True)
class LocalGaussianRandomizer:
    """One user's Gaussian randomizer of ``(x x^T, x r)``, calibrated for ``reports`` reports per user.

    Attributes:
        dim: feature dimension d.
        feature_bound: L, with ``||x||_2 <= L`` required of every report (an error otherwise: nothing clipped).
        reward_bound: R, with ``|r| <= R`` required likewise.
        epsilon, delta: the local guarantee of all ``reports`` reports of one user together.
        reports: reports one user sends (rounds per user); the calibration composes them.
        models: arm models per report (1: shared parameter; K: disjoint form, one block per arm).
        scale: ``None`` (default): the std is calibrated to ``(epsilon, delta)``; a number: the std used as
            given (the authors' calibration, :func:`authors_local_std`), ``achieved_epsilon`` then says what it
            certifies.
    """

    dim: int
    feature_bound: float
    reward_bound: float
    epsilon: float
    delta: float
    reports: int = 1
    models: int = 1
    scale: float | None = None

    def __post_init__(self) -> None:
        if self.scale is not None:
            v.positive(scale=self.scale)
        v.integer(dim=self.dim, minimum=1)
        v.positive(feature_bound=self.feature_bound)
        v.positive(reward_bound=self.reward_bound)
        v.positive(epsilon=self.epsilon)
        v.probability(delta=self.delta)
        v.integer(reports=self.reports, minimum=1)
        v.integer(models=self.models, minimum=1)

    @property
    def sensitivity(self) -> float:
        """l2-sensitivity of one report (:func:`report_sensitivity`)."""
        return report_sensitivity(self.feature_bound, self.reward_bound, disjoint=self.models > 1)

    @property
    def sigma(self) -> float:
        """Noise std of the report in Frobenius geometry, PLD-calibrated for ``reports`` reports [O]
        (or :attr:`scale` when given)."""
        if self.scale is not None:
            return self.scale
        return _sigma(self.epsilon, self.delta, self.sensitivity, self.reports)

    @property
    def achieved_epsilon(self) -> float:
        """Epsilon at ``delta`` that dp_accounting gives for ``reports`` reports at :attr:`sigma`."""
        return local_epsilon(self.sigma, self.sensitivity, self.delta, self.reports)

    def check(self, x: np.ndarray, reward: float) -> tuple[np.ndarray, float]:
        """``(x, reward)`` as floats, or ``ValueError`` naming the bound a report exceeds (nothing clipped)."""
        return checked_record(x, reward, dim=self.dim, feature_bound=self.feature_bound,
                              reward_bound=self.reward_bound)

    def noise(self, rng: np.random.Generator, count: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """``count`` reports' noise: Gram noise ``(count, models, d, d)``, vector noise ``(count, models, d)``."""
        s = self.sigma
        gram = symmetric_gaussian(rng, s / math.sqrt(2.0), self.dim, size=(count, self.models))
        vec = gaussian(rng, s, (count, self.models, self.dim))
        return gram, vec

    def randomize(
        self, rng: np.random.Generator, x: np.ndarray, reward: float, model: int = 0
    ) -> tuple[np.ndarray, np.ndarray]:
        """One user's noisy report: ``(G, u)`` of shapes ``(models, d, d)`` and ``(models, d)``; block
        ``model`` holds ``x x^T`` and ``x r``, every block holds fresh noise."""
        x, reward = self.check(x, reward)
        v.integer(model=model, minimum=0)
        if model >= self.models:
            raise ValueError(f"Expected model < models={self.models}, got {model}.")
        gram, vec = self.noise(rng)
        gram, vec = gram[0], vec[0]
        gram[model] += np.outer(x, x)
        vec[model] += reward * x
        return gram, vec


_SIGMA_CACHE: dict[tuple[float, float, float, int], float] = {}


def _sigma(epsilon: float, delta: float, sensitivity: float, reports: int) -> float:
    """PLD calibration, computed once per argument tuple (a calibration costs ~0.1 s)."""
    key = (epsilon, delta, sensitivity, reports)
    if key not in _SIGMA_CACHE:
        _SIGMA_CACHE[key] = gaussian_sigma(epsilon, delta, sensitivity, reports)
    return _SIGMA_CACHE[key]
