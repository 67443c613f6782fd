"""Reference linear agents: exact ridge statistics, scoring rule, validation."""

from __future__ import annotations

import numpy as np
import pytest

from dpbandit.agents import agent_class
from dpbandit.agents.linear import OFUL, GreedyLeastSquares, LinUCB, SharedLinUCB
from dpbandit.agents.uniform import RandomAgent


def _play(agent, contexts, rewards):
    for x, r in zip(contexts, rewards):
        a = agent.act(x)
        agent.update(x, a, r[a])
    return agent


def test_sherman_morrison_statistics_match_direct_solve():
    rng = np.random.default_rng(1)
    agent = LinUCB(3, 4, rng=np.random.default_rng(0), regularization=0.5)
    xs = rng.normal(size=(60, 4))
    actions = rng.integers(3, size=60)
    rewards = rng.normal(size=60)
    for x, a, r in zip(xs, actions, rewards):
        agent.update(x, int(a), float(r))
    for k in range(3):
        mask = actions == k
        v = 0.5 * np.eye(4) + xs[mask].T @ xs[mask]
        u = xs[mask].T @ rewards[mask]
        np.testing.assert_allclose(agent.v_inv[k], np.linalg.inv(v), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(agent.theta_hat[k], np.linalg.solve(v, u), rtol=1e-9, atol=1e-12)


def test_linucb_score_is_mean_plus_alpha_width():
    agent = LinUCB(2, 2, rng=np.random.default_rng(0), alpha=2.0)
    agent.update(np.array([1.0, 0.0]), 0, 1.0)
    x = np.array([1.0, 0.0])
    # arm 0: V = I + e1 e1^T -> theta = (0.5, 0), width sqrt(1/2); arm 1: theta 0, width 1
    mean, var = agent._mean_and_variance(agent._arm_features(x))
    np.testing.assert_allclose(mean, [0.5, 0.0])
    np.testing.assert_allclose(var, [0.5, 1.0])
    assert agent.act(x) == 1  # 0.5 + 2*0.707 = 1.91 < 0 + 2*1 = 2


def test_greedy_exploits_and_random_agent_is_uniform():
    greedy = GreedyLeastSquares(2, 1, rng=np.random.default_rng(0))
    greedy.update(np.array([1.0]), 1, 1.0)
    assert all(greedy.act(np.array([1.0])) == 1 for _ in range(20))
    rand = RandomAgent(4, 3, rng=np.random.default_rng(0))
    counts = np.bincount([rand.act(np.zeros(3)) for _ in range(4000)], minlength=4)
    assert counts.min() > 900 and counts.max() < 1100


def test_shared_linucb_learns_a_shared_parameter():
    rng = np.random.default_rng(3)
    theta = np.array([1.0, -1.0, 0.5])
    agent = SharedLinUCB(4, 3, rng=np.random.default_rng(0), alpha=0.5)
    contexts = rng.normal(size=(400, 4, 3))
    rewards = contexts @ theta + 0.05 * rng.normal(size=(400, 4))
    _play(agent, contexts, rewards)
    np.testing.assert_allclose(agent.theta_hat[0], theta, atol=0.05)
    hits = sum(agent.act(x) == np.argmax(x @ theta) for x in rng.normal(size=(200, 4, 3)))
    assert hits >= 190


def test_oful_width_grows_with_time():
    agent = OFUL(2, 3, rng=np.random.default_rng(0), noise_std=0.1)
    w0 = agent._width()
    for _ in range(100):
        agent.update(np.ones((2, 3)), 0, 1.0)
    assert agent._width() > w0 > 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_arms": 1, "dim": 3}, "n_arms"),
        ({"n_arms": 3, "dim": 0}, "dim"),
        ({"n_arms": 3, "dim": 2, "alpha": -1.0}, "alpha"),
        ({"n_arms": 3, "dim": 2, "regularization": 0.0}, "regularization"),
    ],
)
def test_bad_constructor_arguments_name_the_parameter(kwargs, message):
    with pytest.raises(ValueError, match=message):
        LinUCB(rng=np.random.default_rng(0), **kwargs)


def test_bad_actions_and_observations_are_rejected():
    agent = LinUCB(3, 2, rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match="action"):
        agent.update(np.zeros(2), 1.5, 0.0)
    with pytest.raises(ValueError, match="action"):
        agent.update(np.zeros(2), 3, 0.0)
    with pytest.raises(ValueError, match="reward"):
        agent.update(np.zeros(2), 0, float("nan"))
    with pytest.raises(ValueError, match="shape"):
        agent.act(np.zeros(5))
    with pytest.raises(TypeError, match="rng"):
        LinUCB(3, 2, rng=0)


def test_agent_registry_names_and_suggestions():
    assert agent_class("linucb") is LinUCB
    with pytest.raises(ValueError, match="Did you mean 'linucb'"):
        agent_class("linucbb")
