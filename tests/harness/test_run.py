"""Harness: determinism, common random numbers, regret behaviour, parallel runs, validation."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest

from dpbandit.agents import Agent
from dpbandit.agents.linear import LinUCB
from dpbandit.agents.uniform import RandomAgent
from dpbandit.harness import final_regret_table, plot_regret, recording_steps, run

ENV = "dpbandit/LinearBandit-v0"


def _deterministic(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=["wall_time", "compile_time"])  # the timing columns are the only non-deterministic ones


def test_same_root_seed_gives_identical_frames_and_different_seeds_differ():
    agents = {"LinUCB": LinUCB, "random": RandomAgent}
    a = run(ENV, agents, n_seeds=2, root_seed=7, horizon=300, progress=False)
    b = run(ENV, agents, n_seeds=2, root_seed=7, horizon=300, progress=False)
    c = run(ENV, agents, n_seeds=2, root_seed=8, horizon=300, progress=False)
    pd.testing.assert_frame_equal(_deterministic(a), _deterministic(b))
    assert not np.allclose(a["cumulative_regret"], c["cumulative_regret"])
    assert list(a.columns)[:6] == ["env_id", "agent", "seed", "step", "cumulative_regret", "regret"]


class _Recorder(Agent):
    """Plays a fixed arm and records what it sees (to check common random numbers)."""

    log: dict = {}

    def __init__(self, n_arms, dim, *, rng, horizon=None, arm=0, tag="a"):
        super().__init__(n_arms, dim, rng=rng, horizon=horizon)
        self.arm, self.tag = arm, tag
        _Recorder.log[tag] = []

    def act(self, observation):
        return self.arm

    def update(self, observation, action, reward):
        _Recorder.log[self.tag].append((observation.copy(), reward))


def test_common_random_numbers_across_agents():
    agents = {
        "first": functools.partial(_Recorder, arm=0, tag="first"),
        "second": functools.partial(_Recorder, arm=1, tag="second"),
    }
    run(ENV, agents, n_seeds=1, horizon=50, progress=False)
    first, second = _Recorder.log["first"], _Recorder.log["second"]
    np.testing.assert_array_equal(np.stack([o for o, _ in first]), np.stack([o for o, _ in second]))
    assert not np.allclose([r for _, r in first], [r for _, r in second])  # different arms, same round


def test_linucb_regret_is_sublinear_and_far_below_random():
    df = run(ENV, {"LinUCB": LinUCB, "random": RandomAgent}, n_seeds=2, horizon=10_000, progress=False)
    mean = df.groupby(["agent", "step"])["cumulative_regret"].mean()
    linucb_5k, linucb_10k = mean["LinUCB"].asof(5_000), mean["LinUCB"][10_000]
    assert mean["LinUCB"].index.max() == 10_000
    assert linucb_10k <= 1.6 * linucb_5k
    assert linucb_10k < 0.2 * mean["random"][10_000]


def test_parallel_run_matches_in_process_run():
    agents = {"LinUCB": functools.partial(LinUCB, alpha=0.5), "random": RandomAgent}
    serial = run(ENV, agents, n_seeds=2, horizon=200, progress=False)
    parallel = run(ENV, agents, n_seeds=2, horizon=200, n_jobs=2, progress=False)
    pd.testing.assert_frame_equal(_deterministic(serial), _deterministic(parallel))


def test_recording_grid_and_summary_and_plot(tmp_path):
    steps = recording_steps(10_000, 1000)
    assert steps[0] == 1 and steps[-1] == 10_000 and 700 <= steps.size <= 1000
    assert np.all(np.diff(steps) > 0)
    assert recording_steps(5, 1000).tolist() == [1, 2, 3, 4, 5]
    df = run(ENV, {"LinUCB": LinUCB, "random": RandomAgent}, n_seeds=3, horizon=200, progress=False)
    table = final_regret_table(df).set_index("agent")
    final = df[df.step == 200].groupby("agent")["cumulative_regret"]
    np.testing.assert_allclose(table["final_regret_mean"], final.mean()[table.index])
    assert (table["ci95_low"] < table["final_regret_mean"]).all()
    assert (table["final_regret_mean"] < table["ci95_high"]).all()
    path = plot_regret(df, tmp_path / "sub" / "regret.png")
    assert path.stat().st_size > 10_000


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"env_id": "dpbandit/NoSuchBandit-v0"}, ValueError, "env_id"),
        ({"n_seeds": 0}, ValueError, "n_seeds"),
        ({"horizon": 0}, ValueError, "horizon"),
        ({"agents": {}}, ValueError, "agents"),
        ({"n_jobs": 0}, ValueError, "n_jobs"),
    ],
)
def test_bad_run_arguments_name_the_parameter(kwargs, error, message):
    args = {"env_id": ENV, "agents": {"LinUCB": LinUCB}, "n_seeds": 1, "horizon": 10, "progress": False}
    args.update(kwargs)
    with pytest.raises(error, match=message):
        run(args.pop("env_id"), args.pop("agents"), **args)


def test_epsilon_columns_are_float_and_survive_parquet(tmp_path):
    df = run(ENV, {"random": RandomAgent}, n_seeds=1, horizon=20, progress=False)
    assert df["epsilon"].dtype == np.float64 and df["claimed_epsilon"].dtype == np.float64
    df.to_parquet(tmp_path / "r.parquet")
    back = pd.read_parquet(tmp_path / "r.parquet")
    assert back["epsilon"].isna().all() and back["epsilon"].dtype == np.float64
