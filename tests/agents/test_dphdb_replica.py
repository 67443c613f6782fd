"""Replica of the authors' DP-HDB code (not private): noise scale, noise-free sign, shared d_t, warm-up."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandit.agents import agent_class
from dpbandit.agents.dphdb_replica import DPHDBAuthorsCode
from dpbandit.privacy.guarantee import NOT_PRIVATE_LABEL


def _agent(**kw) -> DPHDBAuthorsCode:
    base = dict(rng=np.random.default_rng(0), horizon=10_000)
    base.update(kw)
    return DPHDBAuthorsCode(kw.pop("n_arms", 2), 6, **{k: v for k, v in base.items() if k != "n_arms"})


@pytest.mark.privacy
def test_registered_and_privacy_certifies_nothing():
    assert agent_class("dphdb-authors-code") is DPHDBAuthorsCode
    guarantee = _agent().privacy
    assert guarantee.epsilon == math.inf and guarantee.claimed_epsilon == 1.0 and not guarantee.holds
    assert NOT_PRIVATE_LABEL in guarantee.mechanism
    assert "sign" in guarantee.notes and "without noise" in guarantee.notes


@pytest.mark.privacy
def test_noise_has_the_authors_scale_without_the_line8_factor():
    T, delta, eps, step = 10_000, 1e-4, 1.0, 99
    agent = _agent(epsilon=eps)
    draws = np.stack([agent.perturbed_direction(step) for _ in range(20_000)])  # d_t = 0: pure noise
    # bandit_algo.py:95
    authors = 4 * math.sqrt(math.log(T) * math.log(1 / delta)) / (eps * math.sqrt(step + 1))
    np.testing.assert_allclose(draws.std(), math.sqrt(2) * authors, rtol=0.02)  # Lap(b) has std sqrt(2) b
    line8 = 4 * 2 * (1 * 2 + 1) * math.sqrt(math.log(T) * math.log(1 / delta)) / (eps * math.sqrt(step))
    assert draws.std() / math.sqrt(2) < line8 / 5  # line 8 (r = 1: D = 2, beta = L = 1) is 6x larger


def test_vertex_sign_is_the_noise_free_sign():
    agent = _agent(epsilon=1e-4)  # noise ~1e4 times the gradients: a noisy sign would be a coin flip
    rng = np.random.default_rng(3)
    for _ in range(300):
        x = rng.uniform(-1, 1, 6)
        action = agent.act(x)
        before = agent.theta[action].copy()
        agent.update(x, action, float(rng.normal()))
        moved = agent.theta[action] - before * (1 - 1 / (agent.round + 1))  # = eta * vertex
        j = int(np.argmax(np.abs(moved)))
        assert np.sign(moved[j]) == -np.sign(agent.direction[j])


def test_shared_direction_pulled_arm_only_and_global_step():
    agent = _agent(n_arms=3, warmup=2)
    rng = np.random.default_rng(4)
    direction = np.zeros(6)
    for t in range(1, 16):
        x, reward = rng.uniform(-1, 1, 6), float(rng.normal())
        action = agent.act(x)
        theta, old = agent.theta.copy(), agent.theta_old.copy()

        # 2 (theta.x - r) x projected radially onto the l_inf ball of radius 1 (utils.py)
        g_now, g_old = (2 * (th @ x - reward) * x for th in (theta[action], old[action]))
        g_now, g_old = (g * min(1.0, 1.0 / np.max(np.abs(g))) for g in (g_now, g_old))
        direction = g_now + (1 - 1 / (t + 1)) * (direction - g_old)
        agent.update(x, action, reward)
        np.testing.assert_allclose(agent.direction, direction, rtol=1e-12, atol=1e-14)
        others = np.arange(3) != action
        np.testing.assert_array_equal(agent.theta[others], theta[others])  # no synthetic updates
        step = agent.theta[action] - theta[action]
        vertex = step * (t + 1) + theta[action]  # eta_t = 1/(t+1) with the global t
        assert np.count_nonzero(np.abs(vertex) > 1e-9) == 1 and np.isclose(np.abs(vertex).max(), 1.0)


def test_round_robin_warmup_and_frozen_estimates():
    agent = _agent(n_arms=3, warmup=2)
    rng = np.random.default_rng(5)
    actions = []
    for _ in range(7):  # rounds t = 0..K t0 (K t0 + 1 = 7 rounds) are round-robin
        x = rng.uniform(-1, 1, 6)
        actions.append(agent.act(x))
        assert agent.frozen_theta is None
        agent.update(x, actions[-1], 0.1)
    assert actions == [0, 1, 2, 0, 1, 2, 0]
    np.testing.assert_array_equal(agent.frozen_theta, agent.theta)


def test_preselection_compares_current_estimates_with_the_frozen_maximum():
    agent = _agent(n_arms=2, warmup=1)
    agent.round = agent.warmup_rounds
    agent.frozen_theta = np.zeros((2, 6))
    agent.frozen_theta[0, 0] = 1.0  # frozen: arm 0 = 1, arm 1 = 0; threshold 1 - h_sub/2 = 0.5
    agent.theta = np.zeros((2, 6))
    agent.theta[:, 0] = [0.2, 0.8]  # current: only arm 1 passes the threshold
    x = np.eye(6)[0]
    assert agent.act(x) == 1  # Algorithm 3 line 13 (frozen on both sides) would keep only arm 0
    agent.theta[:, 0] = [0.2, 0.3]  # nobody passes: np.argmax of all -inf is arm 0
    assert agent.act(x) == 0


def test_validation():
    with pytest.raises(ValueError, match="horizon"):
        DPHDBAuthorsCode(2, 6, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="epsilon"):
        DPHDBAuthorsCode(2, 6, rng=np.random.default_rng(0), horizon=100, epsilon=0.0)
    with pytest.raises(ValueError, match="radius"):
        DPHDBAuthorsCode(2, 6, rng=np.random.default_rng(0), horizon=100, radius=-1.0)
