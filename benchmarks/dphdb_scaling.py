"""DP-HDB time scaling with d K T (compiled path): fitted exponent of time ~ (d K T)^b.

Usage: ``python benchmarks/dphdb_scaling.py [--reps 3]``.

Configurations: d in {20, 63, 200, 632, 2000} (two decades) at K=5, T=4,000, plus K in {2, 10} and
T in {1,000, 16,000} at d=200. Warm-up fixed at t0=10 rounds per arm (so the forced-sampling share is
the same everywhere; the default t0 grows with log(dT)/epsilon^2). Each time is the median of
``reps`` interleaved runs of ``play_block`` over all T rounds (rounds drawn untimed); the exponent
is the least-squares slope of log time on log(d K T), over all points and over the d sweep alone.
"""

from __future__ import annotations

import _common  # noqa: F401  (first: one BLAS thread, set before numpy loads)

import argparse

import numpy as np

from _common import fmt, header, interleaved, load, rounds, table  # noqa: I001  (sets BLAS threads first)
from dpbandit.agents.dphdb import DPHDB

CONFIGS = [(d, 5, 4000) for d in (20, 63, 200, 632, 2000)]
CONFIGS += [(200, 2, 4000), (200, 10, 4000), (200, 5, 1000), (200, 5, 16000)]


def main(reps: int = 3) -> str:
    data = {cfg: rounds(cfg[0], cfg[1], cfg[2], seed=1)[:2] for cfg in CONFIGS}

    def setup(cfg):
        d, K, T = cfg
        X, R = data[cfg]
        agent = DPHDB(K, d, rng=np.random.default_rng(0), horizon=T, warmup=10)
        return lambda: agent.play_block(X, R)

    setup(CONFIGS[0])()  # load the compiled kernel
    timings = interleaved({cfg: (lambda cfg=cfg: setup(cfg)) for cfg in CONFIGS}, reps)
    secs = {clock: {cfg: t.median(clock) for cfg, t in timings.items()} for clock in ("wall", "cpu")}
    out = []
    for clock in ("wall", "cpu"):
        x = np.array([np.log(d * K * T) for d, K, T in CONFIGS])
        y = np.log([secs[clock][cfg] for cfg in CONFIGS])
        slope_all = np.polyfit(x, y, 1)[0]
        sweep = slice(0, 5)
        slope_d = np.polyfit(x[sweep], y[sweep], 1)[0]
        out.append((clock, slope_all, slope_d))
    rows = [
        [d, K, f"{T:,}", f"{d * K * T:.2e}",
         f"{secs['wall'][(d, K, T)]:.3f}", f"{secs['cpu'][(d, K, T)]:.3f}",
         fmt(T / secs["wall"][(d, K, T)])]
        for d, K, T in CONFIGS
    ]
    fits = "\n".join(
        f"- {clock} time: exponent {a:.3f} over all {len(CONFIGS)} points; "
        f"{b:.3f} over the d sweep (d=20..2000)"
        for clock, a, b in out
    )
    return (
        header()
        + f"DP-HDB compiled path, warm-up t0=10, median of {reps} interleaved runs (load {load()}):\n\n"
        + table(["d", "K", "T", "d K T", "seconds (wall)", "seconds (CPU)", "steps/s (wall)"], rows)
        + "\nFitted exponent b in time ~ (d K T)^b:\n\n" + fits + "\n"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    print(main(parser.parse_args().reps))
