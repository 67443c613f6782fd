"""Estimate a whole study's run time from fresh per-cell timings (issue 31 item 3): the learning suite or the
privacy frontier, without running it.

Usage: ``python benchmarks/study_cost.py learning_suite|privacy_frontier [--settings S1 ...] [--short 2000]
[--full-above 60] [--longest ROUNDS] [--cores 2] [--builds-only]``

The study's own sweeps are built by its script (``sims/learning_suite.py``: ``chosen_settings`` and
``entries_for``; ``sims/privacy_frontier.py``: ``sweep_configs``), with its seeds and horizons. Cells that
differ only in their seed form a group; one cell of each group (seed 0) is run in this process, through the
sweep's own :func:`dpbandit.sweep.backends.run_cell`:

1. at ``h = min(T, --short)`` rounds, after an untimed run of the same ``h`` rounds (so the numba kernels are
   loaded and the calibration at ``h`` is cached: a per-process or per-machine cost, not a per-cell one);
2. if that predicts more than ``--full-above`` CPU-seconds for the group (per-round time x T x seeds),
   again at the full horizon ``T`` (a calibration at ``T`` not yet in the machine's cache is then in its
   set-up, and counted once per seed: an overestimate), or at ``--longest`` rounds if that is shorter (to keep
   the measurement itself short: a group costing minutes per run is then scaled from that many rounds).

``--builds-only`` times, instead, building each group's agent at its own horizon once: with the calibration
cache cold (a fresh machine, or a changed calibration) that is the study's one-off search cost, and it leaves
the cache warm for the study's run.

A group whose run raises (as the sweep would record it as failed) is listed with its error and counted as
nothing: the sweep pays only the rounds before the error. A group's estimate is the per-round time of its
longest run x T x seeds, plus its per-run set-up (building the agent and the environment: :func:`timed`) x
seeds.
Scaling a short run up to ``T`` is exact for agents whose rounds cost the same throughout (LinUCB, DP-HDB,
random); it overestimates the batched agents (their cost per round falls as batches double) and slightly
underestimates the tree-based ones (``log t`` nodes), which is why the costly groups are run at full ``T``.
Times are CPU seconds of this process (``time.process_time``: what one core gave, whatever the load); the
suite runs each sweep's seeds on ``--cores`` workers, so a sweep's wall time is ``ceil(seeds / cores)`` runs,
plus the measured fixed cost of a sweep (0.12 s with kept worker pools) and of starting the pool (10 s):
both stated in docs/performance.md, added here as constants.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
from collections import defaultdict
from pathlib import Path

import _common  # noqa: F401  (first: one BLAS thread, set before numpy loads)
from _common import header, load, table

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sims"))

#: Seconds a sweep costs besides its cells, with the worker pool kept (docs/performance.md, "Sweeps").
SWEEP_OVERHEAD = 0.12
#: Seconds to start the worker pool once per study (docs/performance.md, "Sweeps": 9.8-10.1 s at load 8).
POOL_START = 10.0


def learning_suite_sweeps(settings: list[str] | None) -> list:
    """The learning suite's sweeps as ``python sims/learning_suite.py`` builds them (full, no ``--quick``)."""
    import learning_suite as suite

    args = argparse.Namespace(stem="learning_suite", root_seed=2311, seeds_override=None,
                              horizon_override=None, agents=None, all_agents=False)
    return [suite.sweep_of(s, entry, args) for s in suite.chosen_settings(settings) for entry in
            suite.entries_for(s, args)]


def privacy_frontier_sweeps() -> list:
    """The frontier's sweeps, as ``python sims/privacy_frontier.py`` builds them (10 seeds, both horizons)."""
    import privacy_frontier as frontier

    from dpbandit.sweep import Sweep

    configs, refs = frontier.sweep_configs("privacy_frontier", False, 10, 2022, False)
    return [Sweep.from_dict(config) for config in [*configs, refs]]


def timed(cell) -> tuple[float, float]:
    """CPU seconds of one ``run_cell``: its rounds' and its set-up's (building the environment and the agent).

    The run's CPU time is split between the two as its wall time is (the harness's ``wall_time`` at the
    horizon covers the rounds only), so a busy machine slows neither share.
    """
    from dpbandit.sweep.backends import run_cell

    cpu, wall = time.process_time(), time.perf_counter()
    frame = run_cell(cell)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    rounds = cpu * min(float(frame["wall_time"].iloc[-1]) / wall, 1.0)
    return rounds, cpu - rounds


def build_seconds(cell) -> float:
    """CPU seconds to build the cell's environment and agent at its own horizon (its calibration searched, or
    read from the machine's cache: ``dpbandit.privacy.calibration_cache``)."""
    from dpbandit.harness import seeding
    from dpbandit.harness.run import _start

    start = time.process_time()
    seed = seeding.seed_sequence(cell.root_seed, cell.seed)
    made = _start(cell.env_id, *cell.factory(), seed, cell.horizon, dict(cell.env_kwargs))[0]
    made.close()
    return time.process_time() - start


