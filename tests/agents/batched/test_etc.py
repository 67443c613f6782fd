"""Private explore-then-commit (issue 29, item 5): the sensitivity by brute force, the noise it draws, public
exploration counts, one release then commitment, identical play paths, validation."""

from __future__ import annotations

import math

import dp_accounting
import numpy as np
import pytest
from batched_helpers import Recorder, assert_scale, rounds

from dpbandit.agents.batched.etc import PrivateExploreThenCommit, default_exploration
from dpbandit.privacy import accounting


@pytest.mark.privacy
def test_sensitivity_of_the_sums_holds_and_is_attained() -> None:
    """Replace one record (context, arm, reward) of the exploration batch by every candidate on a grid: the
    released ``sums`` move by at most ``2 B`` in l2, and by ``2 B`` exactly at the worst case."""
    K, d = 3, 5
    agent = PrivateExploreThenCommit(K, d, rng=np.random.default_rng(0), horizon=100, reward_center=0.3)
    B = 0.4
    agent.clipping.reward_clip = B
    rng = np.random.default_rng(1)
    rows, models, rewards = rng.normal(size=(20, d)), rng.integers(K, size=20), rng.normal(size=20)

    def sums(models: np.ndarray, rewards: np.ndarray) -> np.ndarray:
        agent._reset_batch()
        agent._observe(rows, models, rewards)
        return agent._statistics()["sums"].copy()

    base = sums(models, rewards)
    worst = 0.0
    for arm in range(K):
        for r in (-5.0, -0.1, 0.3 - B, 0.0, 0.3, 0.5, 0.3 + B, 5.0):
            models2, rewards2 = models.copy(), rewards.copy()
            models2[0], rewards2[0] = arm, r
            worst = max(worst, float(np.linalg.norm(sums(models2, rewards2) - base)))
    assert agent.sensitivities() == {"sums": pytest.approx(2 * B)}
    assert worst <= 2 * B * (1 + 1e-12)
    assert worst >= 0.99 * 2 * B  # reached: the calibration is not loose either


@pytest.mark.privacy
def test_drawn_noise_has_the_stated_scale_and_gives_the_reported_epsilon() -> None:
    """Noise actually added to the sums over many one-release runs: N(0, (z 2B)^2), z and B derived here
    (halved and doubled noise rejected); the epsilon recomputed from the drawn noise is the reported one."""
    K, T, m = 4, 400, 40
    derived = 2 * 0.5  # 2B, B = the half-width of the declared range [0, 1]
    z = accounting.gaussian_sigma(1.0, 1e-5)  # the multiplier of (1, 1e-5), computed here
    unit = []
    for seed in range(300):
        agent = PrivateExploreThenCommit(K, 3, rng=np.random.default_rng(seed), horizon=T, first_batch=m,
                                         reward_range=(0.0, 1.0), delta=1e-5)
        rec = Recorder(agent)
        data = np.random.default_rng(1000 + seed)
        agent.play_block(data.normal(size=(T, 3)), data.uniform(size=(T, K)))
        (values, sens, out, _, _), = rec.calls  # exactly one release in T rounds
        assert sens == {"sums": pytest.approx(derived)}
        unit.append((out["sums"] - values["sums"]) / derived)
    unit = np.concatenate(unit)
    assert agent.release.multiplier == pytest.approx(z, rel=1e-6)
    assert_scale(unit, z, "sums")
    z_hat = math.sqrt(float(np.mean(unit**2)))
    eps_hat = accounting.epsilon_for(dp_accounting.GaussianDpEvent(z_hat), 1e-5, "pld")
    assert eps_hat == pytest.approx(agent.privacy.epsilon, rel=0.1)
    assert agent.privacy.epsilon == pytest.approx(1.0, abs=1e-3) and agent.privacy.claimed_delta == 1e-5


@pytest.mark.privacy
def test_exploration_is_uniform_and_its_counts_do_not_depend_on_the_data() -> None:
    """The exploration arms come from the agent's coins only: on two different data streams with the same
    seed they are identical (so the exact counts are public); they are uniform; the commitment divides the
    released sums by exactly those counts."""
    K, T, m = 3, 3_000, 2_000
    played = []
    for scale, shift in ((1.0, 0.0), (50.0, 3.0)):
        agent = PrivateExploreThenCommit(K, 4, rng=np.random.default_rng(5), horizon=T, first_batch=m)
        rec = Recorder(agent)
        data = np.random.default_rng(int(scale))
        actions = agent.play_block(scale * data.normal(size=(T, 4)), shift + data.normal(size=(T, K)))
        played.append(actions[:m])
        (values, _, out, _, _), = rec.calls
        counts = np.bincount(actions[:m], minlength=K)
        np.testing.assert_allclose(agent.arm_means, agent.clipping.reward_center + out["sums"] / counts)
        assert np.all(actions[m:] == np.argmax(agent.arm_means))  # committed
    np.testing.assert_array_equal(played[0], played[1])
    counts = np.bincount(played[0], minlength=K)
    assert np.all(np.abs(counts - m / K) < 4 * math.sqrt(m / K))


