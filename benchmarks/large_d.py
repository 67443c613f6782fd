"""Every registered agent at d = 5000, K = 10 (issue 23 item 4, issue 31 item 4): time per round beside random's,
peak memory, or the agent's refusal at construction (:mod:`dpbandit.agents.size`).

Usage: ``python benchmarks/large_d.py [--horizon 3000] [--dim 5000] [--arms 10] [--repeats 1]
[--agents NAME ...]`` (prints a markdown table; default: every registered agent). With ``--repeats R`` the
agents run in turn, R rounds of them (interleaved: agent 1, agent 2, ..., agent 1, ...), each run in a fresh
process after its own ``random``; the table shows the median ratio, every ratio and the load average before
each.

Each agent runs in a fresh process (so its peak resident memory is its own): that process first plays
``random`` and then the agent on the same seed of ``dpbandit/HDBSection54-v0`` (the same environment draws;
per-arm agents receive the block features the harness builds, ``dim x n_arms`` per arm), through
:func:`dpbandit.harness.run_one`, one seed. "us / round" is the harness's ``wall_time`` at the horizon over
the horizon (construction excluded), the ratio is to random's in the same process, right before; "peak" is
the process's peak resident set (``ru_maxrss``: Python, NumPy, the environment and the agent), "random's
peak" the same just after random's run. Timings are wall clock on whatever else the machine runs: read the
load average printed above the table. The "CPU-time ratio" is the same ratio of the process's CPU time
(``time.process_time``) over each ``run_one``, its rounds' share (the run's CPU time times ``wall_time`` at
the horizon over the run's wall time: construction left out as above; random's run is timed after an
untimed one, so neither side pays the process's first calls): what one core gave each side. The child
process runs under an address-space limit (``RLIMIT_AS``, :data:`MEMORY_LIMIT` above what it holds after
random's run): an agent that would allocate more shows ``MemoryError`` instead of taking the machine.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

import _common  # noqa: F401  (first: one BLAS thread, set before numpy loads)
from _common import header, load, table

ENV_ID = "dpbandit/HDBSection54-v0"
#: Address space the child may add after random's run, bytes (the issue's 2 GB plus room for the run).
MEMORY_LIMIT = 3 * 2**30


def registered_agents() -> list[str]:
    """Registry names of every agent."""
    from dpbandit.agents import AGENTS

    return list(AGENTS)


def limit_memory() -> None:
    """Cap this process's address space at what it maps now plus :data:`MEMORY_LIMIT`."""
    with open("/proc/self/statm") as statm:
        mapped = int(statm.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (mapped + MEMORY_LIMIT, resource.RLIM_INFINITY))


def peak_gb() -> float:
    """Peak resident set of this process so far, GB (``ru_maxrss`` is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9


def one(name: str, horizon: int, dim: int, arms: int) -> dict:
    """Random then ``name`` in this process; their us per round, the peaks, or ``name``'s refusal."""
    from dpbandit.agents import agent_class
    from dpbandit.harness import run_one, seeding

    def us_per_round(agent: str, key: str) -> None:
        cpu, wall = time.process_time(), time.perf_counter()
        frame = run_one(ENV_ID, agent, agent_class(agent), seeding.seed_sequence(0, 0), horizon=horizon,
                        env_kwargs={"dim": dim, "n_arms": arms}, n_points=10)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        rounds = float(frame["wall_time"].iloc[-1])  # the rounds only (construction excluded)
        out[f"{key}_cpu"] = cpu * min(rounds / wall, 1.0) / horizon * 1e6
        out[key] = rounds / horizon * 1e6

    out: dict = {}
    us_per_round("random", "random")  # untimed: the process's first run pays imports and first calls
    us_per_round("random", "random")
    out["random_peak"] = peak_gb()
    limit_memory()
    try:
        us_per_round(name, "agent")
    except ValueError as error:
        if "refuses" not in str(error):
            raise
        out["refused"] = str(error)
    except MemoryError as error:
        out["refused"] = f"MemoryError (not a refusal): {error}"
    out["peak"] = peak_gb()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizon", type=int, default=3000)
    parser.add_argument("--dim", type=int, default=5000)
    parser.add_argument("--arms", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--agents", nargs="*", default=None)
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)  # the child process
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(one(args.one, args.horizon, args.dim, args.arms)))
        return
    print(header())
    print(f"`{ENV_ID}`, dim = {args.dim}, n_arms = {args.arms}, T = {args.horizon}, one seed, one process "
          "per agent (random first, same environment draws)\n")
    names = args.agents or registered_agents()
    runs: dict[str, list[tuple[dict, str]]] = {name: [] for name in names}
    for _ in range(args.repeats):
        for name in names:
            command = [sys.executable, __file__, "--one", name, "--horizon", str(args.horizon), "--dim",
                       str(args.dim), "--arms", str(args.arms)]
            before = load()
            result = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
            runs[name].append((result, before))
    rows = []
    for name in names:
        results = [result for result, _ in runs[name]]
        randoms = [result["random"] for result in results]
        if "refused" in results[0]:
            refusal = results[0]["refused"]
            rows.append([name, "refused", "", "", f"{statistics.median(randoms):.0f}", "", refusal])
            continue
        ratios = [result["agent"] / result["random"] for result in results]
        cpu_ratios = [result["agent_cpu"] / result["random_cpu"] for result in results]
        peaks = max(result["peak"] for result in results), max(result["random_peak"] for result in results)
        peak = f"{peaks[0]:.2f} (random's {peaks[1]:.2f})"
        median = f"{statistics.median(ratios):.2f}"
        if args.repeats > 1:
            median += " (" + ", ".join(f"{ratio:.2f} at load {before.split(' / ')[0]}"
                                       for ratio, (_, before) in zip(ratios, runs[name])) + ")"
        rows.append([name, f"{statistics.median(r['agent'] for r in results):.0f}", median,
                     f"{statistics.median(cpu_ratios):.2f}", f"{statistics.median(randoms):.0f}", peak, ""])
    columns = ["agent", "us / round (median)", "ratio to random: median (each run, load before it)",
               "CPU-time ratio (median)", "random us / round (median)", "peak RSS, GB", "refusal"]
    print(table(columns, rows))
    print(f"\nload average (1 / 5 / 15 min) at the end: {load()}")


if __name__ == "__main__":
    main()
