"""Shared helpers of the speed benchmarks: machine description, interleaved timing, rounds from the envs.

Every benchmark times its variants in one process, interleaved (variant A, B, C, A, B, C, ...), for
``reps`` repetitions, and reports medians and ratios. Timings are wall-clock on a shared machine:
the load average is recorded next to every table.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable
from importlib.metadata import version


# one BLAS thread: a per-core figure, comparable across agents (set before numpy loads BLAS)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

Setup = Callable[[], Callable[[], object]]


def load() -> str:
    """The 1/5/15-minute load averages."""
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def machine() -> str:
    """Markdown description: lscpu summary, core count, versions, BLAS threads."""
    keep = ("Model name", "CPU(s):", "Thread(s) per core", "L2 cache", "L3 cache", "Hypervisor vendor")
    try:
        lines = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout.splitlines()
        cpu = "; ".join(" ".join(line.split()) for line in lines if line.startswith(keep))
    except (OSError, subprocess.CalledProcessError):
        cpu = platform.processor()
    versions = ", ".join(f"{p} {version(p)}" for p in ("numpy", "numba", "scipy", "mabwiser"))
    return (
        f"- CPU (lscpu): {cpu}\n- Python {platform.python_version()}; {versions}\n"
        f"- OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']} (one BLAS thread)\n"
    )


#: Which clock ``interleaved`` reports: "wall" (perf_counter) or "cpu" (process_time: the CPU time
#: of this process, what a core gives us when other engineers' jobs share the machine).
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def interleaved(variants: dict[str, Setup], reps: int) -> dict[str, dict[str, float]]:
    """Median seconds of each variant per clock: ``setup()`` (untimed) returns the callable that is timed.

    Returns ``{"wall": {name: median}, "cpu": {name: median}}``.
    """
    times = {clock: {name: [] for name in variants} for clock in CLOCKS}
    for _ in range(reps):
        for name, setup in variants.items():
            work = setup()
            wall, cpu = time.perf_counter(), time.process_time()
            work()
            times["cpu"][name].append(time.process_time() - cpu)
            times["wall"][name].append(time.perf_counter() - wall)
    return {clock: {name: statistics.median(ts) for name, ts in by.items()} for clock, by in times.items()}


def rounds(d: int, K: int, n: int, seed: int = 0, horizon: int | None = None):
    """``n`` rounds of the Section 5.4 environment (004) at (d, K): contexts (n, d), rewards (n, K), means."""
    import gymnasium

    import envs  # noqa: F401  (registers the ids)

    env = gymnasium.make(
        "dpbandit/HDBSection54-v0", n_arms=K, dim=d, horizon=max(n, horizon or n), disable_env_checker=True
    )
    env.reset(seed=seed)
    block = env.unwrapped.draw_rounds(n)
    return block.observations, block.rewards, block.expected_rewards


def table(header: list[str], rows: list[list[object]]) -> str:
    """A markdown table."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def fmt(x: float) -> str:
    """Three significant digits with thousands separators."""
    if x != x:  # nan
        return "-"
    return f"{float(f'{x:.3g}'):,.0f}" if abs(x) >= 100 else f"{x:.3g}"
