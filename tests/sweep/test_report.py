"""`dpbandit report`: tidy summary of final regret per configuration and seaborn plots."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpbandit.cli import main
from dpbandit.harness import t_interval
from dpbandit.sweep import run_sweep
from dpbandit.sweep.report import final_rows, report, summary_table


def test_report_tables_and_plots(tmp_path, small_yaml, capsys):
    store = tmp_path / "store"
    df = run_sweep(small_yaml, store, backend="inprocess", progress=False)
    assert main(["report", str(store)]) == 0
    printed = capsys.readouterr().out
    assert "16 of 16 cells finished, 0 failed" in printed and "final_regret_mean" in printed

    out = store / "report"
    table = pd.read_csv(out / "summary.csv")
    assert len(table) == 8  # (linucb, random, dphdb@1, dphdb@2) x 2 dims, each over 2 seeds
    assert table["seeds"].eq(2).all()
    row = table[(table["agent"] == "dphdb") & (table["target_epsilon"] == 2.0) & (table["env_dim"] == 4)].iloc[0]
    cells = df[(df["agent"] == "dphdb") & (df["target_epsilon"] == 2.0) & (df["env_dim"] == 4) & (df["step"] == 150)]
    final = cells["cumulative_regret"].to_numpy()
    assert row["final_regret_mean"] == pytest.approx(final.mean())
    assert row["final_regret_std"] == pytest.approx(final.std(ddof=1))
    assert (row["ci95_low"], row["ci95_high"]) == pytest.approx(t_interval(final, bounds=(0.0, np.inf)))
    assert np.isnan(table.loc[table["agent"] == "random", "target_epsilon"]).all()

    for name in ("regret_curves", "final_regret_vs_target_epsilon", "final_regret_vs_env_dim"):
        assert (out / f"{name}.png").stat().st_size > 10_000


def test_final_rows_and_summary_group_by_cell_parameters(tmp_path, small_config):
    config = small_config(seeds=3)
    config["grid"].update(agent=["random"], horizon=[40, 80])
    config["grid"].pop("epsilon")
    df = run_sweep(config, tmp_path / "s", backend="inprocess", progress=False)
    last = final_rows(df)
    assert len(last) == 12 and set(last["step"]) == {40, 80}  # each cell's own horizon
    table = summary_table(df)
    assert len(table) == 4 and table["seeds"].eq(3).all()
    assert set(zip(table["horizon"], table["env_dim"])) == {(40, 3), (40, 4), (80, 3), (80, 4)}
    paths = report(tmp_path / "s")
    assert "final_regret_vs_horizon" in paths and "final_regret_vs_target_epsilon" not in paths
