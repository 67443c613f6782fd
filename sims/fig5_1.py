"""Figure 5.1 of 004_290fd04a1e656565.txt: cumulative regret of DP-HDB vs DP-UCB under joint DP.

Setting (Section 5.4): ``dpbandit/HDBSection54-v0`` (T = 10,000, d = 50, K = 2, linear rewards,
5-sparse l1-normalised parameters, ||x||_inf = 1 contexts, N(0, 0.05^2) noise), epsilon = 1,
delta = 1/T. Agents (docs/private_agents.md):

* DP-HDB: Algorithm 3, default ``calibration="joint"`` (total JDP guarantee = (1, 1/T));
* DP-HDB (paper calibration): Algorithm 2 line 8 per arm stream, as Theorem 4.1;
* DP-UCB: Shariff-Sheffet with their sigma_noise (`dpucb-block`: block features, D = 100, L = sqrt(50));
* DP-UCB (accountant): the tree's node std calibrated by dp_accounting to (1, 1/T);
* references: DP-HDB with noise off (not private), disjoint LinUCB (alpha = 1), random;
* the replica of the authors' DP-HDB code (``dphdb-authors-code``, NOT private: the sign of the chosen
  gradient coordinate is released without noise; docs/private_agents.md).

A second sweep repeats the replica, the faithful DP-HDB, LinUCB and random play on the same environment
with the contexts scaled as the authors' bandit environment does (env.py:119 divides each context by
``np.linalg.norm(X, np.inf)`` of the (1, d) matrix X, which is the *l1* norm of the row, so
``||x||_1 = 1``: ``context_norm=1``). There all regrets are ~17x smaller and random play already scores
~60; this is where the published DP-HDB ~62 comes from. (The authors' DP-UCB branch, env.py:136,
normalises rows in l_inf, as ``dpbandit/HDBSection54-v0`` does.)

Usage: python sims/fig5_1.py [--quick] [--seeds 20] [--horizon 10000] [--store out/sweeps] [--replot]
The grids run through the sweep machinery (docs/sweeps.md) on every local core: one parquet file per
finished (agent, seed) cell in ``<store>/fig5_1-<config hash>`` (and ``fig5_1_l1-<hash>`` for the
authors' context scaling), so an interrupted run resumes when the
same command is re-run. After a change to the dpbandit code a store with finished cells refuses to resume
(naming the changed files): delete it, or pass ``--allow-code-change`` to keep its cells (warned, and recorded
in its manifest). Writes results/fig5_1.csv (per-seed cumulative regret on a 21-point linear grid,
including T/2; the figure uses the store's 101 points), results/fig5_1.png and results/fig5_1.md
(command, final-regret table with 95% intervals, first/second-half regret, the replica on both
context scalings, a link to the long-horizon figure results/fig5_1_long.md).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one BLAS thread: per-step 100x100 Cholesky solves thrash otherwise

import argparse  # noqa: E402
import math  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import pandas as pd  # noqa: E402

from dpbandit.harness import final_regret_table, plot_regret, t_interval  # noqa: E402
from dpbandit.privacy.guarantee import NOT_PRIVATE_LABEL  # noqa: E402
from dpbandit.sweep import Store, Sweep, default_store_dir, run_sweep  # noqa: E402
from dpbandit.sweep.study import StudyProgress  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
STORE = ROOT / "out" / "sweeps"
ENV_ID = "dpbandit/HDBSection54-v0"
PAPER = {"DP-HDB": 62.0, "DP-UCB": 940.0}  # read off the authors' published Figure 5.1
REPLICA = {"agent": "dphdb-authors-code", "label": f"DP-HDB ({NOT_PRIVATE_LABEL})"}
#: Issue 14's band for the replica's mean final regret around the published ~62 (Must show 2).
REPLICA_BAND = (45.0, 80.0)
#: The authors' bandit-environment context scaling (env.py:119): ||x||_1 = 1.
AUTHORS_SCALING = {"context_norm": 1}

Entry = dict[str, Any]  # a sweep agent entry (docs/sweeps.md); its label keys the agent's generator


def private_agents(context_dim: int, epsilon: float | None = None) -> list[Entry]:
    """DP-HDB and DP-UCB (L = sqrt(d)); delta = 1/T by default. ``epsilon=None``: from the grid axis."""
    budget = {} if epsilon is None else {"epsilon": epsilon}
    return [
        {"agent": "dphdb", "label": "DP-HDB", **budget},
        {"agent": "dpucb-block", "label": "DP-UCB", "feature_bound": math.sqrt(context_dim), **budget},
    ]


def reference_agents() -> list[Entry]:
    """The non-private references: DP-HDB with noise off, disjoint LinUCB (alpha = 1), random play."""
    return [
        {"agent": "dphdb", "label": "DP-HDB noise off (not private)", "noise": False},
        {"agent": "linucb", "label": "LinUCB (not private)"},
        {"agent": "random", "label": "random"},
    ]


def agents(epsilon: float, context_dim: int) -> list[Entry]:
    """All agents of the figure."""
    return [
        *private_agents(context_dim, epsilon),
        {"agent": "dphdb", "label": "DP-HDB (paper calibration)", "epsilon": epsilon, "calibration": "paper"},
        {"agent": "dpucb-block", "label": "DP-UCB (accountant calibration)", "epsilon": epsilon,
         "feature_bound": math.sqrt(context_dim), "calibration": "accountant"},
        *reference_agents(),
        {**REPLICA, "epsilon": epsilon},
    ]


def authors_scaling_agents(epsilon: float) -> list[Entry]:
    """The replica next to the faithful DP-HDB and the references, for the authors' context scaling."""
    return [{**REPLICA, "epsilon": epsilon}, {"agent": "dphdb", "label": "DP-HDB", "epsilon": epsilon},
            {"agent": "linucb", "label": "LinUCB (not private)"}, {"agent": "random", "label": "random"}]


