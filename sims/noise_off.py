"""No worse a learner (issue 13, Must show 7): each new agent with its privacy noise off against LinUCB.

The Figure 5.1 setting (``dpbandit/HDBSection54-v0``, d = 50, K = 2), T = 10^4: every agent added by issue 13
(the batched agents, FLIPHAT, the DP-HDB variants) with ``noise=False`` (not private: the same algorithm,
clipping and schedule, no noise), beside disjoint LinUCB (not private), faithful DP-HDB with noise off and random
play. The bar: each noise-off regret <= 3x LinUCB's. Ratios are paired by seed (common random numbers).

Usage: python sims/noise_off.py [--seeds 10] [--store out/sweeps]
Resumable sweep ``<store>/noise_off-<hash>``; writes results/noise_off.{csv,md}.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
from pathlib import Path  # noqa: E402

from fig5_1 import (  # noqa: E402
    ENV_ID, RESULTS, add_code_change_option, command_line, markdown, shown, sweep, write_csv,
)

from dpbandit.harness import final_regret_table  # noqa: E402

LINUCB = "LinUCB (not private)"
NEW_AGENTS = [
    ("batched-screening", "BatchedScreening", {}),
    ("batched-peeling", "BatchedPeeling", {}),
    ("batched-ridge", "BatchedRidge", {}),
    ("fliphat-disjoint", "FLIPHAT (disjoint)", {}),
    ("fliphat-disjoint", "FLIPHAT (disjoint), s = s* = 5", {"sparsity": 5}),  # the true sparsity (an oracle)
    ("dphdb-batched", "DP-HDB batched (epoch DP-POFW)", {}),
    ("dphdb", "DP-HDB, exponential-mechanism selection", {"selection": "exponential"}),
    ("dphdb", "DP-HDB, no frozen pre-selection", {"preselection": False}),
]
AGENTS = [
    *({"agent": name, "label": f"{label} noise off (not private)", "noise": False, **options}
      for name, label, options in NEW_AGENTS),
    {"agent": "dphdb", "label": "DP-HDB (faithful) noise off (not private)", "noise": False},
    {"agent": "linucb", "label": LINUCB},
    {"agent": "random", "label": "random"},
]
BAR = 3.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--horizon", type=int, default=10_000)
    parser.add_argument("--root-seed", type=int, default=2022)
    parser.add_argument("--store", type=Path, default=RESULTS.parent / "out" / "sweeps")
    add_code_change_option(parser)
    args = parser.parse_args()
    config = {"name": "noise_off", "root_seed": args.root_seed, "seeds": args.seeds, "n_points": 4,
              "grid": {"agent": AGENTS, "env_id": ENV_ID, "horizon": args.horizon}}
    rows, store = sweep(config, args.store, allow_code_change=args.allow_code_change)
    table = final_regret_table(rows, reference=LINUCB)
    linucb = table.loc[table["agent"] == LINUCB, "final_regret_mean"].item()
    table["within_3x_linucb"] = table["final_regret_mean"] <= BAR * linucb
    command = command_line()
    where = f"root seed {args.root_seed}; sweep store {shown(store)}"
    RESULTS.mkdir(exist_ok=True)
    write_csv(table, RESULTS / "noise_off.csv", f"produced by: {command} ({where})")
    ratio = "ratio_to_LinUCB (not private)"
    cols = ["agent", "final_regret_mean", "ci95_low", "ci95_high", ratio, f"{ratio}_ci95_low",
            f"{ratio}_ci95_high", "within_3x_linucb", "seeds"]
    with open(RESULTS / "noise_off.md", "w") as fh:
        fh.write(f"# No worse a learner: the new agents with noise off\n\nCommand: `{command}` ({where})\n\n"
                 f"`{ENV_ID}` (d = 50, K = 2), T = {args.horizon:,}, {args.seeds} seeds. Every row is not private "
                 f"(noise off). The bar (issue 13, Must show 7): final regret <= {BAR:g} x LinUCB's "
                 f"({BAR * linucb:.1f}). Ratios are paired by seed, with 95% t-intervals.\n\n")
        fh.write(markdown(table[cols]) + "\n")
    print(table[cols].to_string(index=False))


if __name__ == "__main__":
    main()
