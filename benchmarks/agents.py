"""Steps per second of every built-in agent, its random-number floor and its pure-numpy path.

Usage: ``python benchmarks/agents.py [--reps 5] [--seconds 0.3]`` (prints a markdown report).

For each (d, K) in {(50, 2), (50, 5), (500, 10), (5000, 10)} and agent, on rounds of the Section 5.4
environment of 004 (untimed), in steady state (DP-HDB's forced-sampling rounds are played untimed
first), interleaved over ``reps`` repetitions, medians:

* ``fast``: ``agent.play_block(X, R)`` (compiled kernel where the agent has one);
* ``numpy``: ``agent.play_block(X, R, compiled=False)`` (the act/update loop);
* ``floor``: drawing only the agent's per-round random numbers for the same rounds, with NumPy
  (DP-HDB: K x 2d Laplace draws per round with the project's sampler ``dpbandit.privacy.noise.laplace``,
  i.e. 2 standard exponentials each; DP-UCB: one (D+1) x (D+1) standard-normal matrix per round;
  random: one integer), and for DP-HDB also the same Laplace draws from compiled code (the kernel's
  own ``_lap1``).

Per-arm agents (shared LinUCB, OFUL, DP-UCB) see block features of dimension D = d K.
"""

from __future__ import annotations

import _common  # noqa: F401  (first: one BLAS thread, set before numpy loads)

import argparse
import functools
import math
import sys
import time

import numba
import numpy as np

from _common import fmt, interleaved, load, rounds, table  # noqa: I001  (sets BLAS threads first)
from dpbandit.agents import agent_class
from dpbandit.agents.kernels.hdb import _lap1
from dpbandit.privacy.noise import laplace
from envs.wrappers import block_features

GRID = [(50, 2), (50, 5), (500, 10), (5000, 10)]
AGENTS = ["random", "linucb", "greedy", "shared-linucb", "oful", "dphdb", "dpucb"]
HORIZON = 10_000
PER_ARM = {"shared-linucb", "oful", "dpucb"}
MAX_BYTES = 2**30  # 1 GB of agent state: larger configurations are reported as infeasible


@numba.njit(cache=True)
def _laplace_floor(rng: np.random.Generator, n: int) -> float:
    s = 0.0
    for _ in range(n):
        s += _lap1(rng)
    return s


def infeasible(name: str, d: int, K: int) -> str | None:
    """Why (name, d, K) is not run, or None."""
    D = d * K if name in PER_ARM else d
    models = K if name in ("linucb", "greedy") else 1
    if name in ("random", "dphdb"):
        return None
    if models * D * D * 8 > MAX_BYTES:
        return f"{models} x {D} x {D} state > 1 GB"
    if name == "dpucb" and D > 1000:
        return f"a {D} x {D} Cholesky and {(D + 1) ** 2:,} normals per round (~seconds per round)"
    return None


def make(name: str, d: int, K: int, seed: int = 0):
    cls = agent_class(name)
    D = d * K if name in PER_ARM else d
    return cls(n_arms=K, dim=D, rng=np.random.default_rng(seed), horizon=HORIZON)


def floor_work(name: str, d: int, K: int, n: int):
    """The random numbers the agent draws per round, for n rounds (None: none per round)."""
    rng = np.random.default_rng(1)
    if name == "dphdb":
        return lambda: laplace(rng, 1.0, (n, K, 2 * d))
    if name == "dpucb":
        D = d * K

        def draw() -> None:
            for _ in range(n):
                rng.standard_normal((D + 1, D + 1))

        return draw
    if name == "random":
        return lambda: [rng.integers(K) for _ in range(n)]
    return None


def measure(name: str, d: int, K: int, reps: int, seconds: float) -> dict[str, float]:
    """Median steps/s of the fast path, the numpy path and the floor(s)."""
    probe = make(name, d, K)
    skip = probe.n_arms * probe.warmup if name == "dphdb" else 0
    # pilot: estimate the per-round cost of each path on a few rounds to size n
    X, R, _ = rounds(d, K, skip + 64, horizon=HORIZON)
    obs = block_features(X / math.sqrt(d), K) if name in PER_ARM else X

    def setup(compiled: bool, n: int, obs=obs, R=R):
        agent = make(name, d, K)
        if skip:
            agent.play_block(obs[:skip], R[:skip])
        if not hasattr(agent, "play_block"):
            from dpbandit.agents.linear import play_loop

            return lambda: play_loop(agent, obs[skip : skip + n], R[skip : skip + n])
        return lambda: agent.play_block(obs[skip : skip + n], R[skip : skip + n], compiled=compiled)

    n_of = {}
    for compiled in (True, False):
        pilot = setup(compiled, 8)
        pilot()  # compile / warm caches
        pilot = setup(compiled, 32 if name != "dpucb" else 8)
        start = time.perf_counter()
        pilot()
        rate = (32 if name != "dpucb" else 8) / (time.perf_counter() - start)
        n_of[compiled] = int(min(HORIZON - skip, max(8, rate * seconds)))
    n_max = max(n_of.values())
    X, R, _ = rounds(d, K, skip + n_max, horizon=HORIZON)
    obs = block_features(X / math.sqrt(d), K) if name in PER_ARM and n_max * K * d * K < 2**27 else None
    if name in PER_ARM and obs is None:
        raise MemoryError("block features too large")
    if obs is None:
        obs = X
    variants = {
        "fast": functools.partial(setup, True, n_of[True], obs, R),
        "numpy": functools.partial(setup, False, n_of[False], obs, R),
    }
    n_floor = n_of[True]
    if floor_work(name, d, K, 1) is not None:
        variants["floor"] = lambda: floor_work(name, d, K, n_floor)
    if name == "dphdb":
        rng = np.random.default_rng(2)
        _laplace_floor(rng, 10)
        variants["floor_compiled"] = lambda: functools.partial(_laplace_floor, rng, n_floor * K * 2 * d)
    secs = interleaved(variants, reps)
    rate = {
        clock: {k: (n_of[True] if k != "numpy" else n_of[False]) / v for k, v in by.items()}
        for clock, by in secs.items()
    }
    rate["n_fast"], rate["n_numpy"] = n_of[True], n_of[False]
    return rate


