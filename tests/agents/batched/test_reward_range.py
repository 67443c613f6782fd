"""The declared reward range (contract C2) sets the batched agents' centre and first reward clip, is
validated, and a reward outside it is an error."""

from __future__ import annotations

import numpy as np
import pytest
from batched_helpers import rounds

from dpbandit.agents.batched.fliphat import FLIPHAT
from dpbandit.agents.batched.frankwolfe import BatchedDPHDB
from dpbandit.agents.batched.peeling import BatchedPeeling
from dpbandit.agents.batched.ridge import BatchedRidge
from dpbandit.agents.batched.screening import BatchedScreening

GAUSSIAN = [BatchedScreening, BatchedRidge, BatchedPeeling]


@pytest.mark.parametrize("cls", GAUSSIAN)
def test_range_on_bernoulli_rewards_acts_as_the_explicit_midpoint_and_half_width(cls) -> None:
    """dpbandit/LogisticBandit-v0 draws {0, 1} rewards: reward_range=(0, 1) plays exactly as reward_center=0.5
    and initial_reward_clip=0.5 given by hand (same seed), and differently from the undeclared centre 0."""
    T = 1_500
    block = rounds("dpbandit/LogisticBandit-v0", T)
    assert set(np.unique(block.rewards)) == {0.0, 1.0}
    K, d = block.rewards.shape[1], block.observations.shape[-1]

    def play(**kwargs) -> tuple[np.ndarray, np.ndarray]:
        agent = cls(K, d, rng=np.random.default_rng(4), horizon=T, first_batch=16, **kwargs)
        return agent.play_block(block.observations, block.rewards), agent

    declared, agent = play(reward_range=(0.0, 1.0))
    by_hand, _ = play(reward_center=0.5, initial_reward_clip=0.5)
    undeclared, default = play()
    assert (agent.clipping.reward_center, default.clipping.reward_center) == (0.5, 0.0)
    np.testing.assert_array_equal(declared, by_hand)
    assert np.any(declared != undeclared)


def test_explicit_centre_and_clip_win_over_the_range() -> None:
    make = lambda **kw: BatchedScreening(2, 5, rng=np.random.default_rng(0), horizon=100, **kw)  # noqa: E731
    declared = make(reward_range=(0, 1)).clipping
    assert (declared.reward_center, declared.reward_clip) == (0.5, 0.5)
    centred = make(reward_range=(0, 1), reward_center=0.2)  # the clip still covers the range from that centre
    assert (centred.clipping.reward_center, centred.clipping.reward_clip) == (0.2, pytest.approx(0.8))
    clipped = make(reward_range=(-2, 6), initial_reward_clip=1.5)
    assert (clipped.clipping.reward_center, clipped.clipping.reward_clip) == (2.0, 1.5)
    assert (make().clipping.reward_center, make().clipping.reward_clip) == (0.0, 1.0)  # undeclared: as before
    assert FLIPHAT(2, 5, rng=np.random.default_rng(0), horizon=100, reward_range=(-3, 2)).reward_clip == 3.0
    assert FLIPHAT(2, 5, rng=np.random.default_rng(0), horizon=100, reward_range=(0, 1), reward_clip=0.5
                   ).reward_clip == 0.5


@pytest.mark.parametrize(("reward_range", "match"), [
    ((1.0, 0.0), "low < high"), ((0.5, 0.5), "low < high"), ((0.0, np.inf), "reward_range_high"),
    ((np.nan, 1.0), "reward_range_low"), ((0.0,), "reward_range"), (3.0, "reward_range"),
])
@pytest.mark.parametrize("cls", [BatchedScreening, FLIPHAT, BatchedDPHDB])
def test_bad_ranges_are_named(cls, reward_range, match) -> None:
    with pytest.raises(ValueError, match=match):
        cls(2, 5, rng=np.random.default_rng(0), horizon=100, reward_range=reward_range)


@pytest.mark.privacy
@pytest.mark.parametrize("cls", [BatchedScreening, BatchedPeeling, FLIPHAT, BatchedDPHDB])
def test_a_reward_outside_the_declared_range_is_an_error(cls) -> None:
    per_arm = cls.observation_model == "per_arm"
    agent = cls(2, 5, rng=np.random.default_rng(0), horizon=100, reward_range=(0.0, 1.0), first_batch=4)
    observation = np.full((2, 5) if per_arm else 5, 0.1)
    agent.update(observation, agent.act(observation), 1.0)  # the ends are inside
    with pytest.raises(ValueError, match=r"reward 1\.5 outside the declared reward_range=\(0\.0, 1\.0\)"):
        agent.update(observation, agent.act(observation), 1.5)
    with pytest.raises(ValueError, match="reward_range"):
        agent.play_block(np.full((3, *observation.shape), 0.1), np.full((3, 2), -0.25))
