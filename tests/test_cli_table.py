"""`dpbandit run` on results of the shape of contract C3 (the harness stubbed with a hand-built frame): the
compact table fits 100 characters and names its quantities as final_regret.csv does, `--wide` prints the CSV's
columns with delta next to epsilon, fewer than 3 seeds warns, and an environment without expected rewards
prints observed-reward metrics and says so."""

from __future__ import annotations

import pandas as pd
import pytest
from c3_frames import c3_frame

import dpbandit.harness
from dpbandit.cli import main


def _run(monkeypatch, tmp_path, frame: pd.DataFrame, *options: str) -> tuple[list[str], pd.DataFrame]:
    monkeypatch.setattr(dpbandit.harness, "run", lambda *args, **kwargs: frame)
    argv = ["--agents", "dphdb,random", "--horizon", "10", "--out", str(tmp_path), "--no-progress", *options]
    assert main(argv) == 0
    return list(pd.read_csv(tmp_path / "final_regret.csv").columns), frame


def _header(printed: str) -> list[str]:
    lines = printed.splitlines()
    return lines[[i for i, line in enumerate(lines) if line.startswith("metric:")][-1] + 1].split()


@pytest.mark.parametrize("seeds", [2, 3])
def test_printed_columns_are_csv_columns_with_delta_next_to_epsilon(
    monkeypatch, tmp_path, capsys, seeds
) -> None:
    frame = c3_frame(
        {"dphdb": [5.0, 6.0, 7.0][:seeds], "random": [9.0, 9.5, 10.0][:seeds]}, private={"dphdb": (1.0, 1e-4)}
    )
    csv_columns, _ = _run(monkeypatch, tmp_path, frame, "--wide")
    captured = capsys.readouterr()
    header = _header(captured.out)
    assert set(header) <= set(csv_columns)
    assert header.index("delta") == header.index("epsilon") + 1
    assert csv_columns.index("delta") == csv_columns.index("epsilon") + 1
    assert "0.0001" in captured.out
    warned = "dpbandit: warning: fewer than 3 seeds" in captured.err
    assert warned == (seeds < 3) and ("note" in header) == (seeds < 3)


def test_without_expected_rewards_the_run_prints_observed_reward(monkeypatch, tmp_path, capsys) -> None:
    frame = c3_frame(
        {"dphdb": [0.0] * 3, "random": [0.0] * 3},
        private={"dphdb": (1.0, 1e-4)},
        rewards={"dphdb": [6.0, 7.0, 8.0], "random": [5.0, 5.0, 5.0]},
        regret=False,
    )
    csv_columns, _ = _run(monkeypatch, tmp_path, frame, "--wide")
    out = capsys.readouterr().out
    assert "metric: observed reward" in out and "no regret is claimed" in out
    assert "Look at reward_gain_over_random" in out
    header = _header(out)
    assert (
        {"final_reward_mean", "avg_reward_mean", "reward_gain_over_random"} <= set(header) <= set(csv_columns)
    )
    assert "final_regret_mean" not in csv_columns


def test_the_default_table_is_compact_and_names_its_quantities_as_the_csv(monkeypatch, tmp_path, capsys):
    finals = {"private": [280.0, 300.0, 310.0], "dphdb": [990.0, 1001.0, 995.0], "linucb": [37.0, 40.0, 41.0],
              "random": [993.0, 1000.0, 998.0]}
    frame = c3_frame(finals, horizon=1000, private={"private": (1.0, 1e-5), "dphdb": (1.0, 1e-3)},
                     optimal={agent: [500.0, 600.0, 700.0] for agent in finals})
    monkeypatch.setattr(dpbandit.harness, "run", lambda *args, **kwargs: frame)
    argv = ["--agents", ",".join(finals), "--horizon", "1000", "--out", str(tmp_path), "--no-progress"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("agent "))
    table = lines[start : start + 1 + len(finals)]
    assert max(map(len, table)) <= 100
    quantities = [word for word in table[0].split() if "_" in word or word == "accuracy"]
    assert quantities == ["final_regret_mean", "ratio_to_random", "accuracy"]
    assert set(quantities) <= set(pd.read_csv(tmp_path / "final_regret.csv").columns)
    assert main([*argv, "--wide"]) == 0
    csv_columns = list(pd.read_csv(tmp_path / "final_regret.csv").columns)
    wide = [c for c in csv_columns if c not in ("final_regret_std", "metric")]
    assert _header(capsys.readouterr().out) == wide
    assert "0.9 (0.001)" in table[2] and lines[start + 1 + len(finals)].endswith("every column: --wide.")
