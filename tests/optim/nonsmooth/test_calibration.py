"""Nonsmooth oracles (paper 002) and the DP-SGD baseline: calibration inputs pinned to their formulas (written
here) and the noise each one really draws against its stated scale (halved and doubled noise rejected)."""

from __future__ import annotations

import math

import dp_accounting
import numpy as np
import privacy_reference as ref
import pytest
from helpers import LinearLoss, ZeroLoss

from dpbandit.audit.drawn import gaussian_scale_pvalues, only_stated_scale_fits
from dpbandit.optim.nonsmooth import DPSGD
from dpbandit.optim.nonsmooth.oracles import MultiPassOracle, OracleParams, SinglePassOracle

pytestmark = pytest.mark.privacy

EPS, DELTA = 1.0, 1e-5


def _params(**kw) -> OracleParams:
    return OracleParams(
        **{
            **dict(order="first", alpha=0.1, period=8, m=1, B1=4, B2=2, clip_anchor=1.5, clip_increment=0.4),
            **kw,
        }
    )


def _single(loss, n, d, seed=0, steps=16, **kw) -> SinglePassOracle:
    calibration = kw.pop("calibration", "accountant")
    return SinglePassOracle(
        loss,
        np.zeros((n, d)),
        np.zeros(n),
        _params(**kw),
        steps=steps,
        D=0.01,
        epsilon=EPS,
        delta=DELTA,
        rng=np.random.default_rng(seed),
        calibration=calibration,
    )


@pytest.mark.parametrize("calibration", ["accountant", "paper"])
def test_single_pass_calibration_inputs(calibration: str) -> None:
    """Replace-one sensitivities 2 C_a / B1 and 2 C_i / B2 (Lemma 6.3 prints L / B1); one sigma for the
    larger;
    each sample enters one step of one period's tree (fresh trees: parallel composition)."""
    oracle = _single(LinearLoss(), 40, 3, calibration=calibration)
    sens = (2 * 1.5 / 4, 2 * 0.4 / 2)
    assert oracle.sensitivities == pytest.approx(sens) and oracle.sensitivity == pytest.approx(max(sens))
    if calibration == "accountant":
        sigma = max(sens) * ref.tree_multiplier(EPS, DELTA, 8)
    else:  # Prop 2.5: 4 s sqrt(log Sigma log(1/delta)) / eps
        sigma = 4 * max(sens) * math.sqrt(math.log(8) * math.log(1 / DELTA)) / EPS
    assert oracle.sigma == pytest.approx(sigma, rel=1e-4)
    assert oracle.privacy.epsilon == pytest.approx(ref.tree_epsilon(sigma / max(sens), 8, DELTA), rel=1e-4)


@pytest.mark.parametrize("order,m", [("first", 1), ("zeroth", 3)])
def test_per_sample_bounds_are_the_documented_ones(order: str, m: int) -> None:
    """Strict defaults: C_a = min(L + dev(m_a), b), C_i = min(2 D L sqrt(d)/alpha + 2 dev(m), 2 b), b = L
    (first
    order) or L d (zeroth), dev = b/sqrt(m) (1 + sqrt(2 log(1/gamma))), gamma = (delta/2) / 4 (one use per
    sample)."""
    d, L, alpha, D = 3, 1.0, 0.1, 0.01
    oracle = SinglePassOracle(
        LinearLoss(L),
        np.zeros((40, d)),
        np.zeros(40),
        OracleParams(order=order, alpha=alpha, period=4, m=m, B1=2, B2=1),
        steps=8,
        D=D,
        epsilon=EPS,
        delta=DELTA,
        rng=np.random.default_rng(0),
    )
    b = L if order == "first" else L * d

    def dev(k: int) -> float:
        return b / math.sqrt(k) * (1 + math.sqrt(2 * math.log(1 / (DELTA / 2 / 4))))

    m_anchor = m if order == "zeroth" else 1
    assert oracle.clip_anchor == pytest.approx(min(L + dev(m_anchor), b))
    assert oracle.clip_increment == pytest.approx(min(2 * D * L * math.sqrt(d) / alpha + 2 * dev(m), 2 * b))
    assert oracle.sensitivities == pytest.approx((2 * oracle.clip_anchor / 2, 2 * oracle.clip_increment / 1))


def test_single_pass_tree_draws_its_stated_noise() -> None:
    """Zero loss: the releases are pure tree noise; at positions p = 2^k of a period, one node each."""
    d, period = 50, 8
    sigma = 2 * 1.5 / 4 * ref.tree_multiplier(EPS, DELTA, period)
    nodes = []
    for seed in range(6):
        oracle = _single(ZeroLoss(), 200, d, seed=seed)
        for t in range(16):
            out = oracle(np.zeros(d))
            if (t % period + 1) & (t % period) == 0:
                nodes.append(out)
    assert only_stated_scale_fits(gaussian_scale_pvalues(np.array(nodes), sigma))


