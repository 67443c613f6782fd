"""Figure 5.1 of 004_290fd04a1e656565.txt: cumulative regret of DP-HDB vs DP-UCB under joint DP.

Setting (Section 5.4): ``dpbandit/HDBSection54-v0`` (T = 10,000, d = 50, K = 2, linear rewards,
5-sparse l1-normalised parameters, ||x||_inf = 1 contexts, N(0, 0.05^2) noise), epsilon = 1,
delta = 1/T. Agents (docs/private_agents.md):

* DP-HDB: Algorithm 3, default ``calibration="joint"`` (total JDP guarantee = (1, 1/T));
* DP-HDB (paper calibration): Algorithm 2 line 8 per arm stream, as Theorem 4.1;
* DP-UCB: Shariff-Sheffet with their sigma_noise (block features, D = 100, L = sqrt(50));
* DP-UCB (accountant): the tree's node std calibrated by dp_accounting to (1, 1/T);
* references: DP-HDB with noise off (not private), disjoint LinUCB (alpha = 1), random.

Usage: python sims/fig5_1.py [--quick] [--seeds 20] [--horizon 10000] [--replot]
Writes results/fig5_1.csv (tidy regret on a 101-point linear grid, including T/2), results/fig5_1.png and
results/fig5_1.md (command, final-regret table with 95% intervals, first/second-half regret).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one BLAS thread: per-step 100x100 Cholesky solves thrash otherwise

import argparse  # noqa: E402
import functools  # noqa: E402
import math  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import pandas as pd  # noqa: E402

from dpbandit.agents.dphdb import DPHDB  # noqa: E402
from dpbandit.agents.dpucb import DPUCB  # noqa: E402
from dpbandit.agents.linear import LinUCB  # noqa: E402
from dpbandit.agents.uniform import RandomAgent  # noqa: E402
from dpbandit.harness import final_regret_table, plot_regret, run, t_interval  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "results"
ENV_ID = "dpbandit/HDBSection54-v0"
PAPER = {"DP-HDB": 62.0, "DP-UCB": 940.0}  # read off the authors' published Figure 5.1


def private_agents(epsilon: float, context_dim: int) -> dict[str, object]:
    """The two private agents at ``epsilon`` (delta = 1/T by default), DP-UCB with L = sqrt(d)."""
    return {
        "DP-HDB": functools.partial(DPHDB, epsilon=epsilon),
        "DP-UCB": functools.partial(DPUCB, epsilon=epsilon, feature_bound=math.sqrt(context_dim)),
    }


def agents(epsilon: float, context_dim: int) -> dict[str, object]:
    """All agents of the figure."""
    private = private_agents(epsilon, context_dim)
    return {
        **private,
        "DP-HDB (paper calibration)": functools.partial(DPHDB, epsilon=epsilon, calibration="paper"),
        "DP-UCB (accountant calibration)": functools.partial(
            DPUCB, epsilon=epsilon, feature_bound=math.sqrt(context_dim), calibration="accountant"
        ),
        "DP-HDB noise off (not private)": functools.partial(DPHDB, noise=False),
        "LinUCB (not private)": LinUCB,
        "random": RandomAgent,
    }


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="T=2000, 3 seeds (smoke run)")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--horizon", type=int, default=10_000)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--root-seed", type=int, default=2022)
    parser.add_argument("--replot", action="store_true", help="redraw from the existing CSV")
    args = parser.parse_args()
    horizon, seeds = (2000, 3) if args.quick else (args.horizon, args.seeds)
    stem = "fig5_1_quick" if args.quick else "fig5_1"
    dim = 50
    RESULTS.mkdir(exist_ok=True)
    if args.replot:  # redraw the figure and the summary from an existing CSV
        df = pd.read_csv(RESULTS / f"{stem}.csv")
        horizon, seeds = int(df["step"].max()), int(df["seed"].nunique())
    else:
        df = run(
            ENV_ID,
            agents(args.epsilon, dim),
            n_seeds=seeds,
            root_seed=args.root_seed,
            horizon=horizon,
            n_points=101,
            spacing="linear",
            progress=True,
        )
        df.to_csv(RESULTS / f"{stem}.csv", index=False, float_format="%.6g")
    plot_regret(
        df,
        RESULTS / f"{stem}.png",
        title=f"004 Fig 5.1 setting: d={dim}, K=2, T={horizon}, eps={args.epsilon:g}, delta=1/T\n"
        f"mean cumulative regret, 95% CI over {seeds} seeds",
    )
    table = final_regret_table(df)
    halves = half_split(df, horizon)
    command = "python " + " ".join(shlex.quote(a) for a in sys.argv if a != "--replot")
    with open(RESULTS / f"{stem}.md", "w") as fh:
        fh.write(f"# Figure 5.1 reproduction\n\nCommand: `{command}` (root seed {args.root_seed})\n\n")
        fh.write("## Final cumulative regret (mean, 95% t-interval over seeds)\n\n")
        fh.write(markdown(table) + "\n\n")
        fh.write(f"Paper (authors' Figure 5.1, read off the plot): DP-HDB ~{PAPER['DP-HDB']:g}, "
                 f"DP-UCB ~{PAPER['DP-UCB']:g}.\n\n")
        fh.write("## Regret over the first vs the second half of the horizon\n\n")
        fh.write(markdown(halves) + "\n")
    print(table.to_string(index=False))
    print(halves.to_string(index=False))


if __name__ == "__main__":
    main()
