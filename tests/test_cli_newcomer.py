"""What a newcomer tries with the command line (issue 32): per-arm environments, modules in the current
folder, the catalogue, suggestions, and the cases that used to be silent or a traceback. Each refusal comes
before any simulation (``_refuse_to_run``)."""

from __future__ import annotations

import os
import re
import sys
import warnings

import pandas as pd
import pytest

from dpbandit import cli
from dpbandit.agents import AGENTS, agent_class
from dpbandit.agents.specs import accepted_options, parse_agent
from dpbandit.harness.catalogue import per_arm_form
from dpbandit.harness.outdir import LOCK

FAST = ["--horizon", "60", "--seeds", "3", "--jobs", "1", "--no-progress"]
#: A user's module: the test bandit with every arm at the same mean, one that ends its episode early, and a
#: registered id.
MODULE = """
import gymnasium
import numpy as np
from toy_bandit import ToyBandit


class EqualMeans(ToyBandit):
    def _next_round(self):
        super()._next_round()
        self.means = np.full(self.n_arms, 0.5)


class EndsEarly(ToyBandit):
    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        return obs, reward, self.t >= 20, truncated, info


gymnasium.register("{name}/Toy-v0", entry_point="{name}:ToyBandit")
from toy_bandit import ToyBandit  # noqa: E402,F811  (the entry point's class, re-exported)
"""


def _refuse_to_run(monkeypatch) -> None:
    import dpbandit.harness

    def boom(*args, **kwargs):
        raise AssertionError("the simulation started before the input was checked")

    monkeypatch.setattr(dpbandit.harness, "run", boom)


