"""One pass through the harness (issue 38 items 4, 7 and 9): a job builds and describes its environment once,
the checks read that description, each run resets it with its own seed; one horizon rule for ``run()``, the
CLI and sweeps; an unknown environment keyword is one line naming the accepted ones, before any work."""

from __future__ import annotations

import functools
import importlib
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from toy_bandit import CountingBandit, DeclaredHorizonBandit, ToyBandit

from dpbandit import cli
from dpbandit.agents import Agent
from dpbandit.agents.linear import LinUCB
from dpbandit.agents.uniform import RandomAgent
from dpbandit.harness import run, run_one, seeding
from dpbandit.sweep import run_sweep

AGENTS = {"LinUCB": LinUCB, "random": RandomAgent}
TIMING = ["wall_time", "compile_time"]


@pytest.fixture
def counts(monkeypatch):
    monkeypatch.setattr(CountingBandit, "counts", {"built": 0, "reset": 0})
    return CountingBandit.counts


def test_a_job_builds_its_environment_once_and_resets_it_once_per_run(counts):
    frame = run(CountingBandit, AGENTS, n_seeds=2, root_seed=3, progress=False)
    assert counts == {"built": 1, "reset": 4}  # was 5 and 5: 3 of them for checks before the first round
    fresh = pd.concat(  # run_one outside a job: a fresh environment per run; the same numbers
        [
            run_one(CountingBandit, name, factory, seeding.seed_sequence(3, index), seed_index=index)
            for index in range(2)
            for name, factory in AGENTS.items()
        ],
        ignore_index=True,
    )
    assert counts == {"built": 5, "reset": 8}
    pd.testing.assert_frame_equal(frame.drop(columns=TIMING), fresh.drop(columns=TIMING))


@pytest.mark.parametrize(
    ("env", "env_kwargs"),
    [
        ("dpbandit/LinearBandit-v0", {"dim": 4}),
        ("dpbandit/PerArmLinearBandit-v0", {"dim": 4}),
        ("dpbandit/Iris-v0", {}),
        ("dpbandit/Iris-v0", {"sampling": "pass"}),
        ("dpbandit/ChowdhuryZhou-v0", {"n_arms": 10}),
    ],
)
def test_a_kept_environment_gives_the_numbers_of_a_fresh_one(env, env_kwargs):
    """The built-in environments, reset for each run of a job, give what a fresh environment per run gives
    (each seed's episode whatever the runs before it played), on the block path and the step loop."""
    agents = {"random": RandomAgent, "stepwise": functools.partial(_Stepwise, arm=1)}
    if env in ("dpbandit/PerArmLinearBandit-v0", "dpbandit/ChowdhuryZhou-v0"):  # per-arm features
        random = importlib.import_module("dpbandit.agents.uniform").RandomPerArmAgent
        agents = {"random": random, "stepwise": functools.partial(_StepwisePerArm, arm=1)}
    frame = run(env, agents, env_kwargs=env_kwargs, n_seeds=2, horizon=120, root_seed=5, progress=False)
    fresh = pd.concat(
        [
            run_one(env, name, factory, seeding.seed_sequence(5, index), seed_index=index, horizon=120,
                    env_kwargs=env_kwargs)
            for index in range(2)
            for name, factory in agents.items()
        ],
        ignore_index=True,
    )
    pd.testing.assert_frame_equal(frame.drop(columns=TIMING), fresh.drop(columns=TIMING))


class _Stepwise(Agent):
    """A user's agent (the step loop, not the block path) that plays a fixed arm."""

    def __init__(self, n_arms, dim, *, rng, arm=0):
        super().__init__(n_arms, dim, rng=rng)
        self.arm = arm

    def act(self, observation):
        return self.arm

    def update(self, observation, action, reward):
        pass


class _StepwisePerArm(_Stepwise):
    observation_model = "per_arm"


def test_the_next_job_builds_afresh(counts):
    run(CountingBandit, {"random": RandomAgent}, n_seeds=1, progress=False)
    run(CountingBandit, {"random": RandomAgent}, n_seeds=1, progress=False)
    assert counts == {"built": 2, "reset": 2}


def test_the_command_builds_the_environment_once(counts, tmp_path):
    argv = ["run", "--env", "toy_bandit:CountingBandit", "--agents", "linucb,random", "--seeds", "2",
            "--no-progress", "--out", str(tmp_path)]
    assert cli.main(argv) == 0
    assert counts == {"built": 1, "reset": 4}  # was 6 and 5


