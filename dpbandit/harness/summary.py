"""Summaries of tidy run results: final regret (or observed reward) per agent with confidence intervals.

The input is the tidy frame of :func:`dpbandit.harness.run` (contract C3 of docs/architecture.md). Columns
added after the first releases (``delta``, ``cumulative_reward``, ``cumulative_optimal``, ``user_epsilon``,
``compile_time``) are optional: a frame written before them summarises as it did, without their columns.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from dpbandit import _validate

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from dpbandit.harness.table_view import RegretTable

#: The columns :func:`final_regret_table` needs in its input (and ``cumulative_regret`` or
#: ``cumulative_reward``, see :data:`METRIC_COLUMNS`).
REQUIRED = ("agent", "seed", "step", "wall_time", "epsilon", "claimed_epsilon")
#: At least one of these must be present: pseudo-regret, else the observed reward.
METRIC_COLUMNS = ("cumulative_regret", "cumulative_reward")
#: Fewer seeds than this: the table says its intervals are unreliable (t_{0.975, 1} = 12.7).
MIN_SEEDS = 3
#: Values of the table's ``metric`` column.
REGRET = "pseudo-regret"
REWARD = "observed reward"
NONNEGATIVE = (0.0, math.inf)
#: A reference agent and its per-arm form: either one gives the ``ratio_to_<reference>`` column.
REFERENCE_FORMS = {"random": ("random", "random-perarm")}
UNIT = (0.0, 1.0)


def t_interval(
    values: np.ndarray, level: float = 0.95, bounds: tuple[float, float] | None = None
) -> tuple[float, float]:
    """Student-t confidence interval of the mean of ``values`` (NaNs for fewer than 2 values).

    ``bounds=(low, high)``: the range the quantity can take (e.g. ``(0, inf)`` for regret); the interval's
    ends are clipped to it, so an interval never claims values the quantity cannot have. Clipping keeps the
    coverage of the t-interval (the true mean lies in the range) and only shortens the part that was
    impossible anyway.
    """
    from scipy.special import stdtrit  # the inverse Student-t CDF (what scipy.stats.t.ppf calls)

    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return float("nan"), float("nan")
    mean = values.mean()
    half = stdtrit(values.size - 1, 0.5 + level / 2) * values.std(ddof=1) / np.sqrt(values.size)
    low, high = float(mean - half), float(mean + half)
    if bounds is not None:
        low, high = float(np.clip(low, *bounds)), float(np.clip(high, *bounds))
    return low, high


def bounded_interval(bounds: tuple[float, float]) -> Callable[[np.ndarray], tuple[float, float]]:
    """:func:`t_interval` clipped to ``bounds``, as a one-argument callable (seaborn's ``errorbar``)."""

    def interval(values: np.ndarray) -> tuple[float, float]:
        return t_interval(values, bounds=bounds)

    return interval


def _check_frame(df: pd.DataFrame, by: tuple[str, ...]) -> None:
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise TypeError(
            f"Expected df to be the DataFrame returned by dpbandit.harness.run, got {type(df).__name__}."
        )
    missing = [c for c in (*REQUIRED, *by) if c not in df.columns]
    if not any(c in df.columns for c in METRIC_COLUMNS):
        missing.append(" or ".join(METRIC_COLUMNS))
    if missing:
        raise ValueError(f"Expected df to have the columns {missing} (as dpbandit.harness.run returns).")
    if df.empty:
        raise ValueError("Expected df to hold at least one run, got an empty DataFrame (no agents or seeds).")


def _known(group: pd.DataFrame, column: str) -> bool:
    """Whether ``column`` is in the frame and finite on every row of ``group``."""
    return column in group.columns and bool(np.isfinite(group[column].to_numpy(dtype=float)).all())


def _statistic(
    row: dict, name: str, values: np.ndarray, bounds: tuple[float, float], *, low: str, high: str
) -> None:
    """Put the mean of ``values`` under ``name`` and its clipped 95% t-interval under ``low`` / ``high``."""
    row[name] = float(np.mean(values))
    row[low], row[high] = t_interval(values, bounds=bounds)


def _paired(group: pd.DataFrame, reference: pd.DataFrame | None, keys: list[str], column: str) -> np.ndarray:
    """The reference agent's ``column`` on the same seed (and other keys) as each row of ``group``."""
    return group[keys].merge(reference[[*keys, column]], on=keys, how="left")[column].to_numpy(dtype=float)


def final_regret_table(
    df: pd.DataFrame,
    by: tuple[str, ...] = ("agent",),
    reference: str | None = "random",
    *,
    reward_range: tuple[float, float] | None = None,
    wide: bool = False,
) -> RegretTable:
    """Final cumulative regret (or observed reward) per group with 95% intervals, privacy and cost columns.

    The result holds every column below; it *prints* compactly (``print(table)``: group keys, trust model,
    epsilon (delta), final regret and ratio to the reference with their intervals, accuracy where defined;
    :mod:`dpbandit.harness.table_view`), or with every column when ``wide=True``. Selections and other pandas
    operations on it give plain DataFrames.

    Metric, per group (its ``metric`` column says which):

    * ``"pseudo-regret"`` when the environment gave expected rewards (``cumulative_regret`` finite):
      ``final_regret_mean``, ``ci95_low`` / ``ci95_high``; with the ``reference`` agent (default
      ``"random"``, or its per-arm form ``"random-perarm"``: :data:`REFERENCE_FORMS`) in ``df``,
      ``ratio_to_<reference>``: the mean over seeds of each seed's final regret
      divided by the reference's on the same seed (same environment draws: paired), with its interval;
      below 1 means the agent learns. Undefined (NaN, no warning) when the reference's regret is 0.
    * ``"observed reward"`` when it did not (``cumulative_regret`` NaN; regret against the best arm in
      hindsight is not claimed): ``final_reward_mean`` (sum of observed rewards), ``avg_reward_mean``
      (that sum over the rounds played) with intervals, and ``reward_gain_over_<reference>``: the average
      reward per round minus the reference's on the same seed (paired; above 0 means the agent does better).
      A difference, not a ratio, because rewards may be negative.

    ``accuracy`` (with an interval) is the share of rounds where the played arm had the largest expected
    reward, when ``cumulative_optimal`` is known. Then ``seeds``, ``horizon``, ``wall_time_s`` (and
    ``compile_time_s``), ``trust_model`` (``central`` / ``shuffle`` / ``local``, empty for a non-private
    agent), the accountant's ``epsilon`` (central after shuffling for a shuffle agent), ``delta``,
    ``user_epsilon`` (user-level, when the agent reports one), ``local_epsilon`` (one report's own epsilon,
    when an agent is local or shuffle), ``claimed_epsilon``, ``metric`` and, when a group has fewer than :data:`MIN_SEEDS`
    seeds, ``note`` saying so. Optional input columns that are absent give no output column.

    Intervals are 95% Student-t intervals over seeds, clipped to the range the quantity can take
    (:func:`t_interval`): regret and ratio in [0, inf), accuracy in [0, 1], rewards in ``reward_range``
    (times the rounds for the cumulative reward; no clipping when ``reward_range`` is None).

    The mean (and the ratio) come first after the group keys, so a narrow terminal still shows them.
    """
    import pandas as pd

    from dpbandit.harness.table_view import RegretTable

    by = tuple(by)
    _check_frame(df, by)
    wide = bool(_validate.one_of((False, True), wide=wide))
    rewards = (-math.inf, math.inf) if reward_range is None else tuple(map(float, reward_range))
    last = df[df["step"] == df.groupby(["agent", "seed"])["step"].transform("max")]
    pair_keys = ["seed", *(k for k in by if k != "agent")]
    ref = None
    present = [name for name in REFERENCE_FORMS.get(reference, (reference,)) if name in set(last["agent"])]
    if present:  # the reference, or its per-arm form (one column name for both)
        ref = last[last["agent"] == present[0]].assign(avg_reward=lambda f: _average_reward(f))
    ratio, gain = f"ratio_to_{reference}", f"reward_gain_over_{reference}"
    rows = []
    for key, group in last.groupby(list(by), sort=False):
        keys = key if isinstance(key, tuple) else (key,)
        row: dict = dict(zip(by, keys, strict=True))
        seeds = len(group)
        steps = group["step"].to_numpy(dtype=float)
        if _known(group, "cumulative_regret"):
            regret = group["cumulative_regret"].to_numpy(dtype=float)
            _statistic(row, "final_regret_mean", regret, NONNEGATIVE, low="ci95_low", high="ci95_high")
            if ref is not None and _known(ref, "cumulative_regret"):
                with np.errstate(divide="ignore", invalid="ignore"):  # reference regret 0: undefined
                    ratios = regret / _paired(group, ref, pair_keys, "cumulative_regret")
                ratios[~np.isfinite(ratios)] = math.nan
                low, high = f"{ratio}_ci95_low", f"{ratio}_ci95_high"
                _statistic(row, ratio, ratios, NONNEGATIVE, low=low, high=high)
            row["final_regret_std"] = regret.std(ddof=1) if seeds > 1 else math.nan
            row["metric"] = REGRET
        elif _known(group, "cumulative_reward"):
            total = group["cumulative_reward"].to_numpy(dtype=float)
            total_range = (rewards[0] * steps.min(), rewards[1] * steps.max())
            _statistic(
                row,
                "final_reward_mean",
                total,
                total_range,
                low="final_reward_ci95_low",
                high="final_reward_ci95_high",
            )
            average = total / steps
            _statistic(
                row,
                "avg_reward_mean",
                average,
                rewards,
                low="avg_reward_ci95_low",
                high="avg_reward_ci95_high",
            )
            if ref is not None and _known(ref, "cumulative_reward"):
                diffs = average - _paired(group, ref, pair_keys, "avg_reward")
                spread = rewards[1] - rewards[0]
                _statistic(
                    row, gain, diffs, (-spread, spread), low=f"{gain}_ci95_low", high=f"{gain}_ci95_high"
                )
            row["metric"] = REWARD
        else:
            raise ValueError(
                f"Expected finite final cumulative_regret or cumulative_reward for {dict(row)}, got neither."
            )
        if _known(group, "cumulative_optimal"):
            accuracy = group["cumulative_optimal"].to_numpy(dtype=float) / steps
            _statistic(row, "accuracy", accuracy, UNIT, low="accuracy_ci95_low", high="accuracy_ci95_high")
        row.update({"seeds": seeds, "horizon": int(steps.max()), "wall_time_s": group["wall_time"].mean()})
        if "compile_time" in group.columns:
            row["compile_time_s"] = group["compile_time"].mean()
        if "trust_model" in group.columns:
            row["trust_model"] = group["trust_model"].iloc[0]
        row["epsilon"] = group["epsilon"].iloc[0]
        for column in ("delta", "user_epsilon", "local_epsilon"):
            if column in group.columns:
                row[column] = group[column].iloc[0]
        row["claimed_epsilon"] = group["claimed_epsilon"].iloc[0]
        if seeds < MIN_SEEDS:
            row["note"] = f"seeds < {MIN_SEEDS}"  # short: a narrow terminal shows it (table_notes says more)
        rows.append(row)
    table = pd.DataFrame(rows)
    if "user_epsilon" in table and table["user_epsilon"].isna().all():
        table = table.drop(columns="user_epsilon")  # no agent tracks users
    if "local_epsilon" in table and table["local_epsilon"].isna().all():
        table = table.drop(columns="local_epsilon")  # every agent is central or not private
    metric_last = [c for c in table.columns if c not in ("metric", "note")] + ["metric"]
    result = RegretTable(table[metric_last + (["note"] if "note" in table else [])])
    result.by, result.reference, result.wide = by, reference, wide
    return result


def _average_reward(final: pd.DataFrame) -> pd.Series:
    """Observed reward per round at each row's step (NaN without ``cumulative_reward``)."""
    if "cumulative_reward" not in final.columns:
        return final["step"] * math.nan
    return final["cumulative_reward"] / final["step"]


def table_notes(table: pd.DataFrame) -> list[str]:
    """Sentences a reader of ``table`` (from :func:`final_regret_table`) must see next to it: which metric it
    shows, and which rows rest on fewer than :data:`MIN_SEEDS` seeds."""
    notes = []
    metrics = set(table["metric"]) if "metric" in table else {REGRET}
    if REGRET in metrics:
        notes.append(
            "metric: final cumulative pseudo-regret (sum over rounds of the best expected reward minus the "
            "played arm's)."
        )
    if REWARD in metrics:
        notes.append(
            "metric: observed reward (final cumulative and per round); the environment gives no expected "
            "rewards, so no regret is claimed (not even against the best arm in hindsight)."
        )
    if "seeds" in table and (table["seeds"] < MIN_SEEDS).any():
        few = table[table["seeds"] < MIN_SEEDS]
        label = few["agent"].astype(str).tolist() if "agent" in few else [str(i) for i in few.index]
        notes.append(
            f"warning: fewer than {MIN_SEEDS} seeds for {', '.join(dict.fromkeys(label))} (down to "
            f"{few['seeds'].min()}): 95% intervals are very wide with 2 seeds and missing with 1; run "
            f"{MIN_SEEDS} or more."
        )
    return notes
