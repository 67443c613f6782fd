"""DP-HDB variants behind options (issue 13, item 4): exponential-mechanism selection and no pre-selection.

Expected values are typed from the formulas of docs/private_agents.md (DP-HDB variants) and 004 Algorithm 2
line 8 / Appendix A.6, never through the code's own helpers.
"""

from __future__ import annotations

import hashlib
import math

import dp_accounting
import gymnasium
import numpy as np
import pytest
from scipy import stats

from dpbandit.agents.dphdb import DPHDB
from dpbandit.optim.pofw import POFWBank, POFWPrivacy


def _rounds(horizon: int, seed: int):
    env = gymnasium.make("dpbandit/HDBSection54-v0", disable_env_checker=True, horizon=horizon)
    env.reset(seed=seed)
    rounds = env.unwrapped.draw_rounds(horizon)
    return rounds.observations, rounds.rewards


# SHA-256 prefixes of the actions of a seeded faithful run recorded at commit 0a67d5c (before the variants).
_FAITHFUL = {"joint": ("5ed26dc98bf1f07c", 1003), "paper": ("f0026444752d7bf9", 1013)}


@pytest.mark.privacy
@pytest.mark.parametrize("calibration", ["joint", "paper"])
@pytest.mark.parametrize("compiled", [False, True])
def test_faithful_default_keeps_its_numbers(calibration, compiled):
    X, R = _rounds(2000, 3)
    agent = DPHDB(2, 50, rng=np.random.default_rng(5), horizon=2000, epsilon=100.0, calibration=calibration)
    actions = agent.play_block(X, R, compiled=compiled).astype(np.int64)
    assert (hashlib.sha256(actions.tobytes()).hexdigest()[:16], int(actions.sum())) == _FAITHFUL[calibration]
    assert agent.selection == "laplace" and agent.preselection is True


def _line8(t, *, epsilon, delta, horizon, radius=2.0, beta=1.0, lipschitz=1.0):
    diameter = 2 * radius
    return 4 * diameter * (beta * diameter + lipschitz) * math.sqrt(math.log(horizon) * math.log(1 / delta)) / (
        epsilon * np.sqrt(t)
    )


@pytest.mark.privacy
def test_exponential_calibration_inputs_pinned_from_the_formula():
    T, t0, K = 10_000, 120, 2
    agent = DPHDB(K, 50, rng=np.random.default_rng(0), horizon=T, selection="exponential", calibration="paper")
    cal = agent.bank.privacy_calibration
    n_steps = t0 + (T - K * t0)  # forced steps of the arm plus one per post-warm-up round (9880)
    assert (cal.n_steps, cal.streams) == (9880, 2) == (n_steps, 2)
    t = np.arange(1, n_steps + 1)
    b = _line8(t, epsilon=1.0, delta=1 / T, horizon=T)  # the temperature, multiplier 1 ("paper")
    sensitivity = 2.0 * 2 * (1 * 4 + 1) / (t + 1)  # Delta_t = r 2 (beta D + L) / (t + 1)
    rho = 2 * np.sum((2 * sensitivity / b) ** 2) / 8  # 2 streams, eps_t^2 / 8 (bounded range)
    assert cal.rho == pytest.approx(rho, rel=1e-12)
    acc = dp_accounting.rdp.RdpAccountant()
    assert agent.privacy.epsilon == pytest.approx(acc.compose(dp_accounting.ZCDpEvent(rho)).get_epsilon(1 / T))
    # the accountant calibration halves the Laplace multiplier: a quarter of the zCDP per eps_t^2
    lap = DPHDB(K, 50, rng=np.random.default_rng(0), horizon=T).bank.privacy_calibration
    em = DPHDB(K, 50, rng=np.random.default_rng(0), horizon=T, selection="exponential").bank.privacy_calibration
    assert em.multiplier == pytest.approx(lap.multiplier / 2, rel=1e-9)
    assert DPHDB(K, 50, rng=np.random.default_rng(0), horizon=T, selection="exponential").privacy.epsilon == (
        pytest.approx(1.0, rel=1e-4)
    )


def _softmax(scores_over_temperature):
    z = np.exp(-(scores_over_temperature - scores_over_temperature.min()))
    return z / z.sum()


