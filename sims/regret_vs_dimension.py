"""DP-HDB's final regret as the dimension d grows at fixed sparsity (Theorem 4.3 of 004: poly-log in d).

Setting: ``dpbandit/HDBSection54-v0`` with ``dim`` overridden (K = 2, 5-sparse parameters, T = 10,000,
delta = 1/T), d in {50, 100, 200, 500, 1000, 2000, 5000}. Agents: DP-HDB at epsilon = 1 (the issue's
setting) and at epsilon = 1000 (where its noise no longer swamps the gradient signal, see
results/regret_vs_epsilon.md), DP-HDB with noise off, and random play (whose regret itself changes
with d, because ||x||_inf = 1 normalisation shrinks the typical coordinate like 1/sqrt(log d)); the
figure shows both the regret and the regret relative to random play against log d.

Usage: python sims/regret_vs_dimension.py [--quick] [--seeds 5] [--store out/sweeps]
The agents x d grid runs through the sweep machinery (docs/sweeps.md) on every local core into
``<store>/regret_vs_dimension-<hash>``; re-running the command resumes it.
Writes results/regret_vs_dimension.csv, .png and .md.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from fig5_1 import (  # noqa: E402
    ENV_ID,
    RESULTS,
    add_common_options,
    command_line,
    markdown,
    shown,
    sweep,
    write_csv,
)

from dpbandit.agents.dphdb import TOPDOWN_MIN_DIM  # noqa: E402
from dpbandit.harness import final_regret_table  # noqa: E402

DIMS = (50, 100, 200, 500, 1000, 2000, 5000)
AGENTS = [
    {"agent": "dphdb", "label": "DP-HDB eps=1", "epsilon": 1.0},
    {"agent": "dphdb", "label": "DP-HDB eps=1000", "epsilon": 1000.0},
    {"agent": "dphdb", "label": "DP-HDB noise off (not private)", "noise": False},
    {"agent": "random", "label": "random"},
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="T=2000, 2 seeds, d in {50, 500}")
    parser.add_argument("--seeds", type=int, default=5)
    add_common_options(parser)
    args = parser.parse_args()
    horizon, seeds = (2000, 2) if args.quick else (args.horizon, args.seeds)
    dims = (50, 500) if args.quick else DIMS
    stem = "regret_vs_dimension_quick" if args.quick else "regret_vs_dimension"
    config = {"name": stem, "root_seed": args.root_seed, "seeds": seeds, "n_points": 4,
              "grid": {"agent": AGENTS, "env_id": ENV_ID, "horizon": horizon, "env": {"dim": list(dims)}}}
    df, store = sweep(config, args.store, allow_code_change=args.allow_code_change)
    result = final_regret_table(df, by=("env_dim", "agent")).rename(columns={"env_dim": "dim"})
    result = result.sort_values("dim", kind="stable", ignore_index=True)
    random = result[result["agent"] == "random"].set_index("dim")["final_regret_mean"]
    result["relative_to_random"] = result["final_regret_mean"] / result["dim"].map(random)
    RESULTS.mkdir(exist_ok=True)
    command, where = command_line(), f"root seed {args.root_seed}; sweep store {shown(store)}"
    write_csv(result, RESULTS / f"{stem}.csv", f"produced by: {command} ({where})")

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

    cols = ["agent", "dim", "final_regret_mean", "ci95_low", "ci95_high", "relative_to_random", "wall_time_s"]
    with open(RESULTS / f"{stem}.md", "w") as fh:
        fh.write(f"# DP-HDB regret vs dimension\n\nCommand: `{command}` ({where})\n\n"
                 f"DP-HDB draws its selection noise one Laplace number per vertex below d = {TOPDOWN_MIN_DIM} and top "
                 "down from there (`vertex_sampler=\"auto\"`: the same law, other random numbers; "
                 "`dpbandit/privacy/topdown.py`).\n\n")
        fh.write(markdown(result[cols]) + "\n")
    print(result[cols].to_string(index=False))


if __name__ == "__main__":
    main()
