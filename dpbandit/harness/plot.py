"""Regret plots: mean cumulative regret per agent with a 95% confidence band (seaborn)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from dpbandit.harness.summary import t_interval

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def plot_regret(
    df: pd.DataFrame,
    path: str | Path,
    *,
    title: str | None = None,
    log_y: bool = False,
) -> Path:
    """Plot mean cumulative regret against step with a 95% t-interval band over seeds; save a PNG.

    Args:
        df: tidy results from :func:`dpbandit.harness.run`.
        path: output file (the parent folder is created).
        title: figure title.
        log_y: logarithmic regret axis (useful when agents differ by orders of magnitude).
    """
    import seaborn as sns  # imported here: seaborn and matplotlib take about 1 s
    from matplotlib.figure import Figure  # a bare Figure: no pyplot state, no backend switch

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig = Figure(figsize=(7, 4.5))
    ax = fig.subplots()
    sns.lineplot(
        data=df, x="step", y="cumulative_regret", hue="agent", errorbar=t_interval, ax=ax, linewidth=1.6
    )
    ax.set_xlabel("round t")
    ax.set_ylabel("cumulative pseudo-regret")
    if log_y:
        ax.set_yscale("log")
    n_seeds = df.groupby("agent")["seed"].nunique().min()
    ax.set_title(title or f"mean cumulative regret, 95% CI over {n_seeds} seeds")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    return path
