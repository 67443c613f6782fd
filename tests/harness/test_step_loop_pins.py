"""Agents without a block path (``random``, a user's own agents) give the numbers they gave before the fast
act/update loop (issue 31 item 1), pinned: same seed, same regret and reward, bit for bit.

The pinned values were printed by the harness of commit 98264ac (the ``env.step`` loop), with this file's
agents and settings; the fast loop must reproduce them exactly, on a GLM environment (shared contexts,
per-arm block features for ``random-perarm``) and on a classification environment (``user_id`` per round).
"""

from __future__ import annotations

import functools
import importlib

import gymnasium
import numpy as np
import pandas as pd
import pytest

from dpbandit.agents.dphdb import DPHDB
from dpbandit.agents.linear import LinUCB
from dpbandit.agents.uniform import RandomAgent, RandomPerArmAgent
from dpbandit.harness import run

run_module = importlib.import_module("dpbandit.harness.run")


class MyLinUCB(LinUCB):
    """A user subclass: the harness plays it through act/update."""


class MyDPHDB(DPHDB):
    """A user subclass of a private agent (its noise from its own generator)."""


class UserGreedy(RandomAgent):
    """A user's epsilon-greedy agent: numpy-integer actions, reads the observation, takes ``user_id``."""

    def __init__(self, n_arms: int, dim: int, *, rng: np.random.Generator) -> None:
        super().__init__(n_arms, dim, rng=rng)
        self.sums = np.zeros(n_arms)
        self.counts = np.zeros(n_arms)
        self.users: set[int] = set()

    def act(self, observation: np.ndarray) -> int:
        if self.rng.random() < 0.1:
            return self.rng.integers(self.n_arms)  # a numpy integer, as a user's agent may return
        return int(np.argmax(self.sums / np.maximum(self.counts, 1)))

    def update(self, observation: np.ndarray, action: int, reward: float, user_id: int | None = None) -> None:
        self.sums[action] += reward + 1e-3 * float(observation.sum())
        self.counts[action] += 1
        if user_id is not None:
            self.users.add(user_id)


CASES = {
    "hdb": (
        "dpbandit/HDBSection54-v0",
        {"random": RandomAgent, "mylinucb": MyLinUCB, "usergreedy": UserGreedy,
         "random-perarm": RandomPerArmAgent, "mydphdb": functools.partial(MyDPHDB, warmup=30)},
        {"horizon": 400, "env_kwargs": {"dim": 6, "n_arms": 3}},
    ),
    "iris": (
        "dpbandit/Iris-v0",
        {"random": RandomAgent, "usergreedy": UserGreedy, "mylinucb": MyLinUCB},
        # the features as at 98264ac (issue 29 standardises them by default since; the loop is what is pinned)
        {"horizon": 300, "env_kwargs": {"standardize": False}},
    ),
}

# (case, agent, seed) -> final cumulative regret, cumulative reward, rounds on an optimal arm (commit 98264ac)
PINS = {
    ("hdb", "mydphdb", 0): (50.0439821647363, -13.706693497819636, 99.0),
    ("hdb", "mydphdb", 1): (15.132352669857541, 5.935733210818215, 256.0),
    ("hdb", "mylinucb", 0): (2.883071428702648, 31.86590654576025, 351.0),
    ("hdb", "mylinucb", 1): (3.706371788947623, 16.738222489175897, 342.0),
    ("hdb", "random", 0): (47.69053163007048, -13.180436597560629, 120.0),
    ("hdb", "random", 1): (24.877196261516175, -4.341810336466484, 214.0),
    ("hdb", "random-perarm", 0): (41.04543260968684, -5.6884668825495, 135.0),
    ("hdb", "random-perarm", 1): (26.23823217465527, -7.155077006823584, 201.0),
    ("hdb", "usergreedy", 0): (41.308885013513894, -5.4160051602343815, 131.0),
    ("hdb", "usergreedy", 1): (28.091221218125735, -7.303757319036877, 207.0),
    ("iris", "mylinucb", 0): (63.0, 237.0, 237.0),
    ("iris", "mylinucb", 1): (69.0, 231.0, 231.0),
    ("iris", "random", 0): (204.0, 96.0, 96.0),
    ("iris", "random", 1): (206.0, 94.0, 94.0),
    ("iris", "usergreedy", 0): (212.0, 88.0, 88.0),
    ("iris", "usergreedy", 1): (183.0, 117.0, 117.0),
}
# sums of cumulative regret and of cumulative reward over every recorded row (the whole curves)
CHECKSUMS = {"hdb": (1259.096108973983, -158.71851540303652), "iris": (4308.0, 3756.0)}


def _frame(case: str):
    env, agents, options = CASES[case]
    return run(env, agents, n_seeds=2, root_seed=7, progress=False, n_points=20, **options)


@pytest.mark.parametrize("case", sorted(CASES))
def test_step_loop_numbers_are_todays(case: str) -> None:
    frame = _frame(case)
    last = frame.groupby(["agent", "seed"])[["cumulative_regret", "cumulative_reward", "cumulative_optimal"]].last()
    got = {(case, agent, seed): tuple(float(v) for v in row) for (agent, seed), row in last.iterrows()}
    assert got == {key: value for key, value in PINS.items() if key[0] == case}
    sums = (float(frame["cumulative_regret"].sum()), float(frame["cumulative_reward"].sum()))
    assert sums == CHECKSUMS[case]


class PassThrough(gymnasium.Wrapper):
    """A user's wrapper: the harness cannot draw blocks through it, so it steps the environment."""


def test_stepping_loop_equals_drawn_rounds_loop() -> None:
    """The env.step loop (an environment behind a user's wrapper) and the loop on drawn rounds agree."""
    agents = {"usergreedy": UserGreedy, "mylinucb": MyLinUCB}
    options = dict(n_seeds=2, root_seed=5, horizon=250, progress=False, n_points=30)

    def wrapped(**kwargs):
        return PassThrough(gymnasium.make("dpbandit/Iris-v0", **kwargs))

    drawn = run("dpbandit/Iris-v0", agents, **options)
    stepped = run(wrapped, agents, **options)
    assert not run_module.protocol.describe(wrapped(), 250).block_draws
    timing = ["wall_time", "compile_time"]
    pd.testing.assert_frame_equal(drawn.drop(columns=timing + ["env_id"]), stepped.drop(columns=timing + ["env_id"]))
    for frame in (drawn, stepped):  # the clock read at every recorded round, in order
        walls = frame.groupby(["agent", "seed"])["wall_time"]
        assert walls.apply(lambda w: bool(np.all(np.isfinite(w)) and np.all(np.diff(w) >= 0))).all()
