"""Algorithm 2 (O2NC) mechanics, the noise-free first-order variant reaching (alpha, beta)-stationarity, DP-SGD."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import LinearLoss

from dpbandit.optim.nonsmooth import DPSGD, OracleParams, Preset, PrivateO2NC, ShellLoss, goldstein_estimate
from dpbandit.optim.nonsmooth.o2nc import o2nc
from dpbandit.optim.nonsmooth.phase_retrieval import RobustPhaseRetrieval, make_phase_retrieval
from dpbandit.optim.nonsmooth.presets import practical_preset, step_size, theory_preset


def test_o2nc_queries_segments_clips_increments_and_averages_blocks():
    rng = np.random.default_rng(0)
    queries = []

    def oracle(z):
        queries.append(z.copy())
        return rng.normal(size=3) * 10

    x0 = np.array([1.0, -2.0, 0.5])
    trace = o2nc(oracle, x0, D=0.1, eta=1.0, M=5, T=23, rng=np.random.default_rng(1))
    z = np.array(queries)
    np.testing.assert_array_equal(z[0], x0)  # Delta_1 = 0 so z_1 = x_0
    assert np.all(np.linalg.norm(np.diff(z, axis=0), axis=1) <= 2 * 0.1 + 1e-12)  # ||z_t - z_{t-1}|| <= 2D
    np.testing.assert_allclose(trace.block_means, z[:20].reshape(4, 5, 3).mean(axis=1))
    assert any(np.allclose(trace.x_out, b) for b in trace.block_means)


def test_noise_free_first_order_variant_reaches_goldstein_stationarity_on_the_shell():
    # Must-show 2. F(x) = | ||x|| - 1 | (ShellLoss with centred linear perturbations xi): the (2 alpha, 0)-stationary
    # set is the shell | ||x|| - 1 | <= 2 alpha (and the small ball around 0). Start at ||x0|| = 1.5 (Goldstein
    # norm 0.998). Algorithm 2 + 5 with noise off: the estimated E||dbar_{2 alpha} F(x_out)|| <= beta = 0.1 and the
    # estimate upper-bounds the analytic value at every sampled block average.
    rng = np.random.default_rng(0)
    d, n, alpha, beta = 5, 8000, 0.05, 0.1
    X = rng.choice([-0.3, 0.3], size=(n, d))
    X -= X.mean(axis=0)
    y = np.zeros(n)
    loss = ShellLoss(1.0, lipschitz=1.0 + np.linalg.norm(X, axis=1).max())
    x0 = np.full(d, 1.5 / np.sqrt(d))
    D, M, T = 0.005, 4, 4000  # M D <= alpha (Prop 2.6); D T = 20 >> distance 0.5 to the shell
    preset = Preset(
        OracleParams(order="first", alpha=alpha, period=8, m=4, B1=8, B2=1),
        D, M, T, step_size(D, M, loss.lipschitz, 0.0), False, np.nan, "test",
    )
    opt = PrivateO2NC(d, loss=loss, preset=preset, epsilon=1.0, delta=1e-6, rng=np.random.default_rng(1), x0=x0,
                      noise=False)
    result = opt.fit(X, y)
    assert result.privacy is None
    blocks = result.history[np.random.default_rng(2).choice(len(result.history), 100, replace=False)]
    est = goldstein_estimate(lambda p: loss.mean_grads(p, X, y), blocks, 2 * alpha,
                             rng=np.random.default_rng(3), n_samples=40, iters=1000)
    exact = loss.goldstein_norm(blocks, 2 * alpha)
    assert loss.goldstein_norm(x0, 2 * alpha) > 0.99
    assert est.mean <= beta
    assert np.all(est.upper >= exact - 1e-9)
    assert loss.goldstein_norm(result.history[-20:], 2 * alpha).max() == 0.0


@pytest.mark.privacy
def test_private_runs_report_the_accountant_epsilon():
    rng = np.random.default_rng(4)
    data = make_phase_retrieval(2000, 4, rng=rng)
    loss = RobustPhaseRetrieval()
    for order in ("first", "zeroth"):
        preset = practical_preset(order, n=2000, dim=4, alpha=0.1, epsilon=2.0, delta=1e-5, steps=200)
        result = PrivateO2NC(4, loss=loss, preset=preset, epsilon=2.0, delta=1e-5, rng=rng).fit(data.X, data.y)
        assert result.privacy.epsilon == pytest.approx(2.0, rel=1e-3)
        assert result.history.shape == (preset.steps // preset.M, 4)
    mp = practical_preset("first", n=2000, dim=4, alpha=0.1, epsilon=2.0, delta=1e-5, steps=10, multi_pass=True)
    result = PrivateO2NC(4, loss=loss, preset=mp, epsilon=2.0, delta=1e-5, rng=rng).fit(data.X, data.y)
    assert result.privacy.epsilon == pytest.approx(2.0, rel=1e-3)
    sgd = DPSGD(4, loss=loss, epsilon=2.0, delta=1e-5, rng=rng, steps=100).fit(data.X, data.y)
    assert sgd.privacy.epsilon == pytest.approx(2.0, rel=1e-3)


def test_theory_presets_follow_the_theorems():
    kw = dict(n=100_000, dim=10, alpha=0.1, epsilon=1.0, delta=1e-6, gap=1.0)
    zo, fo = theory_preset("zeroth", **kw), theory_preset("first", **kw)
    assert zo.params.B1 == zo.params.period and zo.params.B2 == 1  # B1 = Sigma, B2 = 1
    assert zo.M == max(1, int(0.1 / (4 * zo.D)))
    assert zo.params.m > 10**2 * fo.params.m  # Remark 6.2: m is ~d^2 smaller with first-order access
    assert zo.params.period == 193 and zo.M == 107  # the worked scale check of the notes (d = 10, n = 1e5)
    printed = theory_preset("zeroth", multi_pass=True, beta=0.5, thm41="printed", **kw)
    corrected = theory_preset("zeroth", multi_pass=True, beta=0.5, thm41="corrected", **kw)
    assert printed.D == pytest.approx(0.1 * corrected.D)  # notes 7.10: alpha^2 beta^2/L^2 vs alpha beta^2/L^2


def test_contract_loss_and_validation():
    loss = LinearLoss()
    with pytest.raises(ValueError, match="T >= 5"):
        o2nc(lambda z: z, np.zeros(2), D=0.1, eta=0.1, M=5, T=4, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="alpha"):
        OracleParams(order="first", alpha=0.0, period=2, m=1)
    assert loss.per_example_grad(np.zeros(2), np.eye(2), np.zeros(2)).shape == (2, 2)
