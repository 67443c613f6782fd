"""Audit cases of the privacy core's mechanisms (registered on import): each real mechanism and a broken twin.

Every case runs the library's own code (samplers, ``TreeAggregator``, selection), vectorised over runs: the
tree is audited by one ``TreeAggregator`` whose shape carries the run axis (independent noise per run).
Statistics are log-likelihood-ratio tests (optimal for the pair) so the bounds are close to the truth.
"""

from __future__ import annotations

import math

import numpy as np

from dpbandit.audit.core import AuditCase, register
from dpbandit.privacy import accounting as acc
from dpbandit.privacy.noise import gaussian, laplace, symmetric_gaussian
from dpbandit.privacy.regularity import smooth_norm
from dpbandit.privacy.rnm import exponential_mechanism, report_noisy_min, rnm_epsilon
from dpbandit.privacy.tree import TreeAggregator

__all__: list[str] = []

DELTA = 1e-5
LEMMA_2_1 = "analytic: Lemma 2.1 (004)"


# ---------------------------------------------------------------- Gaussian and Laplace mechanisms
def _additive(noise_fn):
    def run(rng: np.random.Generator, value: float, n_runs: int) -> np.ndarray:
        return value + noise_fn(rng, n_runs)

    return run


def _gaussian_case(name: str, factor: float, expect: str, notes: str) -> AuditCase:
    eps = 1.0
    sigma = acc.gaussian_sigma(eps, DELTA) * factor
    return AuditCase(
        name, _additive(lambda g, n: gaussian(g, sigma, n)), 0.0, 1.0, eps, DELTA,
        accountant_epsilon=acc.epsilon_for(acc.gaussian_event(sigma), DELTA, "pld"), accountant="pld",
        expect=expect, notes=notes,
    )


@register("gaussian/calibrated")
def _gaussian_ok() -> AuditCase:
    return _gaussian_case("gaussian/calibrated", 1.0, "pass", "sigma = gaussian_sigma(1, 1e-5) (PLD), sensitivity 1")


@register("gaussian/noise-halved")
def _gaussian_bad() -> AuditCase:
    return _gaussian_case("gaussian/noise-halved", 0.5, "flag", "sigma halved, same claim")


def _laplace_case(name: str, factor: float, expect: str, notes: str) -> AuditCase:
    eps, delta = 1.0, 1e-6
    scale = factor / eps
    return AuditCase(
        name, _additive(lambda g, n: laplace(g, scale, n)), 0.0, 1.0, eps, delta,
        accountant_epsilon=acc.epsilon_for(acc.laplace_event(scale), delta, "pld"), accountant="pld",
        expect=expect, notes=notes,
    )


@register("laplace/calibrated")
def _laplace_ok() -> AuditCase:
    return _laplace_case("laplace/calibrated", 1.0, "pass", "scale = sensitivity / eps")


@register("laplace/noise-halved")
def _laplace_bad() -> AuditCase:
    return _laplace_case("laplace/noise-halved", 0.5, "flag", "scale halved, same claim")


# ---------------------------------------------------------------- generalized Gaussian (Lemma 2.1, Alg 4)
def _generalized_gaussian_case(name: str, printed_gamma_scale: bool, expect: str, notes: str) -> AuditCase:
    eps, q, d, s = 1.0, math.inf, 20, 1.0
    sn = smooth_norm(q, d)
    sigma = acc.generalized_gaussian_sigma(eps, DELTA, s, sn.kappa)
    # Algorithm 4 as printed draws R^2 ~ Gamma(d/2, 2 sigma): the law of sample(sqrt(sigma)) (scale = 1 here)
    draw_sigma = math.sqrt(sigma) if printed_gamma_scale else sigma
    shift = np.full(d, s)  # ||shift||_inf = s, the largest ||.||_+ among l_inf-sensitivity-s shifts

    def run(rng: np.random.Generator, mean: np.ndarray, n_runs: int) -> np.ndarray:
        return mean + sn.sample(rng, draw_sigma, size=n_runs)

    def llr(x: np.ndarray) -> np.ndarray:
        return (sn.norm(x) ** 2 - sn.norm(x - shift) ** 2) / (2 * sigma**2)

    return AuditCase(
        name, run, np.zeros(d), shift, eps, DELTA, statistic=llr,
        # Lemma 2.1 for the noise actually drawn: sigma scales as 1/eps, so eps_run = eps * sigma / draw_sigma
        accountant_epsilon=eps * sigma / draw_sigma, accountant=LEMMA_2_1,
        expect=expect, notes=notes + f"; q=inf, d={d}, r={sn.r:.3g}, kappa={sn.kappa:.3g}, l_inf sensitivity 1",
    )


