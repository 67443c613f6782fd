"""Run every benchmark of this folder, each in its own process, and write ``results/benchmarks.md``.

Usage: ``python benchmarks/run_all.py [--quick]`` (``--quick``: fewer repetitions and rounds, written
to ``results/benchmarks_quick.md``; the committed results come from the full run).
``sweep_scaling.py`` belongs to the sweep module and is not run here.
"""

from __future__ import annotations

import argparse
import datetime
import pathlib
import subprocess
import sys

import _common

HERE = pathlib.Path(__file__).resolve().parent
SECTIONS = [
    (
        "Steps per second, random-number floor, numpy path",
        "agents.py",
        ["--reps", "5"],
        ["--reps", "2", "--seconds", "0.1"],
    ),
    ("LinUCB vs MABWiser", "mabwiser_linucb.py", [], ["--rounds", "300", "--seeds", "2", "--reps", "1"]),
    ("DP-UCB time and memory at d=50, K=5, T=10,000", "dpucb_memory.py", [], ["--horizon", "1000"]),
    ("DP-HDB scaling with d K T", "dphdb_scaling.py", [], ["--reps", "1"]),
    ("First-call compile cost", "compile_cost.py", [], []),
]


def main(quick: bool) -> str:
    text = []
    for title, script, full, short in SECTIONS:
        print(f"== {title}", flush=True)
        done = subprocess.run(
            [sys.executable, str(HERE / script), *(short if quick else full)],
            capture_output=True, text=True, check=True,
        )
        print(done.stdout, flush=True)
        command = " ".join([f"python benchmarks/{script}", *(short if quick else full)])
        text.append(f"## {title}\n\n`{command}`\n\n{done.stdout}\n")
    return "".join(text)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    body = main(args.quick)
    header = (
        "# Benchmarks\n\n"
        "Command: `cd /work/main && /work/venv/bin/python benchmarks/run_all.py"
        f"{' --quick' if args.quick else ''}` "
        f"(started {started}; each script in its own process).\n\n## Machine\n\n{_common.machine()}"
        "- load average: printed with every table (2 cores shared with other engineers' jobs; wall-clock "
        "figures are depressed by that load, CPU-time figures show what one core gives this process)\n\n"
    )
    out = HERE.parent / "results" / ("benchmarks_quick.md" if args.quick else "benchmarks.md")
    out.write_text(header + body)
    print(f"wrote {out}", file=sys.stderr)
