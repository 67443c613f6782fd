"""The plain K-armed Bernoulli bandit (dpbandit/envs/mab.py) and its context-free references UCB1 and
Thompson sampling (dpbandit/agents/mab.py)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from dpbandit.agents import agent_class
from dpbandit.harness import run
from dpbandit.harness.protocol import describe


def test_constant_context_common_numbers_and_info() -> None:
    env = gym.make("dpbandit/BernoulliMAB-v0", means=(0.2, 0.4, 0.45, 0.6), horizon=2000).unwrapped
    obs, info = env.reset(seed=4)
    assert np.array_equal(obs, [1.0]) and info["optimal_action"] == 3
    assert np.array_equal(info["expected_rewards"], [0.2, 0.4, 0.45, 0.6])
    other = gym.make("dpbandit/BernoulliMAB-v0", means=(0.2, 0.4, 0.45, 0.6), horizon=2000).unwrapped
    other.reset(seed=4)
    a = np.array([env.step(0)[1] for _ in range(1999)])
    b = np.array([other.step(3)[1] for _ in range(1999)])
    assert set(a) | set(b) <= {0.0, 1.0} and abs(a.mean() - 0.2) < 0.04 and abs(b.mean() - 0.6) < 0.04
    *_, truncated, info = env.step(1)
    assert truncated and info["regret"] == pytest.approx(0.2)
    desc = describe(gym.make("dpbandit/BernoulliMAB-v0"))
    assert (desc.n_arms, desc.dim, desc.observation_model, desc.reward_range) == (3, 1, "shared", (0.0, 1.0))


def test_bad_means_are_refused() -> None:
    for means in ((0.5,), (0.2, 1.2), ((0.1, 0.2),)):
        with pytest.raises(ValueError, match="means"):
            gym.make("dpbandit/BernoulliMAB-v0", means=means)


def test_ucb1_plays_each_arm_once_then_its_index() -> None:
    agent = agent_class("ucb1")(3, 1, rng=np.random.default_rng(0), reward_range=(0.0, 2.0))
    first = []
    for _ in range(3):
        a = agent.act(np.ones(1))
        first.append(a)
        agent.update(np.ones(1), a, 2.0 if a == 1 else 0.0)
    assert sorted(first) == [0, 1, 2]
    assert np.array_equal(agent.sums, [0.0, 1.0, 0.0])  # rewards rescaled to [0, 1] by the declared range
    # index: mean + sqrt(2 ln 3 / 1): arm 1 leads by its mean
    assert agent.act(np.ones(1)) == 1
    with pytest.raises(ValueError, match="reward_range"):
        agent.update(np.ones(1), 0, 2.5)


def test_thompson_draws_from_the_beta_posterior() -> None:
    agent = agent_class("thompson")(2, 1, rng=np.random.default_rng(0))
    for _ in range(50):
        agent.update(np.ones(1), 0, 1.0)
        agent.update(np.ones(1), 1, 0.0)
    assert sum(agent.act(np.ones(1)) == 0 for _ in range(200)) == 200  # Beta(51, 1) against Beta(1, 51)


@pytest.mark.parametrize("name", ("ucb1", "thompson"))
def test_references_learn_the_best_arm(name: str) -> None:
    df = run("dpbandit/BernoulliMAB-v0", {name: agent_class(name), "random": agent_class("random")}, n_seeds=2,
             horizon=2000, n_points=2, progress=False)
    last = df[df["step"] == 2000].groupby("agent")["cumulative_regret"].max()
    assert last[name] < 0.35 * last["random"]
