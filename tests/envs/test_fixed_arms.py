"""Chowdhury and Zhou's fixed-arm Bernoulli bandit (dpbandit/envs/fixed_arms.py): the authors' instance, the protocol,
common random numbers."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from dpbandit.harness.protocol import describe


def test_instance_is_the_authors_construction() -> None:
    env = gym.make("dpbandit/ChowdhuryZhou-v0").unwrapped
    arms, info = env.reset(seed=3)
    assert arms.shape == (100, 5) and env.horizon == 20_000
    basis = np.eye(5)
    basis[:, -1] = 1.0
    assert np.array_equal(arms[:5], basis)
    assert np.allclose(np.linalg.norm(arms[5:, :4], axis=1), 1.0) and np.all(arms[:, -1] == 1.0)
    assert np.linalg.norm(env.theta[:4]) == np.float64(0.5) or np.isclose(np.linalg.norm(env.theta[:4]), 0.5)
    assert env.theta[-1] == 0.5
    means = info["expected_rewards"]
    assert np.all((means >= 0) & (means <= 1)) and info["optimal_action"] == int(np.argmax(means))


def test_protocol_and_common_random_numbers() -> None:
    desc = describe(gym.make("dpbandit/ChowdhuryZhou-v0"))
    assert desc.observation_model == "per_arm"
    first = gym.make("dpbandit/ChowdhuryZhou-v0", horizon=300).unwrapped
    second = gym.make("dpbandit/ChowdhuryZhou-v0", horizon=300).unwrapped
    first.reset(seed=7)
    second.reset(seed=7)
    mean_a, mean_b = first.means[0], first.means[1]
    rewards_a = [first.step(0)[1] for _ in range(299)]
    rewards_b = [second.step(1)[1] for _ in range(299)]
    assert set(rewards_a) <= {0.0, 1.0}
    assert abs(np.mean(rewards_a) - mean_a) < 0.1 and abs(np.mean(rewards_b) - mean_b) < 0.1
    *_, truncated, info = first.step(0)
    assert truncated and info["regret"] == first.means.max() - first.means[0]
