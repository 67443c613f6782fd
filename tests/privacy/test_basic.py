"""Smoke-level checks of the privacy core API (shapes, constants, accounting round trips)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandit import privacy as P

pytestmark = pytest.mark.privacy


def test_sampler_shapes() -> None:
    rng = np.random.default_rng(0)
    assert P.gaussian(rng, 1.0, (4, 3)).shape == (4, 3)
    assert P.laplace(rng, 1.0, 5).shape == (5,)
    w = P.symmetric_gaussian(rng, 1.0, 3, size=(2,))
    assert w.shape == (2, 3, 3)
    np.testing.assert_array_equal(w, np.swapaxes(w, -1, -2))
    assert P.generalized_gaussian(rng, 1.0, 6, 3.0, size=(7,)).shape == (7, 6)
    assert P.smooth_norm(1.5, 6).sample(rng, 1.0, size=(2, 3)).shape == (2, 3, 6)


def test_smooth_norm_constants() -> None:
    # Lemma 3.2 regime with r = ln d: kappa = e^2 (ln d - 1)
    d = 3000
    sn = P.smooth_norm(math.inf, d)
    assert sn.r == pytest.approx(math.log(d))
    assert sn.kappa == pytest.approx(math.e**2 * (math.log(d) - 1))
    assert P.smooth_norm(3.0, d).kappa == pytest.approx(2.0)  # q - 1 when q < ln d
    assert P.smooth_norm(8.0, 1000).kappa == pytest.approx(7.0)  # r = q beats r = ln d here
    small = P.smooth_norm(4.0, 5)  # ln 5 < 2: r = 2, kappa = d^(1 - 2/q)
    assert (small.r, small.kappa_plus) == (2.0, 1.0)
    assert small.kappa == pytest.approx(5 ** (1 - 2 / 4))
    lemma33 = P.smooth_norm(P.dual_index(4.0), 16)  # p = 4: scale d^(1/4), kappa d^(1/2)
    assert lemma33.scale == pytest.approx(2.0) and lemma33.kappa == pytest.approx(4.0)
    assert P.smooth_norm(1.0, 9).scale == pytest.approx(3.0)  # p = inf


@pytest.mark.parametrize("d", [8, 50, 1000, 10**5])
@pytest.mark.parametrize("q", [2.0, 2.5, 4.0, 8.0, 20.0, 100.0, math.inf])
def test_kappa_never_exceeds_lemma_3_2(q: float, d: int) -> None:
    """kappa <= printed kappa_q = min{q - 1, e^2 (ln d - 1)} (d >= 8 so that ln d >= 2)."""
    assert P.smooth_norm(q, d).kappa <= min(q - 1, math.e**2 * (math.log(d) - 1)) * (1 + 1e-12)


@pytest.mark.parametrize("q,d", [(2.0, 5), (3.0, 50), (8.0, 1000), (math.inf, 20), (1.5, 8), (1.0, 4)])
def test_smooth_norm_sandwich(q: float, d: int) -> None:
    """||x||_q <= ||x||_+ <= sqrt(kappa / kappa_+) ||x||_q on random and extreme points (Def 2.2)."""
    sn = P.smooth_norm(q, d)
    x = np.vstack([np.random.default_rng(0).standard_cauchy((200, d)), np.eye(d), np.ones((1, d))])
    lq = np.linalg.norm(x, ord=q, axis=1)
    assert np.all(lq <= sn.norm(x) * (1 + 1e-12))
    assert np.all(sn.norm(x) <= math.sqrt(sn.kappa / sn.kappa_plus) * lq * (1 + 1e-12))


def test_accounting_round_trips() -> None:
    sigma = P.gaussian_sigma(1.0, 1e-5)
    assert P.epsilon_for(P.gaussian_event(sigma), 1e-5, "pld") == pytest.approx(1.0, abs=1e-3)
    assert sigma < P.gaussian_sigma(1.0, 1e-5, accountant="rdp")  # PLD is tighter than RDP
    s1000 = P.gaussian_sigma(1.0, 1e-5, sensitivity=2.0, count=1000)
    assert P.epsilon_for(P.gaussian_event(s1000, 2.0, 1000), 1e-5, "pld") == pytest.approx(1.0, abs=1e-3)
    rho = P.epsilon_to_zcdp(2.0, 1e-6)
    assert P.zcdp_to_epsilon(rho, 1e-6) == pytest.approx(2.0, rel=1e-4)
    # a Gaussian with std 1/sqrt(2 rho) has exactly the rho-zCDP RDP curve
    sig = P.gaussian_sigma_zcdp(0.3)
    assert P.epsilon_for(P.gaussian_event(sig), 1e-5) == pytest.approx(P.zcdp_to_epsilon(0.3, 1e-5), rel=1e-9)
    s_tree = P.tree_gaussian_sigma(1.0, 1e-5, steps=1000, sensitivity=2.0)
    assert P.epsilon_for(P.tree_aggregation_event(s_tree / 2.0, 1000), 1e-5) == pytest.approx(1.0, abs=1e-4)


def test_pure_dp_event_counts_compositions() -> None:
    assert P.epsilon_for(P.pure_dp_event(1.0), 1e-9, "pld") == pytest.approx(1.0, abs=1e-3)
    one = P.epsilon_for(P.pure_dp_event(0.1), 1e-5, "pld")
    many = P.epsilon_for(P.pure_dp_event(0.1, 100), 1e-5, "pld")
    assert many > 10 * one  # the PLD count bug of dp_accounting 0.6.0 is worked around
    assert many < P.epsilon_for(P.pure_dp_event(0.1, 100), 1e-5, "rdp") < 10.0  # better than basic composition


def test_tree_event_unsupported_by_pld_names_event() -> None:
    with pytest.raises(ValueError, match="SingleEpochTreeAggregation"):
        P.epsilon_for(P.tree_aggregation_event(1.0, 10), 1e-5, "pld")


def test_guarantee_reports_shortfall() -> None:
    g = P.PrivacyGuarantee.from_event("tree", P.tree_aggregation_event(2.0, 1000), 1.0, 1e-5)
    assert g.shortfall > 0 and not g.holds and "SHORTFALL" in str(g)
    ok = P.PrivacyGuarantee.from_event("gauss", P.gaussian_event(10.0), 1.0, 1e-5, accountant="pld")
    assert ok.holds and ok.epsilon < 1.0 and "conservative" in str(ok)
    lemma = P.PrivacyGuarantee.analytic("gg", 1.0, 1e-5, "Lemma 2.1 of 004")
    assert lemma.accountant.startswith("analytic") and lemma.holds


def test_rnm_batched_and_correct_without_noise_influence() -> None:
    rng = np.random.default_rng(0)
    scores = np.tile(np.array([0.0, 100.0, -100.0]), (5, 1))
    assert P.report_noisy_max(rng, scores, 0.01).tolist() == [1] * 5
    assert P.report_noisy_min(rng, scores, 0.01).tolist() == [2] * 5
    assert P.exponential_mechanism(rng, scores, 10.0, 1.0).shape == (5,)
