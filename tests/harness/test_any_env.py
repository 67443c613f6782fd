"""Any Gymnasium contextual bandit runs in the harness (the protocol of dpbandit.harness.protocol): a user's
environment written for the tests (tests/toy_bandit.py, nothing from dpbandit/envs/), with and without expected
rewards, shared and per-arm, with every registered agent that fits it; the numbers checked by hand."""

from __future__ import annotations

import functools
import importlib
import math
import warnings

import gymnasium
import numpy as np
import pandas as pd
import pytest
from toy_bandit import ToyBandit, ToyBlockBandit

from dpbandit.agents import AGENTS, Agent, agent_class
from dpbandit.agents.linear import LinUCB
from dpbandit.harness import run, seeding
from dpbandit.harness.protocol import describe

run_module = importlib.import_module("dpbandit.harness.run")
TIMING = ["wall_time", "compile_time"]
#: d = 20: the peeling agents' default sparsity; T = 200 > the batched agents' first batch.
DIM, HORIZON = 20, 200


def _fitting(per_arm: bool) -> dict[str, type[Agent]]:
    """Every registered agent that consumes the environment's observations (per-arm agents also take a
    shared context, as block features)."""
    classes = {name: agent_class(name) for name in AGENTS}
    return {n: c for n, c in classes.items() if not per_arm or c.observation_model == "per_arm"}


@pytest.mark.parametrize(
    ("per_arm", "expected"), [(False, True), (True, False)], ids=["shared-expected", "per_arm-observed"]
)
@pytest.mark.filterwarnings("ignore:.*received user ids with max_rounds_per_user=None")  # user-level agents
def test_every_fitting_agent_runs_on_a_user_environment(per_arm, expected) -> None:
    """Agents never see expected rewards (only the harness's metrics do), so these two cases cover both
    observation models and both kinds of info; tests/test_cli.py runs the other two combinations."""
    env = functools.partial(ToyBandit, n_arms=2, dim=DIM, per_arm=per_arm, expected=expected, users=3)
    agents = _fitting(per_arm)
    first = run(env, agents, n_seeds=1, horizon=HORIZON, n_points=20, progress=False)
    assert set(first["agent"]) == set(agents) and first["step"].max() == HORIZON
    assert (first["env_id"] == "ToyBandit").all()
    last = first[first["step"] == HORIZON].set_index("agent")
    assert last["cumulative_reward"].between(0, HORIZON).all() and (last["cumulative_reward"] > 0).all()
    if expected:
        assert (last["cumulative_regret"] > 0).all()
        assert last["cumulative_optimal"].between(0, HORIZON).all()
        assert last.loc["random-perarm", "cumulative_optimal"] < HORIZON
    else:  # pseudo-regret is not claimed without expected rewards
        assert first[["cumulative_regret", "regret", "cumulative_optimal"]].isna().all().all()
    private = [name for name in agents if name.startswith(("dp", "batched", "fliphat"))]
    assert last.loc[private, "delta"].notna().all() and math.isnan(last.loc["shared-linucb", "delta"])
    again = run(env, agents, n_seeds=1, horizon=HORIZON, n_points=20, progress=False)  # same seed
    pd.testing.assert_frame_equal(first.drop(columns=TIMING), again.drop(columns=TIMING))


class FixedArm(Agent):
    """Plays arm 1 whatever it sees; records the rewards and user ids it is given (in ``FixedArm.seen``)."""

    seen: list[tuple[float, int | None]] = []

    def __init__(self, n_arms, dim, *, rng):
        super().__init__(n_arms, dim, rng=rng)

    def act(self, observation):
        return 1

    def update(self, observation, action, reward, user_id=None):
        FixedArm.seen.append((reward, user_id))


