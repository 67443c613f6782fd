"""Bad input to the harness, agents and environments fails before any work with an error naming the
parameter (warnings for the two inputs that used to be silently ignored); summaries print readably."""

from __future__ import annotations

import functools
import math

import gymnasium
import numpy as np
import pandas as pd
import pytest

from dpbandit.agents import Agent
from dpbandit.agents.dphdb import DPHDB
from dpbandit.agents.linear import LinUCB, SharedLinUCB
from dpbandit.agents.uniform import RandomAgent
from dpbandit.harness import final_regret_table, run
from dpbandit.envs.problem import GLMProblem

ENV = "dpbandit/LinearBandit-v0"
FAST = dict(n_seeds=1, horizon=20, progress=False)


def test_a_list_of_agents_is_refused_naming_agents() -> None:
    with pytest.raises(TypeError, match=r"Expected agents to be a mapping .* got list"):
        run(ENV, [LinUCB, RandomAgent], **FAST)


def test_an_agent_instance_is_refused_naming_agents() -> None:
    agent = LinUCB(5, 10, rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match=r"agents .*single instance LinUCB"):
        run(ENV, agent, **FAST)
    with pytest.raises(TypeError, match=r"agents\['mine'\] .* an instance of LinUCB; pass the class"):
        run(ENV, {"mine": agent}, **FAST)
    with pytest.raises(TypeError, match=r"single class LinUCB; pass \{'LinUCB': LinUCB\}"):
        run(ENV, LinUCB, **FAST)


def test_unpicklable_factory_with_worker_processes_is_refused_before_work() -> None:
    with pytest.raises(TypeError, match=r"agents\['lambda'\] to be picklable for n_jobs=2"):
        run(ENV, {"lambda": lambda **kw: RandomAgent(**kw)}, n_jobs=2, **FAST)


@pytest.mark.parametrize(
    ("env_kwargs", "horizon", "named"),
    [({"dim": 10**9}, 20, "dim=1000000000 x n_arms=5"), ({}, 10**13, "horizon=10000000000000")],
)
def test_memory_estimate_refuses_huge_problems(env_kwargs, horizon, named) -> None:
    with pytest.raises(ValueError, match=f"Expected {named}.* to fit in memory: .* GiB"):
        run(ENV, {"random": RandomAgent}, n_seeds=1, horizon=horizon, env_kwargs=env_kwargs, progress=False)


def test_huge_environment_is_refused_at_construction() -> None:
    with pytest.raises(ValueError, match=r"dim=1000000000 x n_arms=10 to fit in memory"):
        gymnasium.make(ENV, dim=10**9, n_arms=10)


@pytest.mark.parametrize(
    "make",
    [
        lambda: LinUCB(2, 3, rng=np.random.default_rng(0)),
        lambda: DPHDB(2, 3, rng=np.random.default_rng(0), horizon=100),
    ],
)
def test_nan_context_is_named(make) -> None:
    agent = make()
    with pytest.raises(ValueError, match=r"Expected observation to be finite, got nan at flat index 1"):
        agent.act(np.array([0.1, np.nan, 0.2]))
    with pytest.raises(ValueError, match="Expected observation to be finite"):
        agent.update(np.array([0.1, np.inf, 0.2]), 0, 1.0)


def test_nan_per_arm_context_is_named() -> None:
    agent = SharedLinUCB(2, 2, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="Expected observation to be finite"):
        agent.act(np.array([[0.1, 0.2], [np.nan, 0.0]]))


def test_noise_std_with_native_rewards_warns() -> None:
    with pytest.warns(UserWarning, match=r"noise_std=0.3 is ignored: .* logistic link"):
        gymnasium.make("dpbandit/LogisticBandit-v0", noise_std=0.3)
    with pytest.warns(UserWarning, match="noise_std"):
        GLMProblem(2, 3, 10, link="logistic", noise="native", noise_std=0.0)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gymnasium.make("dpbandit/LogisticBandit-v0")  # the default is not the user's choice: no warning
        assert GLMProblem(2, 3, 10).noise_std == 0.1


