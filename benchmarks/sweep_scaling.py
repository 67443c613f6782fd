"""Speed-up of a 40-cell sweep on 2 local worker processes versus 1.

    python benchmarks/sweep_scaling.py                 # 40 cells of LinUCB, T = 20,000 (~1.5 s each)
    python benchmarks/sweep_scaling.py --horizon 2000  # quick smoke run (start-up dominates)

Both runs use the ``processes`` backend (so both pay worker start-up) on fresh stores; the script
checks that they store identical results, and prints wall times, the speed-up and the load average
(the machine may be shared: compare the load with the number of cores).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import pandas as pd

from dpbandit.sweep import run_sweep
from dpbandit.sweep.backends import available_cores


def config(horizon: int) -> dict:
    """40 cells: two LinUCB variants x 20 seeds on the 5-arm, d = 10 linear bandit."""
    return {
        "name": "scaling",
        "seeds": 20,
        "n_points": 100,
        "grid": {"agent": ["linucb", "linucb:alpha=0.5"], "env_id": "dpbandit/LinearBandit-v0", "horizon": horizon},
    }


def timed(workers: int, horizon: int, root: Path) -> tuple[float, pd.DataFrame]:
    start = time.perf_counter()
    df = run_sweep(config(horizon), root / f"workers-{workers}", backend="processes", workers=workers, progress=True)
    return time.perf_counter() - start, df


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--horizon", type=int, default=20_000, help="rounds per cell (default 20,000)")
    args = parser.parse_args()
    print(f"cores available: {available_cores()}; load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        one, df_one = timed(1, args.horizon, Path(tmp))
        two, df_two = timed(2, args.horizon, Path(tmp))
    columns = [c for c in df_one.columns if c != "wall_time"]
    pd.testing.assert_frame_equal(df_one[columns], df_two[columns])
    cells = df_one["cell"].nunique()
    per_cell = df_one.groupby("cell")["wall_time"].max().mean()
    print(f"{cells} cells, T = {args.horizon}, mean compute per cell {per_cell:.2f} s")
    print(f"1 process: {one:.1f} s; 2 processes: {two:.1f} s; speed-up {one / two:.2f}x (results identical)")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
