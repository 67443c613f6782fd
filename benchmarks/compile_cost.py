"""First-call cost of the compiled kernels: cold (empty numba cache) and warm (``cache=True`` on disk).

Usage: ``python benchmarks/compile_cost.py [--repeats 2]``.

Each measurement runs in a fresh interpreter with ``NUMBA_CACHE_DIR`` pointing at a new directory for
the cold run, then reused for the warm run: the time of the first ``play_block`` call on 200 rounds
minus the time of a second identical call on a fresh agent (the steady cost). Compilation is CPU
bound and single-threaded, so it slows down with the load average (printed with each repetition).
"""

from __future__ import annotations

import _common  # noqa: F401  (first: one BLAS thread, set before numpy loads)

import argparse
import json
import subprocess
import sys
import tempfile

from _common import header, load, table  # noqa: I001

PROBE = r"""
import json, time
import numpy as np
from dpbandit.agents.dphdb import DPHDB
from dpbandit.agents.dpucb_disjoint import DisjointDPUCB
from dpbandit.agents.linear import LinUCB
rng = np.random.default_rng(0)
X = rng.uniform(-1, 1, (200, 10)); R = rng.normal(size=(200, 3))
out = {}
for name, make in [("DP-HDB", lambda: DPHDB(3, 10, rng=np.random.default_rng(0), horizon=200, warmup=5)),
                   ("DP-UCB disjoint", lambda: DisjointDPUCB(3, 10, rng=np.random.default_rng(0), horizon=200)),
                   ("LinUCB", lambda: LinUCB(3, 10, rng=np.random.default_rng(0)))]:
    times = []
    for _ in range(2):
        agent = make()
        start = time.perf_counter(); agent.play_block(X, R); times.append(time.perf_counter() - start)
    out[name] = times[0] - times[1]
print(json.dumps(out))
"""


def probe(cache_dir: str) -> dict[str, float]:
    env = {"NUMBA_CACHE_DIR": cache_dir, "PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(repeats: int = 2) -> str:
    rows = []
    for repeat in range(repeats):
        before = load()
        with tempfile.TemporaryDirectory() as cache:
            cold = probe(cache)
            warm = probe(cache)
        rows += [[repeat + 1, k, f"{cold[k]:.2f}", f"{warm[k]:.3f}", f"{before} -> {load()}"] for k in cold]
    return (
        header()
        + "First `play_block` call minus a steady call, fresh interpreter each:\n\n"
        + table(["repetition", "kernel", "cold: compile (s)", "warm: load from cache (s)",
                 "load average before -> after"], rows)
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    print(main(parser.parse_args().repeats))
