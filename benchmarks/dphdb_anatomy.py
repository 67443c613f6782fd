"""Where DP-HDB's time above its random-number floor goes: the kernel against stripped copies of itself.

Usage: ``python benchmarks/dphdb_anatomy.py [--grid 50,5] [--reps 5] [--processes 3]`` (prints a markdown
table). Every process compiles its own copies, and where the machine code lands moves the ratios by several
percent from one process to the next (kernel / floor 1.39-1.54 over eleven processes at load 1), so each
process has a column of its own.

Each variant is ``dpbandit/agents/kernels/hdb.py`` with parts cut out of its source (compiled fresh, no
cache) and run through the agent's own ``play_block`` on the same rounds after the same warm-up; the floor
is ``benchmarks/agents.py``'s (the agent's K x 2d Laplace numbers drawn inline, nothing else). The stripped
variants play different actions (they are not DP-HDB): they measure cost, nothing else.

* ``kernel``: DP-HDB as shipped.
* ``no draws``: the kernel with each Laplace number replaced by a constant (everything but the draws).
* ``selection only``: per instance only Algorithm 2 line 9 (a draw per vertex, added to a stale score
  and compared with the running minimum); no gradient recursion, no scores, no Frank-Wolfe step, no
  pre-selection.
* ``draws only``: per instance only the 2d Laplace numbers, summed (the floor's work inside the
  kernel's frame).
"""

from __future__ import annotations

import _common  # noqa: F401  (first: one BLAS thread, set before numpy loads)

import argparse
import functools
import json
import pathlib
import statistics
import subprocess
import sys

from _common import header, interleaved, load, rounds_for, table  # noqa: I001
import dpbandit.agents.kernels.hdb as hdb
from agents import Bench, kernel_module

SOURCE = pathlib.Path(hdb.__file__)

_STEP_START = "    d = theta.shape[1]\n    t = counts[i] + 1\n"
_SELECTION = "    best = 0\n    if sampler == TOPDOWN:"
_AFTER_SELECTION = "    index = best % d"
_STEP_END = "    counts[i] = t\n"
_PRESELECTION = ("                n = best_arms(scores, ties)\n                if n > 1:\n"
                 "                    return TIE, s, n\n                a = ties[0]", "                a = 0")
_PRESELECTION_SUMS = ("for k0 in range(0, K, 2):", "for k0 in range(0, 0, 2):")


def _replace(source: str, old: str, new: str) -> str:
    if old not in source:
        raise RuntimeError(f"the kernel changed: {old.strip()[:60]!r} not found; update this benchmark")
    return source.replace(old, new)


def _selection_only(source: str, summed: bool) -> str:
    """``_pofw_step`` reduced to its selection loop (or to summing its draws); no pre-selection."""
    start, select = source.index(_STEP_START), source.index(_SELECTION)
    after = source.index(_AFTER_SELECTION)
    end = source.index(_STEP_END, after)
    body = source[select:after]
    if summed:
        body = ("    best = 0\n    total = 0.0\n    for j in range(2 * d):\n        total += _lap1(rng)\n"
                "    best = 1 if total > 0 else 0\n")
    source = source[:start] + _STEP_START + body + "    theta[i, 0] = best\n" + source[end:]
    return _replace(_replace(source, *_PRESELECTION), *_PRESELECTION_SUMS)


def variants() -> dict[str, str]:
    """Name -> kernel source."""
    source = SOURCE.read_text()
    no_draws = _replace(source, "val = scores[j] + _lap1(rng)", "val = scores[j] + 0.001 * j")
    no_draws = _replace(no_draws, "val = -scores[j] + _lap1(rng)", "val = -scores[j] - 0.001 * j")
    return {"kernel": source, "no draws": no_draws, "selection only": _selection_only(source, summed=False),
            "draws only": _selection_only(source, summed=True)}


def measure(d: int, K: int, reps: int) -> dict[str, float]:
    """In this process: median seconds per round of the floor and of each variant."""
    bench = Bench("dphdb", d, K)
    makers = {"floor": bench.floor}
    for name, source in variants().items():
        module = kernel_module(source, "hdb_" + name.replace(" ", "_"))
        makers[name] = functools.partial(bench.play, True, kernel_play=module.play)
    for make in makers.values():  # compile every variant before any window is timed
        make(64)()
    n = rounds_for(makers["kernel"], 64)
    bench.draw(n)
    secs = interleaved({name: functools.partial(make, n) for name, make in makers.items()}, reps)
    return {"rounds": n, **{name: t.median() / n for name, t in secs.items()}}


def main(d: int = 50, K: int = 5, reps: int = 5, processes: int = 3) -> str:
    """Each process compiles its own copies (machine code lands at other addresses: the ratios move)."""
    runs = []
    for _ in range(processes):
        done = subprocess.run([sys.executable, __file__, "--grid", f"{d},{K}", "--reps", str(reps), "--one"],
                              capture_output=True, text=True, check=True)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    names = [key for key in runs[0] if key != "rounds"]
    rows = [[name, f"{1e6 * statistics.median(r[name] for r in runs):.2f}",
             *(f"{r[name] / r['floor']:.3f}" for r in runs)] for name in names]
    windows = ", ".join(f"{r['rounds']:,}" for r in runs)
    return (header() + f"DP-HDB at (d, K) = ({d}, {K}); {processes} fresh processes, each timing every "
            f"variant over {reps} interleaved repetitions of windows of {windows} rounds after the warm-up "
            f"(load at the end {load()}):\n\n"
            + table(["variant", "us per round (median over processes)",
                     *(f"time / floor, process {i + 1}" for i in range(processes))], rows))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", default="50,5", help="d,K")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--one", action="store_true", help="measure in this process, print JSON")
    args = parser.parse_args()
    d, K = (int(v) for v in args.grid.split(","))
    print(json.dumps(measure(d, K, args.reps)) if args.one else main(d, K, args.reps, args.processes))
