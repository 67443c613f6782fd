"""A user's own agent by name (issue 38 item 5): ``--agents mymodule:ClassName`` and ``mymodule:factory`` from
the module's folder, with options after a second colon, on the command line and in a sweep config; errors
name the module, the class and the options."""

from __future__ import annotations

import functools
import importlib
import sys

import pandas as pd
import pytest

from dpbandit import cli
from dpbandit.harness import run
from dpbandit.harness.protocol import DEFAULT_HORIZON

MODULE = "user_agents_issue38"
SOURCE = '''
import numpy as np
from dpbandit.agents import Agent


class EpsilonGreedy(Agent):
    """Per-arm ridge regression, exploring uniformly with probability ``explore``."""

    def __init__(self, n_arms, dim, *, rng, horizon=None, explore=0.05):
        super().__init__(n_arms, dim, rng=rng, horizon=horizon)
        self.explore = explore
        self.gram = np.stack([np.eye(dim)] * n_arms)
        self.b = np.zeros((n_arms, dim))

    def act(self, observation):
        if self.rng.random() < self.explore:
            return int(self.rng.integers(self.n_arms))
        theta = np.linalg.solve(self.gram, self.b[..., None])[..., 0]
        return int(np.argmax(theta @ observation))

    def update(self, observation, action, reward):
        self.gram[action] += np.outer(observation, observation)
        self.b[action] += reward * observation


def greedy(n_arms, dim, *, rng, horizon=None):
    return EpsilonGreedy(n_arms, dim, rng=rng, horizon=horizon, explore=0.0)


class NotAnAgent:
    pass
'''
TIMING = ["wall_time", "compile_time"]
FAST = ["--horizon", "300", "--seeds", "2", "--no-progress"]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """The user's folder with their module, as the current folder (the command puts it on sys.path)."""
    (tmp_path / f"{MODULE}.py").write_text(SOURCE)
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    sys.modules.pop(MODULE, None)


def _user_module(folder):
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module(MODULE)
    finally:
        sys.path.remove(str(folder))


def test_agents_by_module_and_class_or_factory_with_options(folder):
    agents = f"{MODULE}:EpsilonGreedy:explore=0.1,{MODULE}:greedy,random"
    argv = ["run", "--env", "dpbandit/LinearBandit-v0", "--agents", agents, *FAST, "--out", "out"]
    assert cli.main(argv) == 0
    frame = pd.read_parquet(folder / "out" / "results.parquet")
    names = [f"{MODULE}:EpsilonGreedy:explore=0.1", f"{MODULE}:greedy", "random"]
    assert list(frame["agent"].unique()) == names
    user = _user_module(folder)
    factories = {
        names[0]: functools.partial(user.EpsilonGreedy, explore=0.1),
        names[1]: user.greedy,
        "random": importlib.import_module("dpbandit.agents.uniform").RandomAgent,
    }
    direct = run("dpbandit/LinearBandit-v0", factories, n_seeds=2, horizon=300, progress=False)
    pd.testing.assert_frame_equal(frame.drop(columns=TIMING), direct.drop(columns=TIMING))  # options arrived


def test_options_may_follow_as_list_items_as_for_registered_agents():
    from dpbandit.agents.specs import split_agent_list, split_name

    listed = split_agent_list("m:Cls,explore=0.1,x=2,linucb,alpha=0.5")
    assert listed == ["m:Cls:explore=0.1,x=2", "linucb:alpha=0.5"]
    assert split_name("m.sub:Cls:a=1") == ("m.sub:Cls", "a=1")
    assert split_name("linucb:alpha=0.5") == ("linucb", "alpha=0.5")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (f"{MODULE}:EpsilonGreedy:explor=0.1",
         f"Unknown option(s) ['explor'] for agent '{MODULE}:EpsilonGreedy'; it accepts: explore. Did you "
         "mean 'explore'?"),
        (f"{MODULE}:EpsilonGredy", f"{MODULE} has no 'EpsilonGredy'. Did you mean {MODULE}:EpsilonGreedy?"),
        (f"{MODULE}:NotAnAgent", "to be a dpbandit.agents.Agent subclass or a function returning an Agent"),
        ("no_such_module_38:Agent", "to name an importable module: No module named 'no_such_module_38'"),
    ],
)
def test_a_bad_user_agent_is_one_line_before_any_work(folder, capsys, spec, message):
    with pytest.raises(SystemExit) as exc:
        cli.main(["run", "--agents", f"{spec},random", *FAST, "--out", "out"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and message in err and err.count("\n") == 1
    assert not (folder / "out" / "results.parquet").exists()


def test_a_sweep_config_names_a_users_agent(folder):
    (folder / "sweep.toml").write_text(
        f'''name = "mine"
seeds = 2
n_points = 20
[grid]
agent = ["{MODULE}:EpsilonGreedy", "random",
         {{agent = "{MODULE}:EpsilonGreedy", explore = 0.3, label = "eg0.3"}}]
env_id = "dpbandit/LinearBandit-v0"
horizon = 200
'''
    )
    assert cli.main(["sweep", "sweep.toml", "--backend", "inprocess", "--out", "store", "--no-progress"]) == 0
    from dpbandit.sweep import Store

    frame = Store.read(folder / "store").load()
    assert set(frame["agent"]) == {f"{MODULE}:EpsilonGreedy", "eg0.3", "random"}
    assert len(frame.groupby(["agent", "seed"])) == 6


def test_help_says_how_to_name_your_own_agent_and_the_horizon_rule(capsys):
    with pytest.raises(SystemExit):
        cli.main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "Your own agent: 'mymodule:ClassName' or 'mymodule:factory'" in text
    assert "'mymodule:MyAgent:explore=0.1'" in text
    assert f"else {DEFAULT_HORIZON:,} (dpbandit.harness.protocol.DEFAULT_HORIZON)" in text