def dphdb_full_runs(reps: int) -> str:
    """Whole harness runs (env, warm-up and all) of DP-HDB at d=50, K=5, T=10,000: block vs step path."""
    import importlib

    from dpbandit.harness import seeding

    run_module = importlib.import_module("dpbandit.harness.run")
    dphdb = agent_class("dphdb")
    seed = seeding.seed_sequence(0, 0)
    kwargs = dict(horizon=HORIZON, env_kwargs={"n_arms": 5, "dim": 50})

    def setup(block: bool):
        def work() -> None:
            original = run_module.uses_block_path
            run_module.uses_block_path = (lambda agent: False) if not block else original
            try:
                run_module.run_one("dpbandit/HDBSection54-v0", "dphdb", dphdb, seed, **kwargs)
            finally:
                run_module.uses_block_path = original

        return work

    secs = interleaved({"block": lambda: setup(True), "steps": lambda: setup(False)}, reps)
    wall, cpu = secs["wall"], secs["cpu"]
    rows = [[k, fmt(HORIZON / wall[k]), fmt(HORIZON / cpu[k]), f"{wall[k]:.3f}"] for k in wall]
    return (
        f"Harness `run_one` on `dpbandit/HDBSection54-v0` (d=50, K=5, T=10,000, epsilon=1, t0=120), "
        f"env and warm-up included, median of {reps} (load {load()}):\n\n"
        + table(["path", "steps/s (wall)", "steps/s (CPU time)", "seconds (wall)"], rows)
        + f"\nratio block/step path: {wall['steps'] / wall['block']:.1f}x (wall)\n"
    )


def main(reps: int = 5, seconds: float = 0.3) -> str:
    out = [f"Load average before: {load()}. Steps/s: wall-clock median (CPU-time median in brackets).\n\n"]
    rows = []
    for d, K in GRID:
        for name in AGENTS:
            why = infeasible(name, d, K)
            if why:
                rows.append([f"({d}, {K})", name, "not run: " + why, "-", "-", "-", "-", "-"])
                continue
            r = measure(name, d, K, reps, seconds)
            w, c = r["wall"], r["cpu"]
            same = name in ("random", "shared-linucb", "oful", "dpucb")
            floor = w.get("floor", math.nan)
            fc = w.get("floor_compiled", math.nan)
            ratio = "-" if floor != floor else f"{floor / w['fast']:.2f} (CPU {c['floor'] / c['fast']:.2f})"
            if fc == fc:
                ratio += f"; compiled floor: {fc / w['fast']:.2f} (CPU {c['floor_compiled'] / c['fast']:.2f})"
            rows.append([
                f"({d}, {K})",
                name,
                f"{fmt(w['fast'])} ({fmt(c['fast'])})",
                "same path" if same else f"{fmt(w['numpy'])} ({fmt(c['numpy'])})",
                "1" if same else f"{w['fast'] / w['numpy']:.1f}",
                fmt(floor) + ("" if fc != fc else f" (compiled: {fmt(fc)})"),
                ratio,
                f"{r['n_fast']:,} / {r['n_numpy']:,}",
            ])
            print(rows[-1], file=sys.stderr, flush=True)
    out.append(
        table(
            ["(d, K)", "agent", "steps/s wall (CPU)", "numpy path steps/s wall (CPU)", "fast/numpy",
             "floor steps/s (wall)", "agent time / floor time", "rounds timed (fast / numpy)"],
            rows,
        )
    )
    out.append(f"\nLoad average after: {load()}\n\n")
    out.append(dphdb_full_runs(max(3, reps // 2)))
    return "".join(out)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=0.3, help="target seconds per timing")
    args = parser.parse_args()
    print(main(args.reps, args.seconds))
