"""DP-HDB's final regret as the dimension d grows at fixed sparsity (Theorem 4.3 of 004: poly-log in d).

Setting: ``dpbandit/HDBSection54-v0`` with ``dim`` overridden (K = 2, 5-sparse parameters, T = 10,000,
delta = 1/T), d in {50, 100, 200, 500, 1000, 2000, 5000}. Agents: DP-HDB at epsilon = 1 (the issue's
setting) and at epsilon = 1000 (where its noise no longer swamps the gradient signal, see
results/regret_vs_epsilon.md), DP-HDB with noise off, and random play (whose regret itself changes
with d, because ||x||_inf = 1 normalisation shrinks the typical coordinate like 1/sqrt(log d)); the
figure shows both the regret and the regret relative to random play against log d.

Usage: python sims/regret_vs_dimension.py [--quick] [--seeds 5]
Writes results/regret_vs_dimension.csv, .png and .md.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import functools  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from fig5_1 import ENV_ID, RESULTS, markdown  # noqa: E402
from tqdm import tqdm  # noqa: E402

from dpbandit.agents.dphdb import DPHDB  # noqa: E402
from dpbandit.agents.uniform import RandomAgent  # noqa: E402
from dpbandit.harness import final_regret_table, run  # noqa: E402

DIMS = (50, 100, 200, 500, 1000, 2000, 5000)
AGENTS = {
    "DP-HDB eps=1": functools.partial(DPHDB, epsilon=1.0),
    "DP-HDB eps=1000": functools.partial(DPHDB, epsilon=1000.0),
    "DP-HDB noise off (not private)": functools.partial(DPHDB, noise=False),
    "random": RandomAgent,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="T=2000, 2 seeds, d in {50, 500}")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--horizon", type=int, default=10_000)
    parser.add_argument("--root-seed", type=int, default=2022)
    args = parser.parse_args()
    horizon, seeds = (2000, 2) if args.quick else (args.horizon, args.seeds)
    dims = (50, 500) if args.quick else DIMS
    stem = "regret_vs_dimension_quick" if args.quick else "regret_vs_dimension"
    tables = []
    for dim in tqdm(dims, desc="dimension"):
        df = run(ENV_ID, AGENTS, n_seeds=seeds, root_seed=args.root_seed, horizon=horizon,
                 env_kwargs={"dim": dim}, n_points=4, progress=False)
        tables.append(final_regret_table(df).assign(dim=dim))
    result = pd.concat(tables, ignore_index=True)
    random = result[result["agent"] == "random"].set_index("dim")["final_regret_mean"]
    result["relative_to_random"] = result["final_regret_mean"] / result["dim"].map(random)
    RESULTS.mkdir(exist_ok=True)
    result.to_csv(RESULTS / f"{stem}.csv", index=False)

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.3))
    for name, group in result.groupby("agent", sort=False):
        axes[0].errorbar(group["dim"], group["final_regret_mean"],
                         yerr=[group["final_regret_mean"] - group["ci95_low"],
                               group["ci95_high"] - group["final_regret_mean"]],
                         marker="o", capsize=3, label=name)
        axes[1].plot(group["dim"], group["relative_to_random"], marker="o", label=name)
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("dimension d (log scale), sparsity 5")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(f"final cumulative regret at T={horizon}")
    axes[1].set_ylabel("regret / regret of random play")
    axes[0].legend(fontsize=8)
    fig.suptitle(f"DP-HDB vs dimension (K=2, delta=1/T, {seeds} seeds, 95% CI)")
    fig.tight_layout()
    fig.savefig(RESULTS / f"{stem}.png", dpi=130)
    plt.close(fig)

    command = "python " + " ".join(shlex.quote(a) for a in sys.argv)
    cols = ["agent", "dim", "final_regret_mean", "ci95_low", "ci95_high", "relative_to_random", "wall_time_s"]
    with open(RESULTS / f"{stem}.md", "w") as fh:
        fh.write(f"# DP-HDB regret vs dimension\n\nCommand: `{command}` (root seed {args.root_seed})\n\n")
        fh.write(markdown(result[cols]) + "\n")
    print(result[cols].to_string(index=False))


if __name__ == "__main__":
    main()
