"""Aggregate a sweep store into a tidy table and seaborn plots (``dpbandit report DIR``).

* ``summary.csv``: one row per configuration (every cell parameter except the seed) with the columns of
  :func:`dpbandit.harness.summary.final_regret_table` (its column names): seeds, mean, std and 95%
  Student-t interval (clipped to the quantity's range) of the final cumulative regret, or of the observed
  reward where the environment gives no expected rewards (``metric`` says which), accuracy when known,
  mean wall time, accountant's epsilon next to delta, ``note`` for fewer than 3 seeds.
* ``regret_curves.png``: mean cumulative regret (or observed reward) against the round per agent, 95%
  bands; one panel per privacy budget (columns, titled with epsilon and delta) and per other varying
  setting (rows). Non-private agents take no budget, so they are drawn in every budget's panel as the
  reference.
* ``final_regret_vs_<axis>.png`` for each varying numeric axis (``target_epsilon``, ``horizon``,
  ``env_dim``, ...; of zipped axes only the first): mean final regret (or reward) per agent against the
  axis, 95% bands, one panel per other varying setting; non-private agents are horizontal lines on the
  epsilon plot.

Every plot follows :mod:`dpbandit.harness.plot`: one colour per agent name, private agents solid and
non-private ones dashed, epsilon and delta in the titles.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402

from dpbandit.harness.plot import NONPRIVATE_DASHES, observed_metric, palette, privacy_label  # noqa: E402
from dpbandit.harness.summary import NONNEGATIVE, bounded_interval, final_regret_table  # noqa: E402
from dpbandit.sweep.store import Store  # noqa: E402

__all__ = [
    "config_columns",
    "final_rows",
    "plot_final_regret",
    "plot_regret_curves",
    "report",
    "summary_table",
]

_SHORT = {"target_epsilon": "eps", "target_delta": "delta", "horizon": "T", "env_id": "env"}
_SETTING = "setting"
_PRIVACY = "privacy"
#: seaborn ``dashes`` of the privacy style: private agents solid, non-private references dashed.
_DASHES = {"private": "", "not private": NONPRIVATE_DASHES}


def config_columns(df: pd.DataFrame) -> list[str]:
    """The columns that identify a configuration: environment, its kwargs, horizon, budget, agent."""
    env_kwargs = [c for c in df.columns if c.startswith("env_") and c != "env_id"]
    return ["env_id", *env_kwargs, "horizon", "target_epsilon", "target_delta", "agent"]


def final_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The last recorded row of every cell (its final cumulative regret)."""
    return df.loc[df.groupby("cell", sort=False)["step"].idxmax()].reset_index(drop=True)


def summary_table(df: pd.DataFrame, reference: str = "random") -> pd.DataFrame:
    """Final regret per configuration over seeds: mean, std, 95% CI (see the module docstring).

    A ``reference`` agent without a budget (non-private) is paired with the private agents of every budget
    of the same setting, so their ``ratio_to_<reference>`` is the seed-paired ratio to the same cells.
    """
    settings = [c for c in config_columns(df) if c != "agent"]
    plain = [c for c in settings if c not in ("target_epsilon", "target_delta")]
    references = df[(df["agent"] == reference) & df["target_epsilon"].isna()]
    rows = []
    for key, group in df.groupby(settings, sort=False, dropna=False):
        values = dict(zip(settings, key, strict=True))
        agents = list(dict.fromkeys(group["agent"]))
        if reference not in agents:
            same = np.ones(len(references), dtype=bool)
            for column in plain:
                value = values[column]
                same &= references[column].isna() if pd.isna(value) else references[column] == value
            group = pd.concat([group, references[same]], ignore_index=True)
        table = final_regret_table(group, by=("agent",), reference=reference).drop(columns=["horizon"])
        rows.append(table[table["agent"].isin(agents)].assign(**values))
    out = pd.concat(rows, ignore_index=True)
    return out[[*config_columns(df), *[c for c in out.columns if c not in config_columns(df)]]]


def _varying(df: pd.DataFrame, exclude: tuple[str, ...] = ()) -> list[str]:
    return [c for c in config_columns(df) if c not in ("agent", *exclude) and df[c].nunique(dropna=True) > 1]


def _follows(df: pd.DataFrame, axis: str) -> list[str]:
    """Varying columns that are a function of ``axis`` (zipped with it), e.g. T zipped with d."""
    known = df[df[axis].notna()]
    return [c for c in _varying(df, (axis,)) if known.groupby(axis)[c].nunique(dropna=False).max() <= 1]