@register("generalized-gaussian/lemma-2.1")
def _gg_ok() -> AuditCase:
    return _generalized_gaussian_case("generalized-gaussian/lemma-2.1", False, "pass",
                                      "sigma^2 = 2 kappa log(1/delta) s^2/eps^2, Gamma scale 2 sigma^2")


@register("generalized-gaussian/printed-gamma-scale")
def _gg_bad() -> AuditCase:
    return _generalized_gaussian_case("generalized-gaussian/printed-gamma-scale", True, "flag",
                                      "Algorithm 4 as printed: R^2 ~ Gamma(d/2, 2 sigma) (typo)")


# ---------------------------------------------------------------- tree aggregation (binary mechanism)
TREE_T = 15  # depth bit_length(15) = 4: z_1 lies in the nodes released at t = 1, 2, 4, 8
TREE_NODES_OF_Z1 = [0, 1, 3, 7]


def _tree_case(name: str, calibrated_sensitivity: float, adaptive: bool, expect: str, notes: str) -> AuditCase:
    eps, clip = 2.0, 1.0  # inputs z_t in [-clip, clip]: replace-one sensitivity 2 * clip
    sigma = acc.tree_gaussian_sigma(eps, DELTA, TREE_T, sensitivity=calibrated_sensitivity)

    def run(rng: np.random.Generator, z1: float, n_runs: int) -> np.ndarray:
        tree = TreeAggregator((n_runs,), noise=lambda g, n: gaussian(g, sigma, (n, n_runs)), rng=rng, horizon=TREE_T)
        out = np.empty((n_runs, TREE_T))
        z = np.full(n_runs, z1)
        for t in range(TREE_T):
            out[:, t] = tree.add(z)
            # later inputs: fixed data, or chosen from the released prefix sums (adaptive, 004 section 6)
            z = clip * np.tanh(out[:, t]) if adaptive else np.full(n_runs, 0.3 * clip)
        return out

    return AuditCase(
        name, run, -clip, clip, eps, DELTA, statistic=lambda out: out[:, TREE_NODES_OF_Z1].sum(axis=1),
        accountant_epsilon=acc.epsilon_for(acc.tree_aggregation_event(sigma / (2 * clip), TREE_T), DELTA),
        accountant="rdp", expect=expect, notes=notes + f"; T={TREE_T}, z_1 = -1 vs +1",
    )


@register("tree/calibrated")
def _tree_ok() -> AuditCase:
    return _tree_case("tree/calibrated", 2.0, False, "pass", "sigma = tree_gaussian_sigma(2, 1e-5, T, sensitivity 2)")


@register("tree/adaptive-inputs")
def _tree_adaptive() -> AuditCase:
    return _tree_case("tree/adaptive-inputs", 2.0, True, "pass", "z_t = tanh(previous release), calibrated")


@register("tree/sensitivity-understated")
def _tree_bad() -> AuditCase:
    return _tree_case("tree/sensitivity-understated", 1.0, False, "flag",
                      "calibrated for sensitivity clip = 1, but replace-one sensitivity is 2 clip")


GRAM_T, GRAM_D = 7, 3  # z_1 lies in the nodes released at t = 1, 2, 4


def _gram_case(name: str, factor: float, expect: str, notes: str) -> AuditCase:
    """DP-UCB Gram matrix: x_1 = e_1 vs e_2 (Frobenius sensitivity sqrt 2), symmetric node noise."""
    eps, sens_f = 2.0, math.sqrt(2.0)
    # symmetric noise: Gaussian multiplier sqrt(2) sigma / Delta_F (noise.symmetric_gaussian)
    sigma = acc.tree_gaussian_sigma(eps, DELTA, GRAM_T, sensitivity=sens_f) / math.sqrt(2.0) * factor
    basis = np.eye(GRAM_D)

    def run(rng: np.random.Generator, first: int, n_runs: int) -> np.ndarray:
        shape = (n_runs, GRAM_D, GRAM_D)
        tree = TreeAggregator(
            shape, noise=lambda g, n: symmetric_gaussian(g, sigma, GRAM_D, size=(n, n_runs)), rng=rng, horizon=GRAM_T
        )
        stat = np.zeros(n_runs)
        for t in range(1, GRAM_T + 1):
            x = basis[first] if t == 1 else basis[2]
            gram = tree.add(np.broadcast_to(np.outer(x, x), shape))
            if t in (1, 2, 4):  # post-processing: keep only the LLR-relevant entries of the releases
                stat += gram[:, 1, 1] - gram[:, 0, 0]
        return stat

    return AuditCase(
        name, run, 0, 1, eps, DELTA,
        accountant_epsilon=acc.epsilon_for(acc.tree_aggregation_event(math.sqrt(2) * sigma / sens_f, GRAM_T), DELTA),
        accountant="rdp", expect=expect, notes=notes + f"; T={GRAM_T}, d={GRAM_D}, x_1 = e_1 vs e_2",
    )


