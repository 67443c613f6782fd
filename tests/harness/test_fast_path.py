"""The harness plays built-in agents in blocks and user agents step by step; same DataFrame either way."""

from __future__ import annotations

import functools
import importlib

import numpy as np
import pandas as pd

from dpbandit.agents.dphdb import DPHDB
from dpbandit.agents.dpucb import DPUCB
from dpbandit.agents.dpucb_disjoint import DisjointDPUCB
from dpbandit.agents.linear import GreedyLeastSquares, LinUCB
from dpbandit.harness import run

run_module = importlib.import_module("dpbandit.harness.run")  # the package re-exports the function `run`

AGENTS = {
    "LinUCB": LinUCB,
    "greedy": GreedyLeastSquares,
    "DP-HDB": functools.partial(DPHDB, warmup=20),
    "DP-UCB": DPUCB,
    "DP-UCB disjoint": DisjointDPUCB,
}
OPTIONS = dict(n_seeds=2, root_seed=3, horizon=300, progress=False, env_kwargs={"n_arms": 3, "dim": 4})


def _frames(env_id: str = "dpbandit/LinearBandit-v0") -> pd.DataFrame:
    return run(env_id, AGENTS, **OPTIONS).drop(columns=["wall_time", "compile_time"])


def test_block_path_frame_equals_step_loop_frame(monkeypatch) -> None:
    fast = _frames()
    monkeypatch.setattr(run_module, "uses_block_path", lambda agent: False)
    slow = _frames()
    pd.testing.assert_frame_equal(fast, slow)
    assert (fast.groupby("agent")["cumulative_regret"].max() > 0).all()


def test_fast_path_only_for_built_in_agents() -> None:
    class MyLinUCB(LinUCB):  # a user subclass: act/update may be overridden, keep the generic loop
        pass

    rng = np.random.default_rng(0)
    assert run_module.uses_block_path(LinUCB(2, 3, rng=rng))
    assert run_module.uses_block_path(DPHDB(2, 3, rng=rng, horizon=10))
    assert not run_module.uses_block_path(MyLinUCB(2, 3, rng=rng))
