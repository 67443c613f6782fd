"""DP-UCB (Shariff and Sheffet 2018): positive-definite V_t, exact statistics with noise off, privacy."""

from __future__ import annotations

import math

import gymnasium
import numpy as np
import pytest

from dpbandit.agents.dpucb import DPUCB
from dpbandit.envs.wrappers import block_features


def _run(agent: DPUCB, rounds: int, seed: int = 0, on_round=None) -> np.ndarray:
    env = gymnasium.make(
        "dpbandit/HDBSection54-v0", disable_env_checker=True, horizon=rounds, dim=10, sparsity=2
    )
    obs, _ = env.reset(seed=seed)
    regret = np.empty(rounds)
    for t in range(rounds):
        features = block_features(obs, 2)
        action = agent.act(features)
        obs, reward, _, _, info = env.step(action)
        agent.update(features, action, reward)
        regret[t] = info["regret"]
        if on_round is not None:
            on_round()
    return regret


def test_gram_matrix_is_positive_definite_at_every_step():
    T = 300
    agent = DPUCB(2, 20, rng=np.random.default_rng(0), horizon=T, feature_bound=math.sqrt(10))
    smallest = []
    _run(agent, T, on_round=lambda: smallest.append(np.linalg.eigvalsh(agent.gram)[0]))
    assert len(smallest) == T
    assert min(smallest) > agent.rho_min  # the accurate event: lambda_min(H_t) >= rho_min = Upsilon


def test_noise_off_statistics_are_exact_sums_plus_shift():
    T = 60
    agent = DPUCB(2, 20, rng=np.random.default_rng(0), horizon=T, feature_bound=math.sqrt(10), noise=False)
    rows, rewards = [], []
    original = agent._record

    def spy(model, feature, reward):
        rows.append(feature.copy())
        rewards.append(np.clip(reward, -agent.reward_bound, agent.reward_bound))
        original(model, feature, reward)

    agent._record = spy
    _run(agent, T)
    X, y = np.array(rows), np.array(rewards)
    gram = X.T @ X + 2 * agent.upsilon * np.eye(20)
    np.testing.assert_allclose(agent.gram, gram, rtol=1e-12)
    np.testing.assert_allclose(agent.theta_hat[0], np.linalg.solve(gram, X.T @ y), rtol=1e-8)
    assert agent.privacy is None


def test_widths_come_from_the_cholesky_factor():
    agent = DPUCB(2, 4, rng=np.random.default_rng(3), horizon=10, feature_bound=2.0)
    features = np.array([[1.0, 0.5, 0.0, 0.0], [0.0, 0.0, -1.0, 1.0]])
    agent.update(features, 0, 0.3)
    _, variance = agent._mean_and_variance(features)
    expected = np.einsum("ki,ij,kj->k", features, np.linalg.inv(agent.gram), features)
    np.testing.assert_allclose(variance, expected, rtol=1e-10)


@pytest.mark.privacy
def test_paper_constants():
    T, D = 10_000, 100
    agent = DPUCB(2, D, rng=np.random.default_rng(0), horizon=T, feature_bound=math.sqrt(50))
    m = 15  # 1 + ceil(log2 T)
    l2 = 50 + 1.15**2
    sigma = math.sqrt(16 * m * l2**2 * math.log(4 * T) ** 2)
    assert agent.sigma_noise == pytest.approx(sigma)
    ups = sigma * math.sqrt(2 * m) * (4 * math.sqrt(D) + 2 * math.log(2 * T * T))
    assert agent.upsilon == pytest.approx(ups)
    assert (agent.rho_min, agent.rho_max) == pytest.approx((ups, 3 * ups))
    root = 10 + math.sqrt(2 * math.log(2 * T * T))
    assert agent.gamma == pytest.approx(sigma * math.sqrt(m / ups) * root)


@pytest.mark.privacy
def test_privacy_report_paper_and_accountant():
    paper = DPUCB(2, 20, rng=np.random.default_rng(0), horizon=1000).privacy
    assert paper.claimed_epsilon == 1.0 and paper.epsilon < 1.0 and "JDP" in paper.relation
    acc = DPUCB(2, 20, rng=np.random.default_rng(0), horizon=1000, calibration="accountant")
    assert acc.privacy.epsilon == pytest.approx(1.0, rel=1e-3)
    assert acc.sigma_noise < DPUCB(2, 20, rng=np.random.default_rng(0), horizon=1000).sigma_noise


def test_bounds_are_explicit():
    agent = DPUCB(2, 2, rng=np.random.default_rng(0), horizon=10, feature_bound=1.0, reward_bound=1.0)
    agent.update(np.array([[1.0, 0.0], [0.0, 1.0]]), 0, 5.0)
    assert agent.clipped_rewards == 1
    with pytest.raises(ValueError, match="feature_bound"):
        agent.update(np.array([[2.0, 0.0], [0.0, 1.0]]), 0, 0.0)
    with pytest.raises(ValueError, match="horizon"):
        DPUCB(2, 2, rng=np.random.default_rng(0))