@register("gram-tree/calibrated")
def _gram_ok() -> AuditCase:
    return _gram_case("gram-tree/calibrated", 1.0, "pass", "symmetric Gaussian tree for X^T X")


@register("gram-tree/noise-halved")
def _gram_bad() -> AuditCase:
    return _gram_case("gram-tree/noise-halved", 0.5, "flag", "node noise halved, same claim")


# ---------------------------------------------------------------- private selection
L1_DIM = 3  # the 2d vertices +-e_j of the unit l1 ball (004 Algorithm 2 line 8-9)
VERTICES = np.vstack([np.eye(L1_DIM), -np.eye(L1_DIM)])


def _rnm_case(name: str, scale_factor: float, expect: str, notes: str) -> AuditCase:
    """Noisy LMO: argmin_v <d, v> + Lap(b) over the vertices; d = 0 vs d' = e_1 (score sensitivity 1)."""
    eps, delta, sens = 1.0, 1e-6, 1.0
    scale = scale_factor * sens / eps

    def run(rng: np.random.Generator, grad: np.ndarray, n_runs: int) -> np.ndarray:
        scores = np.broadcast_to(VERTICES @ grad, (n_runs, 2 * L1_DIM))
        idx = report_noisy_min(rng, scores, scale)
        return np.where(idx == L1_DIM, 1.0, np.where(idx == 0, -1.0, 0.0))  # -e_1 / +e_1 / other

    return AuditCase(
        name, run, np.zeros(L1_DIM), np.eye(L1_DIM)[0], eps, delta,
        accountant_epsilon=acc.epsilon_for(acc.pure_dp_event(rnm_epsilon(scale, sens)), delta, "pld"),
        accountant="pld (generic RNM: 2 Delta / b)", expect=expect, notes=notes,
    )


@register("rnm-l1-vertices/generic-scale")
def _rnm_ok() -> AuditCase:
    return _rnm_case("rnm-l1-vertices/generic-scale", 2.0, "pass", "Lap(2 Delta/eps): eps-DP for any scores")


@register("rnm-l1-vertices/dwork-roth-scale")
def _rnm_bad() -> AuditCase:
    return _rnm_case("rnm-l1-vertices/dwork-roth-scale", 1.0, "flag",
                     "Lap(Delta/eps) (monotone-query scale) on non-monotone vertex scores")


def _exp_case(name: str, monotone: bool, expect: str, notes: str) -> AuditCase:
    eps, delta, sens = 1.0, 1e-6, 1.0

    def run(rng: np.random.Generator, scores: np.ndarray, n_runs: int) -> np.ndarray:
        idx = exponential_mechanism(rng, np.broadcast_to(scores, (n_runs, 2)), eps, sens, monotone=monotone)
        return idx.astype(float)

    return AuditCase(
        name, run, np.zeros(2), np.array([sens, -sens]), eps, delta,
        accountant_epsilon=acc.epsilon_for(acc.pure_dp_event(eps * (2.0 if monotone else 1.0)), delta, "pld"),
        accountant="pld (pure DP)", expect=expect, notes=notes,
    )


@register("exponential/generic")
def _exp_ok() -> AuditCase:
    return _exp_case("exponential/generic", False, "pass", "P ~ exp(eps s / (2 Delta))")


@register("exponential/monotone-on-non-monotone")
def _exp_bad() -> AuditCase:
    return _exp_case("exponential/monotone-on-non-monotone", True, "flag",
                     "P ~ exp(eps s / Delta) on scores moving in opposite directions")
