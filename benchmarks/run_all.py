"""Run every benchmark of this folder, each in its own process, and write ``results/benchmarks.md``.

Usage: ``python benchmarks/run_all.py [--quick] [--authors PATH]`` (``--quick``: fewer repetitions and
shorter windows, written to ``results/benchmarks_quick.md``; the committed results come from the full
run, about 30 minutes on 2 cores). ``--authors`` (or ``$DPBANDIT_AUTHORS_CODE``) is a checkout of
liangzp/DP-Streaming-SCO for the comparison with the authors' DP-HDB; without it that section says
"not run". ``sweep_scaling.py`` belongs to the sweep module and is not run here; nor is ``study_cost.py``
(it estimates a whole study's run time: minutes of runs of its own, docs/performance.md).

Start-up: if ``benchmarks/startup.py`` exists (the import-time benchmark of the newcomer issue), it
runs first, as its own section, with no arguments.
"""

from __future__ import annotations

import argparse
import datetime
import os
import pathlib
import subprocess
import sys
import time

import _common

HERE = pathlib.Path(__file__).resolve().parent
#: (title, script, full-run arguments, quick-run arguments)
SECTIONS = [
    ("Start-up", "startup.py", [], []),
    ("Steps per second, random-number floor, numpy path", "agents.py", ["--reps", "5"],
     ["--reps", "2", "--seconds", "0.1"]),
    ("DP-UCB on the shared-context model: memory and regret", "dpucb.py", [], ["--horizon", "1000", "--seeds", "2"]),
    ("LinUCB vs MABWiser", "mabwiser_linucb.py", [],
     ["--rounds", "300", "--seeds", "2", "--reps", "2", "--seconds", "0.1"]),
    ("DP-HDB vs the authors' code", "authors_dphdb.py", [], ["--reps", "2", "--seconds", "0.1"]),
    ("DP-HDB scaling with d K T", "dphdb_scaling.py", [], ["--reps", "1"]),
    ("DP-HDB: where the time above its floor goes", "dphdb_anatomy.py", [], ["--reps", "2"]),
    ("First-call compile cost", "compile_cost.py", [], ["--repeats", "1"]),
    ("The act/update loop of agents without a block path", "act_update_loop.py", [], ["--horizon", "2000", "--reps", "2"]),
    ("A small study in a fresh process: private vs random", "study_startup.py", [], ["--reps", "1", "--horizon", "1000"]),
    ("Fixed cost of one sweep", "sweep_overhead.py", [], ["--sweeps", "3"]),
    ("Every registered agent at d = 5000, K = 10", "large_d.py", [], ["--horizon", "300", "--dim", "500"]),
]


def main(quick: bool, authors: str | None) -> str:
    text = []
    for title, script, full, short in SECTIONS:
        if not (HERE / script).exists():
            continue
        args = [*(short if quick else full), *(["--authors", authors] if script == "authors_dphdb.py" and authors else [])]
        print(f"== {title} (load {_common.load()})", flush=True)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, str(HERE / script), *args], capture_output=True, text=True)
        if done.returncode:  # the finished sections were printed above as they ended
            sys.stderr.write(done.stderr)
            raise SystemExit(f"benchmarks/{script} failed (exit {done.returncode}); its error is above")
        print(done.stdout, flush=True)
        shown = [a if a != authors else "PATH" for a in args]
        command = " ".join([f"python benchmarks/{script}", *shown])
        text.append(f"## {title}\n\n`{command}` ({time.perf_counter() - start:.0f} s)\n\n{done.stdout}\n")
    return "".join(text)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--authors", default=os.environ.get("DPBANDIT_AUTHORS_CODE"),
                        help="checkout of liangzp/DP-Streaming-SCO (default: $DPBANDIT_AUTHORS_CODE)")
    args = parser.parse_args()
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load_before, start = _common.load(), time.perf_counter()
    body = main(args.quick, args.authors)
    header = (
        "# Benchmarks\n\n"
        f"Command: `python benchmarks/run_all.py{' --quick' if args.quick else ''}"
        f"{' --authors PATH' if args.authors else ''}` (started {started}, {time.perf_counter() - start:.0f} s; "
        "each script in its own process; summary by hand in docs/performance.md).\n\n"
        f"## Machine\n\n{_common.machine()}"
        f"- load average (1 / 5 / 15 min): {load_before} at the start, {_common.load()} at the end; every "
        "table prints its own (2 cores shared with other engineers' jobs: wall-clock figures drop with the "
        "load, CPU-time figures show what one core gives this process)\n\n"
    )
    out = HERE.parent / "results" / ("benchmarks_quick.md" if args.quick else "benchmarks.md")
    out.write_text(header + body)
    print(f"wrote {out}", file=sys.stderr)
