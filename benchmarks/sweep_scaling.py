"""Speed-up of a 40-cell sweep on 2 local worker processes versus 1.

    python benchmarks/sweep_scaling.py                 # 40 cells of LinUCB, T = 1,500,000 (~1 s each)
    python benchmarks/sweep_scaling.py --repeats 3     # best of 3 for each worker count
    python benchmarks/sweep_scaling.py --horizon 2000  # quick smoke run (start-up dominates)

Every run uses the ``processes`` backend (so each pays worker start-up, a few seconds) on a fresh
store; the script checks that 1 and 2 workers store identical results, and prints the best wall time
of each, the speed-up and the load average (the machine may be shared: compare the load with the
number of cores).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # one core per worker
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import pandas as pd  # noqa: E402

from dpbandit.sweep import run_sweep  # noqa: E402
from dpbandit.sweep.backends import available_cores  # noqa: E402


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
    df = run_sweep(config(horizon), root / f"workers-{workers}", backend="processes", workers=workers, progress=False)
    return time.perf_counter() - start, df


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--horizon", type=int, default=1_500_000, help="rounds per cell (default 1,500,000)")
    parser.add_argument("--repeats", type=int, default=1, help="runs per worker count; the best counts")
    args = parser.parse_args()
    print(f"cores available: {available_cores()}; load average before: {os.getloadavg()}")
    times: dict[int, list[float]] = {1: [], 2: []}
    frames: dict[int, pd.DataFrame] = {}
    for repeat in range(args.repeats):
        for workers in (1, 2):  # interleaved, so a load change hits both
            with tempfile.TemporaryDirectory() as tmp:
                seconds, frames[workers] = timed(workers, args.horizon, Path(tmp))
            times[workers].append(seconds)
            print(f"run {repeat + 1}, {workers} process(es): {seconds:.1f} s; load {os.getloadavg()[0]:.2f}")
    one, two = min(times[1]), min(times[2])
    df_one, df_two = frames[1], frames[2]
    columns = [c for c in df_one.columns if c not in ("wall_time", "compile_time")]
    pd.testing.assert_frame_equal(df_one[columns], df_two[columns])
    cells = df_one["cell"].nunique()
    per_cell = df_one.groupby("cell")["wall_time"].max().mean()
    print(f"{cells} cells, T = {args.horizon}, mean compute per cell {per_cell:.2f} s")
    print(f"best of {args.repeats}: 1 process {one:.1f} s, 2 processes {two:.1f} s; "
          f"speed-up {one / two:.2f}x (results identical)")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