@pytest.mark.privacy
def test_one_release_then_commits_to_the_best_arm() -> None:
    """A 3-armed Bernoulli bandit with means 0.2, 0.5, 0.6: at epsilon = 1 the agent releases once and commits
    to the best arm on most seeds; with noise off it commits to the empirical best arm of its exploration."""
    K, T = 3, 5_000
    means = np.array([0.2, 0.5, 0.6])
    best = 0
    for seed in range(20):
        data = np.random.default_rng(seed)
        rewards = (data.uniform(size=(T, K)) < means).astype(float)
        agent = PrivateExploreThenCommit(K, 2, rng=np.random.default_rng(seed), horizon=T,
                                         reward_range=(0, 1))
        rec = Recorder(agent)
        actions = agent.play_block(np.zeros((T, 2)), rewards)
        m = agent.schedule.first
        assert m == default_exploration(K, T) == 422 and len(rec.calls) == 1 and agent.committed
        best += int(actions[-1] == 2)
        quiet = PrivateExploreThenCommit(K, 2, rng=np.random.default_rng(seed), horizon=T,
                                         reward_range=(0, 1), noise=False)
        quiet_actions = quiet.play_block(np.zeros((T, 2)), rewards)
        explored = quiet_actions[:m]
        empirical = [rewards[:m][explored == a, a].mean() for a in range(K)]
        np.testing.assert_allclose(quiet.arm_means, empirical)
        assert quiet_actions[-1] == int(np.argmax(empirical)) and quiet.privacy is None
    assert best >= 15


def test_act_update_equals_play_block() -> None:
    T = 1_200
    block = rounds("dpbandit/LinearBandit-v0", T)
    K, d = block.rewards.shape[1], block.observations.shape[-1]
    a = PrivateExploreThenCommit(K, d, rng=np.random.default_rng(9), horizon=T)
    b = PrivateExploreThenCommit(K, d, rng=np.random.default_rng(9), horizon=T)
    stepped = []
    for obs, rew in zip(block.observations, block.rewards, strict=True):
        action = a.act(obs)
        a.update(obs, action, float(rew[action]))
        stepped.append(action)
    blocked = np.concatenate([b.play_block(block.observations[:100], block.rewards[:100]),
                              b.play_block(block.observations[100:], block.rewards[100:])])
    np.testing.assert_array_equal(stepped, blocked)
    np.testing.assert_array_equal(a.arm_means, b.arm_means)


def test_default_exploration_and_explore_fraction() -> None:
    assert [default_exploration(K, 10_000) for K in (2, 3, 10)] == [585, 670, 1000]
    assert default_exploration(10, 8) == 8  # at most T (ceil(10^(1/3) 8^(2/3)) = 9)
    agent = PrivateExploreThenCommit(2, 3, rng=np.random.default_rng(0), horizon=1_000, explore_fraction=0.25)
    assert agent.schedule.first == 250 and agent.params["first_batch"] == 250


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"horizon": None}, "needs horizon=T"),
    ({"first_batch": 10, "explore_fraction": 0.1}, "at most one of first_batch and explore_fraction"),
    ({"explore_fraction": 0.0}, "explore_fraction > 0"),
    ({"explore_fraction": 1.5}, "explore_fraction"),
    ({"first_batch": 2_000}, "horizon=1000 >= first_batch=2000"),
    ({"first_batch": 0}, "first_batch"),
    ({"epsilon": 0.0}, "epsilon"),
    ({"reward_range": (1.0, 0.0)}, "reward_range"),
    ({"n_arms": 1}, "n_arms"),
])
def test_validation(kwargs, match) -> None:
    options = {"n_arms": 2, "horizon": 1_000, **kwargs}
    with pytest.raises((ValueError, TypeError), match=match):
        PrivateExploreThenCommit(options.pop("n_arms"), 3, rng=np.random.default_rng(0), **options)
    with pytest.raises(TypeError, match="aux_share"):  # adaptive agents' options are not silently ignored
        PrivateExploreThenCommit(2, 3, rng=np.random.default_rng(0), horizon=100, aux_share=0.1)