def test_regret_reward_and_optimal_arms_equal_a_hand_played_episode() -> None:
    FixedArm.seen = []
    df = run(functools.partial(ToyBandit, users=7), {"arm 1": FixedArm}, n_seeds=1, root_seed=5, horizon=50,
             n_points=50, spacing="linear", progress=False)
    env = ToyBandit(users=7)
    env.reset(seed=seeding.env_seed(seeding.seed_sequence(5, 0)))
    rewards, regrets, optimal, users = [], [], [], []
    for _ in range(50):
        _, reward, _, _, info = env.step(1)
        mu = info["expected_rewards"]
        rewards.append(reward), regrets.append(mu.max() - mu[1]), optimal.append(mu[1] == mu.max())
        users.append(info["user_id"])
    np.testing.assert_array_equal(df["cumulative_reward"], np.cumsum(rewards))
    np.testing.assert_allclose(df["cumulative_regret"], np.cumsum(regrets), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(df["regret"], regrets)
    np.testing.assert_array_equal(df["cumulative_optimal"], np.cumsum(optimal))
    assert FixedArm.seen == list(zip(rewards, users, strict=True))  # user ids handed to update
    assert len(set(users)) > 1


def test_horizon_comes_from_the_run_else_the_env_else_its_registered_time_limit() -> None:
    agents = {"random": agent_class("random")}
    options = dict(n_seeds=1, progress=False)
    assert run(ToyBandit, agents, horizon=30, **options)["step"].max() == 30  # ToyBandit(horizon=30)
    assert run(ToyBandit, agents, env_kwargs={"horizon": 40}, **options)["step"].max() == 40
    assert run(lambda: ToyBandit(horizon=25), agents, **options)["step"].max() == 25
    limited = dict(entry_point=ToyBandit, kwargs={"horizon": None}, max_episode_steps=35)
    gymnasium.register("toy/TimeLimited-v0", **limited)
    df = run("toy/TimeLimited-v0", agents, **options)
    assert df["step"].max() == 35 and (df["env_id"] == "toy/TimeLimited-v0").all()


class TakesRange(FixedArm):
    def __init__(self, n_arms, dim, *, rng, reward_range=None):
        super().__init__(n_arms, dim, rng=rng)
        TakesRange.given = reward_range


@pytest.mark.parametrize(
    ("declared", "given"),
    [((0.0, 1.0), (0.0, 1.0)), ((-2, 3), (-2.0, 3.0)), ((0.0, math.inf), None), (None, None)],
)
@pytest.mark.filterwarnings("ignore:The environment declares no reward_range")  # the next test checks it
def test_reward_range_goes_to_agents_taking_it_when_both_bounds_are_finite(declared, given) -> None:
    env = functools.partial(ToyBandit, reward_range=declared)
    run(env, {"range": TakesRange, "plain": FixedArm}, n_seeds=1, horizon=5, progress=False)
    assert TakesRange.given == given
    mine = functools.partial(TakesRange, reward_range=(5.0, 6.0))
    run(env, {"mine": mine}, n_seeds=1, horizon=5, progress=False)
    assert TakesRange.given == (5.0, 6.0)  # the user's own choice wins


def test_an_undeclared_reward_range_warns_agents_that_read_one() -> None:
    """Issue 23: a user's bounded rewards learn far better declared; nothing is said when the range is
    declared (even with infinite bounds), the agent reads none, or the user passed one."""
    undeclared = functools.partial(ToyBandit, reward_range=None)
    options = dict(n_seeds=1, horizon=5, progress=False)
    with pytest.warns(UserWarning, match="declares no reward_range, so range must learn"):
        run(undeclared, {"range": TakesRange, "plain": FixedArm}, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run(undeclared, {"plain": FixedArm, "mine": functools.partial(TakesRange, reward_range=(0, 1))},
            **options)
        for declared in ((0.0, 1.0), (-math.inf, math.inf)):
            run(functools.partial(ToyBandit, reward_range=declared), {"range": TakesRange}, **options)


class BlockRecorder(FixedArm):
    """An agent with a fast path taking user ids (as built-in batched agents may)."""

    def play_block(self, observations, rewards, user_ids=None):
        BlockRecorder.blocks.append((np.array(observations), user_ids))
        return np.ones(len(observations), dtype=np.int64)


def test_block_path_of_a_user_env_equals_its_step_loop_and_hands_user_ids(monkeypatch) -> None:
    monkeypatch.setattr(run_module, "uses_block_path", lambda agent: True)
    options = dict(n_seeds=2, root_seed=1, horizon=150, n_points=30, progress=False)
    BlockRecorder.blocks = []
    blocks = run(functools.partial(ToyBlockBandit, users=4), {"a": BlockRecorder}, **options)
    assert describe(ToyBlockBandit()).block_draws and not describe(ToyBandit()).block_draws
    ids = np.concatenate([users for _, users in BlockRecorder.blocks])
    assert ids.dtype == np.int64 and ids.size == 300 and set(ids) == {0, 1, 2, 3}
    steps = run(functools.partial(ToyBandit, users=4), {"a": BlockRecorder}, **options)
    drop = [*TIMING, "env_id"]
    pd.testing.assert_frame_equal(blocks.drop(columns=drop), steps.drop(columns=drop))


class Plain(gymnasium.Wrapper):
    """A wrapper changing nothing: draw_rounds of the unwrapped env is then not used (it could bypass it)."""


def _wrapped_glm(horizon: int, **kwargs) -> gymnasium.Env:
    from dpbandit import envs  # noqa: F401

    return Plain(gymnasium.make("dpbandit/LinearBandit-v0", horizon=horizon, **kwargs))


def test_glm_env_gives_the_same_numbers_through_the_block_path_and_a_wrapper_hiding_it(monkeypatch) -> None:
    calls = {"blocks": 0}
    play_blocks = run_module._play_blocks

    def counting(*args, **kwargs):
        calls["blocks"] += 1
        return play_blocks(*args, **kwargs)

    monkeypatch.setattr(run_module, "_play_blocks", counting)
    agents = {"LinUCB": LinUCB, "dphdb": agent_class("dphdb"), "batched-ridge": agent_class("batched-ridge")}
    options = dict(n_seeds=2, root_seed=4, horizon=300, env_kwargs={"n_arms": 3, "dim": 5}, progress=False)
    fast = run("dpbandit/LinearBandit-v0", agents, **options)
    assert calls["blocks"] == 6
    slow = run(_wrapped_glm, agents, **options)
    assert calls["blocks"] == 6  # the wrapped env ran the act / step / update loop
    assert (slow["env_id"] == "dpbandit/LinearBandit-v0").all()  # the spec's id, seen through the wrapper
    pd.testing.assert_frame_equal(fast.drop(columns=TIMING), slow.drop(columns=TIMING))
    assert (fast.groupby("agent")["cumulative_regret"].max() > 0).all()


class Forwards(Agent):
    """Hands ``**kwargs`` to ``Agent.__init__`` (which takes ``horizon``, not ``reward_range``)."""

    def __init__(self, n_arms, dim, *, rng, **kwargs):
        super().__init__(n_arms, dim, rng=rng, **kwargs)

    def act(self, observation):
        return 0

    def update(self, observation, action, reward):
        pass


class ForwardsToRange(TakesRange):
    def __init__(self, n_arms, dim, **kwargs):
        super().__init__(n_arms, dim, **kwargs)


def test_a_keyword_passed_on_through_kwargs_counts_only_if_the_base_takes_it() -> None:
    from dpbandit.harness.checks import accepts_keyword

    assert accepts_keyword(Forwards, "horizon") and not accepts_keyword(Forwards, "reward_range")
    assert accepts_keyword(ForwardsToRange, "reward_range")
    assert accepts_keyword(functools.partial(Forwards, reward_range=None), "reward_range")  # user-bound
    assert accepts_keyword(lambda **kwargs: None, "reward_range")  # a function: its own signature
    df = run(ToyBandit, {"forwards": Forwards}, n_seeds=1, horizon=5, progress=False)  # declares (0, 1)
    assert df["step"].max() == 5
