"""Shared helpers of the speed benchmarks: machine header, interleaved timing, window sizing, env rounds.

Every benchmark prints :func:`header` (machine, versions, load) above its tables, times its variants
in one process, interleaved (variant A, B, C, A, B, C, ...), for ``reps`` repetitions, and reports
the median and the best of each. A timed window is sized (:func:`rounds_for`) to last at least
:data:`WINDOW` seconds, so that ratios are not at the mercy of the scheduler. Timings are
wall-clock on a shared machine: the load average is printed next to every table.
"""

from __future__ import annotations

import math
import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version

# one BLAS thread: a per-core figure, comparable across agents (set before numpy loads BLAS)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

Setup = Callable[[], Callable[[], object]]

#: Minimum seconds of one timed window (issue 16: shorter windows gave floor ratios from 1.04 to 1.99).
WINDOW = 0.5


def load() -> str:
    """The 1/5/15-minute load averages."""
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def machine() -> str:
    """Markdown description: lscpu summary, versions, BLAS threads."""
    keep = ("Model name", "CPU(s):", "Thread(s) per core", "L2 cache", "L3 cache", "Hypervisor vendor")
    try:
        lines = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout.splitlines()
        cpu = "; ".join(" ".join(line.split()) for line in lines if line.startswith(keep))
    except (OSError, subprocess.CalledProcessError):
        cpu = platform.processor()
    versions = ", ".join(f"{p} {_version(p)}" for p in ("numpy", "numba", "scipy", "mabwiser"))
    return (
        f"- CPU (lscpu): {cpu}\n- Python {platform.python_version()}; {versions}\n"
        f"- OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']} (one BLAS thread)\n"
    )


def header() -> str:
    """What every benchmark prints above its tables: the machine, the versions and the load now."""
    return f"{machine()}- load average (1 / 5 / 15 min) at the start: {load()}\n\n"


#: The two clocks: wall (perf_counter, what you wait for) and CPU time of this process (process_time:
#: what one core gives us when other jobs share the machine).
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


@dataclass
class Timing:
    """Seconds of every repetition of one variant, per clock."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def median(self, clock: str = "wall") -> float:
        return statistics.median(getattr(self, clock))

    def best(self, clock: str = "wall") -> float:
        return min(getattr(self, clock))


def interleaved(variants: dict[str, Setup], reps: int) -> dict[str, Timing]:
    """Time each variant ``reps`` times, interleaved; ``setup()`` (untimed) returns the timed callable."""
    times = {name: Timing() for name in variants}
    for _ in range(reps):
        for name, setup in variants.items():
            work = setup()
            wall, cpu = time.perf_counter(), time.process_time()
            work()
            times[name].cpu.append(time.process_time() - cpu)
            times[name].wall.append(time.perf_counter() - wall)
    return times


def rounds_for(run: Callable[[int], Callable[[], object]], pilot: int, seconds: float = WINDOW,
               limit: int | None = None) -> int:
    """Rounds for a window of at least ``seconds``: time ``run(pilot)()`` (after a warm-up call) and scale.

    ``run(n)`` returns the callable playing ``n`` rounds (its setup untimed). 20% margin; at least
    ``pilot``; at most ``limit``.
    """
    run(pilot)()  # compile, load caches
    work = run(pilot)
    start = time.perf_counter()
    work()
    rate = pilot / max(time.perf_counter() - start, 1e-9)
    n = max(pilot, math.ceil(1.2 * seconds * rate))
    return n if limit is None else min(n, limit)


#: Per-arm rounds: FLIPHAT's simulation Setting 2 (sims/fliphat_setting2.py): per-arm N(0, Sigma) contexts,
#: Sigma_ij = 0.1^|i-j|, identity link, 5-sparse theta, N(0, 0.1^2) noise.
PER_ARM = dict(context_model="per_arm", contexts="gaussian", context_norm=None, context_correlation=0.1,
               link="identity", noise="gaussian", noise_std=0.1, sparsity=5, theta_values="uniform-signs",
               theta_support="first", theta_norm=None, theta_seed=20)


def rounds(d: int, K: int, n: int, seed: int = 0, horizon: int | None = None, per_arm: bool = False):
    """``n`` rounds at (d, K): contexts, rewards (n, K), means.

    Shared contexts (n, d) of the Section 5.4 environment (004), or with ``per_arm`` per-arm features
    (n, K, d) of FLIPHAT's Setting 2 (:data:`PER_ARM`).
    """
    import gymnasium

    env_id, options = ("dpbandit/GLMBandit-v0", PER_ARM) if per_arm else ("dpbandit/HDBSection54-v0", {})
    env = gymnasium.make(
        env_id, n_arms=K, dim=d, horizon=max(n, horizon or n), disable_env_checker=True, **options
    )
    env.reset(seed=seed)
    block = env.unwrapped.draw_rounds(n)
    return block.observations, block.rewards, block.expected_rewards


def table(header_row: list[str], rows: list[list[object]]) -> str:
    """A markdown table."""
    out = ["| " + " | ".join(header_row) + " |", "|" + "---|" * len(header_row)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def fmt(x: float) -> str:
    """Three significant digits with thousands separators."""
    if x != x:  # nan
        return "-"
    return f"{float(f'{x:.3g}'):,.0f}" if abs(x) >= 100 else f"{x:.3g}"
