"""The dpbandit command line."""

from __future__ import annotations

import pandas as pd
import pytest

from dpbandit.agents.specs import parse_agent
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