def add_common_options(parser: argparse.ArgumentParser) -> None:
    """Options every bandit sim shares: horizon, root seed, the sweep store and ``--allow-code-change`` (pass
    ``args.allow_code_change`` on to :func:`sweep`)."""
    parser.add_argument("--horizon", type=int, default=10_000)
    parser.add_argument("--root-seed", type=int, default=2022)
    parser.add_argument("--store", type=Path, default=STORE,
                        help="parent directory of the sweep stores (default out/sweeps); each config "
                             "gets <store>/<name>-<hash8>, and re-running a command resumes it")
    add_code_change_option(parser)


def add_code_change_option(parser: argparse.ArgumentParser) -> None:
    """``--allow-code-change``, for every sim that resumes sweep stores (pass it on to :func:`sweep`)."""
    parser.add_argument("--allow-code-change", action="store_true",
                        help="resume stores whose finished cells were computed by other dpbandit code "
                             "(warned, and recorded in their manifests)")


def sweep(
    config: dict[str, Any],
    store: Path,
    *,
    compute: bool = True,
    study: StudyProgress | None = None,
    allow_code_change: bool = False,
) -> tuple[pd.DataFrame, Path]:
    """Run (or resume) a sweep in ``<store>/<name>-<hash8>`` on every local core; rows and directory.

    ``compute=False`` only reads the finished cells (for redrawing); ``study``: the progress of the study the
    sweep belongs to (an ETA line after the sweep); ``allow_code_change``: resume a store whose finished cells
    were computed by other dpbandit code (:func:`dpbandit.sweep.run_sweep`).
    """
    grid = Sweep.from_dict(config)
    directory = default_store_dir(grid, store)
    if compute:
        rows = run_sweep(grid, directory, progress=True, study=study, allow_code_change=allow_code_change)
        return rows, directory
    return Store.read(directory).load([cell.key for cell in grid.cells]), directory


def shown(path: Path) -> Path:
    """``path`` relative to the repository when inside it (for the results files)."""
    return path.resolve().relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else path


