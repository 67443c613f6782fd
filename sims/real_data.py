"""Real data as bandits (issue 22): every registered agent on scikit-learn's four bundled data sets.

Each data set is a K-armed contextual bandit in the protocol of Bietti, Agarwal & Langford ("A Contextual
Bandit Bake-off", JMLR 2021): the context is a row's features (each feature standardised, then centred, rows
scaled to unit l2 norm: the environments' defaults since issue 29), the arms
are the classes, the reward is 1 for the true class and 0 otherwise. Users arrive i.i.d. from the rows (the
population model; ``dpbandit/envs/classification.py``). Since the expected rewards are the one-hot row, pseudo-regret
counts the mistakes and the accuracy is ``1 - regret / T``.

Grid: the four ids ``dpbandit/{Digits,Wine,BreastCancer,Iris}-v0`` x T in {10^4, 10^5} x every registered
agent: private agents at epsilon in {0.5, 1, 2, 4} with delta = 1/T (the accountant's epsilon is reported next
to the target), the non-private ones as references. Every ratio is paired by seed with random play (the same
users and rewards: common random numbers).

Usage: python sims/real_data.py [--quick] [--seeds 5] [--horizons 10000 100000[:1,2]] [--skip AGENT[@T|@DATA] ...]
(``T:e1,e2`` runs horizon T at those epsilons only.)
Resumable sweeps ``<store>/real_data[_refs]-<hash>`` (re-running the command resumes them); writes
results/real_data.{csv,md,png}. After a change to the dpbandit code the stores with finished cells refuse to
resume (naming the changed files): delete them, or pass ``--allow-code-change`` to keep their cells (warned,
and recorded in their manifests).
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
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from fig5_1 import RESULTS, add_code_change_option, command_line, markdown, shown, write_csv  # noqa: E402

from dpbandit.agents import AGENTS as REGISTERED  # noqa: E402
from dpbandit.agents import agent_class  # noqa: E402
from dpbandit.harness import t_interval  # noqa: E402
from dpbandit.harness.plot import agent_colour  # noqa: E402
from dpbandit.sweep import Sweep  # noqa: E402
from dpbandit.sweep.runner import default_store_dir, run_sweep  # noqa: E402
from dpbandit.sweep.store import Store  # noqa: E402

DATASETS = {
    "dpbandit/Digits-v0": "digits (1,797 x 64, K = 10)",
    "dpbandit/Wine-v0": "wine (178 x 13, K = 3)",
    "dpbandit/BreastCancer-v0": "breast cancer (569 x 30, K = 2)",
    "dpbandit/Iris-v0": "iris (150 x 4, K = 3)",
}
EPSILONS = (0.5, 1.0, 2.0, 4.0)
HORIZONS = (10_000, 100_000)
#: Registered names that are another name of the same class with the same defaults (run once, under the first).
ALIASES = {"dpucb-block": "dpucb"}


def is_private(name: str) -> bool:
    """Whether a registered agent is private: built at K = 2, d = 20, T = 1000, it certifies a finite epsilon
    (the replica of the authors' DP-HDB code reports epsilon = inf: it is a labelled non-private reference)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agent = agent_class(name)(2, 20, rng=np.random.default_rng(0), horizon=1_000)
    return agent.privacy is not None and math.isfinite(agent.privacy.epsilon)


def agent_names(skip: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """Registered names split into (private, references), aliases and ``skip`` removed, registry order kept."""
    names = [n for n in REGISTERED if n not in ALIASES and n not in skip]
    private = [n for n in names if is_private(n)]
    return private, [n for n in names if n not in private]


def sweep(
    config: dict, store: Path, report: bool, unfinished: list[str], *, allow_code_change: bool = False
) -> pd.DataFrame:
    """Run (or resume) a sweep in ``<store>/<name>-<hash8>``; with ``report`` only read its finished cells,
    adding ``name: done/total`` to ``unfinished`` when some are missing. ``allow_code_change``: resume a store
    whose finished cells were computed by other dpbandit code (:func:`dpbandit.sweep.run_sweep`)."""
    grid = Sweep.from_dict(config)
    directory = default_store_dir(grid, store)
    if not report:
        return run_sweep(grid, directory, progress=True, allow_code_change=allow_code_change)
    keys = [cell.key for cell in grid.cells]
    done = Store.read(directory).finished() & set(keys) if directory.exists() else set()
    if len(done) < len(keys):
        unfinished.append(f"{config['name']}: {len(done)} of {len(keys)} cells")
    return Store.read(directory).load(keys) if done else pd.DataFrame()


def accuracy_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per data set, T, agent and target epsilon: accuracy and regret ratio to random (paired), 95% t-intervals,
    accountant epsilon, delta and time per round."""
    last = rows[rows["step"] == rows["horizon"]].copy()
    random = last[last["agent"] == "random"].set_index(["env_id", "horizon", "seed"])["cumulative_regret"]
    out = []
    keys = ["env_id", "horizon", "agent", "target_epsilon"]
    for (env_id, horizon, agent, target), group in last.groupby(keys, sort=False, dropna=False):
        regret = group["cumulative_regret"].to_numpy()
        accuracy = 1.0 - regret / horizon
        ratio = regret / random.loc[[(env_id, horizon, s) for s in group["seed"]]].to_numpy()
        acc_low, acc_high = t_interval(accuracy)
        ratio_low, ratio_high = t_interval(ratio)
        out.append(
            {
                "data": env_id.split("/")[1].removesuffix("-v0"),
                "horizon": int(horizon),
                "agent": agent,
                "private": not math.isnan(target),
                "target_epsilon": target,
                "epsilon": group["epsilon"].iloc[0],
                "delta": group["delta"].iloc[0],
                "seeds": regret.size,
                "accuracy": accuracy.mean(),
                "accuracy_ci95_low": max(acc_low, 0.0),
                "accuracy_ci95_high": min(acc_high, 1.0),
                "ratio_to_random": ratio.mean(),
                "ratio_ci95_low": max(ratio_low, 0.0),
                "ratio_ci95_high": ratio_high,
                "us_per_round": 1e6 * group["wall_time"].mean() / horizon,
            }
        )
    return pd.DataFrame(out)


def plot(table: pd.DataFrame, path: Path, seeds: int) -> None:
    """Accuracy against epsilon, one panel per data set and horizon; references as horizontal lines."""
    datasets, horizons = list(dict.fromkeys(table["data"])), sorted(table["horizon"].unique())
    fig, axes = plt.subplots(
        len(horizons),
        len(datasets),
        figsize=(4.2 * len(datasets) + 3.4, 3.6 * len(horizons)),
        sharex=True,
        squeeze=False,
    )
    for row, horizon in enumerate(horizons):
        for col, data in enumerate(datasets):
            ax = axes[row][col]
            cell = table[(table["data"] == data) & (table["horizon"] == horizon)]
            for agent, group in cell[cell["private"]].groupby("agent", sort=False):
                group = group.sort_values("target_epsilon")
                ax.errorbar(
                    group["target_epsilon"],
                    group["accuracy"],
                    yerr=[
                        group["accuracy"] - group["accuracy_ci95_low"],
                        group["accuracy_ci95_high"] - group["accuracy"],
                    ],
                    marker="o",
                    ms=3,
                    capsize=2,
                    color=agent_colour(agent),
                    label=agent,
                )
            for _, ref in cell[~cell["private"]].iterrows():
                ax.axhline(
                    ref["accuracy"],
                    color=agent_colour(ref["agent"]),
                    linestyle=":",
                    linewidth=1.2,
                    label=f"{ref['agent']} (not private)",
                )
            ax.set_xscale("log")
            ax.set_xticks(EPSILONS, [f"{e:g}" for e in EPSILONS])
            ax.minorticks_off()
            ax.set_ylim(0, 1)
            ax.set_title(f"{data}, T = {horizon:,}", fontsize=10)
            ax.grid(alpha=0.3, which="both")
            if col == 0:
                ax.set_ylabel("accuracy (95% CI)")
            if row == len(horizons) - 1:
                ax.set_xlabel("epsilon (joint DP, delta = 1/T)")
    handles, labels = {}, {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(lab, h)
    labels = list(handles)
    fig.legend([handles[lab] for lab in labels], labels, fontsize=7, loc="center right")
    fig.suptitle(f"Classification data sets as bandits (reward 1 for the true class), {seeds} seeds")
    width = 4.2 * len(datasets) + 3.4
    fig.tight_layout(rect=(0, 0, 1 - 3.2 / width, 1))
    fig.savefig(path, dpi=120)
    plt.close(fig)


PRIVACY_NOTE = """\
## What the privacy numbers mean when rows repeat

Each round is a user drawn from the population the data set stands for (the default `sampling="iid"`), and
every epsilon above is **per round**: it protects the record of one round, which is one person when every person
comes once. Here a row of the data set is drawn about T / n times (T = 10^5 rounds from digits' 1,797 rows: ~56
times on average). If a row is one person, that person is in k rounds and is protected only at the user level,
roughly k epsilon by group privacy (exactly: the Gaussian release composed over the rounds a person can enter,
reported by agents that take `max_rounds_per_user`; docs/privacy.md, "Returning users"). So these tables measure
how well each agent learns from a *population* at a per-round budget, as the papers' regret bounds do; they do not
certify the protection of the n people behind the rows. To certify people, bound each person's rounds
(`max_rounds_per_user`) and report the user-level epsilon, or play one pass without replacement
(`sampling="pass"`, T <= n), where every person is one round.
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="T = 2000, 2 seeds, epsilon 1 only")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--horizons", nargs="+", default=[str(h) for h in HORIZONS],
                        help="horizons, each T or T:e1,e2 (that horizon at those epsilons only)")
    parser.add_argument(
        "--skip",
        nargs="*",
        default=[],
        help="registered agents to leave out: AGENT, AGENT@T (one horizon) or AGENT@Digits (one data set); "
        "said in the page",
    )
    parser.add_argument("--report", action="store_true", help="compute nothing: tabulate the finished cells")
    parser.add_argument("--root-seed", type=int, default=2211)
    parser.add_argument("--store", type=Path, default=RESULTS.parent / "out" / "sweeps")
    add_code_change_option(parser)
    args = parser.parse_args()
    horizons, seeds, grid = (
        ((2_000,), 2, (1.0,)) if args.quick else (tuple(int(h.partition(":")[0]) for h in args.horizons),
                                                   args.seeds, EPSILONS)
    )
    stem = "real_data_quick" if args.quick else "real_data"
    skipped = [item.partition("@") for item in args.skip]
    frames, unfinished = [], []
    for horizon in horizons:  # delta = 1/T is one value per horizon; one sweep per private agent, so adding an
        common = {"root_seed": args.root_seed, "seeds": seeds, "n_points": 4}  # agent never re-runs the others
        at_horizon = {int(t): e for t, _, e in (h.partition(":") for h in args.horizons)}.get(horizon, "")
        epsilons = [float(e) for e in at_horizon.split(",")] if at_horizon else list(grid)
        everywhere = tuple(a for a, _, at in skipped if not at or at == str(horizon))
        private, references = agent_names(everywhere)
        axes = {"env_id": list(DATASETS), "horizon": horizon}
        for name in private:
            data = [e for e in DATASETS if (name, e.split("/")[1].removesuffix("-v0")) not in
                    {(a, at) for a, _, at in skipped}]
            mine = sweep({"name": f"{stem}_T{horizon}_{name}", **common, "grid": {
                "agent": [{"agent": name, "label": name}], "epsilon": epsilons, "delta": 1.0 / horizon,
                **axes, "env_id": data}}, args.store, args.report, unfinished,
                allow_code_change=args.allow_code_change)
            frames.append(mine)
        refs = sweep({"name": f"{stem}_refs_T{horizon}", **common, "grid": {
            "agent": [{"agent": n, "label": n} for n in references], **axes}}, args.store, args.report,
            unfinished, allow_code_change=args.allow_code_change)
        frames.append(refs)
    rows = pd.concat(frames, ignore_index=True)
    table = accuracy_table(rows)
    RESULTS.mkdir(exist_ok=True)
    command = command_line()
    where = f"root seed {args.root_seed}; sweep stores {shown(args.store)}/{stem}_*"
    write_csv(table, RESULTS / f"{stem}.csv", f"produced by: {command} ({where})")
    plot(table, RESULTS / f"{stem}.png", seeds)
    cols = [
        "data",
        "horizon",
        "agent",
        "target_epsilon",
        "epsilon",
        "delta",
        "accuracy",
        "accuracy_ci95_low",
        "accuracy_ci95_high",
        "ratio_to_random",
        "ratio_ci95_low",
        "ratio_ci95_high",
        "us_per_round",
    ]
    best = (
        table[table["private"] & (table["target_epsilon"] == 1.0)]
        .sort_values("accuracy", ascending=False)
        .groupby(["data", "horizon"], sort=False)
        .head(1)
        .sort_values(["data", "horizon"])
    )
    with open(RESULTS / f"{stem}.md", "w") as fh:
        fh.write(f"# Real data as bandits\n\nCommand: `{command}` ({where})\n\n")
        fh.write(
            "Data: scikit-learn's bundled data sets (nothing downloaded): "
            + "; ".join(f"`{k}` {v}" for k, v in DATASETS.items())
            + ". Each feature standardised, then features centred and rows scaled to unit l2 norm (the defaults "
            "since issue 29; `results/real_data_scaling.md` compares with the earlier preprocessing); users drawn "
            "i.i.d. from the rows; reward 1 "
            f"for the true class. {seeds} seeds per cell. `epsilon` is the accountant's (dp-accounting) at "
            "`delta` = 1/T, next to the target; accuracy = 1 - regret / T (the expected rewards are the one-hot "
            "row); the ratio is each seed's final regret over random play's on the same seed, 95% t-intervals "
            "(clipped to the range of the quantity); time per round is the run's wall time over T.\n\n"
        )
        if args.report:
            fh.write("Tabulated from the finished sweeps (`--report`); the same command without `--report` computes "
                     "(or resumes) them.\n\n")
        if unfinished:
            fh.write("**Not finished** when this page was written (the rows below have fewer seeds or are "
                     "missing; re-running the command without `--report` resumes): " + "; ".join(unfinished)
                     + ".\n\n")
        if args.skip:
            fh.write(f"Left out (`--skip`): {', '.join(args.skip)}.\n\n")
        fh.write("## Best private agent at epsilon = 1\n\n" + markdown(best[cols]) + "\n\n")
        fh.write(PRIVACY_NOTE + "\n## Every agent, data set, horizon and epsilon\n\n")
        fh.write(markdown(table[cols].sort_values(["data", "horizon", "agent", "target_epsilon"])) + "\n")
    print(best[cols].to_string(index=False))


if __name__ == "__main__":
    main()
