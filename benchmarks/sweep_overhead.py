"""Fixed cost of one sweep (issue 31 item 3): many small sweeps in one process, as the learning suite runs them.

Usage: ``python benchmarks/sweep_overhead.py [--sweeps 6] [--cells 2] [--horizon 200] [--workers 2]``

Each sweep holds ``--cells`` cells (``random``, one seed each, ``--horizon`` rounds of
``dpbandit/LinearBandit-v0``: milliseconds of work), runs on the default ``processes`` backend into a fresh
store, and is timed whole (config, store, workers, cells, results). Two variants, one after the other (they
share the pool, so they cannot be interleaved; compare the load printed before and after):

* **kept workers**: the backend's worker pool is kept between sweeps (``dpbandit.sweep.backends``; the first
  sweep of the process starts it);
* **fresh workers**: the pool is shut down after every sweep (what every sweep paid before issue 31).

A sweep's time here is almost all fixed cost; the issue's target is at most 1 s per sweep.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import _common  # noqa: F401  (first: one BLAS thread)
from _common import header, load, table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweeps", type=int, default=6)
    parser.add_argument("--cells", type=int, default=2)
    parser.add_argument("--horizon", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    print(header())
    from dpbandit.sweep import run_sweep
    from dpbandit.sweep.backends import shutdown_pools

    times: dict[str, list[float]] = {"kept workers": [], "fresh workers": []}
    with tempfile.TemporaryDirectory() as tmp:
        for variant, seconds in times.items():
            shutdown_pools()
            for index in range(args.sweeps):
                config = {"name": f"overhead-{index}-{variant[:4]}", "seeds": args.cells, "n_points": 10,
                          "grid": {"agent": ["random"], "env_id": "dpbandit/LinearBandit-v0",
                                   "horizon": args.horizon}}
                start = time.perf_counter()
                run_sweep(config, Path(tmp) / config["name"], workers=args.workers, progress=False)
                seconds.append(time.perf_counter() - start)
                if variant == "fresh workers":
                    shutdown_pools()
        shutdown_pools()
    print(f"{args.sweeps} sweeps of {args.cells} cells (random, T = {args.horizon}) per variant, "
          f"{args.workers} workers (load {load()}):\n")
    rows = []
    for variant, seconds in times.items():
        later = seconds[1:]
        rows.append([variant, f"{seconds[0]:.2f}", f"{statistics.median(later):.2f} ({min(later):.2f} - "
                     f"{max(later):.2f})", ", ".join(f"{s:.2f}" for s in seconds)])
    print(table(["variant", "first sweep, s", "later sweeps: median (min - max), s", "every sweep, s"], rows))
    print(f"Load average after the table: {load()}")


if __name__ == "__main__":
    main()