def rounds_of(cell) -> int:
    """The cell's horizon (its environment's default when it sets none), as the study's ETA counts it."""
    from dpbandit.sweep.study import _rounds

    return _rounds(cell)


def measure(cell, seeds: int, short: int, full_above: float, longest: int | None) -> dict:
    """Per-round CPU time and set-up of one group (module docstring, steps 1 and 2; step 2 at most ``longest``
    rounds when given)."""
    T = rounds_of(cell)
    h = min(T, short)
    probe = dataclasses.replace(cell, horizon=h)
    timed(probe)  # untimed warm-up: kernels loaded, calibration at h cached
    rounds, setup = timed(probe)
    got = {"per_round": rounds / h, "setup": setup, "measured": h, "T": T}
    full = min(T, longest or T)
    if h < full and got["per_round"] * T * seeds > full_above:
        rounds, setup = timed(dataclasses.replace(cell, horizon=full))
        got.update(per_round=rounds / full, setup=setup, measured=full)
    return got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("study", choices=["learning_suite", "privacy_frontier"])
    parser.add_argument("--settings", nargs="*", default=None, help="learning suite only: these settings")
    parser.add_argument("--short", type=int, default=2000)
    parser.add_argument("--full-above", type=float, default=60.0, help="CPU-seconds per group")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--builds-only", action="store_true",
                        help="only build each group's agent at its horizon, timed (calibrations)")
    parser.add_argument("--longest", type=int, default=None,
                        help="step 2 runs at most this many rounds (default: the full horizon)")
    args = parser.parse_args()
    suite = args.study == "learning_suite"
    sweeps = learning_suite_sweeps(args.settings) if suite else privacy_frontier_sweeps()
    print(header())
    wall_start, cpu_start = time.perf_counter(), time.process_time()
    rows, cpu_total, wall_total, builds = [], 0.0, POOL_START, []
    for sweep in sweeps:
        groups = defaultdict(list)
        for cell in sweep.cells:
            groups[dataclasses.replace(cell, seed=0)].append(cell.seed)
        wall_total += SWEEP_OVERHEAD
        for cell, seeds in groups.items():
            if args.builds_only:
                try:
                    seconds = build_seconds(cell)
                except Exception as error:  # noqa: BLE001  (a refusal: listed, as below)
                    seconds, cell_error = math.nan, str(error).splitlines()[0][:80]
                else:
                    cell_error = ""
                builds.append(0.0 if math.isnan(seconds) else seconds)
                print(f"{sweep.name} | {cell.agent} | {cell.epsilon} | {rounds_of(cell):,} | build "
                      f"{seconds:.2f} s {cell_error}", flush=True)
                continue
            try:
                got = measure(cell, len(seeds), args.short, args.full_above, args.longest)
            except Exception as error:  # noqa: BLE001  (the sweep records a failed cell and goes on)
                message = str(error).splitlines()[0] if str(error) else type(error).__name__
                rows.append([sweep.name, cell.agent, cell.epsilon, "", len(seeds), "", "", "",
                             f"fails: {message[:80]}"])
                print(" | ".join(str(x) for x in rows[-1]), flush=True)
                continue
            run = got["per_round"] * got["T"] + got["setup"]
            cpu_total += run * len(seeds)
            wall_total += run * math.ceil(len(seeds) / args.cores)
            rows.append([sweep.name, cell.agent, cell.epsilon, f"{got['T']:,}", len(seeds),
                         f"{got['measured']:,}",
                         f"{got['per_round'] * 1e6:,.1f}", f"{got['setup']:.2f}",
                         f"{run * len(seeds) / 60:.2f}"])
            print(" | ".join(str(x) for x in rows[-1]), flush=True)
    if args.builds_only:
        print(f"\n{args.study}: {len(builds)} groups built at their horizons in {sum(builds):.1f} "
              f"CPU-seconds (the longest {max(builds):.1f} s); load average (1 / 5 / 15 min) at the end: "
              f"{load()}")
        return
    columns = ["sweep", "agent", "epsilon", "T", "seeds", "rounds timed", "us / round (CPU)",
               "set-up s / run", "estimate, CPU-min"]
    print()
    print(table(columns, rows))
    print(f"\n{args.study}: {len(sweeps)} sweeps, {sum(len(s.cells) for s in sweeps)} cells; estimated "
          f"{cpu_total / 60:.1f} CPU-minutes of runs, {wall_total / 60:.1f} minutes of wall time on "
          f"{args.cores} cores (each sweep's seeds split over the cores, + {SWEEP_OVERHEAD} s per sweep + "
          f"{POOL_START:.0f} s pool start)")
    spent = time.perf_counter() - wall_start, time.process_time() - cpu_start
    print(f"this measurement: {spent[0]:.0f} s wall, {spent[1]:.0f} s CPU; load average (1 / 5 / 15 min) "
          f"at the end: {load()}")


if __name__ == "__main__":
    main()