def test_a_csv_environment_reads_its_file_once_per_job(monkeypatch):
    from sklearn.datasets import load_iris

    from dpbandit.envs import datasets

    path = Path(tempfile.mkdtemp()) / "iris.csv"
    load_iris(as_frame=True).frame.to_csv(path, index=False)
    reads = []
    read_csv = datasets.read_csv
    monkeypatch.setattr(datasets, "read_csv", lambda *a, **k: reads.append(a) or read_csv(*a, **k))
    kwargs = dict(path=str(path), label="target")
    run("dpbandit/Classification-v0", AGENTS, env_kwargs=kwargs, n_seeds=2, horizon=100, progress=False)
    assert len(reads) == 1  # was 5


# ------------------------------------------------------------------------------------------ one horizon rule
def _cli_first_line(argv: list[str], out: Path, capsys) -> str:
    options = ["--agents", "linucb,random", "--seeds", "1", "--no-progress", "--out", str(out)]
    assert cli.main([*argv, *options]) == 0
    return capsys.readouterr().out.splitlines()[0]


def test_an_environment_declaring_2000_rounds_plays_2000_from_run_the_command_and_a_sweep(tmp_path, capsys):
    env = "toy_bandit:DeclaredHorizonBandit"
    frame = run(DeclaredHorizonBandit, AGENTS, n_seeds=1, progress=False)
    assert frame["step"].max() == 2_000
    assert frame.attrs["environment"]["horizon_source"] == "env.unwrapped.horizon"
    line = _cli_first_line(["run", "--env", env], tmp_path, capsys)
    assert "T=2,000 (T: the environment's own (env.unwrapped.horizon))" in line  # was T=10,000
    assert pd.read_parquet(tmp_path / "results.parquet")["step"].max() == 2_000
    config = {"name": "declared", "seeds": 1, "n_points": 10, "grid": {"agent": "random", "env_id": env}}
    swept = run_sweep(config, tmp_path / "store", backend="inprocess", progress=False)
    assert swept["step"].max() == 2_000
    line = _cli_first_line(["run", "--env", env, "--horizon", "300"], tmp_path, capsys)
    assert "T=300 (T from --horizon)" in line


def test_classification_pass_plays_each_row_once_by_default(tmp_path, capsys):
    frame = run("dpbandit/Iris-v0", AGENTS, env_kwargs={"sampling": "pass"}, n_seeds=1, progress=False)
    assert frame["step"].max() == 150  # n rows: docs/envs.md
    argv = ["run", "--env", "dpbandit/Iris-v0", "--env-kwarg", "sampling='pass'"]
    line = _cli_first_line(argv, tmp_path, capsys)
    assert "T=150 (T: the environment's own (env.unwrapped.horizon))" in line  # was an error, T = 10,000


def test_an_environment_without_a_horizon_plays_the_default():
    undeclared = lambda: ToyBandit(horizon=None)  # noqa: E731
    frame = run(undeclared, {"random": RandomAgent}, n_seeds=1, n_points=10, progress=False)
    assert frame["step"].max() == 10_000
    assert frame.attrs["environment"]["horizon_source"] == "default"


# ------------------------------------------------------------------------------ environment keyword typos
class NeverBuilt(Agent):
    def __init__(self, n_arms, dim, *, rng):
        raise AssertionError("an agent was built before the environment keywords were checked")

    def act(self, observation):
        return 0

    def update(self, observation, action, reward):
        pass


TYPO = (
    "Unknown keyword(s) ['n_arm'] for env dpbandit/LinearBandit-v0; it accepts: chunk_rounds, context_bound, "
)


def test_an_unknown_env_keyword_names_the_accepted_and_the_nearest_before_any_work(counts, tmp_path, capsys):
    never = {"never": NeverBuilt}
    with pytest.raises(ValueError) as err:
        run("dpbandit/LinearBandit-v0", never, env_kwargs={"n_arm": 3}, progress=False)
    message = str(err.value)
    assert message.startswith(TYPO) and message.endswith("Did you mean 'n_arms'?") and "\n" not in message
    assert "noise_std" in message and "theta_radius" in message  # the problem's options, forwarded
    with pytest.raises(ValueError, match=r"it accepts: dim, horizon, n_arms. Did you mean 'dim'"):
        run(CountingBandit, never, env_kwargs={"dims": 3}, progress=False)
    assert counts["built"] == 0
    with pytest.raises(SystemExit):
        cli.main(["--env", "dpbandit/LinearBandit-v0", "--env-kwarg", "n_arm=3", "--out", str(tmp_path)])
    printed = capsys.readouterr().err
    assert printed.startswith("dpbandit: error: " + TYPO) and printed.count("\n") == 1
    grid = {"agent": "random", "env_id": "dpbandit/LinearBandit-v0", "env": {"n_arm": 3}}
    config = {"name": "typo", "seeds": 1, "grid": grid}
    with pytest.raises(ValueError, match=r"grid.env: .* Unknown keyword\(s\) \['n_arm'\] .*mean 'n_arms'"):
        run_sweep(config, tmp_path / "store", backend="inprocess", progress=False)
