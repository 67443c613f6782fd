"""Run agents on environments over seeds; tidy results, summaries and plots."""

from __future__ import annotations

from dpbandit.harness.plot import plot_regret
from dpbandit.harness.run import COLUMNS, recording_steps, run, run_one
from dpbandit.harness.summary import final_regret_table, t_interval

__all__ = [
    "COLUMNS",
    "final_regret_table",
    "plot_regret",
    "recording_steps",
    "run",
    "run_one",
    "t_interval",
]
