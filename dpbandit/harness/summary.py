"""Summaries of tidy run results: final regret per agent with confidence intervals, paired ratio to random."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: The columns :func:`final_regret_table` needs in its input.
REQUIRED = ("agent", "seed", "step", "cumulative_regret", "wall_time", "epsilon", "claimed_epsilon")


def t_interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Student-t confidence interval of the mean of ``values`` (NaNs for fewer than 2 values)."""
    from scipy.special import stdtrit  # the inverse Student-t CDF (what scipy.stats.t.ppf calls)

    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return float("nan"), float("nan")
    mean = values.mean()
    half = stdtrit(values.size - 1, 0.5 + level / 2) * values.std(ddof=1) / np.sqrt(values.size)
    return float(mean - half), float(mean + half)


def _check_frame(df: pd.DataFrame, by: tuple[str, ...]) -> None:
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise TypeError(
            f"Expected df to be the DataFrame returned by dpbandit.harness.run, got {type(df).__name__}."
        )
    missing = [c for c in (*REQUIRED, *by) if c not in df.columns]
    if missing:
        raise ValueError(f"Expected df to have the columns {missing} (as dpbandit.harness.run returns).")
    if df.empty:
        raise ValueError("Expected df to hold at least one run, got an empty DataFrame (no agents or seeds).")


def final_regret_table(
    df: pd.DataFrame, by: tuple[str, ...] = ("agent",), reference: str | None = "random"
) -> pd.DataFrame:
    """Final cumulative regret per group: mean, 95% t-interval, paired ratio to ``reference``, std,
    seeds, horizon, wall time and epsilon (accountant) / claimed epsilon.

    The mean (and the ratio) come first after the group keys, so a narrow terminal still shows them. When the
    ``reference`` agent (default ``"random"``) is in ``df``, ``ratio_to_<reference>`` is the mean over
    seeds of each seed's final regret divided by the reference's on the same seed (the same
    environment draws: paired), with its 95% t-interval; below 1 means the agent learns.
    """
    import pandas as pd

    by = tuple(by)
    _check_frame(df, by)
    last = df[df["step"] == df.groupby(["agent", "seed"])["step"].transform("max")]
    pair_keys = ["seed", *(k for k in by if k != "agent")]
    ratio = f"ratio_to_{reference}"
    reference_regret = None
    if reference is not None and reference in set(last["agent"]):
        reference_regret = last.loc[last["agent"] == reference, [*pair_keys, "cumulative_regret"]]
        reference_regret = reference_regret.rename(columns={"cumulative_regret": "reference"})
    rows = []
    for key, group in last.groupby(list(by), sort=False):
        regret = group["cumulative_regret"].to_numpy()
        low, high = t_interval(regret)
        keys = key if isinstance(key, tuple) else (key,)
        row = {**dict(zip(by, keys, strict=True)), "final_regret_mean": regret.mean()}
        ratio_ci: dict[str, float] = {}
        if reference_regret is not None:
            paired = group[pair_keys].merge(reference_regret, on=pair_keys, how="left")["reference"]
            ratios = regret / paired.to_numpy()
            row[ratio] = float(np.mean(ratios))
            ratio_ci = dict(zip((f"{ratio}_ci95_low", f"{ratio}_ci95_high"), t_interval(ratios), strict=True))
        row.update({"ci95_low": low, "ci95_high": high, **ratio_ci})
        row.update(
            {
                "final_regret_std": regret.std(ddof=1) if regret.size > 1 else float("nan"),
                "seeds": regret.size,
                "horizon": int(group["step"].max()),
                "wall_time_s": group["wall_time"].mean(),
                "epsilon": group["epsilon"].iloc[0],
                "claimed_epsilon": group["claimed_epsilon"].iloc[0],
            }
        )
        rows.append(row)
    return pd.DataFrame(rows)