def test_final_regret_table_on_an_empty_frame_names_df() -> None:
    with pytest.raises(ValueError, match="Expected df to hold at least one run"):
        final_regret_table(
            pd.DataFrame(
                columns=[
                    "agent",
                    "seed",
                    "step",
                    "cumulative_regret",
                    "wall_time",
                    "epsilon",
                    "claimed_epsilon",
                ]
            )
        )
    with pytest.raises(ValueError, match=r"Expected df to have the columns \['agent', 'seed', 'step'"):
        final_regret_table(pd.DataFrame())
    with pytest.raises(TypeError, match="Expected df to be the DataFrame"):
        final_regret_table([])


def _frame(regrets: dict[str, list[float]]) -> pd.DataFrame:
    rows = [
        {
            "env_id": "e",
            "agent": agent,
            "seed": seed,
            "step": step,
            "cumulative_regret": value * step / 10,
            "regret": 0.0,
            "wall_time": 0.1,
            "epsilon": math.nan,
            "claimed_epsilon": math.nan,
        }
        for agent, values in regrets.items()
        for seed, value in enumerate(values)
        for step in (1, 10)
    ]
    return pd.DataFrame(rows)


def test_ratio_to_random_is_paired_by_seed() -> None:
    table = final_regret_table(_frame({"a": [10.0, 40.0, 30.0], "random": [20.0, 40.0, 60.0]})).set_index(
        "agent"
    )
    ratios = np.array([10 / 20, 40 / 40, 30 / 60])  # per seed, then averaged (not 80 / 120)
    assert table.loc["a", "ratio_to_random"] == pytest.approx(ratios.mean())
    half = 4.302652729911275 * ratios.std(ddof=1) / np.sqrt(3)  # t_{0.975, 2}
    assert ratios.mean() - half < 0  # the t-interval's low end is clipped to the ratio's range [0, inf)
    assert table.loc["a", "ratio_to_random_ci95_low"] == 0.0
    assert table.loc["a", "ratio_to_random_ci95_high"] == pytest.approx(ratios.mean() + half)
    assert table.loc["random", "ratio_to_random"] == 1.0
    assert "ratio_to_random" not in final_regret_table(_frame({"a": [1.0, 2.0]}))


def test_printed_table_shows_mean_regret_at_80_columns() -> None:
    table = final_regret_table(_frame({"dphdb": [10.0, 40.0], "linucb": [1.0, 2.0], "random": [20.0, 40.0]}))
    for max_columns in (0, 20):  # 0: fit the width, as pandas does on a terminal
        with pd.option_context("display.width", 80, "display.max_columns", max_columns):
            first_block = str(table).split("\n\n")[0].splitlines()
        assert "final_regret_mean" in first_block[0]
        assert all(len(line) <= 80 for line in first_block)


class NoHorizon(Agent):
    """An agent whose constructor takes no horizon: the harness must not pass one."""

    def __init__(self, n_arms, dim, *, rng):
        super().__init__(n_arms, dim, rng=rng)

    def act(self, observation):
        return 0

    def update(self, observation, action, reward):
        pass


class TakesHorizon(NoHorizon):
    def __init__(self, n_arms, dim, *, rng, horizon):
        super().__init__(n_arms, dim, rng=rng)
        self.seen_horizon = horizon
        assert horizon == 20


def test_horizon_is_passed_only_to_agents_that_take_it() -> None:
    df = run(ENV, {"no-T": NoHorizon, "T": TakesHorizon, "partial": functools.partial(TakesHorizon)}, **FAST)
    assert set(df["agent"]) == {"no-T", "T", "partial"} and df["step"].max() == 20


def test_a_factory_returning_no_agent_is_named() -> None:
    with pytest.raises(TypeError, match="factory of agent 'odd' to build a dpbandit.agents.Agent"):
        run(ENV, {"odd": lambda **kw: object()}, **FAST)
