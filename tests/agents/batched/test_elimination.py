"""Per-user play among the arms in contention (issue 40 item 3, :mod:`dpbandit.agents.batched.elimination`)."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from dpbandit.agents import agent_class
from dpbandit.agents.batched.elimination import contention_scores, surviving, uncertified
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
    none = np.zeros(3, dtype=bool)
    out = contention_scores(scores, active, none, 1.0, np.random.default_rng(0))
    assert out[0, 0] == -np.inf and np.all(np.isfinite(out[0, 1:]))
    assert np.all(out[1, :2] == -np.inf) and out[1, 2] == 2.0  # one arm left: its score
    rng = np.random.default_rng(1)
    draws = np.array([np.argmax(contention_scores(scores[:1], active[:1], none, 1.0, rng)) for _ in range(400)])
    assert set(draws) == {1, 2} and 150 < np.sum(draws == 1) < 250  # uniform among the two left


def test_a_share_of_the_users_plays_among_the_uncertified_arms() -> None:
    """With uncertified arms, a share of the users (the agent's draw) plays uniformly among them, the rest as
    before; a block draws what as many single users draw in turn."""
    scores = np.tile([0.0, 1.0, 0.5, 0.2], (6_000, 1))
    active = scores == scores.max(axis=1, keepdims=True)
    starved = np.array([True, False, False, True])
    played = np.argmax(contention_scores(scores, active, starved, 0.3, np.random.default_rng(2)), axis=1)
    counts = np.bincount(played, minlength=4) / played.size
    assert counts[2] == 0.0 and abs(counts[0] - 0.15) < 0.02 and abs(counts[3] - 0.15) < 0.02, counts
    assert abs(counts[1] - 0.7) < 0.02, counts
    one, block = np.random.default_rng(5), np.random.default_rng(5)
    single = [np.argmax(contention_scores(scores[:1], active[:1], starved, 0.3, one)) for _ in range(50)]
    np.testing.assert_array_equal(single, np.argmax(contention_scores(scores[:50], active[:50], starved, 0.3,
                                                                      block), axis=1))


def test_uncertified_compares_the_summed_count_with_its_noise_std() -> None:
    """An arm is uncertified while its summed released count is at most ``c`` noise std (the std, not the
    variance: a count of 1.5 std is certified at ``c = 1``, one of 0.5 std is not)."""
    sd = 40.0
    counts = np.array([0.5 * sd, 1.5 * sd, -3.0, 1e4])
    np.testing.assert_array_equal(uncertified(counts, sd, 1.0), [True, False, True, False])
    np.testing.assert_array_equal(uncertified(counts, sd, 2.0), [True, True, True, False])
    np.testing.assert_array_equal(uncertified(counts, sd, 0.0), [False, False, True, False])


def _after_one_batch(**options) -> PrivateAgent:
    """A 3-arm agent on the constant context after one batch, its released counts then set by hand."""
    agent = PrivateAgent(3, 1, rng=np.random.default_rng(3), horizon=2_000, reward_range=(0.0, 1.0),
                         first_batch=64, **options)
    agent.play_block(np.ones((64, 1)), np.tile([0.3, 0.5, 0.7], (64, 1)))
    return agent


def test_an_arm_whose_release_certifies_no_row_stays_in_play_for_every_user() -> None:
    """The agent reads its summed released counts and their noise: an arm within one noise std of zero is
    played by the share ``starved_share`` (default ``1 / K``) of the users; ``certify=None`` plays greedily; a
    count above the noise leaves greedy play."""
    agent = _after_one_batch()
    s_n = math.sqrt(agent._noise_var["n"])
    assert s_n > 0.0
    agent.intercept = np.array([0.0, 1.0, 0.0])  # greedy: arm 1
    agent.theta[:] = 0.0
    agent._acc["n"][:] = [0.5 * s_n, 10.0 * s_n, 10.0 * s_n]  # arm 0 within the noise of zero
    played = agent._greedy(agent.scores(np.ones((6_000, 1))))
    share = np.mean(played == 0)
    assert abs(share - 1.0 / 3.0) < 0.03 and np.all(np.isin(played, [0, 1])), share
    agent.starved_share = 0.8
    assert abs(np.mean(agent._greedy(agent.scores(np.ones((6_000, 1)))) == 0) - 0.8) < 0.03
    agent._acc["n"][0] = 1.5 * s_n  # certified: greedy play
    assert np.all(agent._greedy(agent.scores(np.ones((500, 1)))) == 1)
    off = _after_one_batch(certify=None)
    off.intercept, off.theta[:] = np.array([0.0, 1.0, 0.0]), 0.0
    off._acc["n"][:] = [0.0, 10.0 * s_n, 10.0 * s_n]
    assert np.all(off._greedy(off.scores(np.ones((500, 1)))) == 1)
    with pytest.raises(ValueError, match="certify"):
        PrivateAgent(3, 1, rng=np.random.default_rng(0), horizon=1000, certify=-1.0)
    with pytest.raises(ValueError, match="starved_share"):
        PrivateAgent(3, 1, rng=np.random.default_rng(0), horizon=1000, starved_share=1.5)


def test_keeping_uncertified_arms_in_play_unlocks_the_plain_bernoulli_bandit() -> None:
    """Issue 40 item 3 (``dpbandit/BernoulliMAB-v0``, means 0.3 / 0.5 / 0.7, T = 5,000, epsilon 1, seeds 0-8 of
    root 0): greedy play (``certify=None``, as before this rule) locks onto a worse arm on seeds 2, 6 and 8
    (regret 1,082, 1,061 and 1,147 against random's 1,000); with a share of the users among the uncertified arms
    at most one of the 9 does. (The issue's bar, no seed of 50 above 500, is not met: docs/batched_agents.md.)"""
    agents = {"private": functools.partial(agent_class("private"), epsilon=1.0)}
    df = run("dpbandit/BernoulliMAB-v0", agents, n_seeds=9, horizon=5_000, progress=False, n_points=2)
    regret = df[df.step == 5_000]["cumulative_regret"].to_numpy()
    assert np.sum(regret > 500.0) <= 1 and np.median(regret) < 100.0, regret


@pytest.mark.privacy
def test_the_uncertified_arms_and_their_play_are_post_processing_of_the_releases() -> None:
    """With every release fixed (recorded on one reward stream, replayed on another, same agent seed), the
    uncertified arms after each batch and every action are the same: they read released counts, public noise
    and the agent's draws only (the run exercises the rule: some arm is uncertified after some batch)."""
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
                starved.append(agent._uncertified().copy())
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
