"""DP-HDB's two vertex samplers, like for like: per-vertex Laplace draws against the top-down draw.

Usage: ``python benchmarks/dphdb_sampler.py [--reps 3]``.

Both sides run ``DPHDB.play_block`` (the compiled path) on the same rounds (the Section 5.4 environment's,
drawn untimed by ``_common.rounds``), the same seed, epsilon = 1, warm-up t0 = 20, at each (d, K): the same
algorithm and work per round except how the report-noisy-min of Algorithm 2 line 9 draws its noise
(``vertex_sampler="per-vertex"``: ``2 d`` Laplace numbers per arm step; ``"topdown"``: the noise's largest
order statistics until the winner is settled, :mod:`dpbandit.privacy.topdown`). The law of the choice is the
same; the random numbers differ. Median of ``reps`` interleaved runs; the "auto" column says which sampler the
default picks at that d.
"""

from __future__ import annotations

import _common  # noqa: F401  (first: one BLAS thread, set before numpy loads)

import argparse

import numpy as np

from _common import header, interleaved, load, rounds, table  # noqa: I001  (sets BLAS threads first)
from dpbandit.agents.dphdb import DPHDB, vertex_sampler_for

SIZES = [(50, 2), (200, 2), (1000, 2), (1000, 10), (5000, 10)]
SAMPLERS = ("per-vertex", "topdown")


def main(reps: int = 3) -> str:
    rows = []
    for d, K in SIZES:
        T = max(500, 4_000_000 // (d * K))  # about the same work per size
        X, R = rounds(d, K, T, seed=1)[:2]

        def setup(sampler: str, d: int = d, K: int = K, T: int = T, X=X, R=R):
            agent = DPHDB(K, d, rng=np.random.default_rng(0), horizon=T, warmup=20, vertex_sampler=sampler)
            return lambda: agent.play_block(X, R)

        setup("topdown")()  # load both compiled paths before timing
        setup("per-vertex")()
        times = interleaved({s: (lambda s=s: setup(s)) for s in SAMPLERS}, reps)
        us = {s: times[s].median() / T * 1e6 for s in SAMPLERS}
        cpu = {s: times[s].median("cpu") for s in SAMPLERS}
        rows.append([d, K, f"{T:,}", f"{us['per-vertex']:.1f}", f"{us['topdown']:.1f}",
                     f"{us['per-vertex'] / us['topdown']:.2f}", f"{cpu['per-vertex'] / cpu['topdown']:.2f}",
                     vertex_sampler_for("auto", d, "laplace")])
    return (
        header()
        + f"DP-HDB compiled path, epsilon = 1, t0 = 20, median of {reps} interleaved runs (load at the end {load()}); "
        "same rounds, seed and algorithm on both sides, only the selection's noise drawn differently:\n\n"
        + table(["d", "K", "T", "per-vertex us / round", "topdown us / round", "speed-up (wall)",
                 "speed-up (CPU)", "auto picks"], rows)
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    print(main(parser.parse_args().reps))
