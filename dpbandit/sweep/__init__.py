"""Resumable experiment grids: agents x environments x privacy budgets x horizons x seeds.

A sweep expands a config (TOML / YAML file or dict; :mod:`dpbandit.sweep.config`) into cells
(:mod:`dpbandit.sweep.grid`), runs the unfinished ones in this process, on local worker processes or
on a Dask cluster (:mod:`dpbandit.sweep.backends`), and stores one parquet file per finished cell
(:mod:`dpbandit.sweep.store`). :mod:`dpbandit.sweep.report` turns a store into tables and plots.
User guide: docs/sweeps.md.

    >>> from dpbandit.sweep import run_sweep  # doctest: +SKIP
    >>> df = run_sweep("examples/sweep_small.toml", "out/sweeps/small")  # doctest: +SKIP
"""

from __future__ import annotations

from dpbandit.sweep.backends import CellResult, execute_cell, make_backend, run_cell
from dpbandit.sweep.config import Execution, Sweep, SweepConfigError, read_config
from dpbandit.sweep.grid import Cell
from dpbandit.sweep.runner import SweepError, SweepOutcome, default_store_dir, execute, execute_many, run_sweep
from dpbandit.sweep.store import Store, StoreError

__all__ = [
    "Cell",
    "CellResult",
    "Execution",
    "Store",
    "StoreError",
    "Sweep",
    "SweepConfigError",
    "SweepError",
    "SweepOutcome",
    "default_store_dir",
    "execute",
    "execute_many",
    "execute_cell",
    "make_backend",
    "read_config",
    "run_cell",
    "run_sweep",
]
