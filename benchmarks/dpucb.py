"""DP-UCB on the shared-context model: memory of the two variants, and regret at the Figure 5.1 setting.

Usage: ``python benchmarks/dpucb.py [--horizon 10000] [--seeds 5]``.

1. Memory. ``dpucb-disjoint`` keeps, per arm, the exact packed sums and one running noise sum per
   tree level (``P = d(d+3)/2`` floats each) and a ``d x d`` factor: ``8 K (P (depth + 1) + d^2 + 2d)``
   bytes with ``depth = bit_length(T)``, i.e. O(K d^2 log T). The table lists the bytes its arrays
   hold (allocated at construction) over a grid of (d, K, T), divided by ``K d^2 log2 T``.
2. A whole harness run of each variant at d=50, K=5, T=10,000 (paper calibration, epsilon=1): wall
   time, peak traced allocations (``tracemalloc``, a second run) and the process's peak RSS.
3. Regret at the Figure 5.1 setting (``dpbandit/HDBSection54-v0``: d=50, K=2, T=10,000, epsilon=1,
   delta=1/T, accountant calibration, L = sqrt(50)), root seed 2022 and the labels of
   ``sims/fig5_1.py``, so the block-feature variant's regrets are those of ``results/fig5_1.csv``
   (checked).
"""

from __future__ import annotations

import _common  # noqa: F401  (first: one BLAS thread, set before numpy loads)

import argparse
import functools
import math
import pathlib
import resource
import time
import tracemalloc

import numpy as np
import pandas as pd

from _common import fmt, header, load, table  # noqa: I001  (sets BLAS threads first)
from dpbandit.agents.dpucb import DPUCB
from dpbandit.agents.dpucb_disjoint import DisjointDPUCB
from dpbandit.agents.uniform import RandomAgent
from dpbandit.harness import run, seeding, t_interval
from dpbandit.harness.run import run_one

ENV = "dpbandit/HDBSection54-v0"
RESULTS = pathlib.Path(__file__).resolve().parents[1] / "results"
MEMORY_GRID = [(50, 5, 10_000), (50, 5, 1_000_000), (100, 5, 10_000), (50, 10, 10_000), (500, 10, 10_000),
               (500, 10, 1_000_000)]


def state_bytes(agent: DisjointDPUCB) -> int:
    """Bytes held by the agent's arrays."""
    arrays = (agent.exact, agent.noise_sums, agent.factor, agent.u, agent.theta_hat, agent.scale)
    return sum(a.nbytes for a in arrays)


def memory_table() -> str:
    rows = []
    for d, K, T in MEMORY_GRID:
        agent = DisjointDPUCB(K, d, rng=np.random.default_rng(0), horizon=T)
        size = state_bytes(agent)
        P, depth = d * (d + 3) // 2, T.bit_length()
        formula = 8 * K * (P * (depth + 1) + d * d + 2 * d) + 8 * P
        rows.append([d, K, f"{T:,}", depth, f"{size / 2**20:.2f}", f"{formula / 2**20:.2f}",
                     f"{size / (K * d * d * math.log2(T)):.2f}"])
        del agent
    return (
        "State of `dpucb-disjoint` (arrays allocated at construction; the noise sums are zero pages until "
        "their level is first used):\n\n"
        + table(["d", "K", "T", "depth", "MB held", "MB by the formula", "bytes / (K d^2 log2 T)"], rows)
    )


