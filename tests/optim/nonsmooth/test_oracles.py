"""Oracles of Algorithms 3/4/5: the printed privacy bugs of notes 002 section 7 are fixed."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from helpers import LinearLoss, ZeroLoss

from dpbandit.optim.nonsmooth.oracles import MultiPassOracle, OracleParams, SinglePassOracle
from dpbandit.optim.nonsmooth.phase_retrieval import RobustPhaseRetrieval


def _popcount(p: int) -> int:
    return bin(p).count("1")


@pytest.mark.privacy
@pytest.mark.parametrize("period", [8, 6])
def test_every_position_of_every_period_is_noised_with_a_fresh_tree(period):
    # Notes 7.6: the printed TREE(t mod Sigma) gives TREE(0) = 0 at the last step of each period (no noise),
    # NODE misses p = Sigma for powers of two, and a tree reused across periods leaks. Fixed: position
    # p = ((t-1) mod Sigma) + 1, a fresh dyadic tree per period, so the release at p has variance popcount(p) sigma^2.
    d, periods = 400, 3
    steps = periods * period
    params = OracleParams(order="first", alpha=0.1, period=period, m=1, B1=1, B2=1)
    oracle = SinglePassOracle(
        ZeroLoss(), np.zeros((2 * steps, d)), np.zeros(2 * steps), params,
        steps=steps, D=0.01, epsilon=1.0, delta=1e-5, rng=np.random.default_rng(0),
    )
    out = np.array([oracle(np.zeros(d)) for _ in range(steps)])
    assert np.all(np.linalg.norm(out, axis=1) > 0)
    ratio = out.var(axis=1) / oracle.sigma**2
    expected = np.array([_popcount((t % period) + 1) for t in range(steps)])
    np.testing.assert_allclose(ratio, expected, rtol=0.25)
    # anchors of different periods are independent (a shared tree would repeat its nodes)
    anchors = out[::period]
    assert abs(np.corrcoef(anchors[0], anchors[1])[0, 1]) < 0.2


@pytest.mark.privacy
def test_first_order_anchor_sensitivity_is_2L_over_B1_not_L_over_B1():
    # Lemma 6.3 prints ||g_t - g'_t|| <= L / B1 for the anchor; under replacement it is 2 L / B1.
    d, B1, L = 3, 4, 1.0
    X = np.tile(np.eye(d)[0], (8, 1))
    X_neighbour = X.copy()
    X_neighbour[0] = -X[0]  # replace one anchor sample
    params = OracleParams(order="first", alpha=0.1, period=2, m=1, B1=B1, B2=1)
    outs = []
    for data in (X, X_neighbour):
        oracle = SinglePassOracle(
            LinearLoss(L), data, np.zeros(8), params, steps=2, D=0.01, epsilon=1.0, delta=1e-5,
            rng=np.random.default_rng(1), noise=False,
        )
        outs.append(oracle(np.zeros(d)))
    gap = np.linalg.norm(outs[0] - outs[1])
    assert gap == pytest.approx(2 * L / B1)
    assert gap > L / B1
    private = SinglePassOracle(
        LinearLoss(L), X, np.zeros(8), params, steps=2, D=0.01, epsilon=1.0, delta=1e-5,
        rng=np.random.default_rng(1),
    )
    assert private.sensitivity >= 2 * L / B1


def _contributions(outputs: np.ndarray, period: int) -> np.ndarray:
    """M_t of Prop 2.5: the anchor at p = 1, else g_t - g_{t-1} (noise-free outputs are the clean g_t)."""
    contrib = np.diff(outputs, axis=0, prepend=0.0)
    contrib[::period] = outputs[::period]
    return contrib


@pytest.mark.parametrize("order", ["zeroth", "first"])
def test_strict_mode_bounds_every_step_deterministically(order):
    # Strict mode: per-sample clipping makes ||M_t(D) - M_t(D')|| <= sensitivity for every step, whatever the
    # directions (no high-probability event), even with m = 1 and adversarial neighbours.
    rng = np.random.default_rng(2)
    d, n, steps, period = 4, 40, 12, 4
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    params = OracleParams(
        order=order, alpha=0.05, period=period, m=1, B1=3, B2=2, clip_anchor=0.5, clip_increment=0.05
    )
    zs = np.cumsum(rng.uniform(-0.005, 0.005, (steps, d)), axis=0)  # near the kink <a, x> = 0 of |<a, x>|

    def gaps(replaced: int, strict: bool) -> tuple[np.ndarray, SinglePassOracle]:
        X2 = X.copy()
        X2[replaced] = -X[replaced] / 2
        runs = []
        for data in (X, X2):
            oracle = SinglePassOracle(
                RobustPhaseRetrieval(), data, np.zeros(n),
                params if strict else replace(params, clip_anchor=None, clip_increment=None),
                steps=steps, D=0.01, epsilon=1.0, delta=1e-5, rng=np.random.default_rng(3), noise=False,
                strict=strict,
            )
            runs.append(_contributions(np.array([oracle(z) for z in zs]), period))
        return np.linalg.norm(runs[0] - runs[1], axis=1), oracle

    strict_gaps, unclipped_gaps = [], []
    for replaced in range(27):  # every sample the 12 steps use
        gap, oracle = gaps(replaced, strict=True)
        strict_gaps.append(gap)
        unclipped_gaps.append(gaps(replaced, strict=False)[0])
    anchor = np.arange(steps) % period == 0
    s_anchor, s_increment = oracle.sensitivities
    assert np.max(np.array(strict_gaps)[:, anchor]) <= s_anchor * (1 + 1e-9)
    assert np.max(np.array(strict_gaps)[:, ~anchor]) <= s_increment * (1 + 1e-9)
    assert oracle.counters.clipped["increment"] > 0
    # without the clip the same bound would fail
    assert np.max(np.array(unclipped_gaps)[:, ~anchor]) > s_increment


def test_non_strict_mode_spends_delta_on_the_event():
    # m large enough that the w.h.p. bounds C_a, C_i beat the worst case L d, 2 L d: the event is needed.
    params = OracleParams(order="zeroth", alpha=0.1, period=4, m=4000, B1=4, B2=1)
    kw = dict(steps=8, D=0.001, epsilon=1.0, delta=1e-5, rng=np.random.default_rng(4))
    X = np.eye(5)[np.zeros(20, dtype=int)]
    strict = SinglePassOracle(LinearLoss(), X, np.zeros(20), params, **kw)
    loose = SinglePassOracle(LinearLoss(), X, np.zeros(20), params, strict=False, **kw)
    assert strict.delta_event == 0.0 and strict.delta_tree == 1e-5
    assert loose.delta_event == pytest.approx(5e-6) and loose.delta_tree == pytest.approx(5e-6)
    assert loose.bounds.anchor < 5.0 and not loose.bounds.anchor_certain
    small_m = SinglePassOracle(LinearLoss(), X, np.zeros(20), replace(params, m=8), strict=False, **kw)
    assert small_m.delta_event == 0.0  # the worst case L d is the smaller bound: deterministic
    for guarantee in (strict.privacy, loose.privacy):
        assert guarantee.claimed_delta == 1e-5
        assert guarantee.epsilon == pytest.approx(1.0, rel=1e-3)


@pytest.mark.privacy
def test_multi_pass_accumulates_the_noisy_sum_with_fresh_noise():
    # Alg 4 adds the increment to the NOISY g~_{t-1} and fresh N(0, sigma_2^2) every step (notes 7.5):
    # the release at position p has variance sigma_1^2 + (p - 1) sigma_2^2 (not the tree's popcount law).
    d, period = 400, 6
    params = OracleParams(order="first", alpha=0.1, period=period, m=1)
    oracle = MultiPassOracle(
        ZeroLoss(), np.zeros((10, d)), np.zeros(10), params, steps=period, D=0.01, epsilon=1.0, delta=1e-5,
        rng=np.random.default_rng(5),
    )
    out = np.array([oracle(np.zeros(d)) for _ in range(period)])
    s1, s2 = oracle.sigmas
    expected = s1**2 + np.arange(period) * s2**2
    np.testing.assert_allclose(out.var(axis=1), expected, rtol=0.2)
    assert oracle.privacy.epsilon == pytest.approx(1.0, rel=1e-3)


@pytest.mark.privacy
def test_paper_calibration_reports_the_accountant_epsilon():
    params = OracleParams(order="first", alpha=0.1, period=16, m=2, B1=4, B2=1)
    oracle = SinglePassOracle(
        LinearLoss(), np.ones((100, 3)) / 2, np.zeros(100), params, steps=20, D=0.01, epsilon=1.0,
        delta=1e-5, rng=np.random.default_rng(6), calibration="paper",
    )
    g = oracle.privacy
    assert g.calibration == "paper" and g.epsilon != pytest.approx(1.0, rel=1e-3)


def test_single_pass_refuses_to_reuse_samples():
    params = OracleParams(order="first", alpha=0.1, period=4, m=1, B1=4, B2=2)
    with pytest.raises(ValueError, match="steps=8 need 20 samples"):
        SinglePassOracle(
            LinearLoss(), np.ones((19, 2)), np.zeros(19), params, steps=8, D=0.01, epsilon=1.0, delta=1e-5,
            rng=np.random.default_rng(7),
        )


def test_clip_norms_are_refused_outside_strict_mode():
    params = OracleParams(order="first", alpha=0.1, period=4, m=1, clip_increment=0.1)
    with pytest.raises(ValueError, match="strict-mode parameters"):
        SinglePassOracle(
            LinearLoss(), np.ones((40, 2)), np.zeros(40), params, steps=8, D=0.01, epsilon=1.0, delta=1e-5,
            rng=np.random.default_rng(8), strict=False,
        )
