"""`dpbandit run` on results of the shape of contract C3 (the harness stubbed with a hand-built frame): the
printed table and final_regret.csv share their column names, delta is shown next to epsilon, fewer than 3
seeds warns, and an environment without expected rewards prints observed-reward metrics and says so."""

from __future__ import annotations

import pandas as pd
import pytest
from c3_frames import c3_frame

import dpbandit.harness
from dpbandit.cli import main


def _run(monkeypatch, tmp_path, frame: pd.DataFrame) -> tuple[list[str], pd.DataFrame]:
    monkeypatch.setattr(dpbandit.harness, "run", lambda *args, **kwargs: frame)
    assert main(["--agents", "dphdb,random", "--horizon", "10", "--out", str(tmp_path), "--no-progress"]) == 0
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
    csv_columns, _ = _run(monkeypatch, tmp_path, frame)
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
    csv_columns, _ = _run(monkeypatch, tmp_path, frame)
    out = capsys.readouterr().out
    assert "metric: observed reward" in out and "no regret is claimed" in out
    assert "Look at reward_gain_over_random" in out
    header = _header(out)
    assert (
        {"final_reward_mean", "avg_reward_mean", "reward_gain_over_random"} <= set(header) <= set(csv_columns)
    )
    assert "final_regret_mean" not in csv_columns
