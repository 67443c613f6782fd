"""How a final-regret table prints: a compact view that fits a terminal, or every column (issue 38 item 6).

:func:`dpbandit.harness.final_regret_table` returns a :class:`RegretTable`: a pandas DataFrame with every
column (code indexes it by column name as before) whose printed form is :func:`compact_lines` (``wide=False``,
the default) or :func:`wide_view` (``wide=True``). Any frame derived from it (a selection, ``set_index``,
``pd.concat``, ...) is a plain DataFrame and prints as pandas does, since it may lack the columns.

The compact view has one column per quantity; a mean keeps its table name (so the CLI's closing line and the
CSV name the same column) and shows its 95% interval in brackets:

========================  ====================================================================
column                    from the table's columns
========================  ====================================================================
the group keys            ``by`` (``agent`` by default)
trust                     ``trust_model``
epsilon (delta)           ``epsilon`` (the accountant's) and ``delta``
local_epsilon             one report's epsilon, when a local or shuffle agent ran
final_regret_mean         with [``ci95_low``, ``ci95_high``] (pseudo-regret rows)
ratio_to_<ref>            with [``ratio_to_<ref>_ci95_low``, ``ratio_to_<ref>_ci95_high``]
avg_reward_mean           with [``avg_reward_ci95_low``, ...] (observed-reward rows: reward per round)
reward_gain_over_<ref>    with its interval
accuracy                  with its interval (where the optimal arm is known)
========================  ====================================================================

Numbers show the column's largest mean to 3 significant digits (no exponent: all digits above the point) and
every other number of the column to the same decimals, so the points line up; a missing value prints ``-``.
With the default agents of ``dpbandit run`` the view is about 95 characters wide (tests/harness/
test_table_view.py and tests/test_cli_table.py check 4 agents against 100).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

#: Table columns left out of the wide view: the std is in the CSV, the metric is printed as a line above.
WIDE_HIDDEN = ("final_regret_std", "metric")
#: (mean, interval low, interval high, decimals) columns of the compact view, which shows each mean under its
#: own name with its interval; ``{ref}``: the reference agent; decimals None: the column's largest mean to 3
#: significant digits (:func:`decimals`). Ratios and accuracy are near 1: 3 decimals, as in the wide view.
COMPACT = (
    ("final_regret_mean", "ci95_low", "ci95_high", None),
    ("ratio_to_{ref}", "ratio_to_{ref}_ci95_low", "ratio_to_{ref}_ci95_high", 3),
    ("avg_reward_mean", "avg_reward_ci95_low", "avg_reward_ci95_high", None),
    ("reward_gain_over_{ref}", "reward_gain_over_{ref}_ci95_low", "reward_gain_over_{ref}_ci95_high", None),
    ("accuracy", "accuracy_ci95_low", "accuracy_ci95_high", 3),
)
MISSING = "-"
GAP = "  "


class RegretTable(pd.DataFrame):
    """The DataFrame of :func:`dpbandit.harness.final_regret_table`: every column, printed compactly.

    ``by``: the group keys (first columns of the compact view); ``reference``: the reference agent's name
    (``ratio_to_<reference>``); ``wide``: print every column instead (:func:`wide_view`). Pandas operations
    return a plain DataFrame (``_constructor`` is not overridden), which prints as pandas does.
    """

    _metadata = ["by", "reference", "wide"]

    def __repr__(self) -> str:
        if getattr(self, "wide", False):
            return wide_view(self).to_string(index=False)
        return "\n".join([*compact_lines(self), *interval_legend(self)])

    def _repr_html_(self) -> str | None:
        """Notebooks show the same view as ``print``."""
        if getattr(self, "wide", False):
            return wide_view(self)._repr_html_()
        return compact_frame(self)._repr_html_()


def decimals(values: np.ndarray) -> int:
    """Decimals that show the largest finite ``|value|`` to 3 significant digits (0 from 100 up: no exponent;
    2 when none is finite or nonzero); one column uses one count, so its decimal points line up."""
    finite = np.abs(values[np.isfinite(values)])
    largest = float(finite.max()) if finite.size else 0.0
    return 2 if largest == 0 else max(0, 2 - math.floor(math.log10(largest)))


def with_interval(mean: float, low: float, high: float, places: int) -> str:
    """``"44.3 [40.5, 48.1]"``: the mean and its interval to ``places`` decimals (``-`` when the mean is
    missing; the mean alone when the interval is)."""
    if not math.isfinite(mean):
        return MISSING
    text = f"{mean:.{places}f}"
    if math.isfinite(low) and math.isfinite(high):
        text += f" [{low:.{places}f}, {high:.{places}f}]"
    return text


def _privacy(epsilon: float, delta: float) -> str:
    if not math.isfinite(epsilon):
        return MISSING
    return f"{epsilon:.3g}" + (f" ({delta:.3g})" if math.isfinite(delta) else "")


def _floats(table: pd.DataFrame, column: str) -> np.ndarray:
    if column not in table:
        return np.full(len(table), math.nan)
    return table[column].to_numpy(dtype=float)


def _layout(
    table: pd.DataFrame, by: tuple[str, ...] | None, reference: str | None
) -> tuple[tuple[str, ...], str]:
    """``by`` and ``reference``, where not given: the table's own (a :class:`RegretTable`), else
    ``("agent",)`` and ``"random"`` (a table read back from a CSV)."""
    by = by if by is not None else getattr(table, "by", ("agent",))
    return by, reference if reference is not None else getattr(table, "reference", None) or "random"


def compact_frame(
    table: pd.DataFrame, by: tuple[str, ...] | None = None, reference: str | None = None
) -> pd.DataFrame:
    """The compact view (module docstring) as a DataFrame of strings, one row per row of ``table``; ``by``
    and ``reference`` as :func:`_layout`."""
    by, reference = _layout(table, by, reference)
    shown: dict[str, list[str]] = {}
    for key in by:
        shown[key] = [MISSING if pd.isna(v) else str(v) for v in table[key]]
    if "trust_model" in table:
        shown["trust"] = [str(v) if isinstance(v, str) and v else MISSING for v in table["trust_model"]]
    shown["epsilon (delta)"] = [
        _privacy(e, d) for e, d in zip(_floats(table, "epsilon"), _floats(table, "delta"), strict=True)
    ]
    if "local_epsilon" in table:  # only when a local or shuffle agent ran (final_regret_table drops it else)
        shown["local_epsilon"] = [_privacy(e, math.nan) for e in _floats(table, "local_epsilon")]
    for *columns, fixed in COMPACT:
        mean, low, high = (c.format(ref=reference) for c in columns)
        if mean in table and table[mean].notna().any():
            means, lows, highs = (_floats(table, c) for c in (mean, low, high))
            places = decimals(means) if fixed is None else fixed
            shown[mean] = [with_interval(*v, places) for v in zip(means, lows, highs, strict=True)]
    return pd.DataFrame(shown, index=table.index)


def compact_lines(
    table: pd.DataFrame, by: tuple[str, ...] | None = None, reference: str | None = None
) -> list[str]:
    """The compact view as text lines: a header, then one line per row; text columns left-aligned, numbers
    right-aligned, two spaces between columns."""
    by, reference = _layout(table, by, reference)
    frame = compact_frame(table, by, reference)
    cells = [[str(c) for c in frame.columns], *frame.to_numpy().tolist()]
    widths = [max(len(row[i]) for row in cells) for i in range(len(frame.columns))]
    text = len(by) + ("trust" in frame) + 1 + ("local_epsilon" in frame)  # the leading text columns
    lines = []
    for row in cells:
        parts = [
            cell.ljust(width) if i < text else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append(GAP.join(parts).rstrip())
    return lines


def interval_legend(table: pd.DataFrame, every: str = "wide=True") -> list[str]:
    """The lines under the compact view (each under 80 characters): what the brackets are, over how many
    seeds, ``every``: how to see every column; then, for rows with a ``note`` (fewer seeds than
    :data:`dpbandit.harness.summary.MIN_SEEDS`), that their intervals are unreliable."""
    seeds = sorted(set(table["seeds"])) if "seeds" in table else []
    over = f" over {seeds[0]}" if len(seeds) == 1 else f" over {seeds[0]}-{seeds[-1]}" if seeds else ""
    notes = sorted(set(table["note"].dropna())) if "note" in table else []
    return [f"[low, high]: 95% t-interval{over} seeds; every column: {every}."] + [
        f"{note}: the intervals are unreliable (missing with 1 seed)." for note in notes
    ]


def _digits(column: str) -> int | None:
    """Decimals of a column in the wide view (None: printed as it is)."""
    if column.startswith(("ratio_to_", "accuracy")):
        return 3
    if column.startswith(("avg_reward", "reward_gain_over_")):
        return 4
    if column.startswith(("final_regret_mean", "ci95_", "final_reward")):
        return 1
    if column in ("wall_time_s", "compile_time_s", "epsilon", "user_epsilon"):
        return 3
    return None


def wide_view(table: pd.DataFrame) -> pd.DataFrame:
    """Every column under its CSV name, rounded, except :data:`WIDE_HIDDEN`; ``delta`` to 3 significant
    digits; missing values as ``-``."""
    shown = {}
    for column in table.columns:
        if column in WIDE_HIDDEN:
            continue
        values = table[column]
        if column == "delta":
            values = values.map(lambda v: v if pd.isna(v) else f"{v:.3g}")
        elif _digits(column) is not None:
            values = values.round(_digits(column))
        shown[column] = values
    return pd.DataFrame(shown).astype(object).fillna(MISSING)
