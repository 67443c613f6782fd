"""DP-UCB at d=50, K=5 (D=250), T=10,000: wall time and peak memory of a whole harness run.

Usage: ``python benchmarks/dpucb_memory.py [--horizon 10000]``.

Two runs of ``run_one`` on ``dpbandit/HDBSection54-v0``: one timed, one under ``tracemalloc``
(peak of Python/NumPy allocations during the run); plus the process's peak resident set size
(``resource.getrusage``, includes the interpreter and libraries). For comparison, a pre-allocated
T x D x D float64 noise array (the authors' code) would take T D^2 8 bytes.
"""

from __future__ import annotations

import _common  # noqa: F401  (first: one BLAS thread, set before numpy loads)

import argparse
import resource
import time
import tracemalloc

from _common import fmt, load  # noqa: I001  (sets BLAS threads first)
from dpbandit.agents.dpucb import DPUCB
from dpbandit.harness import seeding
from dpbandit.harness.run import run_one

D, K = 50, 5


def one_run(horizon: int) -> None:
    run_one(
        "dpbandit/HDBSection54-v0", "dpucb", DPUCB, seeding.seed_sequence(0, 0), horizon=horizon,
        env_kwargs={"n_arms": K, "dim": D},
    )


def main(horizon: int = 10_000) -> str:
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    load_before = load()
    wall, cpu = time.perf_counter(), time.process_time()
    one_run(horizon)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tracemalloc.start()
    one_run(horizon)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    dim = D * K
    naive = horizon * dim * dim * 8 / 2**30
    return (
        f"DP-UCB (calibration 'paper', epsilon=1) on d={D}, K={K} (D={dim}), T={horizon:,}, "
        "whole harness run "
        f"(env, block features, agent; load {load_before} before, {load()} after):\n\n"
        f"- wall time {wall:.1f} s = {fmt(horizon / wall)} steps/s; CPU time {cpu:.1f} s = "
        f"{fmt(horizon / cpu)} steps/s\n"
        f"- peak traced allocations (tracemalloc, second run): {peak:.1f} MB\n"
        f"- process peak RSS: {rss_before:.0f} MB before the runs (interpreter + libraries), "
        f"{rss_after:.0f} MB after the first run\n"
        f"- a T x D x D noise array would need {naive:.1f} GB\n"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizon", type=int, default=10_000)
    print(main(parser.parse_args().horizon))
