"""Sweep report on hand-built store frames of contract C3: delta next to epsilon in the summary and in the
panel titles, private agents paired with the non-private reference of their setting, observed reward when
regret is NaN, the harness's agent colours and private line styles."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from c3_frames import c3_frame
from matplotlib.colors import to_hex

from dpbandit.harness.plot import agent_colour
from dpbandit.sweep import report as report_module
from dpbandit.sweep.report import budget_titles, plot_final_regret, plot_regret_curves, summary_table


def _store_frame(**kwargs) -> pd.DataFrame:
    """Two budgets of ``priv`` (delta 1e-4 from the agent, none from the sweep) and the non-private
    ``random`` and ``linucb``, over 3 seeds, as a sweep store holds them (a cell per agent, budget, seed)."""
    parts = []
    for eps, finals in ((1.0, [6.0, 7.0, 8.0]), (2.0, [3.0, 4.0, 5.0])):
        part = c3_frame({"priv": finals}, private={"priv": (eps, 1e-4)}, **kwargs)
        parts.append(part.assign(target_epsilon=eps))
    refs = c3_frame({"random": [10.0, 10.0, 10.0], "linucb": [1.0, 2.0, 3.0]}, **kwargs)
    parts.append(refs.assign(target_epsilon=math.nan))
    df = pd.concat(parts, ignore_index=True)
    cell = df["agent"] + "/" + df["target_epsilon"].astype(str) + "/" + df["seed"].astype(str)
    return df.assign(cell=cell, horizon=10, target_delta=math.nan, env_dim=5)


def test_summary_has_delta_next_to_epsilon_and_pairs_private_agents_with_the_reference(tmp_path) -> None:
    table = summary_table(_store_frame())
    columns = list(table.columns)
    assert columns.index("delta") == columns.index("epsilon") + 1
    priv = table[table["agent"] == "priv"].set_index("target_epsilon")
    assert priv["delta"].tolist() == [1e-4, 1e-4]
    assert priv.loc[1.0, "ratio_to_random"] == pytest.approx(0.7)  # 6/10, 7/10, 8/10 paired by seed
    assert priv.loc[2.0, "ratio_to_random"] == pytest.approx(0.4)
    assert set(table["agent"]) == {"priv", "random", "linucb"} and len(table) == 4  # reference not repeated
    table.to_csv(tmp_path / "summary.csv", index=False)
    assert list(pd.read_csv(tmp_path / "summary.csv").columns) == columns


def test_budget_titles_name_epsilon_and_delta() -> None:
    df = _store_frame()
    assert budget_titles(df) == {1.0: "eps=1, delta=0.0001", 2.0: "eps=2, delta=0.0001"}
    assert budget_titles(df.assign(target_delta=1e-6))[1.0] == "eps=1, delta=1e-06"  # the sweep's own delta
    old = df.drop(columns=["delta"])
    assert budget_titles(old)[2.0] == "eps=2, delta: agent default"


@pytest.fixture
def figures(monkeypatch):
    """The figures the report saves (kept open to be inspected)."""
    kept = []
    monkeypatch.setattr(report_module, "_save", lambda fig, path: kept.append(fig) or path)
    return kept


def test_curves_panels_colours_and_styles(tmp_path, figures) -> None:
    plot_regret_curves(_store_frame(), tmp_path / "c.png")
    (fig,) = figures
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert titles == ["eps=1, delta=0.0001", "eps=2, delta=0.0001"]
    assert "eps=1/2, delta=0.0001" in fig._suptitle.get_text() and "regret" in fig._suptitle.get_text()
    legend = fig.legends[0]
    entries = {
        text.get_text(): handle for text, handle in zip(legend.texts, legend.legend_handles, strict=True)
    }
    for name in ("priv", "random", "linucb"):
        assert to_hex(entries[name].get_color()) == agent_colour(name)
    assert entries["private"].get_linestyle() == "-" and entries["not private"].get_linestyle() == "--"


def test_without_expected_rewards_the_report_plots_observed_reward(tmp_path, figures) -> None:
    df = _store_frame(regret=False)
    plot_regret_curves(df, tmp_path / "c.png")
    plot_final_regret(df, "target_epsilon", tmp_path / "f.png")
    curves, final = figures
    assert curves.axes[0].get_ylabel().startswith("cumulative observed reward")
    assert "observed reward" in curves._suptitle.get_text()
    assert final.axes[0].get_ylabel() == "final cumulative observed reward"
    table = summary_table(df)
    assert table["metric"].eq("observed reward").all() and "final_reward_mean" in table
    priv = table[table["agent"] == "priv"].set_index("target_epsilon")
    assert priv.loc[1.0, "reward_gain_over_random"] == pytest.approx((3.0 - 0.0) / 10)  # rewards 3 vs 0


def _two_horizons() -> pd.DataFrame:
    """The store of ``_store_frame`` at (d=5, T=10) and (d=10, T=20), the private agent at its default delta
    1/T (as DP-HDB): one delta per panel of a budget and setting, two across a panel that spans both T."""
    parts = []
    for dim, horizon in ((5, 10), (10, 20)):
        for eps in (1.0, 2.0):
            part = c3_frame({"priv": [6.0, 7.0, 8.0]}, horizon=horizon, private={"priv": (eps, 1 / horizon)})
            parts.append(part.assign(target_epsilon=eps, env_dim=dim, horizon=horizon))
        refs = c3_frame({"random": [10.0, 10.0, 10.0]}, horizon=horizon)
        parts.append(refs.assign(target_epsilon=math.nan, env_dim=dim, horizon=horizon))
    df = pd.concat(parts, ignore_index=True)
    cell = [f"{a}/{e}/{s}/{t}" for a, e, s, t in df[["agent", "target_epsilon", "seed", "horizon"]].to_numpy()]
    return df.assign(cell=cell, target_delta=math.nan)


def test_each_panel_title_names_its_own_delta(tmp_path, figures) -> None:
    df = _two_horizons()
    plot_regret_curves(df, tmp_path / "c.png")
    plot_final_regret(df, "target_epsilon", tmp_path / "e.png")
    plot_final_regret(df, "env_dim", tmp_path / "d.png")
    curves, by_epsilon, by_dim = ([ax.get_title() for ax in fig.axes if ax.get_title()] for fig in figures)
    assert curves == [
        "dim=5, T=10 | eps=1, delta=0.1",
        "dim=5, T=10 | eps=2, delta=0.1",
        "dim=10, T=20 | eps=1, delta=0.05",
        "dim=10, T=20 | eps=2, delta=0.05",
    ]
    assert by_epsilon == ["dim=5, T=10, delta=0.1", "dim=10, T=20, delta=0.05"]
    assert by_dim == ["eps=1, delta=0.05/0.1", "eps=2, delta=0.05/0.1"]  # each panel spans both T
    assert budget_titles(df, ["horizon"]) == {
        (10, 1.0): "eps=1, delta=0.1", (10, 2.0): "eps=2, delta=0.1",
        (20, 1.0): "eps=1, delta=0.05", (20, 2.0): "eps=2, delta=0.05",
    }