@pytest.mark.privacy
def test_exponential_selection_frequencies_match_the_reported_temperature():
    """Sampled vertex choices of the agent's own bank vs P(v) ~ exp(-<d, v> / b_1); b/2 and 2b rejected."""
    T = 1000
    agent = DPHDB(2, 2, rng=np.random.default_rng(1), horizon=T, selection="exponential", calibration="paper")
    b1 = float(_line8(1.0, epsilon=1.0, delta=1 / T, horizon=T))  # temperature at t = 1
    n = 40_000
    direction = np.tile([0.3 * b1, -0.15 * b1], (n, 1)) / 2.0  # scores +-r d_j ~ b_1
    vertex = agent.bank._noisy_vertex(direction, np.ones(n))
    index = np.argmax(np.abs(vertex), axis=1) + 2 * (vertex.min(axis=1) < 0)
    counts = np.bincount(index, minlength=4)
    scores = 2.0 * np.concatenate([direction[0], -direction[0]])  # r = 2
    assert stats.chisquare(counts, n * _softmax(scores / b1)).pvalue > 1e-3
    for wrong in (0.5 * b1, 2.0 * b1):
        assert stats.chisquare(counts, n * _softmax(scores / wrong)).pvalue < 1e-6
    # epsilon recomputed from the drawn noise: temperature from the log-odds of the extreme vertices
    b_hat = (scores[index_of(scores, "max")] - scores[index_of(scores, "min")]) / math.log(
        counts[index_of(scores, "min")] / counts[index_of(scores, "max")]
    )
    assert b_hat == pytest.approx(b1, rel=0.06)
    cal = agent.bank.privacy_calibration
    t = np.arange(1, cal.n_steps + 1)
    eps_t = 2 * (2.0 * 2 * 5 / (t + 1)) / (b_hat / np.sqrt(t))
    rho_hat = 2 * np.sum(eps_t**2) / 8
    eps_hat = dp_accounting.rdp.RdpAccountant().compose(dp_accounting.ZCDpEvent(rho_hat)).get_epsilon(1 / T)
    assert eps_hat == pytest.approx(agent.privacy.epsilon, rel=0.15)


def index_of(scores: np.ndarray, which: str) -> int:
    return int(np.argmax(scores) if which == "max" else np.argmin(scores))


def test_bank_exponential_selection_with_explicit_multiplier():
    cal = POFWPrivacy(epsilon=1.0, delta=1e-3, horizon=100, selection="exponential", multiplier=2.0)
    paper = POFWPrivacy(epsilon=1.0, delta=1e-3, horizon=100, selection="exponential", calibration="paper")
    assert cal.rho == pytest.approx(paper.rho / 4)
    lap = POFWPrivacy(epsilon=1.0, delta=1e-3, horizon=100, calibration="paper")
    assert paper.rho == pytest.approx(lap.rho / 4)  # eps_t^2/8 vs eps_t^2/2 at the same eps_t
    bank = POFWBank(3, 2, radius=1.0, smoothness=1.0, lipschitz=1.0, rng=np.random.default_rng(0), privacy=cal)
    bank.step(np.zeros((3, 2)), np.zeros((3, 2)))
    assert np.all(np.abs(bank.theta).sum(axis=1) == pytest.approx(0.5))  # one vertex, eta_1 = 1/2
    assert "exponential mechanism" in cal.guarantee("x").notes


@pytest.mark.privacy
@pytest.mark.parametrize("epsilon", [1.0, 100.0])
def test_exponential_variant_compiled_path_draws_the_numpy_paths_numbers(epsilon):
    """The kernel's Gumbel-max selection: same actions, iterates and generator state as the numpy path."""
    X, R = _rounds(1500, 2)
    agents = [DPHDB(2, 50, rng=np.random.default_rng(4), horizon=1500, epsilon=epsilon, selection="exponential")
              for _ in range(2)]
    compiled, numpy_path = (a.play_block(X, R, compiled=c) for a, c in zip(agents, (True, False), strict=True))
    np.testing.assert_array_equal(compiled, numpy_path)
    np.testing.assert_allclose(agents[0].bank.theta, agents[1].bank.theta, rtol=0, atol=1e-12)
    assert agents[0].bank.rng.bit_generator.state == agents[1].bank.rng.bit_generator.state
    laplace = DPHDB(2, 50, rng=np.random.default_rng(4), horizon=1500, epsilon=epsilon).play_block(X, R)
    assert np.any(compiled != laplace)  # the selection really changed


def test_preselection_switch_keeps_every_arm():
    agent = DPHDB(3, 2, rng=np.random.default_rng(0), horizon=100, warmup=1, h_sub=0.2, noise=False,
                  preselection=False)
    agent.round = 3
    agent.frozen_theta = np.array([[1.0, 0.0], [0.95, 0.0], [0.0, 0.0]])  # arm 2 would be excluded
    agent.bank.theta[:] = [[0.0, 0.0], [0.5, 0.0], [2.0, 0.0]]
    assert agent.act(np.array([1.0, 0.0])) == 2
    assert agent.params["preselection"] is False


def test_preselection_switch_compiled_equals_numpy_and_differs_from_faithful():
    X, R = _rounds(3000, 6)

    def play(compiled: bool, preselection: bool) -> np.ndarray:
        agent = DPHDB(2, 50, rng=np.random.default_rng(9), horizon=3000, epsilon=1.0, h_sub=0.05,
                      preselection=preselection)
        return agent.play_block(X, R, compiled=compiled)

    off = play(True, False)
    np.testing.assert_array_equal(off, play(False, False))
    assert np.any(off != play(True, True))


def test_validation_names_the_new_options():
    with pytest.raises(ValueError, match="selection"):
        DPHDB(2, 3, rng=np.random.default_rng(0), horizon=10, selection="gumbel")
    with pytest.raises(ValueError, match="preselection"):
        DPHDB(2, 3, rng=np.random.default_rng(0), horizon=10, preselection="no")
    with pytest.raises(ValueError, match="selection"):
        POFWPrivacy(epsilon=1.0, delta=0.1, horizon=10, selection="x")
