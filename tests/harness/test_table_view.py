"""How final_regret_table prints (issue 38 item 6): a compact view within 100 characters for 4 agents, every
column with ``wide=True``, and the same DataFrame underneath for code that indexes it by column."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from c3_frames import c3_frame

from dpbandit.harness import final_regret_table
from dpbandit.harness.table_view import WIDE_HIDDEN, RegretTable, compact_lines, decimals, wide_view

#: The default agents of ``dpbandit run``, with final regrets of the size T = 10,000 gives on its default
#: environment (thousands for random, hundreds for LinUCB).
DEFAULT_FOUR = {
    "private": [2814.2, 2901.7, 2755.0],
    "dphdb": [9890.4, 10022.9, 9950.1],
    "linucb": [351.7, 402.2, 377.9],
    "random": [9931.8, 10009.3, 9978.8],
}
TRUST = {"private": "central", "dphdb": "central", "linucb": "", "random": ""}


def _default_four(**kwargs) -> RegretTable:
    df = c3_frame(
        DEFAULT_FOUR,
        horizon=10_000,
        private={"private": (1.0, 1e-5), "dphdb": (1.0, 1e-4)},
        optimal={agent: [5_000.0, 6_000.0, 7_000.0] for agent in DEFAULT_FOUR},
    )
    return final_regret_table(df.assign(trust_model=df["agent"].map(TRUST)), **kwargs)


def test_the_compact_view_of_four_agents_fits_in_100_characters() -> None:
    table = _default_four()
    printed = repr(table)
    assert str(table) == printed and max(map(len, printed.splitlines())) <= 100
    header, *rows = compact_lines(table)
    assert header.split() == [
        "agent", "trust", "epsilon", "(delta)", "final_regret_mean", "ratio_to_random", "accuracy",
    ]
    assert [row.split()[0] for row in rows] == list(DEFAULT_FOUR)
    wide = wide_view(table).to_string(index=False)
    assert max(map(len, wide.splitlines())) > 200  # what the compact view saves


def test_compact_cells_are_the_table_values_with_their_intervals() -> None:
    table = _default_four()
    rows = {line.split()[0]: line for line in compact_lines(table)[1:]}
    row = table.set_index("agent").loc["private"]
    regret = f"{row['final_regret_mean']:.0f} [{row['ci95_low']:.0f}, {row['ci95_high']:.0f}]"
    ratio = f"{row['ratio_to_random']:.3f} [{row['ratio_to_random_ci95_low']:.3f}, "
    assert regret in rows["private"] and ratio in rows["private"]
    assert "central  0.9 (1e-05)" in rows["private"]  # the accountant's epsilon (c3_frame: 0.9 x the claim)
    assert "1.000 [1.000, 1.000]" in rows["random"]
    assert rows["linucb"].split()[1:3] == ["-", "-"]  # no trust model, no epsilon
    accuracy = table.set_index("agent").loc["linucb", "accuracy"]
    assert f"{accuracy:.3f} [" in rows["linucb"]


def test_a_column_shows_its_largest_mean_to_three_significant_digits() -> None:
    assert [decimals(np.array(v)) for v in ([44.3, 9.6], [0.989, 1.08], [2814.0], [0.0123], [np.nan])] == [
        1, 2, 0, 4, 2
    ]
    finals = {"a": [40.0, 44.0, 49.0], "b": [9.0, 9.5, 10.4], "random": [50.0] * 3}
    table = final_regret_table(c3_frame(finals))
    regrets = [re.findall(r"(\S+) \[", line)[0] for line in compact_lines(table)[1:]]
    assert regrets == ["44.3", "9.6", "50.0"]  # one decimal in the whole column


def test_wide_shows_every_column() -> None:
    table = _default_four(wide=True)
    header = repr(table).splitlines()[0].split()
    assert header == [c for c in table.columns if c not in WIDE_HIDDEN]
    assert {"final_regret_std", "metric"} <= set(table.columns)  # in the frame and the CSV, not printed
    assert repr(_default_four()) != repr(table)
    with pytest.raises(ValueError, match="wide"):
        _default_four(wide="yes")


def test_the_table_is_a_dataframe_and_derived_frames_print_as_pandas(tmp_path) -> None:
    table = _default_four()
    assert isinstance(table, pd.DataFrame) and table.by == ("agent",) and table.reference == "random"
    indexed = table.set_index("agent")
    assert type(indexed) is pd.DataFrame and indexed.loc["random", "ratio_to_random"] == 1.0
    for derived in (table[["agent", "epsilon"]], table[table["seeds"] == 3], pd.concat([table, table])):
        assert type(derived) is pd.DataFrame
    assert "final_regret_mean" in repr(indexed)  # pandas' own print of every column
    table.to_csv(tmp_path / "t.csv", index=False)
    assert list(pd.read_csv(tmp_path / "t.csv").columns) == list(table.columns)


def test_group_keys_and_local_epsilon_lead_the_compact_view() -> None:
    df = pd.concat(
        c3_frame({"a": [1.0, 2.0, 3.0]}, private={"a": (eps, 1e-5)}).assign(target_epsilon=eps)
        for eps in (0.5, 2.0)
    ).assign(trust_model="local", local_epsilon=lambda f: f["epsilon"] * 2)
    table = final_regret_table(df, by=("agent", "target_epsilon"))
    header, *rows = compact_lines(table, table.by)
    assert header.split()[:6] == ["agent", "target_epsilon", "trust", "epsilon", "(delta)", "local_epsilon"]
    assert [row.split()[:6] for row in rows] == [
        ["a", "0.5", "local", "0.45", "(1e-05)", "0.9"], ["a", "2.0", "local", "1.8", "(1e-05)", "3.6"]
    ]


def test_observed_reward_tables_show_reward_per_round_and_gain() -> None:
    df = c3_frame(
        {"a": [0.0] * 3, "random": [0.0] * 3},
        rewards={"a": [8.0, 9.0, 10.0], "random": [5.0, 4.0, 6.0]},
        regret=False,
    )
    table = final_regret_table(df, reward_range=(0.0, 1.0))
    header = compact_lines(table)[0].split()
    assert header[-2:] == ["avg_reward_mean", "reward_gain_over_random"] and "final_regret_mean" not in header
    row = table.set_index("agent").loc["a"]
    low, high = row["avg_reward_ci95_low"], row["avg_reward_ci95_high"]
    assert f"0.900 [{low:.3f}, {high:.3f}]" in repr(table) and high == 1.0  # clipped to the reward range


def test_few_seeds_are_named_under_the_compact_view() -> None:
    table = final_regret_table(c3_frame({"a": [1.0, 2.0], "random": [3.0, 4.0]}))
    *_, legend, few = repr(table).splitlines()
    assert legend.startswith("[low, high]: 95% t-interval over 2 seeds")
    assert few == "seeds < 3: the intervals are unreliable (missing with 1 seed)."
    assert "unreliable" not in repr(_default_four())