def _exit(args: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as exc:
        cli.main(args)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


@pytest.fixture
def user_module(tmp_path, monkeypatch) -> str:
    """A module in the current folder (not on sys.path), as a user's own file next to where they type."""
    name = f"mybandit_{os.getpid()}_{abs(hash(str(tmp_path))) % 10**6}"
    (tmp_path / f"{name}.py").write_text(MODULE.format(name=name))
    monkeypatch.chdir(tmp_path)
    assert str(tmp_path) not in sys.path
    return name


def _columns(printed: str) -> set[str]:
    header = next(line for line in printed.splitlines() if line.split()[:1] == ["agent"])
    return set(header.split())


def _closing(printed: str) -> str:
    return printed.strip().splitlines()[-2]


def _named_columns(note: str) -> set[str]:
    return set(re.findall(r"(?<![/.])\b[a-z]+(?:_[a-z0-9]+)+\b(?!\.md)", note))  # not file names


# -------------------------------------------------------------------------------- per-arm environments
def test_per_arm_environment_refuses_shared_agents_naming_their_per_arm_forms(tmp_path, monkeypatch, capsys):
    _refuse_to_run(monkeypatch)
    err = _exit(
        [
            "run",
            "--env",
            "dpbandit/PerArmLinearBandit-v0",
            "--agents",
            "linucb,random,private",
            *FAST,
            "--out",
            str(tmp_path),
        ],
        capsys,
    )
    assert "linucb -> shared-linucb" in err and "random -> random-perarm" in err
    assert "--agents shared-linucb,random-perarm,private-perarm" in err
    assert not (tmp_path / "results.parquet").exists()


def test_every_shared_agent_with_a_per_arm_form_names_a_per_arm_agent():
    for name in AGENTS:
        form = per_arm_form(name)
        if form is not None:
            assert agent_class(name).observation_model == "shared"
            assert agent_class(form).observation_model == "per_arm"
    assert (
        per_arm_form("linucb") == "shared-linucb" and per_arm_form("batched-ridge") == "batched-ridge-perarm"
    )


def test_random_perarm_gives_ratio_to_random_and_the_closing_line_names_printed_columns(tmp_path, capsys):
    assert (
        cli.main(
            [
                "run",
                "--env",
                "dpbandit/PerArmLinearBandit-v0",
                "--agents",
                "shared-linucb,random-perarm",
                *FAST,
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "ratio_to_random" in _columns(printed)
    assert _named_columns(_closing(printed)) <= _columns(printed)
    table = pd.read_csv(tmp_path / "final_regret.csv").set_index("agent")
    assert table.loc["random-perarm", "ratio_to_random"] == 1.0
    assert table.loc["shared-linucb", "ratio_to_random"] < 1.0


def test_without_random_the_closing_line_names_only_printed_columns(tmp_path, capsys):
    assert (
        cli.main(
            [
                "run",
                "--env",
                "dpbandit/LinearBandit-v0",
                "--agents",
                "linucb,greedy",
                *FAST,
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "ratio_to_random" not in _columns(printed)
    assert _closing(printed) == cli.NO_REFERENCE_NOTE.format(column="final_regret_mean", better="lower")
    assert _named_columns(_closing(printed)) == {"final_regret_mean"} <= _columns(printed)
    for note in (cli.NOTE, cli.DEFAULT_NOTE):
        assert _named_columns(note) == {"ratio_to_random"}
    assert _named_columns(cli.REWARD_NOTE) == {"reward_gain_over_random"}


# -------------------------------------------------------------------------------- modules in the folder
def test_module_class_and_module_id_run_from_the_modules_folder(user_module, tmp_path, capsys):
    path = list(sys.path)
    for env in (f"{user_module}:ToyBandit", f"{user_module}:{user_module}/Toy-v0"):
        assert (
            cli.main(["run", "--env", env, "--agents", "linucb,random", *FAST, "--out", str(tmp_path / "o")])
            == 0
        )
        assert "ratio_to_random" in capsys.readouterr().out
    assert sys.path == path  # the command leaves the import path as it was


def test_help_and_errors_say_the_current_folder_is_importable(tmp_path, monkeypatch, capsys):
    assert "current folder is importable" in " ".join(cli.build_parser().format_help().split()) or any(
        "current folder is importable" in " ".join(a.help.split())
        for a in cli.build_parser()._subparsers._group_actions[0].choices["run"]._actions
        if a.help
    )
    monkeypatch.chdir(tmp_path)
    err = _exit(["run", "--env", "no_such_module_here:Env", *FAST], capsys)
    assert str(tmp_path) in err and "PYTHONPATH" in err


# -------------------------------------------------------------------------------- the catalogue
def test_list_shows_every_agent_and_environment(capsys):
    import gymnasium

    from dpbandit import envs  # noqa: F401

    assert cli.main(["list"]) == 0
    printed = capsys.readouterr().out
    lines = {line.split()[0]: line for line in printed.splitlines() if line.startswith("  ")}
    for name in AGENTS:
        cls = agent_class(name)
        line = lines[name]
        privacy = f"private, {cls.trust_model}" if cls.trust_model else "not private"
        assert f"[{privacy}; {cls.observation_model.replace('_', '-')} features]" in line, line
        assert len(line.split("]", 1)[1].strip()) > 10  # a description
    for env_id in (i for i in gymnasium.registry if i.startswith("dpbandit/")):
        assert env_id in lines
    assert (
        "horizon=10000" in lines["dpbandit/LinearBandit-v0"] and "dim=50" in lines["dpbandit/HDBSection54-v0"]
    )


def test_version(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"dpbandit {version('dpbandit')}"


def test_misspelled_env_and_agent_names_suggest_the_nearest(monkeypatch, capsys):
    _refuse_to_run(monkeypatch)
    assert "Did you mean 'dpbandit/LinearBandit-v0'?" in _exit(
        ["run", "--env", "dpbandit/LinearBandt-v0", *FAST], capsys
    )
    assert "Did you mean 'linucb'?" in _exit(["run", "--agents", "linucbb,random", *FAST], capsys)


@pytest.mark.parametrize("name", list(AGENTS))
def test_an_option_typo_lists_the_accepted_options_for_every_agent(name):
    accepted = accepted_options(agent_class(name))
    assert accepted is not None, f"{name}: options unknown (an __init__ chain ending in **kwargs)"
    with pytest.raises(ValueError, match="it accepts: ") as exc:
        parse_agent(f"{name}:epsilonn=1")
    assert "TypeError" not in str(exc.value)


def test_private_option_typo_is_refused_before_any_work(monkeypatch, capsys):
    _refuse_to_run(monkeypatch)
    err = _exit(["run", "--agents", "private:epsilonn=1,random", *FAST], capsys)
    assert "'epsilonn'" in err and "epsilon" in err.split("it accepts:")[1]


# -------------------------------------------------------------------------------- silent or obscure cases
def test_the_horizon_and_its_source_are_printed_before_the_work(tmp_path, capsys):
    assert (
        cli.main(
            [
                "run",
                "--env",
                "toy_bandit:ToyBandit",
                "--agents",
                "linucb,random",
                "--seeds",
                "3",
                "--jobs",
                "1",
                "--no-progress",
                "--out",
                str(tmp_path),
                "--horizon",
                "80",
            ]
        )
        == 0
    )
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("toy_bandit:ToyBandit: d=4, K=3, T=80 (T from --horizon)")
    from toy_bandit import ToyBandit

    from dpbandit.harness.protocol import describe

    undeclared = describe(ToyBandit(horizon=None))  # an environment without a horizon: the default, said
    assert cli._horizon_source(undeclared, {}) == (
        "T: the default, 10,000 (the environment declares none); --horizon T sets it"
    )


def test_a_second_job_on_the_same_out_is_refused_and_a_stale_lock_taken_over(tmp_path, monkeypatch, capsys):
    (tmp_path / LOCK).write_text(str(os.getppid()))  # a live process holds the folder
    monkeypatch.setattr("dpbandit.harness.run", lambda *a, **k: pytest.fail("ran despite the lock"))
    err = _exit(["run", "--agents", "linucb,random", *FAST, "--out", str(tmp_path)], capsys)
    assert "another dpbandit job" in err and str(os.getppid()) in err
    monkeypatch.undo()
    (tmp_path / LOCK).write_text("999999999")  # no such process: stale
    assert (
        cli.main(
            [
                "run",
                "--env",
                "dpbandit/LinearBandit-v0",
                "--agents",
                "linucb,random",
                *FAST,
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    assert not (tmp_path / LOCK).exists() and (tmp_path / "final_regret.csv").exists()


def test_equal_means_give_an_undefined_ratio_without_numpy_warnings(user_module, tmp_path, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert (
            cli.main(
                [
                    "run",
                    "--env",
                    f"{user_module}:EqualMeans",
                    "--agents",
                    "linucb,random",
                    *FAST,
                    "--out",
                    str(tmp_path / "o"),
                ]
            )
            == 0
        )
    captured = capsys.readouterr()
    assert _closing(captured.out) == cli.UNDEFINED_RATIO_NOTE and "RuntimeWarning" not in captured.err


def test_an_episode_ending_early_is_one_line(user_module, capsys):
    err = _exit(["run", "--env", f"{user_module}:EndsEarly", "--agents", "linucb,random", *FAST], capsys)
    assert "ended its episode after 20 rounds" in err


def test_a_missing_csv_is_one_line(tmp_path, monkeypatch, capsys):
    _refuse_to_run(monkeypatch)
    err = _exit(
        [
            "run",
            "--env",
            "dpbandit/Classification-v0",
            "--env-kwarg",
            "path='nothere.csv'",
            "--env-kwarg",
            "label='y'",
            "--agents",
            "linucb,random",
            *FAST,
            "--out",
            str(tmp_path),
        ],
        capsys,
    )
    assert "nothere.csv" in err


def test_an_agent_warning_is_printed_once_per_job_not_per_seed(tmp_path, capsys):
    args = ["run", "--env", "toy_bandit:ToyBandit", "--env-kwarg", "users=5", "--agents", "private,random"]
    with warnings.catch_warnings():
        warnings.simplefilter("default", UserWarning)  # shown, whatever pytest's -W says
        assert cli.main([*args, *FAST, "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert err.count("received user ids with max_rounds_per_user=None") == 1, err
    assert "dpbandit: warning: PrivateAgent received user ids" in err
