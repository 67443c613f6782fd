"""Summaries of tidy run results: final regret per agent with confidence intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats


def t_interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Student-t confidence interval of the mean of ``values`` (NaNs for fewer than 2 values)."""
    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return float("nan"), float("nan")
    mean = values.mean()
    half = stats.t.ppf(0.5 + level / 2, values.size - 1) * values.std(ddof=1) / np.sqrt(values.size)
    return float(mean - half), float(mean + half)


def final_regret_table(df: pd.DataFrame, by: tuple[str, ...] = ("agent",)) -> pd.DataFrame:
    """Final cumulative regret per group: mean, std, 95% t-interval, seeds, wall time and epsilon."""
    last = df[df["step"] == df.groupby(["agent", "seed"])["step"].transform("max")]
    rows = []
    for key, group in last.groupby(list(by), sort=False):
        regret = group["cumulative_regret"].to_numpy()
        low, high = t_interval(regret)
        rows.append(
            {
                **dict(zip(by, key if isinstance(key, tuple) else (key,))),
                "horizon": int(group["step"].max()),
                "seeds": regret.size,
                "final_regret_mean": regret.mean(),
                "final_regret_std": regret.std(ddof=1) if regret.size > 1 else float("nan"),
                "ci95_low": low,
                "ci95_high": high,
                "wall_time_s": group["wall_time"].mean(),
                "epsilon": group["epsilon"].iloc[0],
                "claimed_epsilon": group["claimed_epsilon"].iloc[0],
            }
        )
    return pd.DataFrame(rows)
