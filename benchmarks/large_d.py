"""Every registered agent at d = 5000, K = 10 (issue 23 item 4, issue 31 item 4): time per round beside random's,
peak memory, or the agent's refusal at construction (:mod:`dpbandit.agents.size`).

Usage: ``python benchmarks/large_d.py [--horizon 3000] [--dim 5000] [--arms 10] [--agents NAME ...]``
(prints a markdown table; default: every registered agent).

Each agent runs in a fresh process (so its peak resident memory is its own): that process first plays
``random`` and then the agent on the same seed of ``dpbandit/HDBSection54-v0`` (the same environment draws;
per-arm agents receive the block features the harness builds, ``dim x n_arms`` per arm), through
:func:`dpbandit.harness.run_one`, one seed. "us / round" is the harness's ``wall_time`` at the horizon over
the horizon (construction excluded), the ratio is to random's in the same process, right before; "peak" is
the process's peak resident set (``ru_maxrss``: Python, NumPy, the environment and the agent), "random's
peak" the same just after random's run. Timings are wall clock on whatever else the machine runs: read the
load average printed above the table. The child process runs under an address-space limit
(``RLIMIT_AS``, :data:`MEMORY_LIMIT` above what it holds after random's run): an agent that would allocate more
shows ``MemoryError`` instead of taking the machine.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys

import _common  # noqa: F401  (first: one BLAS thread, set before numpy loads)
from _common import header, table

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

    def us_per_round(agent: str) -> float:
        frame = run_one(ENV_ID, agent, agent_class(agent), seeding.seed_sequence(0, 0), horizon=horizon,
                        env_kwargs={"dim": dim, "n_arms": arms}, n_points=10)
        return float(frame["wall_time"].iloc[-1]) / horizon * 1e6

    out = {"random": us_per_round("random"), "random_peak": peak_gb()}
    limit_memory()
    try:
        out["agent"] = us_per_round(name)
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
    parser.add_argument("--agents", nargs="*", default=None)
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)  # the child process
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(one(args.one, args.horizon, args.dim, args.arms)))
        return
    print(header())
    print(f"`{ENV_ID}`, dim = {args.dim}, n_arms = {args.arms}, T = {args.horizon}, one seed, one process "
          "per agent (random first, same environment draws)\n")
    rows = []
    for name in args.agents or registered_agents():
        command = [sys.executable, __file__, "--one", name, "--horizon", str(args.horizon), "--dim",
                   str(args.dim), "--arms", str(args.arms)]
        result = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
        if "refused" in result:
            rows.append([name, "refused", "", f"{result['random']:.0f}", "", result["refused"]])
        else:
            peak = f"{result['peak']:.2f} (random's {result['random_peak']:.2f})"
            ratio = f"{result['agent'] / result['random']:.2f}"
            rows.append([name, f"{result['agent']:.0f}", ratio, f"{result['random']:.0f}", peak, ""])
    columns = ["agent", "us / round", "ratio to random", "random us / round", "peak RSS, GB", "refusal"]
    print(table(columns, rows))


if __name__ == "__main__":
    main()
