"""Environments that break the protocol (dpbandit.harness.protocol) are refused before any agent is built,
with an error naming the problem; so are bad environment sources and inconsistent rounds."""

from __future__ import annotations

import functools
import threading

import numpy as np
import pytest
from gymnasium import spaces
from toy_bandit import ToyBandit

from dpbandit.agents import Agent, agent_class
from dpbandit.harness import run
from dpbandit.harness.protocol import DEFAULT_HORIZON, describe


class NeverBuilt(Agent):
    """Fails loudly if built: the checks under test must stop the run before any agent exists."""

    def __init__(self, n_arms, dim, *, rng):
        raise AssertionError("an agent was built before the environment was checked")

    def act(self, observation):
        return 0

    def update(self, observation, action, reward):
        pass


def _refused(env, error, match, **options):
    with pytest.raises(error, match=match):
        run(env, {"never": NeverBuilt}, n_seeds=1, progress=False, **options)


class BoxActions(ToyBandit):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.action_space = spaces.Box(0.0, 1.0, shape=(1,))


class OneArm(ToyBandit):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.action_space = spaces.Discrete(1)


class CubeObservations(ToyBandit):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.observation_space = spaces.Box(-1.0, 1.0, shape=(3, 4, 2))


class WrongRows(ToyBandit):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.observation_space = spaces.Box(-1.0, 1.0, shape=(self.n_arms + 1, self.dim))


class DiscreteObservations(ToyBandit):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.observation_space = spaces.Discrete(5)


@pytest.mark.parametrize(
    ("env", "error", "match"),
    [
        (BoxActions, TypeError, r"action_space to be gymnasium.spaces.Discrete\(K\) with K >= 2 .* got Box"),
        (OneArm, TypeError, r"Discrete\(K\) with K >= 2 arms .* got Discrete\(1\)"),
        (CubeObservations, ValueError, r"space of shape \(d,\) .* or \(K, d\) = \(3, d\) .* \(3, 4, 2\)"),
        (WrongRows, ValueError, r"\(K, d\) = \(3, d\) \(one feature row per arm\), got shape \(4, 4\)"),
        (DiscreteObservations, TypeError, r"space to be a gymnasium.spaces.Box .* got Discrete\(5\)"),
    ],
)
def test_spaces_outside_the_protocol_are_named(env, error, match) -> None:
    _refused(env, error, match, horizon=10)
    with pytest.raises(error, match=match):
        describe(env())


def test_a_too_long_horizon_is_named_and_a_missing_one_is_the_default() -> None:
    undeclared = describe(ToyBandit(horizon=None))
    assert (undeclared.horizon, undeclared.horizon_source) == (DEFAULT_HORIZON, "default")
    own = describe(ToyBandit(horizon=70))
    assert (own.horizon, own.horizon_source) == (70, "env.unwrapped.horizon")
    assert describe(ToyBandit(horizon=70), 50).horizon_source == "given"
    too_long = r"horizon=20 to be at most .*env.unwrapped.horizon = 10"
    _refused(lambda: ToyBandit(horizon=10), ValueError, too_long, horizon=20)
    _refused(ToyBandit, ValueError, r"horizon=30 and env_kwargs\['horizon'\]=20 to agree", horizon=30,
             env_kwargs={"horizon": 20})
    _refused(ToyBandit, ValueError, "horizon", horizon=0)


@pytest.mark.parametrize(
    ("declared", "error", "match"),
    [
        (("a", "b"), TypeError, r"reward_range to be a \(low, high\) pair"),
        ((1.0, 0.0), ValueError, "low < high"),
        ((0.0, float("nan")), ValueError, "low < high"),
        (3.0, TypeError, "reward_range"),
    ],
)
def test_a_bad_reward_range_is_named(declared, error, match) -> None:
    _refused(functools.partial(ToyBandit, reward_range=declared), error, match)


def test_bad_environment_sources_are_named() -> None:
    _refused(ToyBandit(), TypeError, r"got an instance of ToyBandit; pass the class ToyBandit")
    _refused(42, TypeError, r"Expected env to be a registered id, .* got int 42")
    _refused(lambda: "not an env", TypeError, r"to build a gymnasium.Env, got str")
    _refused("no_such_module_xyz:Bandit", ValueError, r"env='no_such_module_xyz:Bandit' to name an import")
    _refused("toy_bandit:Nothing", ValueError, r"toy_bandit has neither 'Nothing'")
    _refused("toy/NoSuch-v0", ValueError, r"Unknown env_id='toy/NoSuch-v0'")
    unpicklable = functools.partial(ToyBandit, reward_range=threading.Lock())
    with pytest.raises(TypeError, match="Expected env to be picklable for n_jobs=2"):
        run(unpicklable, {"random": agent_class("random")}, n_seeds=1, n_jobs=2, progress=False)


class NeverBuiltPerArm(NeverBuilt):
    observation_model = "per_arm"


def test_a_shared_context_agent_on_per_arm_features_is_refused_before_work() -> None:
    with pytest.raises(TypeError, match=r"agents\['linucb'\] consumes one shared context .* \(3, 4\)"):
        agents = {"never": NeverBuiltPerArm, "linucb": agent_class("linucb")}
        run(functools.partial(ToyBandit, per_arm=True), agents, n_seeds=1, horizon=10, progress=False)


class WrongFirstObservation(ToyBandit):
    def reset(self, *, seed=None, options=None):
        obs, info = super().reset(seed=seed)
        return obs[:2], info


class EndsEarly(ToyBandit):
    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        return obs, reward, self.t == 5, truncated, info


class MeansSometimes(ToyBandit):
    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        return obs, reward, terminated, truncated, (info if self.t < 4 else {})


class WrongMeans(ToyBandit):
    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        return obs, reward, terminated, truncated, {"expected_rewards": np.zeros(self.n_arms + 1)}


class NanReward(ToyBandit):
    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        return obs, float("nan") if self.t == 3 else reward, terminated, truncated, info


class FloatUser(ToyBandit):
    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        return obs, reward, terminated, truncated, {**info, "user_id": 1.5}


class TakesUser(Agent):
    def act(self, observation):
        return 0

    def update(self, observation, action, reward, user_id=None):
        pass


@pytest.mark.parametrize(
    ("env", "error", "match"),
    [
        (WrongFirstObservation, ValueError, r"observation of env.reset\(\) to have the .* shape \(4,\)"),
        (EndsEarly, RuntimeError, "ended its episode after 5 rounds, before horizon=10"),
        (MeansSometimes, ValueError, r"expected_rewards'\] in every round or in none; round 4 lacks it"),
        (WrongMeans, ValueError, r"expected_rewards'\] of shape \(3,\), got \(4,\) in round 1"),
        (NanReward, ValueError, "reward of round 3 to be finite, got nan"),
        (FloatUser, TypeError, r"info\['user_id'\] of round 1 to be an int, got 1.5"),
    ],
)
def test_rounds_outside_the_protocol_are_named(env, error, match) -> None:
    with pytest.raises(error, match=match):
        run(env, {"user": TakesUser}, n_seeds=1, horizon=10, progress=False)
