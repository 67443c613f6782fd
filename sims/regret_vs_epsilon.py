"""Final regret of DP-HDB and DP-UCB against epsilon on the Figure 5.1 setting of 004.

Grid: epsilon in {0.1, 0.3, 1, 3, 10} (issue 4) extended by {30, 100, 1000} to show where the
faithfully calibrated DP-HDB starts to learn; delta = 1/T, T = 10,000, d = 50, K = 2
(``dpbandit/HDBSection54-v0``). Non-private LinUCB, DP-HDB with noise off and random play are
drawn as horizontal references.

Usage: python sims/regret_vs_epsilon.py [--quick] [--seeds 10] [--store out/sweeps]
Two sweeps (docs/sweeps.md; the private agents x epsilon, and the references once) run on every local
core into ``<store>/regret_vs_epsilon-<hash>`` and ``<store>/regret_vs_epsilon_refs-<hash>``; re-running
the command resumes them. Writes results/regret_vs_epsilon.csv (one row per agent and epsilon), .png
and .md.
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
    private_agents,
    reference_agents,
    shown,
    sweep,
    write_csv,
)

from dpbandit.harness import final_regret_table  # noqa: E402

EPSILONS = (0.1, 0.3, 1.0, 3.0, 10.0)
EXTENDED = (30.0, 100.0, 1000.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="T=2000, 2 seeds, 3 epsilons")
    parser.add_argument("--seeds", type=int, default=10)
    add_common_options(parser)
    args = parser.parse_args()
    horizon, seeds = (2000, 2) if args.quick else (args.horizon, args.seeds)
    grid = (0.1, 1.0, 100.0) if args.quick else EPSILONS + EXTENDED
    stem = "regret_vs_epsilon_quick" if args.quick else "regret_vs_epsilon"
    common = {"root_seed": args.root_seed, "seeds": seeds, "n_points": 4}
    setting = {"env_id": ENV_ID, "horizon": horizon}
    private_grid = {"agent": private_agents(50), "epsilon": list(grid), **setting}
    private, store = sweep({"name": stem, **common, "grid": private_grid}, args.store,
                           allow_code_change=args.allow_code_change)
    refs_grid = {"agent": reference_agents(), **setting}
    refs_rows, refs_store = sweep({"name": f"{stem}_refs", **common, "grid": refs_grid}, args.store,
                                  allow_code_change=args.allow_code_change)
    table = final_regret_table(private, by=("target_epsilon", "agent"))
    table = table.rename(columns={"target_epsilon": "requested_epsilon"})
    refs = final_regret_table(refs_rows)
    result = pd.concat([table, refs.assign(requested_epsilon=float("nan"))], ignore_index=True)
    RESULTS.mkdir(exist_ok=True)
    command = command_line()
    where = f"root seed {args.root_seed}; sweep stores {shown(store)}, {shown(refs_store)}"
    write_csv(result, RESULTS / f"{stem}.csv", f"produced by: {command} ({where})")

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, group in result.dropna(subset=["requested_epsilon"]).groupby("agent", sort=False):
        ax.errorbar(group["requested_epsilon"], group["final_regret_mean"],
                    yerr=[group["final_regret_mean"] - group["ci95_low"],
                          group["ci95_high"] - group["final_regret_mean"]],
                    marker="o", capsize=3, label=name)
    for (_, row), style in zip(refs.iterrows(), (":", "--", "-.")):
        ax.axhline(row["final_regret_mean"], color="grey", linestyle=style, label=row["agent"])
    ax.axvspan(min(EXTENDED) * 0.8, max(grid) * 1.3, color="0.93", zorder=0, label="beyond the issue's grid")
    ax.set_xscale("log")
    ax.set_xlabel("requested epsilon (joint DP, delta = 1/T)")
    ax.set_ylabel(f"final cumulative regret at T={horizon}")
    ax.set_title(f"004 Sec 5.4 setting (d=50, K=2), {seeds} seeds, 95% CI")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS / f"{stem}.png", dpi=130)
    plt.close(fig)

    cols = ["agent", "requested_epsilon", "epsilon", "claimed_epsilon", "final_regret_mean",
            "ci95_low", "ci95_high"]
    with open(RESULTS / f"{stem}.md", "w") as fh:
        fh.write(f"# Final regret vs epsilon\n\nCommand: `{command}` ({where})\n\n")
        fh.write("`epsilon` is the accountant's epsilon at delta = 1/T, `claimed_epsilon` the claim.\n\n")
        fh.write(markdown(result[cols]) + "\n")
    print(result[cols].to_string(index=False))


if __name__ == "__main__":
    main()
