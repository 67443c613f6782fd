"""A small study in a fresh process (issue 31 item 2): ``private`` against ``random``, start-up included.

Usage: ``python benchmarks/study_startup.py [--reps 3] [--seeds 2] [--horizon 10000] [--jobs 1]``

Each variant is a fresh ``python -c`` process running :func:`dpbandit.harness.run` on
``dpbandit/HDBSection54-v0`` (Figure 5.1: d = 50, K = 2) with one agent, ``--seeds`` seeds of ``--horizon``
rounds, ``--jobs`` worker processes; its whole wall time is what the user waits for (interpreter, imports,
calibration, kernels from numba's cache, the runs). Variants, interleaved, ``--reps`` repetitions:

* ``random``: the reference;
* ``private``: calibrations from the cache (``dpbandit.privacy.calibration_cache``: a previous run computed
  them), numba kernels from their cache;
* ``private, calibrations cold``: the same with an empty calibration folder (a copy of the numba cache in a
  temporary ``DPBANDIT_CACHE_DIR``): what every process paid before the cache.

The issue's target: ``private`` (cache warm) at most 1.5x ``random``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _common  # noqa: F401  (first: one BLAS thread)
from _common import Timing, header, load, table

STUDY = """
from dpbandit import envs
from dpbandit.agents import agent_class
from dpbandit.harness import run
run("dpbandit/HDBSection54-v0", {{"{agent}": agent_class("{agent}")}}, n_seeds={seeds}, horizon={horizon},
    n_jobs={jobs}, progress=False)
"""


def study(agent: str, args: argparse.Namespace, environ: dict[str, str]) -> float:
    code = STUDY.format(agent=agent, seeds=args.seeds, horizon=args.horizon, jobs=args.jobs)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=environ)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--horizon", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    from dpbandit._numba_cache import cache_dir

    print(header())
    warm = dict(os.environ)
    study("private", args, warm)  # fills both caches
    times = {name: Timing() for name in ("random", "private", "private, calibrations cold")}
    for _ in range(args.reps):
        for name in times:
            with tempfile.TemporaryDirectory() as tmp:
                environ = warm
                if name.endswith("cold"):
                    shutil.copytree(cache_dir(), Path(tmp) / "numba")
                    environ = {**warm, "DPBANDIT_CACHE_DIR": tmp}
                times[name].wall.append(study(name.split(",")[0], args, environ))
    print(f"`dpbandit/HDBSection54-v0` (d = 50, K = 2), {args.seeds} seeds x T = {args.horizon:,}, n_jobs = "
          f"{args.jobs}, a fresh process per study; {args.reps} interleaved repetitions (load {load()}):\n")
    base = times["random"]
    rows = [[name, f"{t.median():.2f} ({t.best():.2f})", f"{t.median() / base.median():.2f} "
             f"({t.best() / base.best():.2f})"] for name, t in times.items()]
    print(table(["study", "seconds: median (best)", "x random's study: median (best)"], rows))
    print(f"Load average after the table: {load()}")


if __name__ == "__main__":
    main()
