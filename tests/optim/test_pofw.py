"""DP-POFW (Algorithm 2 of 004): convergence with noise off, the recursion, the noisy LMO, privacy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpbandit.optim.losses import ClippedLoss, SquaredLoss
from dpbandit.optim.pofw import DPPOFW, POFWBank, POFWPrivacy, line8_scale
from dpbandit.privacy import accounting


def _least_squares(n: int, dim: int = 10, seed: int = 0):
    rng = np.random.default_rng(seed)
    theta = np.zeros(dim)
    theta[:3] = [0.5, -0.3, 0.2]  # ||theta||_1 = 1: interior of the radius-2 ball
    X = rng.uniform(-1.0, 1.0, (n, dim))
    return X, X @ theta + 0.05 * rng.standard_normal(n), theta


def _loss() -> ClippedLoss:
    return ClippedLoss(SquaredLoss(), clip_norm=10.0, p=1)  # clipping inactive on this data


def test_noise_off_converges_on_l1_constrained_least_squares():
    n = 8000
    X, y, theta = _least_squares(n)
    opt = DPPOFW(10, horizon=n, rng=np.random.default_rng(1), loss=_loss(), noise=False)
    result = opt.run(X, y, record_every=1000)
    loss = SquaredLoss()
    excess = np.array([loss.value(th, X, y) - loss.value(theta, X, y) for th in result.history])
    assert opt.privacy is None and result.privacy is None
    assert np.all(np.abs(result.history).sum(axis=1) <= 2.0 + 1e-12)  # iterates stay in the l1 ball
    assert excess[-1] < 0.004
    assert excess[-1] < 0.4 * excess[0]  # keeps improving (excess at n/8 -> n)


def test_recursive_gradient_uses_d0_zero_convention():
    bank = POFWBank(1, 3, radius=1.0, smoothness=1.0, lipschitz=1.0, rng=np.random.default_rng(0),
                    privacy=None, noise=False)
    g = np.array([[0.4, -1.0, 0.2]])
    bank.step(g, g)  # theta_0 = theta_1 = 0: both gradients equal
    np.testing.assert_allclose(bank.direction, g / 2)  # d_1 = grad / 2 (Eq 3.1 / A.1)
    np.testing.assert_allclose(bank.theta, [[0.0, 0.5, 0.0]])  # eta_1 = 1/2 towards +e_2
    g2, g1 = np.array([[1.0, 0.0, 0.0]]), np.array([[0.5, 0.0, 0.0]])
    bank.step(g2, g1)
    np.testing.assert_allclose(bank.direction, g2 + (2 / 3) * (g / 2 - g1))


def test_bank_matches_independent_single_instances():
    X, y, _ = _least_squares(200, dim=4, seed=3)
    singles = [
        DPPOFW(4, horizon=200, rng=np.random.default_rng(0), loss=_loss(), noise=False) for _ in range(2)
    ]
    bank = POFWBank(2, 4, radius=2.0, smoothness=2.0, lipschitz=10.0, rng=np.random.default_rng(0),
                    privacy=None, noise=False)
    loss = _loss()
    for i in range(100):
        xs = np.stack([X[i], X[100 + i]])
        ys = np.array([y[i], y[100 + i]])
        now = np.stack([loss.per_example_grad(bank.theta[k], xs[k], ys[k])[0] for k in range(2)])
        prev = np.stack([loss.per_example_grad(bank.theta_prev[k], xs[k], ys[k])[0] for k in range(2)])
        bank.step(now, prev)
        for k in range(2):
            singles[k].step(xs[k], ys[k])
    np.testing.assert_allclose(bank.theta, np.stack([s.theta for s in singles]))


def test_subset_step_leaves_other_instances_untouched():
    bank = POFWBank(3, 2, radius=1.0, smoothness=1.0, lipschitz=1.0, rng=np.random.default_rng(0),
                    privacy=None, noise=False)
    bank.step(np.ones((1, 2)), np.ones((1, 2)), np.array([1]))
    assert bank.t.tolist() == [0, 1, 0]
    assert np.all(bank.theta[[0, 2]] == 0) and np.any(bank.theta[1] != 0)


def test_noisy_selection_is_uniform_over_the_2d_vertices_when_scores_tie():
    cal = POFWPrivacy(epsilon=1.0, delta=1e-3, horizon=1000)
    bank = POFWBank(4000, 3, radius=1.0, smoothness=1.0, lipschitz=1.0, rng=np.random.default_rng(5),
                    privacy=cal)
    zero = np.zeros((4000, 3))
    bank.step(zero, zero)  # d = 0: every vertex score is pure Laplace noise
    index = np.argmax(np.abs(bank.theta), axis=1) + 3 * (bank.theta.min(axis=1) < 0)
    counts = np.bincount(index, minlength=6)
    assert stats.chisquare(counts).pvalue > 1e-3


def test_strong_signal_beats_the_noise():
    cal = POFWPrivacy(epsilon=1.0, delta=1e-3, horizon=1000)
    bank = POFWBank(500, 3, radius=1.0, smoothness=1.0, lipschitz=1.0, rng=np.random.default_rng(2),
                    privacy=cal)
    scale = line8_scale(np.array([1.0]), radius=1.0, smoothness=1.0, lipschitz=1.0, privacy=cal)[0]
    g = np.tile([0.0, 60.0 * scale, 0.0], (500, 1))  # score gap 30 Laplace scales
    bank.step(g, g)
    np.testing.assert_allclose(bank.theta, np.tile([0.0, -0.5, 0.0], (500, 1)))


@pytest.mark.privacy
def test_line8_scale_and_per_step_epsilon_match_appendix_a6():
    cal = POFWPrivacy(epsilon=1.0, delta=1e-4, horizon=10_000, calibration="paper")
    t = np.arange(1, 10_001)
    b = line8_scale(t, radius=2.0, smoothness=1.0, lipschitz=1.0, privacy=cal)
    expected = 4 * 4 * (1 * 4 + 1) * math.sqrt(math.log(1e4) * math.log(1e4)) / np.sqrt(t)
    np.testing.assert_allclose(b, expected)
    # eps_t = 2 Delta_t / b_t with Delta_t = r 2(beta D + L)/(t+1) (non-monotone RNM)
    np.testing.assert_allclose(cal.step_epsilons(), 2 * 2.0 * 2 * 5 / (t + 1) / b)
    assert np.all(cal.step_epsilons() <= 1.0 / (2 * np.sqrt(t * math.log(1e4) * math.log(1e4))))


@pytest.mark.privacy
@pytest.mark.parametrize("streams", [1, 2])
def test_accountant_calibration_reaches_requested_epsilon(streams):
    cal = POFWPrivacy(epsilon=0.5, delta=1e-5, horizon=5000, streams=streams)
    assert cal.guarantee("x").epsilon == pytest.approx(0.5, rel=1e-4)
    paper = POFWPrivacy(epsilon=0.5, delta=1e-5, horizon=5000, streams=streams, calibration="paper")
    assert paper.multiplier == 1.0
    assert paper.rho == pytest.approx(cal.rho * cal.multiplier**2)
    assert paper.guarantee("x").epsilon == pytest.approx(accounting.zcdp_to_epsilon(paper.rho, 1e-5))
    fixed = POFWPrivacy(epsilon=0.5, delta=1e-5, horizon=5000, streams=streams, multiplier=2.0)
    assert fixed.rho == pytest.approx(paper.rho / 4) and "fixed" in fixed.calibration


@pytest.mark.privacy
def test_private_optimizer_reports_guarantee_and_refuses_extra_steps():
    opt = DPPOFW(2, horizon=3, rng=np.random.default_rng(0), epsilon=2.0, delta=0.01, loss=_loss())
    assert opt.privacy.claimed_epsilon == 2.0 and opt.privacy.epsilon == pytest.approx(2.0, rel=1e-4)
    for _ in range(3):
        opt.step(np.array([1.0, 0.0]), 0.3)
    with pytest.raises(RuntimeError):
        opt.step(np.array([1.0, 0.0]), 0.3)


def test_validation_names_parameters():
    with pytest.raises(ValueError, match="horizon"):
        POFWPrivacy(epsilon=1.0, delta=0.1, horizon=1)
    with pytest.raises(ValueError, match="calibration"):
        POFWPrivacy(epsilon=1.0, delta=0.1, horizon=10, calibration="nope")
    opt = DPPOFW(2, horizon=5, rng=np.random.default_rng(0), loss=_loss(), feature_bound=1.0)
    with pytest.raises(ValueError, match="feature_bound"):
        opt.step(np.array([2.0, 0.0]), 0.0)