def _multi(loss, n, d, seed=0, **kw) -> MultiPassOracle:
    calibration = kw.pop("calibration", "accountant")
    return MultiPassOracle(
        loss,
        np.zeros((n, d)),
        np.zeros(n),
        _params(period=4, **kw),
        steps=8,
        D=0.01,
        epsilon=EPS,
        delta=DELTA,
        rng=np.random.default_rng(seed),
        calibration=calibration,
    )


def _multi_sigmas(n: int, calibration: str) -> tuple[float, float]:
    """k1 = 2 anchors, k2 = 6 increments (T = 8, Sigma = 4); replace-one sensitivities 2 C / n.

    Accountant: split rho in proportion to sqrt(k1) s1 and sqrt((Sigma - 1) k2) s2, scaled to (eps, delta).
    Paper (Thm 4.1, constants 1): sigma_k = s_k sqrt(k log(1/delta)) / eps.
    """
    (k1, k2), (s1, s2) = (2, 6), (2 * 1.5 / n, 2 * 0.4 / n)
    if calibration == "paper":
        return s1 * math.sqrt(k1 * math.log(1 / DELTA)) / EPS, s2 * math.sqrt(k2 * math.log(1 / DELTA)) / EPS
    z = 1 / ref.solve_increasing(
        lambda inv: ref.rdp_epsilon(dp_accounting.GaussianDpEvent(1 / inv), DELTA), EPS
    )
    w1, w2 = math.sqrt(k1) * s1, math.sqrt(3 * k2) * s2
    return z * math.sqrt(k1 * (w1 + w2) / w1) * s1, z * math.sqrt(k2 * (w1 + w2) / w2) * s2


@pytest.mark.parametrize("calibration", ["accountant", "paper"])
def test_multi_pass_calibration_inputs(calibration: str) -> None:
    n = 30
    oracle = _multi(LinearLoss(), n, 3, calibration=calibration)
    s1, s2 = 2 * 1.5 / n, 2 * 0.4 / n
    assert oracle.sensitivities == pytest.approx((s1, s2)) and oracle.counts == (2, 6)
    sigma1, sigma2 = _multi_sigmas(n, calibration)
    assert oracle.sigmas == pytest.approx((sigma1, sigma2), rel=1e-4)
    releases = dp_accounting.ComposedDpEvent(
        [dp_accounting.GaussianDpEvent(sigma1 / s1)] * 2 + [dp_accounting.GaussianDpEvent(sigma2 / s2)] * 6
    )
    assert oracle.privacy.epsilon == pytest.approx(ref.rdp_epsilon(releases, DELTA), rel=1e-4)
    if calibration == "accountant":
        assert oracle.privacy.epsilon == pytest.approx(EPS, rel=1e-4)


def test_multi_pass_draws_its_stated_noise() -> None:
    """Zero loss: anchors are N(0, sigma_1^2 I); each increment adds fresh N(0, sigma_2^2 I) to the sum."""
    n, d = 30, 40
    sigma1, sigma2 = _multi_sigmas(n, "accountant")
    anchors, increments = [], []
    for seed in range(8):
        oracle = _multi(ZeroLoss(), n, d, seed=seed)
        out = np.array([oracle(np.zeros(d)) for _ in range(8)])
        anchors += [out[0], out[4]]
        increments.append(np.diff(out[:4], axis=0))
        increments.append(np.diff(out[4:], axis=0))
    assert only_stated_scale_fits(gaussian_scale_pvalues(np.array(anchors), sigma1))
    assert only_stated_scale_fits(gaussian_scale_pvalues(np.concatenate(increments), sigma2))


def test_dpsgd_calibration_and_drawn_noise() -> None:
    """One Gaussian mechanism of sensitivity 2 C / B (disjoint batches); zero data: x_{t+1} = x_t - eta xi."""
    n, d, steps, C = 400, 100, 40, 0.5
    B = n // steps
    sigma = ref.exact_gaussian_sigma(EPS, DELTA, 2 * C / B)
    res = DPSGD(
        d, loss=ZeroLoss(), epsilon=EPS, delta=DELTA, rng=np.random.default_rng(0), steps=steps, clip_norm=C
    ).fit(np.zeros((n, d)), np.zeros(n))
    assert res.info["sigma"] == pytest.approx(sigma, rel=1e-5) and res.info["B"] == B
    noise = -np.diff(res.history, axis=0) / res.info["eta"]
    assert only_stated_scale_fits(gaussian_scale_pvalues(noise, sigma))
    assert res.privacy.epsilon <= EPS * (1 + 1e-6)
