"""Calibration inputs of the privacy core pinned to their formulas (reference values from
tests/privacy_reference.py, never from dpbandit's own helpers), and the drawn noise of the samplers against
halved and doubled scales."""

from __future__ import annotations

import math

import dp_accounting
import numpy as np
import privacy_reference as ref
import pytest
from dp_accounting import NeighboringRelation

from dpbandit import privacy as P
from dpbandit.audit.drawn import gamma_radius_pvalues, gaussian_scale_pvalues, only_stated_scale_fits

pytestmark = pytest.mark.privacy


@pytest.mark.parametrize(
    "eps,delta,sens,count", [(1.0, 1e-5, 1.0, 1), (0.5, 1e-6, 2.0, 7), (2.0, 1e-5, 0.3, 1000)]
)
def test_gaussian_sigma_is_the_exact_gaussian_mechanism(eps, delta, sens, count) -> None:
    """Balle-Wang's exact delta(eps) of the composed Gaussian (mu = sqrt(count) Delta / sigma) meets delta."""
    sigma = P.gaussian_sigma(eps, delta, sens, count)
    assert ref.gaussian_delta(eps, math.sqrt(count) * sens / sigma) <= delta * (1 + 1e-6)
    assert sigma == pytest.approx(ref.exact_gaussian_sigma(eps, delta, sens, count), rel=1e-5)


def test_gaussian_sigma_composes_as_square_root_of_count() -> None:
    """count Gaussians of std sigma are one of std sigma / sqrt(count): the std scales as sqrt(count)."""
    one = P.gaussian_sigma(1.0, 1e-5, 1.5, accountant="rdp")
    for count in (2, 9, 400):
        assert P.gaussian_sigma(1.0, 1e-5, 1.5, count, accountant="rdp") == pytest.approx(
            math.sqrt(count) * one
        )


@pytest.mark.parametrize("steps", [1, 15, 16, 1000])
def test_tree_sigma_meets_the_per_node_composition(steps: int) -> None:
    sigma = P.tree_gaussian_sigma(1.5, 1e-5, steps, sensitivity=2.0)
    assert ref.tree_epsilon(sigma / 2.0, steps, 1e-5) == pytest.approx(1.5, rel=1e-4)
    assert sigma == pytest.approx(2.0 * ref.tree_multiplier(1.5, 1e-5, steps), rel=1e-4)


def test_zcdp_conversions_and_gaussian_zcdp_sigma() -> None:
    assert P.zcdp_to_epsilon(0.3, 1e-6) == pytest.approx(ref.zcdp_epsilon(0.3, 1e-6), rel=1e-12)
    assert P.epsilon_to_zcdp(2.0, 1e-6) == pytest.approx(ref.rho_for(2.0, 1e-6), rel=1e-6)
    # Bun-Steinke: count Gaussians of sensitivity Delta, std sigma, are count Delta^2 / (2 sigma^2)-zCDP
    assert P.gaussian_sigma_zcdp(0.2, 3.0, 5) == pytest.approx(3.0 * math.sqrt(5 / (2 * 0.2)), rel=1e-12)


def test_generalized_gaussian_sigma_is_lemma_2_1() -> None:
    """sigma^2 = 2 kappa log(1/delta) s^2 / eps^2 (Lemma 2.1 of 004)."""
    assert P.generalized_gaussian_sigma(0.7, 1e-5, 3.0, 4.5) == pytest.approx(
        math.sqrt(2 * 4.5 * math.log(1e5) * 9.0 / 0.49), rel=1e-12
    )


@pytest.mark.parametrize(
    "make,expected",
    [
        (
            lambda: P.gaussian_event(3.0, 2.0, 4),
            dp_accounting.GaussianDpEvent(3.0 / 2.0 / 2.0),
        ),  # 4 of z: z / 2
        (
            lambda: P.laplace_event(2.0, 0.5, 3),
            dp_accounting.SelfComposedDpEvent(dp_accounting.LaplaceDpEvent(4.0), 3),
        ),
        (lambda: P.tree_aggregation_event(2.5, 100), dp_accounting.GaussianDpEvent(2.5 / math.sqrt(7))),
    ],
)
def test_events_carry_noise_over_sensitivity_and_count(make, expected) -> None:
    assert P.epsilon_for(make(), 1e-5) == pytest.approx(ref.rdp_epsilon(expected, 1e-5), rel=1e-9)


def test_pure_dp_selection_is_randomized_response_under_replace_one() -> None:
    event = P.pure_dp_event(0.3, 5)
    assert P.default_relation(event) == NeighboringRelation.REPLACE_ONE
    assert P.default_relation(P.gaussian_event(1.0)) == NeighboringRelation.REPLACE_SPECIAL
    rr = dp_accounting.RandomizedResponseDpEvent(2.0 / (math.exp(0.3) + 1.0), 2)  # P(keep)/P(flip) = e^0.3
    expected = ref.rdp_epsilon(
        dp_accounting.SelfComposedDpEvent(rr, 5), 1e-5, NeighboringRelation.REPLACE_ONE
    )
    assert P.epsilon_for(event, 1e-5) == pytest.approx(expected, rel=1e-9)
    assert P.epsilon_for(P.pure_dp_event(0.3), 1e-9, "pld") == pytest.approx(0.3, abs=1e-3)


def test_rnm_epsilon_is_twice_the_monotone_one() -> None:
    """Report-noisy-max, Lap(b), scores of sensitivity Delta: 2 Delta / b (generic), Delta / b (monotone)."""
    assert P.rnm_epsilon(4.0, 1.5) == pytest.approx(2 * 1.5 / 4.0)
    assert P.rnm_epsilon(4.0, 1.5, monotone=True) == pytest.approx(1.5 / 4.0)


def test_samplers_draw_their_stated_scale() -> None:
    rng = np.random.default_rng(17)
    assert only_stated_scale_fits(gaussian_scale_pvalues(P.gaussian(rng, 2.5, 20_000), 2.5))
    w = P.symmetric_gaussian(rng, 1.5, 4, size=(3000,))
    iu = np.triu_indices(4, 1)
    assert only_stated_scale_fits(gaussian_scale_pvalues(w[:, iu[0], iu[1]], 1.5))  # off-diagonal: sigma
    assert only_stated_scale_fits(
        gaussian_scale_pvalues(np.diagonal(w, axis1=1, axis2=2), math.sqrt(2) * 1.5)
    )
    sn = P.smooth_norm(3.0, 40)  # l_3 generalized Gaussian (Lemma 3.2 regime)
    assert only_stated_scale_fits(gamma_radius_pvalues(sn.norm(sn.sample(rng, 0.8, size=5000)) ** 2, 40, 0.8))
    tree = P.gaussian_tree((6,), 0.7, rng, horizon=8)  # a node: one draw of N(0, sigma^2 I)
    assert only_stated_scale_fits(gaussian_scale_pvalues(tree.noise(rng, 3000), 0.7))


@pytest.mark.parametrize(
    "q,dim,kappa",
    [(1.5, 16, 16 ** (2 / 1.5 - 1)), (1.0, 9, 9.0), (2.0, 30, 1.0), (3.0, 1000, 2.0), (math.inf, 5, 5.0)],
)
def test_regularity_constants(q: float, dim: int, kappa: float) -> None:
    """kappa_q: d^(2/q - 1) for q < 2 (Lemma 3.3), q - 1 for 2 <= q <= ln d, d^(1 - 2/q) for ln d < 2."""
    assert P.smooth_norm(q, dim).kappa == pytest.approx(kappa, rel=1e-12)
