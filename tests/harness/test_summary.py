"""final_regret_table on hand-built frames of contract C3: delta next to epsilon, intervals within the range
of each quantity, the few-seeds note, observed-reward metrics without expected rewards, accuracy, old
frames."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from c3_frames import c3_frame

from dpbandit.cli import _print_table
from dpbandit.harness import final_regret_table, t_interval
from dpbandit.harness.summary import REGRET, REWARD, table_notes
from dpbandit.harness.table_view import wide_view

T975_2 = 4.302652729911275  # t_{0.975, 2}: three seeds


def test_delta_next_to_epsilon_and_the_same_columns_in_table_csv_and_print(tmp_path) -> None:
    df = c3_frame(
        {"dphdb": [5.0, 6.0, 7.0], "random": [9.0, 9.5, 10.0]},
        private={"dphdb": (1.0, 1e-4)},
        user_epsilon={"dphdb": 3.5},
    )
    table = final_regret_table(df)
    columns = list(table.columns)
    assert columns.index("delta") == columns.index("epsilon") + 1
    assert columns.index("user_epsilon") == columns.index("delta") + 1
    row = table.set_index("agent").loc["dphdb"]
    assert (row["epsilon"], row["delta"], row["user_epsilon"], row["claimed_epsilon"]) == (
        0.9,
        1e-4,
        3.5,
        1.0,
    )
    assert math.isnan(table.set_index("agent").loc["random", "delta"])

    table.to_csv(tmp_path / "t.csv", index=False)
    csv = pd.read_csv(tmp_path / "t.csv")
    assert list(csv.columns) == columns
    pd.testing.assert_series_equal(csv["delta"], table["delta"])
    printed = wide_view(table)
    assert set(printed.columns) <= set(csv.columns) and {"epsilon", "delta", "user_epsilon"} <= set(printed)
    assert printed.set_index("agent").loc["dphdb", "delta"] == "0.0001"
    assert printed.set_index("agent").loc["random", "delta"] == "-"


def test_user_epsilon_column_only_when_an_agent_reports_one() -> None:
    df = c3_frame({"dphdb": [5.0, 6.0, 7.0]}, private={"dphdb": (1.0, 1e-4)})
    assert "user_epsilon" not in final_regret_table(df) and "delta" in final_regret_table(df)


def test_intervals_are_clipped_to_the_range_of_regret_and_ratio() -> None:
    regrets = np.array([1.0, 1.0, 30.0])  # a long right tail: mean - t * sd / sqrt(3) < 0
    mean, half = regrets.mean(), T975_2 * regrets.std(ddof=1) / np.sqrt(3)
    assert mean - half < 0
    table = final_regret_table(c3_frame({"a": list(regrets), "random": [20.0, 20.0, 31.0]})).set_index(
        "agent"
    )
    assert table.loc["a", "ci95_low"] == 0.0
    assert table.loc["a", "ci95_high"] == pytest.approx(mean + half)
    assert table.loc["a", "ratio_to_random_ci95_low"] == 0.0  # ratios 0.05, 0.05, 0.97
    assert t_interval(regrets) == pytest.approx((mean - half, mean + half))  # unclipped without bounds
    assert t_interval(regrets, bounds=(0.0, 5.0)) == pytest.approx((0.0, 5.0))


def test_fewer_than_three_seeds_is_noted_and_warned(capsys) -> None:
    table = final_regret_table(c3_frame({"a": [1.0, 2.0], "random": [3.0, 4.0]}))
    assert table["note"].eq("seeds < 3").all()
    notes = table_notes(table)
    assert any(n.startswith("warning: fewer than 3 seeds for a, random") for n in notes)
    _print_table(table)
    captured = capsys.readouterr()
    assert "dpbandit: warning: fewer than 3 seeds" in captured.err
    assert "pseudo-regret" in captured.out.splitlines()[0]
    assert captured.out.splitlines()[-1].startswith("[low, high]: 95% t-interval over 2 seeds")  # compact
    _print_table(table, wide=True)
    assert "note" in capsys.readouterr().out.splitlines()[1]

    three = final_regret_table(c3_frame({"a": [1.0, 2.0, 3.0]}))
    assert "note" not in three and not any(n.startswith("warning") for n in table_notes(three))


def test_without_expected_rewards_the_table_shows_observed_reward() -> None:
    df = c3_frame(
        {"a": [0.0] * 3, "random": [0.0] * 3},
        horizon=10,
        rewards={"a": [8.0, 9.0, 10.0], "random": [5.0, 4.0, 6.0]},
        regret=False,
    )
    table = final_regret_table(df, reward_range=(0.0, 1.0)).set_index("agent")
    assert table["metric"].eq(REWARD).all()
    assert not {"final_regret_mean", "ci95_low", "ratio_to_random", "accuracy"} & set(table.columns)
    assert table.loc["a", "final_reward_mean"] == pytest.approx(9.0)
    assert table.loc["a", "avg_reward_mean"] == pytest.approx(0.9)
    half = T975_2 * 0.1 / np.sqrt(3)  # per-round rewards 0.8, 0.9, 1.0: the upper end clips at 1
    assert table.loc["a", "avg_reward_ci95_low"] == pytest.approx(0.9 - half)
    assert table.loc["a", "avg_reward_ci95_high"] == 1.0
    assert table.loc["a", "final_reward_ci95_high"] == 10.0  # clipped at 1 * T
    gains = np.array([0.8 - 0.5, 0.9 - 0.4, 1.0 - 0.6])  # paired by seed
    assert table.loc["a", "reward_gain_over_random"] == pytest.approx(gains.mean())
    low, high = t_interval(gains)
    assert (
        table.loc["a", "reward_gain_over_random_ci95_low"],
        table.loc["a", "reward_gain_over_random_ci95_high"],
    ) == (
        pytest.approx(low),
        pytest.approx(high),
    )
    unbounded = final_regret_table(df).set_index("agent")  # no declared range: no clipping
    assert unbounded.loc["a", "avg_reward_ci95_high"] == pytest.approx(0.9 + half)
    assert any("no regret is claimed" in n for n in table_notes(table.reset_index()))


def test_accuracy_from_cumulative_optimal() -> None:
    df = c3_frame({"a": [1.0, 2.0, 3.0]}, horizon=10, optimal={"a": [10.0, 10.0, 6.0]})
    row = final_regret_table(df).iloc[0]
    shares = np.array([1.0, 1.0, 0.6])
    assert row["accuracy"] == pytest.approx(shares.mean())
    assert row["accuracy_ci95_low"] == pytest.approx(t_interval(shares)[0])
    assert t_interval(shares)[1] > 1 and row["accuracy_ci95_high"] == 1.0
    assert row["metric"] == REGRET
    assert "accuracy" not in final_regret_table(c3_frame({"a": [1.0, 2.0, 3.0]}))  # NaN counts: no column


def test_frames_written_before_the_new_columns_still_summarise() -> None:
    old = c3_frame({"a": [1.0, 2.0, 3.0], "random": [4.0, 5.0, 6.0]}, new_columns=False)
    table = final_regret_table(old)
    assert not {"delta", "accuracy", "compile_time_s", "user_epsilon", "final_reward_mean"} & set(
        table.columns
    )
    new = final_regret_table(c3_frame({"a": [1.0, 2.0, 3.0], "random": [4.0, 5.0, 6.0]}))
    pd.testing.assert_frame_equal(table, new[list(table.columns)])
    with pytest.raises(ValueError, match="cumulative_regret or cumulative_reward"):
        final_regret_table(old.drop(columns=["cumulative_regret"]))


def test_printed_values_are_the_csv_values_rounded() -> None:
    df = c3_frame(
        {"a": [1.04, 2.0, 3.0], "random": [4.0, 5.0, 6.0]}, optimal={"a": [3, 4, 5], "random": [1, 1, 1]}
    )
    table = final_regret_table(df)
    printed = wide_view(table).set_index("agent")
    assert printed.loc["a", "final_regret_mean"] == round(table.loc[0, "final_regret_mean"], 1)
    assert printed.loc["a", "accuracy"] == round(table.loc[0, "accuracy"], 3)
    assert "metric" not in printed and "final_regret_std" not in printed