def _with_setting(df: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Add a ``setting`` label column joining the values of ``columns`` (``"env_dim=5, T=1000"``)."""
    if not columns:
        return df.assign(**{_SETTING: ""})
    others = [c for c in columns if c != "target_epsilon"]
    budgets = budget_titles(df, others)  # per panel: the panel's own delta
    parts = [
        pd.Series(
            [
                budgets.get((*row, eps) if others else eps, "not private")
                for *row, eps in df[[*others, "target_epsilon"]].itertuples(index=False)
            ],
            index=df.index,
        )
        if c == "target_epsilon"
        else f"{_SHORT.get(c, c.removeprefix('env_'))}=" + df[c].astype(str)
        for c in columns
    ]
    label = parts[0]
    for part in parts[1:]:
        label = label + ", " + part
    return df.assign(**{_SETTING: label})


def _broadcast_nonprivate(df: pd.DataFrame) -> pd.DataFrame:
    """Copy rows without a budget (non-private agents) into every budget, as references."""
    budgets = np.sort(df["target_epsilon"].dropna().unique())
    private, public = df[df["target_epsilon"].notna()], df[df["target_epsilon"].isna()]
    if budgets.size == 0 or public.empty:
        return df
    copies = [public.assign(target_epsilon=eps) for eps in budgets]
    return pd.concat([private, *copies], ignore_index=True)


def _with_privacy(df: pd.DataFrame) -> pd.DataFrame:
    """Add a ``privacy`` column: ``"private"`` for rows with a claimed epsilon, else ``"not private"``."""
    return df.assign(**{_PRIVACY: np.where(df["claimed_epsilon"].notna(), "private", "not private")})


def _style(data: pd.DataFrame, column: str) -> dict:
    """Seaborn keywords shared by the report's plots: agent colours, privacy line styles, clipped bands."""
    return {
        "hue": "agent",
        "palette": palette(data["agent"]),
        "style": _PRIVACY,
        "dashes": {k: v for k, v in _DASHES.items() if k in set(data[_PRIVACY])},
        "errorbar": bounded_interval(NONNEGATIVE if column == "cumulative_regret" else (-np.inf, np.inf)),
    }


def delta_title(rows: pd.DataFrame) -> str:
    """``"delta=0.0001"`` for the private ``rows`` of one panel: the sweep's ``target_delta``, else the agents'
    own ``delta`` (contract C3), else ``"delta: agent default"`` (stores written before delta was recorded).
    Several deltas (a panel across horizons, with the agent's default 1/T) are joined with ``/``."""
    deltas = rows["target_delta"].dropna()
    if deltas.empty and "delta" in rows:
        deltas = rows["delta"].dropna()
    text = "/".join(f"{d:.3g}" for d in sorted(deltas.unique())) if not deltas.empty else None
    return f"delta={text}" if text else "delta: agent default"


def budget_title(eps: float, rows: pd.DataFrame) -> str:
    """``"eps=1, delta=0.0001"`` for the private ``rows`` of one panel (:func:`delta_title`)."""
    return f"eps={eps:g}, {delta_title(rows)}"


def budget_titles(df: pd.DataFrame, by: Sequence[str] = ()) -> dict[Any, str]:
    """:func:`budget_title` of each panel: ``{eps: title}``, or with ``by`` (the columns that also split the
    panels) ``{(*values of by, eps): title}``, so each panel names its own delta (an agent's default delta
    depends on T: 1/T for DP-HDB)."""
    by = list(by)
    titles = {}
    for key, rows in df[df["target_epsilon"].notna()].groupby([*by, "target_epsilon"], dropna=False):
        keys = key if isinstance(key, tuple) else (key,)
        titles[keys if by else keys[-1]] = budget_title(keys[-1], rows)
    return titles


def _what(column: str) -> str:
    return "regret" if column == "cumulative_regret" else "observed reward"


def plot_regret_curves(df: pd.DataFrame, path: str | Path) -> Path:
    """Mean cumulative regret (or observed reward) per agent with 95% bands; panels per budget (titled with
    epsilon and delta) and per other setting."""
    path = Path(path)
    column, axis_label = observed_metric(df)
    by_budget = df["target_epsilon"].nunique(dropna=True) > 1
    data = _with_setting(_broadcast_nonprivate(df) if by_budget else df, _varying(df, ("target_epsilon",)))
    data = _with_privacy(data)
    n_settings = data[_SETTING].nunique()
    if by_budget:  # budgets across, other settings down
        facets = {"col": "target_epsilon", "row": _SETTING if n_settings > 1 else None}
    else:  # settings wrapped three to a row
        facets = {"col": _SETTING, "col_wrap": min(3, n_settings)} if n_settings > 1 else {}
    grid = sns.relplot(
        data=data,
        x="step",
        y=column,
        kind="line",
        height=3.2,
        aspect=1.3,
        facet_kws={"sharey": False, "sharex": False},
        **_style(data, column),
        **facets,
    )
    grid.set_axis_labels("round t", axis_label)
    budgets = budget_titles(_with_setting(df, _varying(df, ("target_epsilon",))), [_SETTING])  # unbroadcast
    only = data[_SETTING].iloc[0]  # the setting when there is one (no row facets)
    for key, ax in grid.axes_dict.items() if facets else [("", grid.ax)]:
        keys = key if isinstance(key, tuple) else (key,)
        if by_budget:  # keys: (setting, eps) with rows, else (eps,)
            setting = keys[0] if len(keys) > 1 else only
            parts = [*keys[:-1], budgets.get((setting, keys[-1]), f"eps={keys[-1]:g}")]
        else:
            parts = [k for k in keys if k != ""]
        ax.set_title(" | ".join(map(str, parts)), fontsize=9)
    seeds = final_rows(df).groupby(config_columns(df), dropna=False)["seed"].nunique().min()
    title = f"mean cumulative {_what(column)}, 95% CI over {seeds} seeds; {privacy_label(df)}"
    grid.figure.suptitle(title, y=1.02)
    return _save(grid.figure, path)


def plot_final_regret(df: pd.DataFrame, axis: str, path: str | Path) -> Path:
    """Mean final regret (or observed reward) per agent against ``axis`` (95% bands); panels per other
    varying setting."""
    path = Path(path)
    final = final_rows(df)
    column, _ = observed_metric(final)
    if axis != "target_epsilon" and final["target_epsilon"].nunique(dropna=True) > 1:
        final = _broadcast_nonprivate(final)
    zipped = _follows(final, axis)
    data = _with_privacy(_with_setting(final, _varying(final, (axis, *zipped))))
    reference = data[data[axis].isna()]  # agents without this axis (non-private vs target_epsilon)
    data = data[data[axis].notna()]
    facets = data[_SETTING].nunique() > 1
    grid = sns.relplot(
        data=data,
        x=axis,
        y=column,
        kind="line",
        marker="o",
        col=_SETTING if facets else None,
        col_wrap=min(3, data[_SETTING].nunique()) if facets else None,
        height=3.2,
        aspect=1.3,
        facet_kws={"sharey": False},
        **_style(data, column),
    )
    if axis == "target_epsilon":
        values = np.sort(data[axis].unique())
        for ax in grid.axes.flat:
            ax.set_xscale("log")
            ax.set_xticks(values, [f"{v:g}" for v in values])
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    colours = palette(reference["agent"])
    for setting, ax in grid.axes_dict.items() if facets else [("", grid.ax)]:
        rows = reference[reference[_SETTING] == setting] if facets else reference
        for agent, mean in rows.groupby("agent")[column].mean().items():
            ax.axhline(mean, linestyle=(0, NONPRIVATE_DASHES), color=colours[agent], linewidth=1.2)
            ax.annotate(
                f"{agent} (not private)",
                (0.01, mean),
                xycoords=("axes fraction", "data"),
                fontsize=7,
                va="bottom",
            )
    label = _SHORT.get(axis, axis.removeprefix("env_"))
    also = ", ".join(_SHORT.get(c, c.removeprefix("env_")) for c in zipped)
    grid.set_axis_labels(
        f"{label} (zipped with {also})" if also else label, f"final cumulative {_what(column)}"
    )
    grid.set_titles("{col_name}" if facets else "")
    if axis == "target_epsilon":  # the budget is the x axis: each panel's title names its own delta
        for setting, ax in grid.axes_dict.items() if facets else [("", grid.ax)]:
            rows = data[data[_SETTING] == setting] if facets else data
            ax.set_title(", ".join(filter(None, [setting, delta_title(rows)])))
    title = f"final {_what(column)} vs {label} (mean, 95% CI over seeds); {privacy_label(df)}"
    grid.figure.suptitle(title, y=1.02)
    return _save(grid.figure, path)


def _save(fig: plt.Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


def report(store_dir: str | Path, out_dir: str | Path | None = None) -> dict[str, Path]:
    """Write ``summary.csv`` and the plots for a store (default ``<store>/report``); return their paths.

    Works on a partial store (finished cells only); raises ``ValueError`` if no cell has finished.
    """
    store = Store.read(store_dir)
    df = store.load()
    if df.empty:
        raise ValueError(f"{store_dir}: no finished cells to report on yet.")
    out = Path(out_dir) if out_dir is not None else Path(store_dir) / "report"
    out.mkdir(parents=True, exist_ok=True)
    paths = {"summary": out / "summary.csv"}
    summary_table(df).to_csv(paths["summary"], index=False)
    paths["regret_curves"] = plot_regret_curves(df, out / "regret_curves.png")
    plotted: list[str] = []
    for axis in [c for c in _varying(df) if pd.api.types.is_numeric_dtype(df[c])]:
        if any(axis in _follows(df, earlier) for earlier in plotted):
            continue  # zipped with an axis already plotted: same points, another label
        plotted.append(axis)
        paths[f"final_regret_vs_{axis}"] = plot_final_regret(df, axis, out / f"final_regret_vs_{axis}.png")
    return paths