def whole_runs(horizon: int) -> str:
    """Time and peak memory of one harness run of each variant at d=50, K=5."""
    d, K = 50, 5
    factories = {"dpucb-disjoint": DisjointDPUCB, "dpucb-block": functools.partial(DPUCB, feature_bound=math.sqrt(d))}
    rows = []
    for name, factory in factories.items():
        def one_run(factory=factory, name=name) -> None:
            run_one(ENV, name, factory, seeding.seed_sequence(0, 0), horizon=horizon,
                    env_kwargs={"n_arms": K, "dim": d})

        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        wall, cpu = time.perf_counter(), time.process_time()
        one_run()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        tracemalloc.start()
        one_run()
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        rows.append([name, f"{wall:.2f}", fmt(horizon / wall), fmt(horizon / cpu), f"{peak:.1f}",
                     f"{rss_before:.0f} -> {rss_after:.0f}"])
    naive = horizon * (d * K) ** 2 * 8 / 2**30
    return (
        f"Whole harness runs at d={d}, K={K} (D={d * K} for the block variant), T={horizon:,}, paper "
        f"calibration, epsilon=1 (env, features and agent; load {load()}):\n\n"
        + table(["variant", "wall s", "steps/s (wall)", "steps/s (CPU)", "peak traced MB (tracemalloc)",
                 "process peak RSS MB (before -> after the first run)"], rows)
        + f"\nFor comparison, the authors' T x D x D noise array at D={d * K} would take {naive:.1f} GB.\n"
    )


def regret(horizon: int, seeds: int) -> str:
    """Final regret of both variants (and random play) at the Figure 5.1 setting."""
    d = 50
    agents = {
        "DP-UCB (accountant calibration)": functools.partial(DPUCB, feature_bound=math.sqrt(d), calibration="accountant"),
        "DP-UCB disjoint (accountant calibration)": functools.partial(DisjointDPUCB, calibration="accountant"),
        "random": RandomAgent,
    }
    start = time.perf_counter()
    df = run(ENV, agents, n_seeds=seeds, root_seed=2022, horizon=horizon, n_points=20, progress=False)
    seconds = time.perf_counter() - start
    final = df[df["step"] == horizon].pivot(index="seed", columns="agent", values="cumulative_regret")
    rows = []
    for name in agents:
        values = final[name].to_numpy()
        low, high = t_interval(values)
        eps = df.loc[df["agent"] == name, "epsilon"].iloc[0]
        rows.append([name, f"{values.mean():.0f}", f"[{low:.0f}, {high:.0f}]", ", ".join(f"{v:.0f}" for v in values),
                     "-" if eps != eps else f"{eps:.3f}"])
    diff = final["DP-UCB disjoint (accountant calibration)"] - final["DP-UCB (accountant calibration)"]
    low, high = t_interval(diff.to_numpy())
    check = _matches_fig5_1(final["DP-UCB (accountant calibration)"], horizon)
    return (
        f"Final cumulative regret at the Figure 5.1 setting ({ENV}: d={d}, K=2, T={horizon:,}, epsilon=1, "
        f"delta=1/T, accountant calibration, L=sqrt(50)), {seeds} seeds (root seed 2022, common random "
        f"numbers), {seconds:.0f} s (load {load()}):\n\n"
        + table(["agent", "mean", "95% CI", "per seed", "accountant epsilon"], rows)
        + f"\nPaired difference disjoint - block: {diff.mean():.0f}, 95% CI [{low:.0f}, {high:.0f}]. {check}\n"
    )


def _matches_fig5_1(block: pd.Series, horizon: int) -> str:
    path = RESULTS / "fig5_1.csv"
    if not path.exists() or horizon != 10_000:
        return ""
    saved = pd.read_csv(path, comment="#")
    saved = saved[(saved["agent"] == "DP-UCB (accountant calibration)") & (saved["step"] == horizon)]
    saved = saved.set_index("seed")["cumulative_regret"].reindex(block.index)
    same = np.allclose(saved.to_numpy(), block.to_numpy(), rtol=1e-5)
    return f"Block-variant regrets equal `results/fig5_1.csv` (same seeds, 6 digits): {'yes' if same else 'NO'}."


def main(horizon: int = 10_000, seeds: int = 5) -> str:
    return "\n".join([header(), memory_table(), whole_runs(horizon), regret(horizon, seeds)])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizon", type=int, default=10_000)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    print(main(args.horizon, args.seeds))
