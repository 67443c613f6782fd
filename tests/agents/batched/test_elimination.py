"""Per-user play among the arms in contention (issue 40 item 3, :mod:`dpbandit.agents.batched.elimination`)."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from dpbandit.agents import agent_class
from dpbandit.agents.batched.elimination import (base_rate_bounds, contention_scores, exploring_shares,
                                                 in_contention, starved, surviving)
from dpbandit.agents.batched.private import PrivateAgent
from dpbandit.harness import run


def test_elimination_keeps_the_arms_whose_upper_bound_reaches_the_best_lower_bound() -> None:
    """Arms whose ``score + z sd`` falls below the best ``score - z sd`` are out (score -inf); among two or more
    left the user draws uniformly; one left is played; ``z = 0`` keeps the greedy arm."""
    scores = np.array([[0.0, 0.5, 1.0], [0.0, 0.1, 2.0]])
    sd = np.array([[0.1, 0.2, 0.1], [0.1, 0.1, 0.1]])
    active = surviving(scores, sd, 2.0)
    np.testing.assert_array_equal(active, [[False, True, True], [False, False, True]])  # 0.5 + 0.4 >= 0.8
    np.testing.assert_array_equal(surviving(scores, None, 0.0), [[False, False, True], [False, False, True]])
    none = np.zeros(3)
    out = contention_scores(scores, active, none, np.random.default_rng(0))
    assert out[0, 0] == -np.inf and np.all(np.isfinite(out[0, 1:]))
    assert np.all(out[1, :2] == -np.inf) and out[1, 2] == 2.0  # one arm left: its score
    rng = np.random.default_rng(1)
    draws = np.array([np.argmax(contention_scores(scores[:1], active[:1], none, rng)) for _ in range(400)])
    assert set(draws) == {1, 2} and 150 < np.sum(draws == 1) < 250  # uniform among the two left


def test_each_user_explores_an_arm_with_its_probability() -> None:
    """A user explores arm ``k`` with probability ``explore[k]`` (the agent's draw), else plays as before; a block
    draws what as many single users draw in turn."""
    scores = np.tile([0.0, 1.0, 0.5, 0.2], (6_000, 1))
    active = scores == scores.max(axis=1, keepdims=True)
    explore = np.array([0.15, 0.0, 0.0, 0.05])
    played = np.argmax(contention_scores(scores, active, explore, np.random.default_rng(2)), axis=1)
    counts = np.bincount(played, minlength=4) / played.size
    assert counts[2] == 0.0 and abs(counts[0] - 0.15) < 0.02 and abs(counts[3] - 0.05) < 0.01, counts
    assert abs(counts[1] - 0.8) < 0.02, counts
    one, block = np.random.default_rng(5), np.random.default_rng(5)
    single = [np.argmax(contention_scores(scores[:1], active[:1], explore, one)) for _ in range(50)]
    np.testing.assert_array_equal(single, np.argmax(contention_scores(scores[:50], active[:50], explore, block),
                                                    axis=1))


def test_base_rate_bounds_count_certified_rows() -> None:
    """The bounds are the extreme ratios of the sum (within ``z`` std: released noise plus the sampling variance
    of rewards in ``[-B, B]``) over the count (within ``z`` noise std), clipped to ``[-B, B]``; a count that
    certifies no row keeps the whole range; the bounds narrow as rows accumulate and contain the mean."""
    sums, counts = np.array([20.0, -20.0, 5.0, 0.0]), np.array([100.0, 100.0, 30.0, 4_000.0])
    lo, hi = base_rate_bounds(sums, counts, count_sd=40.0, sum_var=25.0, bound=0.5, z=1.0)
    width = np.sqrt(25.0 + 0.25 * (counts + 40.0))  # rho = 1, the high count N + 40, bound^2 = 0.25
    assert hi[0] == pytest.approx((20.0 + width[0]) / 60.0) and lo[0] == pytest.approx((20.0 - width[0]) / 140.0)
    assert hi[1] == pytest.approx((-20.0 + width[1]) / 140.0) and lo[1] == pytest.approx((-20.0 - width[1]) / 60.0)
    assert (lo[2], hi[2]) == (-0.5, 0.5)  # 30 - 40 <= 0: no certified row
    assert base_rate_bounds(np.array([60.0]), np.array([100.0]), 0.0, 0.0, 0.5, 1.0)[1][0] == 0.5  # clipped
    assert lo[3] < 0.0 < hi[3] and hi[3] - lo[3] < 0.05
    np.testing.assert_array_equal(in_contention(lo, hi), hi >= lo.max())
    # z = 2: wider, and the third arm still has the whole range
    lo2, hi2 = base_rate_bounds(sums, counts, count_sd=40.0, sum_var=25.0, bound=0.5, z=2.0)
    assert np.all(lo2 <= lo) and np.all(hi2 >= hi)


def test_starved_arms_and_their_exploring_shares() -> None:
    """An arm is starved when its latest released count, less the rows the exploring share gave it, is within
    the count's std (noise and binomial spread); an arm in contention is explored for as many rows as it has
    certified (at least the floor), at most its equal part of the share."""
    last = np.array([3.0, 500.0, 60.0, 250.0])
    expected = np.array([0.0, 0.0, 50.0, 0.0])
    np.testing.assert_array_equal(starved(last, expected, 30.0, 1.0), [True, False, True, False])
    np.testing.assert_array_equal(starved(last, expected, 30.0, 0.0), [False, False, False, False])
    contending = np.array([True, False, True, True])
    shares = exploring_shares(contending, np.array([10.0, 1e4, 400.0, 50.0]), 20.0, 1_000, 0.3)
    np.testing.assert_allclose(shares, [0.02, 0.0, 0.1, 0.05])  # floor 20, cap 100, 50
    np.testing.assert_array_equal(exploring_shares(np.zeros(4, dtype=bool), np.ones(4), 1.0, 10, 0.5), 0.0)


def _after_one_batch(**options) -> PrivateAgent:
    """A 3-arm agent on the constant context after one batch (its statistics are then set by hand)."""
    agent = PrivateAgent(3, 1, rng=np.random.default_rng(3), horizon=2_000, reward_range=(0.0, 1.0),
                         first_batch=64, **options)
    agent.play_block(np.ones((64, 1)), np.tile([0.3, 0.5, 0.7], (64, 1)))
    return agent


def test_the_agent_explores_the_starved_arms_in_contention() -> None:
    """From its summed released counts and reward sums: an arm that greedy play starved and whose bounds reach
    the best lower bound is explored (for as many rows as it has certified, within the share ``starved_share``
    = ``1 / K``), one whose upper bound fell below is not, nor one greedy play gives rows; ``certify=None``
    plays greedily."""
    agent = _after_one_batch()
    s_n = math.sqrt(agent._noise_var["n"])
    agent.intercept, agent.theta[:] = np.array([0.0, 1.0, 0.0]), 0.0  # greedy: arm 1
    n = 1e5 * s_n  # arm 1 certified with many rows at mean 0.6; arm 0 uncertified; arm 2 certified, mean 0.2
    agent._acc["n"][:] = [0.5 * s_n, n, n]
    agent._acc["r"][:] = [0.5 * 0.5 * s_n, 0.6 * n, 0.2 * n]
    agent._contend(np.array([1.0, 64.0, 1.0]), agent._sigmas()["n"])
    assert agent._exploring[0] > 0.0 and agent._exploring[1:].sum() == 0.0, agent._exploring
    played = agent._greedy(agent.scores(np.ones((20_000, 1))))
    assert np.all(np.isin(played, [0, 1])) and abs(np.mean(played == 0) - agent._exploring[0]) < 0.01
    agent._acc["r"][2] = 0.6 * n  # arm 2 now level with arm 1: in contention, starved, and explored
    agent._contend(np.array([1.0, 64.0, 1.0]), agent._sigmas()["n"])
    assert agent._exploring[2] > 0.0 and agent._exploring.sum() <= 1.0 / 3.0 + 1e-12
    agent._contend(np.array([1.0, 32.0, 400.0]), agent._sigmas()["n"])  # greedy play gave arm 2 rows: not starved
    assert agent._exploring[2] == 0.0 and agent._exploring[0] > 0.0
    off = _after_one_batch(certify=None)
    off.intercept, off.theta[:] = np.array([0.0, 1.0, 0.0]), 0.0
    off._acc["n"][:] = [0.0, 10.0 * s_n, 10.0 * s_n]
    off._contend(np.array([1.0, 64.0, 1.0]), off._sigmas()["n"])
    assert np.all(off._greedy(off.scores(np.ones((500, 1)))) == 1)
    with pytest.raises(ValueError, match="certify"):
        PrivateAgent(3, 1, rng=np.random.default_rng(0), horizon=1000, certify=-1.0)
    with pytest.raises(ValueError, match="starved_share"):
        PrivateAgent(3, 1, rng=np.random.default_rng(0), horizon=1000, starved_share=1.5)


def test_exploring_the_starved_arms_in_contention_unlocks_the_plain_bernoulli_bandit() -> None:
    """Issue 40 item 3 (``dpbandit/BernoulliMAB-v0``, means 0.3 / 0.5 / 0.7, T = 5,000, epsilon 1, seeds 0-8 of
    root 0): greedy play (``certify=None``) locks onto a worse arm on seeds 2, 6 and 8 (regret 1,082, 1,061 and
    1,147 against random's 1,000), and the earlier rule (a share among the arms whose count certified no row) on
    seed 39 of 50 (1,021); exploring the starved arms in contention keeps every seed of the 9 below 200 (worst of
    50: 254, docs/batched_agents.md)."""
    agents = {"private": functools.partial(agent_class("private"), epsilon=1.0)}
    df = run("dpbandit/BernoulliMAB-v0", agents, n_seeds=9, horizon=5_000, progress=False, n_points=2)
    regret = df[df.step == 5_000]["cumulative_regret"].to_numpy()
    assert regret.max() < 300.0 and np.median(regret) < 200.0, regret


@pytest.mark.privacy
def test_the_explored_arms_and_their_play_are_post_processing_of_the_releases() -> None:
    """With every release fixed (recorded on one reward stream, replayed on another, same agent seed), the
    exploring shares after each batch and every action are the same: they read released counts and sums, public
    noise and the agent's draws only (the run exercises the rule: some arm is explored after some batch)."""
    from dpbandit.privacy.recording import ReleaseRecorder

    def play(rewards: np.ndarray, outputs: list | None) -> tuple[list, np.ndarray, list]:
        agent = PrivateAgent(3, 1, rng=np.random.default_rng(11), horizon=1_000, reward_range=(0.0, 1.0),
                             first_batch=64)
        starved, actions = [], []
        with ReleaseRecorder(outputs) as recorder:
            start = 0
            for batch in range(4):
                stop = start + agent.schedule.size(batch)
                actions.append(agent.play_block(np.ones((stop - start, 1)), rewards[start:stop]))
                starved.append(agent._exploring.copy())
                start = stop
        return starved, np.concatenate(actions), recorder.outputs

    rng = np.random.default_rng(4)
    first = (rng.random((1_000, 3)) < [0.3, 0.5, 0.7]).astype(float)
    second = (rng.random((1_000, 3)) < [0.9, 0.1, 0.2]).astype(float)
    starved, actions, outputs = play(first, None)
    replayed_starved, replayed_actions, _ = play(second, outputs)
    assert any(s.any() for s in starved), starved
    for a, b in zip(starved, replayed_starved, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(actions, replayed_actions)
