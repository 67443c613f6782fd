"""The dpbandit command line."""

from __future__ import annotations

import pandas as pd
import pytest

from dpbandit.agents.specs import parse_agent, split_agent_list
from dpbandit.cli import main


def test_run_command_prints_table_and_writes_outputs(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["run", "--env", "dpbandit/LinearBandit-v0", "--agents", "linucb:alpha=0.5,random",
                 "--horizon", "300", "--seeds", "2", "--jobs", "1", "--out", str(out), "--no-progress"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "final_regret_mean" in printed and "linucb:alpha=0.5" in printed
    df = pd.read_parquet(out / "results.parquet")
    assert set(df["agent"]) == {"linucb:alpha=0.5", "random"}
    assert (out / "regret.png").stat().st_size > 0
    assert len(pd.read_csv(out / "final_regret.csv")) == 2


def test_agent_specs_are_parsed_and_checked():
    name, factory = parse_agent("linucb:alpha=0.25", {"epsilon": 1.0})
    assert name == "linucb:alpha=0.25" and factory.keywords == {"alpha": 0.25}
    with pytest.raises(ValueError, match="Unknown option"):
        parse_agent("linucb:gamma=1")
    with pytest.raises(ValueError, match="agent"):
        parse_agent("nosuchagent")


def test_bad_cli_input_exits_with_a_message(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["run", "--env", "dpbandit/NoSuch-v0", "--agents", "random", "--horizon", "10", "--seeds", "1"])
    assert exc.value.code == 2
    assert "env_id" in capsys.readouterr().err


def _refuse_to_run(monkeypatch) -> None:
    """Make any simulation fail loudly: the checks under test must stop the command before it."""
    import dpbandit.harness

    def boom(*args, **kwargs):
        raise AssertionError("the simulation started before the input was checked")

    monkeypatch.setattr(dpbandit.harness, "run", boom)


def test_run_options_work_at_top_level(tmp_path) -> None:
    common = ["--env", "dpbandit/LinearBandit-v0", "--agents", "greedy,random", "--horizon", "100",
              "--seeds", "2", "--jobs", "1", "--no-progress"]
    assert main([*common, "--out", str(tmp_path / "a")]) == 0
    assert main(["run", *common, "--out", str(tmp_path / "b")]) == 0
    a, b = (pd.read_parquet(tmp_path / d / "results.parquet").drop(columns=["wall_time", "compile_time"])
            for d in "ab")
    pd.testing.assert_frame_equal(a, b)
    assert int(a["step"].max()) == 100


def test_agent_options_with_several_keys(tmp_path, capsys) -> None:
    code = main(["--env", "dpbandit/LinearBandit-v0", "--agents", "random,linucb:alpha=0.5,regularization=2",
                 "--agent", "greedy:regularization=3", "--horizon", "50", "--seeds", "1", "--jobs", "1",
                 "--out", str(tmp_path), "--no-progress"])
    assert code == 0
    agents = set(pd.read_parquet(tmp_path / "results.parquet")["agent"])
    assert agents == {"random", "linucb:alpha=0.5,regularization=2", "greedy:regularization=3"}
    assert "ratio_to_random" in capsys.readouterr().out


def test_agent_list_splitting_and_option_errors() -> None:
    assert split_agent_list("dphdb, linucb:alpha=0.5,regularization=2,random") == [
        "dphdb", "linucb:alpha=0.5,regularization=2", "random"]
    assert split_agent_list("linucb,alpha=0.5") == ["linucb:alpha=0.5"]  # an option without its colon
    name, factory = parse_agent("linucb:alpha=0.5,regularization=2")
    assert factory.keywords == {"alpha": 0.5, "regularization": 2}
    with pytest.raises(ValueError, match="agent name before the option"):
        split_agent_list("alpha=0.5,linucb")
    with pytest.raises(ValueError, match=r"Unknown option\(s\) \['horizon'\].*it accepts"):
        parse_agent("linucb:horizon=10")  # set by --horizon, never an agent option


@pytest.mark.parametrize("make_out", ["file", "below-a-file"])
def test_bad_out_is_refused_before_any_work(tmp_path, monkeypatch, capsys, make_out) -> None:
    _refuse_to_run(monkeypatch)
    blocker = tmp_path / "results.txt"
    blocker.write_text("x")
    out = blocker if make_out == "file" else blocker / "out"
    with pytest.raises(SystemExit) as exc:
        main(["--agents", "random", "--horizon", "10", "--seeds", "1", "--out", str(out)])
    assert exc.value.code == 2
    assert "--out" in capsys.readouterr().err


def test_epsilon_that_reaches_no_agent_warns(tmp_path, capsys) -> None:
    code = main(["--env", "dpbandit/LinearBandit-v0", "--agents", "linucb,random", "--epsilon", "0.5",
                 "--horizon", "30", "--seeds", "1", "--jobs", "1", "--out", str(tmp_path), "--no-progress"])
    assert code == 0
    err = capsys.readouterr().err
    assert "warning: --epsilon reaches no agent" in err and "linucb, random" in err
    assert "(agents that do: " in err and "dphdb" in err.split("agents that do: ")[1]
    main(["--env", "dpbandit/LinearBandit-v0", "--agents", "dphdb,random", "--epsilon", "0.5",
          "--horizon", "30", "--seeds", "1", "--jobs", "1", "--out", str(tmp_path), "--no-progress"])
    assert "reaches no agent" not in capsys.readouterr().err


def test_progress_lines_when_stderr_is_not_a_terminal(tmp_path, capsys) -> None:
    main(["--env", "dpbandit/LinearBandit-v0", "--agents", "greedy,random", "--horizon", "50", "--seeds", "2",
          "--jobs", "1", "--out", str(tmp_path)])
    err = capsys.readouterr().err  # pytest's capture is not a terminal: plain lines, no bar
    assert "[dpbandit] 4 runs to play" in err and "[dpbandit] runs 4/4 done" in err and "ETA" in err
    assert "\r" not in err


def test_help_lists_examples_and_says_run_is_the_default(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    assert "dpbandit --horizon 100` is `dpbandit run --horizon 100" in " ".join(text.split())
    assert "examples (times on 2 cores):" in text and "--agent linucb:alpha=0.5,regularization=2" in text


def _every_agent(per_arm: bool) -> str:
    from dpbandit.agents import AGENTS, agent_class

    return ",".join(n for n in AGENTS if not per_arm or agent_class(n).observation_model == "per_arm")


@pytest.mark.parametrize(
    ("env", "kwargs", "per_arm", "expected"),
    [
        ("toy_bandit:ToyBandit", ["expected=False"], False, False),  # an entry point 'module:Class'
        ("toy_bandit:toy/Bandit-v0", ["per_arm=True"], True, True),  # 'module:EnvId-v0' (module registers)
    ],
    ids=["entry-point-shared-observed", "module-id-per_arm-expected"],
)
def test_a_user_environment_runs_with_every_fitting_agent(tmp_path, capsys, env, kwargs, per_arm, expected):
    """tests/toy_bandit.py is a user's own Gymnasium environment (nothing from dpbandit/envs/); tests/harness covers
    the other two combinations of observation model and expected rewards."""
    agents = _every_agent(per_arm)
    options = [a for kw in [*kwargs, "dim=20", "n_arms=2"] for a in ("--env-kwarg", kw)]
    code = main(["run", "--env", env, *options, "--agents", agents, "--horizon", "200", "--seeds", "1",
                 "--out", str(tmp_path), "--no-progress"])
    assert code == 0
    df = pd.read_parquet(tmp_path / "results.parquet")
    assert set(df["agent"]) == set(agents.split(",")) and df["step"].max() == 200
    assert df["cumulative_reward"].notna().all()
    regret = df["cumulative_regret"]
    assert regret.notna().all() if expected else regret.isna().all()  # pseudo-regret needs expected rewards
    printed = capsys.readouterr().out
    assert all(name in printed for name in agents.split(","))  # the table has a row per agent


def test_env_kwarg_horizon_is_honoured_or_refused_naming_it(tmp_path, capsys):
    common = ["--agents", "random", "--seeds", "1", "--out", str(tmp_path), "--no-progress"]
    assert main(["--env", "dpbandit/LinearBandit-v0", "--env-kwarg", "horizon=50", *common]) == 0
    assert pd.read_parquet(tmp_path / "results.parquet")["step"].max() == 50
    assert main(["--env", "toy_bandit:FixedHorizonBandit", *common]) == 0  # no --horizon: the env's own
    assert pd.read_parquet(tmp_path / "results.parquet")["step"].max() == 50
    refused = [
        (["--env", "dpbandit/LinearBandit-v0", "--env-kwarg", "horizon=50", "--horizon", "60"],
         "--horizon 60 and --env-kwarg horizon=50 to agree"),
        (["--env", "toy_bandit:FixedHorizonBandit", "--env-kwarg", "horizon=20"],
         "Unknown keyword(s) ['horizon'] for env toy_bandit:FixedHorizonBandit; it accepts: dim, n_arms."),
        (["--env", "toy_bandit:FixedHorizonBandit", "--horizon", "60"], "horizon=60 to be at most"),
        (["--env", "toy_bandit:NoSuchBandit"], "toy_bandit has neither 'NoSuchBandit'"),
    ]
    capsys.readouterr()
    for args, message in refused:
        with pytest.raises(SystemExit) as exc:
            main([*args, *common])
        assert exc.value.code == 2 and message in capsys.readouterr().err


def test_default_agents_without_horizon_flag_take_their_own_delta(tmp_path):
    """The default job with the horizon from --env-kwarg (no --horizon): each private agent gets its own default
    delta from that horizon, min(1e-5, 1/(10T)) for ``private`` and the paper's 1/T for DP-HDB (a None horizon
    once crashed this path)."""
    from dpbandit.privacy.budget import default_delta

    assert main(["--env-kwarg", "horizon=200", "--seeds", "1", "--out", str(tmp_path), "--no-progress"]) == 0
    df = pd.read_parquet(tmp_path / "results.parquet")
    assert df["step"].max() == 200
    deltas = df[df["claimed_epsilon"].notna()].groupby("agent")["delta"].unique()
    assert list(deltas["private"]) == [default_delta(200)] and list(deltas["dphdb"]) == [1 / 200]