def command_line() -> str:
    """The command that is running, as a person would type it from the repository's root (the script's path
    relative to it, wherever it was started from)."""
    script = Path(sys.argv[0]).resolve()
    shown_script = str(script.relative_to(ROOT)) if script.is_relative_to(ROOT) else sys.argv[0]
    return "python " + " ".join(shlex.quote(a) for a in [shown_script, *sys.argv[1:]])


def write_csv(df: pd.DataFrame, path: Path, header: str) -> None:
    """``df`` as CSV after a ``# header`` line (read back with ``pd.read_csv(path, comment="#")``)."""
    with open(path, "w") as fh:
        fh.write(f"# {header}\n")
        df.to_csv(fh, index=False, float_format="%.6g")


def markdown(df: pd.DataFrame) -> str:
    """A pipe table (floats with 4 significant digits) without the optional ``tabulate`` dependency."""
    rows = df.itertuples(index=False)
    cells = [[f"{v:.4g}" if isinstance(v, float) else str(v) for v in row] for row in rows]
    lines = ["| " + " | ".join(map(str, df.columns)) + " |", "|" + "---|" * len(df.columns)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in cells])


def half_split(df: pd.DataFrame, horizon: int) -> pd.DataFrame:
    """Per agent: mean regret over the first and the second half of the horizon, with 95% intervals."""
    mid = int(df.loc[df["step"] <= horizon // 2, "step"].max())
    rows = []
    for name, group in df.groupby("agent", sort=False):
        wide = group.pivot(index="seed", columns="step", values="cumulative_regret")
        first, total = wide[mid].to_numpy(), wide[horizon].to_numpy()
        second = total - first
        diff = second - first
        rows.append(
            {
                "agent": name,
                "half_step": mid,
                "first_half_mean": first.mean(),
                "second_half_mean": second.mean(),
                "second_minus_first_mean": diff.mean(),
                "diff_ci95_low": t_interval(diff)[0],
                "diff_ci95_high": t_interval(diff)[1],
            }
        )
    return pd.DataFrame(rows)


def thin(df: pd.DataFrame, every: int = 5) -> pd.DataFrame:
    """Per-seed cumulative regret at every ``every``-th recorded step counted back from T (keeps T/2)."""
    steps = sorted(df["step"].unique())[::-1][::every]
    cols = ["agent", "seed", "step", "cumulative_regret"]
    return df.loc[df["step"].isin(steps), cols].sort_values(["agent", "seed", "step"], kind="stable")


def replica_check(table: pd.DataFrame, scaled_table: pd.DataFrame, band: tuple[float, float]) -> str:
    """Where the replica's mean final regret lands, on both context scalings, against the published band."""

    def row(frame: pd.DataFrame, agent: str) -> pd.Series:
        return frame.loc[frame["agent"] == agent].iloc[0]

    lines = []
    for name, frame in [("the Figure 5.1 environment (||x||_inf = 1)", table),
                        ("the authors' context scaling (||x||_1 = 1, env.py:119)", scaled_table)]:
        rep, rnd = row(frame, REPLICA["label"]), row(frame, "random")
        inside = band[0] <= rep["final_regret_mean"] <= band[1]
        lines.append(
            f"- On {name}: the replica (not private) scores {rep['final_regret_mean']:.1f} "
            f"(95% CI [{rep['ci95_low']:.1f}, {rep['ci95_high']:.1f}], {int(rep['seeds'])} seeds; "
            f"{rep['ratio_to_random']:.2f}x random on the same seeds), "
            f"random play {rnd['final_regret_mean']:.1f}, "
            f"the faithful DP-HDB at epsilon = 1 {row(frame, 'DP-HDB')['final_regret_mean']:.1f}: "
            f"{'**inside**' if inside else '**outside**'} the band [{band[0]:g}, {band[1]:g}] "
            f"around the published ~{PAPER['DP-HDB']:g}."
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="T=2000, 3 seeds (smoke run)")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--epsilon", type=float, default=1.0)
    add_common_options(parser)
    parser.add_argument("--replot", action="store_true", help="redraw from the finished cells of the store")
    args = parser.parse_args()
    horizon, seeds = (2000, 3) if args.quick else (args.horizon, args.seeds)
    stem = "fig5_1_quick" if args.quick else "fig5_1"
    dim = 50
    config = {
        "name": stem, "root_seed": args.root_seed, "seeds": seeds, "n_points": 101, "spacing": "linear",
        "grid": {"agent": agents(args.epsilon, dim), "env_id": ENV_ID, "horizon": horizon},
    }
    df, store = sweep(config, args.store, compute=not args.replot, allow_code_change=args.allow_code_change)
    scaled_config = {**config, "name": f"{stem}_l1",
                     "grid": {**config["grid"], "agent": authors_scaling_agents(args.epsilon),
                              "env": AUTHORS_SCALING}}
    scaled, scaled_store = sweep(scaled_config, args.store, compute=not args.replot,
                                 allow_code_change=args.allow_code_change)
    RESULTS.mkdir(exist_ok=True)
    command = " ".join(a for a in command_line().split(" ") if a != "--replot")
    origin = f"{command} (root seed {args.root_seed}; sweep store {shown(store)})"
    write_csv(thin(df), RESULTS / f"{stem}.csv", f"produced by: {origin}")
    plot_regret(
        df,
        RESULTS / f"{stem}.png",
        title=f"004 Fig 5.1 setting: d={dim}, K=2, T={horizon}, eps={args.epsilon:g}, delta=1/T\n"
        f"mean cumulative regret, 95% CI over {seeds} seeds",
    )
    table = final_regret_table(df)
    halves = half_split(df, horizon)
    scaled_table = final_regret_table(scaled)
    with open(RESULTS / f"{stem}.md", "w") as fh:
        fh.write(f"# Figure 5.1 reproduction\n\nCommand: `{command}` (root seed {args.root_seed}; "
                 f"sweep stores `{shown(store)}` and `{shown(scaled_store)}`)\n\n")
        fh.write("## Final cumulative regret (mean, 95% t-interval over seeds)\n\n")
        fh.write(markdown(table) + "\n\n")
        fh.write(f"Paper (authors' Figure 5.1, read off the plot): DP-HDB ~{PAPER['DP-HDB']:g}, "
                 f"DP-UCB ~{PAPER['DP-UCB']:g}. The row '{REPLICA['label']}' is the authors' DP-HDB code "
                 "(`dpbandit/agents/dphdb_replica.py`): its epsilon column is inf because it is not "
                 "differentially private (the sign of the chosen coordinate is released without noise).\n\n")
        fh.write("## Regret over the first vs the second half of the horizon\n\n")
        fh.write(markdown(halves) + "\n\n")
        fh.write("## The authors' context scaling (||x||_1 = 1, their env.py:119): where ~62 comes from\n\n")
        fh.write("Same environment and seeds, but each context divided by its l1 norm, as the authors' "
                 "bandit environment does for DP-HDB (`np.linalg.norm(X, np.inf)` of a (1, d) matrix is the "
                 "row's l1 norm); their DP-UCB ran on l_inf-normalised contexts (env.py:136), as above.\n\n")
        fh.write(markdown(scaled_table) + "\n\n")
        fh.write("### The replica against the published DP-HDB number (issue 14, Must show 2)\n\n"
                 + replica_check(table, scaled_table, REPLICA_BAND) + "\n\n"
                 "So the published ~62 is reproduced by the authors' code only on the authors' l1 context "
                 "scaling, where random play already scores about as much; on the l_inf environment of "
                 "Figure 5.1 the replica is at random play's level, as is every private agent at "
                 "epsilon = 1.\n\n")
        fh.write("Long horizons (T up to 10^7, the faithful DP-HDB's crossover with random play): "
                 "[results/fig5_1_long.md](fig5_1_long.md). All seed papers: "
                 "[results/fidelity.md](fidelity.md).\n")
    print(table.to_string(index=False))
    print(halves.to_string(index=False))
    print(scaled_table.to_string(index=False))


if __name__ == "__main__":
    main()
