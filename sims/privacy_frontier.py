"""The privacy-regret frontier: every private agent's regret against epsilon on the Figure 5.1 setting (issue 13).

Grid: every private agent (faithful DP-HDB, accountant-calibrated DP-UCB, the batched agents, FLIPHAT and the
DP-HDB variants; ``AGENTS`` below) x epsilon in {0.3, 1, 3, 10, 30, 100} x T in {10^4, 10^5} on
``dpbandit/HDBSection54-v0`` (d = 50, K = 2, delta = 1/T), plus random play and LinUCB at each T as references.
Every run is paired by seed with random play (the same contexts and rewards: common random numbers).

Usage: python sims/privacy_frontier.py [--quick] [--seeds 10] [--store out/sweeps]
Two sweeps (docs/sweeps.md) run on every local core into ``<store>/privacy_frontier-<hash>`` and
``<store>/privacy_frontier_refs-<hash>``; re-running the command resumes them. Writes
results/privacy_frontier.csv (one row per agent, epsilon and T: final regret, paired ratio to random with its
95% t-interval, accountant and claimed epsilon), results/privacy_frontier.png (ratio to random against epsilon,
one panel per T) and results/privacy_frontier.md (the table and eps_50(T): the smallest epsilon of the grid whose
ratio is <= 0.5 with the interval's upper end below 0.5).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import math  # noqa: E402
from pathlib import Path  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from fig5_1 import (  # noqa: E402
    ENV_ID, RESULTS, add_code_change_option, command_line, markdown, shown, sweep, write_csv,
)

from dpbandit.harness import t_interval  # noqa: E402
from dpbandit.sweep import Sweep  # noqa: E402
from dpbandit.sweep.study import StudyProgress  # noqa: E402

EPSILONS = (0.3, 1.0, 3.0, 10.0, 30.0, 100.0)
HORIZONS = (10_000, 100_000)
DIM = 50

#: Every private agent on the frontier (sweep entries; the label keys each agent's generator and its row).
AGENTS = [
    {"agent": "dphdb", "label": "DP-HDB (faithful, Alg 3)"},
    {"agent": "dphdb", "label": "DP-HDB, exponential-mechanism selection", "selection": "exponential"},
    {"agent": "dphdb", "label": "DP-HDB, no frozen pre-selection", "preselection": False},
    {"agent": "dphdb-batched", "label": "DP-HDB batched (epoch DP-POFW)"},
    {"agent": "dpucb-disjoint", "label": "DP-UCB (accountant, per-arm trees)", "calibration": "accountant",
     "feature_bound": math.sqrt(DIM)},
    {"agent": "fliphat-disjoint", "label": "FLIPHAT (disjoint, tight)"},
    {"agent": "batched-ridge", "label": "BatchedRidge"},
    {"agent": "batched-peeling", "label": "BatchedPeeling"},
    {"agent": "batched-screening", "label": "BatchedScreening"},
]
#: Agents added after the frontier's first run, each in its own sweep (adding one never re-runs the others).
ADDED = [{"agent": "private", "label": "private (recommended)"}]
REFERENCES = [{"agent": "linucb", "label": "LinUCB (not private)"}, {"agent": "random", "label": "random"}]


def paired_ratios(private: pd.DataFrame, refs: pd.DataFrame) -> pd.DataFrame:
    """Per agent, epsilon and T: final regret and the ratio to random on the same seed, with 95% t-intervals."""
    last = private[private["step"] == private["horizon"]]
    random = refs[(refs["agent"] == "random") & (refs["step"] == refs["horizon"])]
    random = random.set_index(["horizon", "seed"])["cumulative_regret"]
    rows = []
    for (agent, epsilon, horizon), group in last.groupby(["agent", "target_epsilon", "horizon"], sort=False):
        regret = group["cumulative_regret"].to_numpy()
        ratio = regret / random.loc[[(horizon, s) for s in group["seed"]]].to_numpy()
        low, high = t_interval(regret)
        ratio_low, ratio_high = t_interval(ratio)
        rows.append({"agent": agent, "horizon": int(horizon), "requested_epsilon": epsilon,
                     "epsilon": group["epsilon"].iloc[0], "claimed_epsilon": group["claimed_epsilon"].iloc[0],
                     "seeds": regret.size, "final_regret_mean": regret.mean(), "ci95_low": low, "ci95_high": high,
                     "ratio_to_random": ratio.mean(), "ratio_ci95_low": ratio_low, "ratio_ci95_high": ratio_high})
    return pd.DataFrame(rows)


def eps_50(table: pd.DataFrame) -> pd.DataFrame:
    """Per agent and T: the smallest epsilon whose ratio to random is <= 0.5 with the 95% interval below 0.5."""
    rows = []
    for (agent, horizon), group in table.groupby(["agent", "horizon"], sort=False):
        ok = group[(group["ratio_to_random"] <= 0.5) & (group["ratio_ci95_high"] < 0.5)]
        rows.append({"agent": agent, "horizon": horizon,
                     "eps_50": ok["requested_epsilon"].min() if len(ok) else math.inf})
    return pd.DataFrame(rows).pivot(index="agent", columns="horizon", values="eps_50").reset_index()


def plot(table: pd.DataFrame, refs: pd.DataFrame, path, seeds: int) -> None:
    horizons = sorted(table["horizon"].unique())
    fig, axes = plt.subplots(1, len(horizons), figsize=(6.2 * len(horizons) + 3.2, 4.8), sharey=True, squeeze=False)
    for ax, horizon in zip(axes[0], horizons, strict=True):
        for agent, group in table[table["horizon"] == horizon].groupby("agent", sort=False):
            group = group.sort_values("requested_epsilon")
            ax.errorbar(group["requested_epsilon"], group["ratio_to_random"],
                        yerr=[group["ratio_to_random"] - group["ratio_ci95_low"],
                              group["ratio_ci95_high"] - group["ratio_to_random"]],
                        marker="o", capsize=3, label=agent)
        linucb = refs[(refs["agent"] == "LinUCB (not private)") & (refs["step"] == horizon)]
        random = refs[(refs["agent"] == "random") & (refs["step"] == horizon)]
        if len(linucb) and len(random):
            ratio = (linucb.set_index("seed")["cumulative_regret"] / random.set_index("seed")["cumulative_regret"])
            ax.axhline(ratio.mean(), color="grey", linestyle=":", label="LinUCB (not private)")
        ax.axhline(1.0, color="black", linewidth=0.8, label="random")
        ax.axhline(0.5, color="grey", linestyle="--", linewidth=0.8, label="0.5x random")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("epsilon (joint DP, delta = 1/T; accountant)")
        ax.set_title(f"T = {horizon:,}")
        ax.grid(alpha=0.3, which="both")
    axes[0][0].set_ylabel("final regret / random's (paired by seed), 95% CI")
    handles, labels = axes[0][-1].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, loc="center right")
    fig.suptitle(f"Privacy-regret frontier, {ENV_ID} (d={DIM}, K=2), {seeds} seeds")
    fig.tight_layout(rect=(0, 0, 1 - 3.0 / (6.2 * len(horizons) + 3.2), 1))
    fig.savefig(path, dpi=130)
    plt.close(fig)


def sweep_configs(stem: str, quick: bool, seeds: int, root_seed: int, added_only: bool) -> tuple[list[dict], dict]:
    """The frontier's sweeps: the private agents' (``AGENTS``, then one per ``ADDED`` entry) and the references'."""
    horizons, grid = ((2_000,), (1.0, 100.0)) if quick else (HORIZONS, EPSILONS)
    common = {"root_seed": root_seed, "seeds": seeds, "n_points": 4}
    # delta = 1/T explicitly (the batched agents' own default is now smaller, docs/privacy.md "Choosing
    # delta"; DP-HDB's and DP-UCB's is 1/T already): the committed results were made at 1/T
    budget = {"zip": [{"horizon": list(horizons), "delta": [1.0 / T for T in horizons]}]}
    configs = [{"name": name, **common, "grid": {"agent": agents, "epsilon": list(grid), "env_id": ENV_ID}, **budget}
               for name, agents in ([] if added_only else [(stem, AGENTS)])
               + [(f"{stem}_{entry['agent']}", [entry]) for entry in ADDED]]
    refs_config = {"name": f"{stem}_refs", **common, "grid": {
        "agent": REFERENCES, "env_id": ENV_ID, "horizon": list(horizons)}}
    return configs, refs_config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="T = 2000, 2 seeds, epsilon in {1, 100}")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--root-seed", type=int, default=2022)
    parser.add_argument("--store", type=Path, default=RESULTS.parent / "out" / "sweeps")
    add_code_change_option(parser)
    parser.add_argument("--added-only", action="store_true",
                        help="run only the ADDED agents' sweeps; take the other agents' rows from the existing CSV")
    args = parser.parse_args()
    stem = "privacy_frontier_quick" if args.quick else "privacy_frontier"
    seeds = 2 if args.quick else args.seeds
    configs, refs_config = sweep_configs(stem, args.quick, seeds, args.root_seed, args.added_only)
    study = StudyProgress([Sweep.from_dict(config) for config in [*configs, refs_config]])
    frames, stores = [], []
    for config in configs:
        frame, store = sweep(config, args.store, study=study, allow_code_change=args.allow_code_change)
        frames.append(frame)
        stores.append(str(shown(store)))
    refs, refs_store = sweep(refs_config, args.store, study=study, allow_code_change=args.allow_code_change)
    table = paired_ratios(pd.concat(frames, ignore_index=True), refs)
    if args.added_only:  # the other agents' rows as the full run wrote them (same root seed, same references)
        path = RESULTS / f"{stem}.csv"
        made_by = path.read_text().splitlines()[0].removeprefix("# produced by: ")
        marker = "the other agents' rows as made by `"
        if marker in made_by:  # an earlier --added-only run: name the full run that made those rows
            made_by = made_by.rsplit(marker, 1)[1].split("`", 1)[0]
        earlier = pd.read_csv(path, comment="#")
        table = pd.concat([earlier[~earlier["agent"].isin(table["agent"])], table], ignore_index=True)
        stores.insert(0, f"the other agents' rows as made by `{made_by}`")
    frontier = eps_50(table)
    RESULTS.mkdir(exist_ok=True)
    command = command_line()
    where = f"root seed {args.root_seed}; sweep stores {', '.join(stores)}, {shown(refs_store)}"
    write_csv(table, RESULTS / f"{stem}.csv", f"produced by: {command} ({where})")
    plot(table, refs, RESULTS / f"{stem}.png", seeds)
    cols = ["agent", "horizon", "requested_epsilon", "epsilon", "final_regret_mean", "ratio_to_random",
            "ratio_ci95_low", "ratio_ci95_high"]
    with open(RESULTS / f"{stem}.md", "w") as fh:
        fh.write(f"# Privacy-regret frontier\n\nCommand: `{command}` ({where})\n\n")
        fh.write(f"Setting: `{ENV_ID}` (d = {DIM}, K = 2, delta = 1/T), {seeds} seeds; `epsilon` is the "
                 "accountant's epsilon at delta = 1/T; the ratio is each seed's final regret over random play's on "
                 "the same seed (the same contexts and rewards), with its 95% t-interval.\n\n")
        fh.write("## eps_50(T): smallest epsilon of the grid with ratio <= 0.5 and its interval below 0.5\n\n")
        fh.write(markdown(frontier.rename(columns={h: f"T = {h:,}" for h in frontier.columns if h != "agent"}))
                 + "\n\n(inf: no epsilon of the grid qualifies.)\n\n## Every agent, epsilon and horizon\n\n")
        fh.write(markdown(table[cols].sort_values(["horizon", "agent", "requested_epsilon"])) + "\n")
    print(frontier.to_string(index=False))


if __name__ == "__main__":
    main()
