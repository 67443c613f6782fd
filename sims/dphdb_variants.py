"""DP-HDB variants that keep Algorithm 3's structure (issue 13, Build item 4) on the Figure 5.1 setting of 004.

Agents (docs/private_agents.md, "DP-HDB variants"): faithful DP-HDB (joint calibration); DP-HDB with
exponential-mechanism vertex selection (``selection="exponential"``, bounded-range zCDP accounting); DP-HDB
without the frozen pre-selection (``preselection=False``); the epoch-batched DP-HDB (``dphdb-batched``, default,
with one Frank-Wolfe step per batch, and with fixed clips); the lead's ``batched-screening``; random play.
Grid: epsilon in {1, 10, 100} x T in {10^4, 10^5}, delta = 1/T, ``dpbandit/HDBSection54-v0`` (d = 50, K = 2).
References once per T: random, LinUCB and the batched DP-HDB with noise off (not private).

Usage: python sims/dphdb_variants.py [--quick] [--seeds 10] [--horizons 10000 100000] [--store out/sweeps]
Sweeps (docs/sweeps.md, resumable: re-running the command resumes) into ``<store>/dphdb_variants-<hash>`` and
``<store>/dphdb_variants_refs-<hash>``. Writes results/dphdb_variants.csv and .md (``_T<horizon>`` appended when
``--horizons`` is a single horizon): final regret and the ratio to random play paired by seed (mean of the
per-seed ratios with a 95% t-interval).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from fig5_1 import ENV_ID, RESULTS, add_common_options, command_line, markdown, shown, sweep, write_csv  # noqa: E402

from dpbandit.harness import t_interval  # noqa: E402

EPSILONS = (1.0, 10.0, 100.0)
HORIZONS = (10_000, 100_000)

PRIVATE = [
    {"agent": "dphdb", "label": "DP-HDB (faithful)"},
    {"agent": "dphdb", "label": "DP-HDB, exponential selection", "selection": "exponential"},
    {"agent": "dphdb", "label": "DP-HDB, no pre-selection", "preselection": False},
    {"agent": "dphdb-batched", "label": "DP-HDB batched"},
    {"agent": "dphdb-batched", "label": "DP-HDB batched, 1 FW step/batch", "steps_per_batch": 1},
    {"agent": "dphdb-batched", "label": "DP-HDB batched, fixed clips", "residual_quantile": None,
     "context_quantile": None},
    {"agent": "batched-screening", "label": "batched-screening"},
]
REFERENCES = [
    {"agent": "random", "label": "random"},
    {"agent": "linucb", "label": "LinUCB (not private)"},
    {"agent": "dphdb-batched", "label": "DP-HDB batched, noise off (not private)", "noise": False},
]


def paired_ratios(rows: pd.DataFrame, random: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Final regret and its ratio to random play on the same seed (and T), mean and 95% t-interval."""
    last = rows[rows["step"] == rows["horizon"]]
    base = random[random["step"] == random["horizon"]].set_index(["horizon", "seed"])["cumulative_regret"]
    out = []
    for key, group in last.groupby(by, sort=False):
        regret = group["cumulative_regret"].to_numpy()
        ratio = regret / base.loc[list(zip(group["horizon"], group["seed"], strict=True))].to_numpy()
        low, high = t_interval(ratio)
        out.append({**dict(zip(by, key, strict=True)), "seeds": regret.size, "regret": regret.mean(),
                    "ratio_to_random": ratio.mean(), "ratio_ci95_low": low, "ratio_ci95_high": high,
                    "epsilon": group["epsilon"].iloc[0], "claimed_epsilon": group["claimed_epsilon"].iloc[0],
                    "wall_time_s": group["wall_time"].mean()})
    return pd.DataFrame(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="T in {2000}, 2 seeds, epsilon 1 (smoke run)")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--horizons", type=int, nargs="+", default=list(HORIZONS))
    add_common_options(parser)
    args = parser.parse_args()
    horizons, seeds, epsilons = ([2000], 2, [1.0]) if args.quick else (args.horizons, args.seeds, list(EPSILONS))
    stem = "dphdb_variants_quick" if args.quick else "dphdb_variants"
    if not args.quick and len(horizons) == 1:
        stem = f"{stem}_T{horizons[0]}"
    common = {"root_seed": args.root_seed, "seeds": seeds, "n_points": 4}
    setting = {"env_id": ENV_ID, "horizon": horizons}
    private, store = sweep({"name": stem, **common, "grid": {"agent": PRIVATE, "epsilon": epsilons, **setting}},
                           args.store)
    refs, refs_store = sweep({"name": f"{stem}_refs", **common, "grid": {"agent": REFERENCES, **setting}},
                             args.store)
    random = refs[refs["agent"] == "random"]
    table = pd.concat([paired_ratios(private, random, ["horizon", "target_epsilon", "agent"]),
                       paired_ratios(refs, random, ["horizon", "agent"]).assign(target_epsilon=np.nan)],
                      ignore_index=True)
    table = table.sort_values(["horizon", "target_epsilon"], kind="stable", na_position="last")
    cols = ["horizon", "target_epsilon", "agent", "seeds", "regret", "ratio_to_random", "ratio_ci95_low",
            "ratio_ci95_high", "epsilon", "claimed_epsilon", "wall_time_s"]
    table = table[cols]
    RESULTS.mkdir(exist_ok=True)
    command = command_line()
    where = f"root seed {args.root_seed}; sweep stores {shown(store)}, {shown(refs_store)}"
    write_csv(table, RESULTS / f"{stem}.csv", f"produced by: {command} ({where})")
    with open(RESULTS / f"{stem}.md", "w") as fh:
        fh.write(f"# DP-HDB variants (issue 13, Build item 4)\n\nCommand: `{command}` ({where})\n\n")
        fh.write("Setting: `dpbandit/HDBSection54-v0` (d = 50, K = 2), delta = 1/T. `ratio_to_random`: mean over "
                 "seeds of regret / random's regret on the same seed, with a 95% t-interval; `epsilon` is the "
                 "accountant's epsilon, `claimed_epsilon` the claim; `wall_time_s` per run.\n\n")
        fh.write(markdown(table) + "\n")
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
