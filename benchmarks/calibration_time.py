"""Calibration time against epsilon for every private agent, cold (issue 38 item 1, issue 40).

Usage: ``python benchmarks/calibration_time.py [--epsilons 1e-3,1,100,1e4,1e6,1e9] [--horizon 1000]
[--timeout 120] [--out results/calibration_time.md]``.

For each private agent of ``dpbandit.agents.AGENTS`` one fresh process (nothing in memory) with an empty
calibration folder (:mod:`dpbandit.privacy.calibration_cache` pointed at a new temporary directory, so no
stored calibration is read) builds the agent as the harness does (K = 2, d = 50, the default environment's
shape; per-arm agents get d K = 100 block features; ``horizon``, ``reward_range=(-1, 1)``) at each epsilon in
turn, and reads its privacy report. A cell is the wall time of construction plus report (the imports are
not counted: they are paid before the first epsilon), ``refuses`` when construction raised the agent's
one-line ``ValueError`` (its text is listed under the table), or ``> timeout`` when the process had not
finished. Every report is checked: an accountant epsilon above the one asked (beyond the 1e-9 slack of
:data:`dpbandit.privacy.guarantee._REL_TOL`) is marked ``OVER``. Target: at most 2 s per cell.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from _common import header

EPSILONS = (1e-3, 1.0, 100.0, 1e4, 1e6, 1e9)
TARGET = 2.0
K, D = 2, 50

CHILD = r"""
import json, sys, tempfile, time
from pathlib import Path
import numpy as np
from dpbandit.privacy import calibration_cache
from dpbandit.agents import agent_class
from dpbandit.harness.checks import accepts_keyword

name, horizon, K, D = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
folder = Path(tempfile.mkdtemp())
calibration_cache.folder = lambda: folder  # nothing stored is read: every calibration is computed
cls = agent_class(name)
kwargs = {"horizon": horizon} if accepts_keyword(cls, "horizon") else {}
if accepts_keyword(cls, "reward_range"):
    kwargs["reward_range"] = (-1.0, 1.0)
dim = D * K if cls.observation_model == "per_arm" else D
for epsilon in (float(e) for e in sys.argv[5:]):
    start = time.perf_counter()
    out = {"epsilon": epsilon}
    try:
        report = cls(K, dim, rng=np.random.default_rng(0), epsilon=epsilon, **kwargs).privacy
        out.update(seconds=time.perf_counter() - start, reported=report.epsilon, shortfall=report.shortfall)
    except ValueError as error:
        out.update(seconds=time.perf_counter() - start, refused=str(error))
    print(json.dumps(out), flush=True)
"""


def private_agents() -> list[str]:
    from dpbandit.harness.catalogue import agent_entries

    return [entry.name for entry in agent_entries() if entry.private]


def measure(name: str, horizon: int, epsilons: list[float], timeout: float) -> dict[float, dict]:
    """One process for ``name``: the outcome at each epsilon reached before ``timeout`` seconds."""
    command = [sys.executable, "-c", CHILD, name, str(horizon), str(K), str(D), *map(repr, epsilons)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        lines, error = done.stdout, done.stderr if done.returncode else ""
    except subprocess.TimeoutExpired as expired:
        lines, error = (expired.stdout or b"").decode(), ""
    outcomes = {(o := json.loads(line))["epsilon"]: o for line in lines.splitlines() if line.startswith("{")}
    if error:
        missing = next((e for e in epsilons if e not in outcomes), None)
        if missing is not None:
            outcomes[missing] = {"crashed": error.strip().splitlines()[-1]}
    return outcomes


def cell(outcome: dict | None, timeout: float) -> str:
    if outcome is None:
        return f"> {timeout:g} s"
    if "crashed" in outcome:
        return "crash"
    text = f"{outcome['seconds']:.3f} s"
    if "refused" in outcome:
        return f"refuses ({text})"
    return text + (" OVER" if outcome["shortfall"] > 0 else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilons", default=",".join(f"{e:g}" for e in EPSILONS))
    parser.add_argument("--horizon", type=int, default=1000)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per agent (all epsilons)")
    parser.add_argument("--agents", default="", help="comma-separated subset (default: every private agent)")
    parser.add_argument("--out", type=Path, default=None, help="also write the page here")
    args = parser.parse_args()
    epsilons = [float(e) for e in args.epsilons.split(",")]
    names = [n for n in args.agents.split(",") if n] or private_agents()
    rows, notes, slowest = [], [], 0.0
    for name in names:
        outcomes = measure(name, args.horizon, epsilons, args.timeout)
        rows.append(f"| {name} | " + " | ".join(cell(outcomes.get(e), args.timeout) for e in epsilons) + " |")
        for e in epsilons:
            o = outcomes.get(e) or {}
            slowest = max(slowest, o.get("seconds", args.timeout if not o else 0.0))
            if "refused" in o or "crashed" in o:
                notes.append(f"- {name} at epsilon {e:g}: {o.get('refused') or o.get('crashed')}")
        print(rows[-1], file=sys.stderr, flush=True)
    command = " ".join(["python benchmarks/calibration_time.py", *sys.argv[1:]])
    page = [
        "# Calibration time against epsilon, cold, every private agent",
        "",
        f"Made by `{command}` (one fresh process per agent, empty calibration folder; K = {K}, d = {D}, "
        f"T = {args.horizon:,}; seconds of construction plus privacy report, imports excluded).",
        "",
        header().rstrip(),
        "",
        "| agent | " + " | ".join(f"eps {e:g}" for e in epsilons) + " |",
        "|---|" + "---:|" * len(epsilons),
        *rows,
        "",
        f"Slowest cell: {slowest:.3f} s (target <= {TARGET:g} s: {'met' if slowest <= TARGET else 'MISSED'}). "
        "OVER would mark an accountant epsilon above the one asked.",
        "",
        "Refusals (the agent's one-line error):" if notes else "No agent refuses.",
        "",
        *notes,
    ]
    text = "\n".join(page) + "\n"
    print(text)
    if args.out is not None:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
