"""Figure 5.1 setting at long horizons: when does the faithful DP-HDB at epsilon = 1 beat random play?

Setting: ``dpbandit/HDBSection54-v0`` (d = 50, K = 2, 004 Section 5.4), epsilon = 1, delta = 1/T, with
T in {10^4, 10^5, 10^6, 10^7}; every agent is calibrated for its own T (a separate run per T, not a
prefix of the longest one). Agents:

* DP-HDB, the registered ``dphdb`` defaults (Algorithm 3, joint calibration over the two streams a
  user can touch, t0 = floor(log(dT) log T / eps^2));
* DP-UCB with the accountant calibration (block features D = dK = 100, L = sqrt(d)) at the horizons
  in :data:`DPUCB_HORIZONS` only: it costs about 1 ms per round. :data:`DPUCB` is the one place to
  switch to a faster DP-UCB (issue 16);
* references: random play and disjoint LinUCB (not private).

Windows. The sweep records cumulative regret on the harness's log grid (``n_points = 1000``,
``spacing = "log"``: about 750 geometric points plus 250 evenly spaced ones). The windows are
quarter decades ``(10^(k/4), 10^((k+1)/4)]`` from 100 to T, each edge snapped to the nearest recorded
step (the table lists the snapped edges), plus the last 10% of the rounds ``(0.9 T, T]`` (snapped
likewise). In each window and for each seed, the per-step regret of an agent is divided by that of
random play on the same seed (same contexts, parameters and reward noise: the ratio is paired);
the table gives the mean ratio over seeds with a 95% t-interval. The crossover horizon T_x is the
upper edge of the first window whose mean ratio is < 0.9 and whose interval excludes 1 (for DP-HDB,
among the windows after its K t0 forced rounds); ``T_x_sustained`` is the first such window after
which every later window also qualifies (many windows are scanned, so a single early hit can be
chance). The "half" window is the first whose mean ratio is < 0.5.

Usage: python sims/fig5_1_long.py [--quick] [--seeds 5] [--store out/sweeps] [--replot]
Two sweeps (DP-HDB and the references at every T; DP-UCB at its horizons) run on every local core into
``<store>/fig5_1_long-<hash>`` and ``<store>/fig5_1_long_dpucb-<hash>``; re-running resumes them.
Writes results/fig5_1_long.csv (the window table), .png (cumulative regret, log-log; window ratios)
and .md (command, timings, calibrations, crossover, checks).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import math  # noqa: E402
import resource  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from fig5_1 import ENV_ID, RESULTS, add_common_options, command_line, markdown, shown, sweep, write_csv  # noqa: E402

from dpbandit.agents.dphdb import DPHDB  # noqa: E402
from dpbandit.harness import final_regret_table, t_interval  # noqa: E402

DIM = 50
HORIZONS = (10**4, 10**5, 10**6, 10**7)
#: DP-UCB entry (one place to switch to a faster DP-UCB, issue 16) and the horizons it can afford.
DPUCB: dict[str, Any] = {"agent": "dpucb", "label": "DP-UCB (accountant calibration)",
                         "calibration": "accountant", "feature_bound": math.sqrt(DIM)}
DPUCB_HORIZONS = (10**4, 10**5)
DPHDB_LABEL = "DP-HDB"
REFERENCE = "random"
CROSSOVER_RATIO, HALF_RATIO, LAST_FRACTION = 0.9, 0.5, 0.1


def configs(horizons: tuple[int, ...], dpucb_horizons: tuple[int, ...], seeds: int, root_seed: int,
            epsilon: float) -> list[dict[str, Any]]:
    """The two sweep configs: DP-HDB + references at every horizon, DP-UCB at its horizons."""
    common = {"root_seed": root_seed, "seeds": seeds, "n_points": 1000, "spacing": "log"}
    agents = [{"agent": "dphdb", "label": DPHDB_LABEL, "epsilon": epsilon},
              {"agent": "linucb", "label": "LinUCB (not private)"}, {"agent": "random", "label": REFERENCE}]
    grid = {"agent": agents, "env_id": ENV_ID, "horizon": list(horizons)}
    main = {"name": "fig5_1_long", **common, "grid": grid}
    out = [main]
    if dpucb_horizons:
        out.append({"name": "fig5_1_long_dpucb", **common, "grid": {
            "agent": [{**DPUCB, "epsilon": epsilon}], "env_id": ENV_ID, "horizon": list(dpucb_horizons)}})
    return out


def snap(steps: np.ndarray, target: float) -> int:
    """The recorded step nearest to ``target``."""
    return int(steps[np.abs(steps - target).argmin()])


def windows(steps: np.ndarray, horizon: int) -> list[tuple[int, int, str]]:
    """Quarter-decade windows from 100 to T (edges snapped to recorded steps) and the last 10%."""
    top = int(round(4 * math.log10(horizon)))
    edges = sorted({snap(steps, 10 ** (k / 4)) for k in range(8, top + 1)} | {horizon})
    out = [(a, b, "quarter decade") for a, b in zip(edges[:-1], edges[1:], strict=True)]
    return out + [(snap(steps, (1 - LAST_FRACTION) * horizon), horizon, "last 10%")]


def window_ratios(df: pd.DataFrame) -> pd.DataFrame:
    """Per (agent, horizon, window): per-step regret and its paired ratio to random play, 95% intervals."""
    wide = df.pivot_table(index=["horizon", "agent", "seed"], columns="step", values="cumulative_regret")
    rows = []
    for horizon in sorted(df["horizon"].unique()):
        steps = np.array(sorted(df.loc[df["horizon"] == horizon, "step"].unique()))
        ref = wide.loc[(horizon, REFERENCE)]
        for agent in [a for a in df.loc[df["horizon"] == horizon, "agent"].unique() if a != REFERENCE]:
            own = wide.loc[(horizon, agent)]
            seeds = own.index.intersection(ref.index)
            for a, b, kind in windows(steps, int(horizon)):
                per_step = (own.loc[seeds, b] - own.loc[seeds, a]).to_numpy() / (b - a)
                ref_step = (ref.loc[seeds, b] - ref.loc[seeds, a]).to_numpy() / (b - a)
                ratio = per_step / ref_step
                low, high = t_interval(ratio)
                rows.append({"agent": agent, "horizon": int(horizon), "kind": kind, "window_start": a,
                             "window_end": b, "seeds": seeds.size, "per_step_regret": per_step.mean(),
                             "random_per_step_regret": ref_step.mean(), "ratio": ratio.mean(),
                             "ratio_ci95_low": low, "ratio_ci95_high": high})
    return pd.DataFrame(rows)


def _interval(windows: pd.DataFrame) -> str:
    """``"(start, end]"`` of the first window, ``"-"`` if there is none."""
    return f"({windows['window_start'].iloc[0]}, {windows['window_end'].iloc[0]}]" if len(windows) else "-"


def _short(horizon: int) -> str:
    return f"T=1e{int(round(math.log10(horizon)))}"


def crossover(ratios: pd.DataFrame, forced: dict[int, int]) -> pd.DataFrame:
    """Per (agent, horizon): the crossover window (ratio < 0.9, CI excludes 1) and the first ratio < 0.5.

    For DP-HDB only windows after its forced-sampling rounds (``forced[T] = K t0``) count: those rounds
    are pulled in a fixed order whatever the data, so a low ratio there is chance, not learning.
    """
    rows = []
    quarters = ratios[ratios["kind"] == "quarter decade"]
    for (agent, horizon), group in quarters.groupby(["agent", "horizon"], sort=False):
        group = group.sort_values("window_start")
        if agent == DPHDB_LABEL:
            group = group[group["window_start"] >= forced[horizon]]
        below = ((group["ratio"] < CROSSOVER_RATIO) & (group["ratio_ci95_high"] < 1.0)).to_numpy()
        cross = group[below]
        holds = np.flip(np.cumprod(np.flip(below))).astype(bool)  # this window and every later one qualify
        sustained = group[holds]
        half = group[group["ratio"] < HALF_RATIO]
        own = ratios[(ratios["agent"] == agent) & (ratios["horizon"] == horizon)]
        last = own[own["kind"] == "last 10%"]
        rows.append({
            "agent": agent, "horizon": horizon,
            "T_x": int(cross["window_end"].iloc[0]) if len(cross) else "-",
            "T_x_window": _interval(cross),
            "T_x_ratio": cross["ratio"].iloc[0] if len(cross) else math.nan,
            "T_x_sustained": int(sustained["window_end"].iloc[0]) if len(sustained) else "-",
            "half_window": _interval(half),
            "last_10pct_ratio": last["ratio"].iloc[0],
            "last_10pct_ci": "[{:.3g}, {:.3g}]".format(*last[["ratio_ci95_low", "ratio_ci95_high"]].iloc[0]),
        })
    return pd.DataFrame(rows)


def calibrations(horizons: tuple[int, ...], epsilon: float) -> pd.DataFrame:
    """DP-HDB's calibration at each T: t0, forced rounds K t0, line-8 multiplier, the guarantee's epsilon."""
    rows = []
    for horizon in horizons:
        agent = DPHDB(2, DIM, rng=np.random.default_rng(0), horizon=horizon, epsilon=epsilon)
        cal = agent.bank.privacy_calibration
        rows.append({"horizon": horizon, "t0": agent.warmup, "forced_rounds": agent.n_arms * agent.warmup,
                     "steps_per_arm": cal.n_steps,
                     "multiplier_x_line8": cal.multiplier, "accountant_epsilon": agent.privacy.epsilon,
                     "delta": agent.delta})
    return pd.DataFrame(rows)


def plot(df: pd.DataFrame, ratios: pd.DataFrame, path, seeds: int, epsilon: float) -> None:
    """Left: mean cumulative regret (log-log), one line per agent and T. Right: window ratios to random."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    agents = list(dict.fromkeys(df["agent"]))
    maps = dict(zip(agents, ("Blues", "Oranges", "Greens", "Purples", "Reds"), strict=False))
    horizons = sorted(df["horizon"].unique())
    widths = dict(zip(horizons, np.linspace(0.8, 2.0, len(horizons)), strict=True))
    shade = dict(zip(horizons, np.linspace(0.45, 0.95, len(horizons)), strict=True))

    def colour(agent: str, horizon: int):  # one hue per agent, darker for longer T
        return plt.get_cmap(maps[agent])(shade[horizon])
    mean = df.groupby(["agent", "horizon", "step"])["cumulative_regret"].mean().reset_index()
    for (agent, horizon), group in mean.groupby(["agent", "horizon"], sort=False):
        label = f"{agent}, {_short(horizon)}"
        left.plot(group["step"], group["cumulative_regret"].clip(lower=1e-2), color=colour(agent, horizon),
                  lw=widths[horizon], alpha=0.85, label=label)
    left.set(xscale="log", yscale="log", xlabel="round t", ylabel="mean cumulative pseudo-regret",
             title=f"cumulative regret, each T calibrated separately ({seeds} seeds)")
    left.legend(fontsize=6, ncol=2)
    quarters = ratios[ratios["kind"] == "quarter decade"]
    for (agent, horizon), group in quarters.groupby(["agent", "horizon"], sort=False):
        middle = np.sqrt(group["window_start"] * group["window_end"])
        low, high = group["ratio"] - group["ratio_ci95_low"], group["ratio_ci95_high"] - group["ratio"]
        err = np.vstack([low, high])
        right.errorbar(middle, group["ratio"], yerr=err, color=colour(agent, horizon), lw=widths[horizon],
                       capsize=2, marker="o", ms=2.5, alpha=0.85, label=f"{agent}, {_short(horizon)}")
    for level, style in ((1.0, "-"), (CROSSOVER_RATIO, "--"), (HALF_RATIO, ":")):
        right.axhline(level, color="grey", ls=style, lw=0.8)
    right.set(xscale="log", xlabel="window (geometric middle, rounds)", ylim=(0, 1.6),
              ylabel="per-step regret / random's (paired by seed)",
              title="quarter-decade windows, mean ratio and 95% CI")
    right.legend(fontsize=6, ncol=2)
    fig.suptitle(f"004 Fig 5.1 setting (d={DIM}, K=2), eps={epsilon:g}, delta=1/T", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


def checks(cross: pd.DataFrame, horizons: tuple[int, ...]) -> list[str]:
    """The issue's two checks on DP-HDB: T_x in [5e4, 4e5]; last-10% ratio < 0.05 at the longest T."""
    hdb = cross[cross["agent"] == DPHDB_LABEL].set_index("horizon")
    longest = max(horizons)
    t_x = hdb.loc[longest, "T_x"]
    shown_t_x = "not reached" if t_x == "-" else str(t_x)
    lines = [f"- Crossover (T = {longest:.0e} run): T_x = {shown_t_x} "
             f"(window {hdb.loc[longest, 'T_x_window']}); required in [5e4, 4e5]: "
             f"**{'met' if t_x != '-' and 5e4 <= t_x <= 4e5 else 'not met'}**."]
    last = hdb.loc[longest, "last_10pct_ratio"]
    lines.append(f"- Last 10% of T = {longest:.0e}: per-step regret / random's = {last:.3g} "
                 f"(95% CI {hdb.loc[longest, 'last_10pct_ci']}); required < 0.05: "
                 f"**{'met' if last < 0.05 else 'not met'}**.")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="T in {1e3, 1e4}, 2 seeds (smoke run)")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--epsilon", type=float, default=1.0)
    add_common_options(parser)
    parser.add_argument("--replot", action="store_true", help="redraw from the finished cells of the stores")
    args = parser.parse_args()
    horizons, dpucb_h, seeds = (HORIZONS, DPUCB_HORIZONS, args.seeds)
    if args.quick:
        horizons, dpucb_h, seeds = (10**3, 10**4), (10**3,), 2
    stem = "fig5_1_long_quick" if args.quick else "fig5_1_long"
    start = time.perf_counter()
    frames, stores = [], []
    for config in configs(horizons, dpucb_h, seeds, args.root_seed, args.epsilon):
        frame, store = sweep(config, args.store, compute=not args.replot,
                             allow_code_change=args.allow_code_change)
        frames.append(frame)
        stores.append(shown(store))
    wall = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    df = pd.concat(frames, ignore_index=True)
    ratios = window_ratios(df)
    calibration = calibrations(horizons, args.epsilon)
    forced = dict(zip(calibration["horizon"], calibration["forced_rounds"], strict=True))
    cross = crossover(ratios, forced)
    finals = pd.concat([final_regret_table(df[df["horizon"] == h]) for h in sorted(df["horizon"].unique())])
    finals = finals.rename(columns={"wall_time_s": "wall_time_s_per_run"})
    last_rows = df[df["step"] == df["horizon"]]
    cpu = last_rows.groupby(["agent", "horizon"])["wall_time"].sum().rename("cell_seconds_total")
    RESULTS.mkdir(exist_ok=True)
    command = " ".join(a for a in command_line().split(" ") if a != "--replot")
    write_csv(ratios, RESULTS / f"{stem}.csv", f"produced by: {command} (root seed {args.root_seed}; "
              f"sweep stores {', '.join(map(str, stores))}); window table, see {stem}.md")
    plot(df, ratios, RESULTS / f"{stem}.png", seeds, args.epsilon)
    hdb_windows = ratios[(ratios["agent"] == DPHDB_LABEL) & (ratios["horizon"] == max(horizons))]
    lines = [
        "# Figure 5.1 setting at long horizons: faithful DP-HDB at epsilon = 1", "",
        f"Command: `{command}` (root seed {args.root_seed}; "
        f"sweep stores {', '.join(f'`{s}`' for s in stores)}). "
        f"Compute: {last_rows['wall_time'].sum():.0f} s, the runs' wall-clock summed over cells (each on one "
        "core of a shared 2-core machine)"
        + ("" if args.replot else f"; this invocation took {wall:.0f} s (cells already in the stores are not "
           f"recomputed), peak RSS of a worker process {peak_mb:.0f} MB") + ".", "",
        f"`dpbandit/HDBSection54-v0` (d = {DIM}, K = 2), epsilon = {args.epsilon:g}, delta = 1/T, "
        f"{seeds} seeds; each T is a separate run calibrated for that T. DP-UCB (accountant calibration, "
        f"block features) only at T in {list(dpucb_h)} (about 1 ms per round). Windows and the crossover "
        "rule: see the docstring of "
        "`sims/fig5_1_long.py` (quarter decades snapped to the recorded log grid; ratios paired by seed; "
        "for DP-HDB only windows after its K t0 forced rounds count).",
        "", "![long-horizon regret](fig5_1_long.png)" if not args.quick else "", "",
        "## Checks (issue 14)", "", *checks(cross, horizons), "",
        "## Crossover per agent and horizon", "", markdown(cross), "",
        f"## DP-HDB windows at T = {max(horizons):.0e}", "",
        markdown(hdb_windows.drop(columns=["agent", "horizon"])), "",
        "## DP-HDB calibration per horizon", "", markdown(calibration), "",
        "## Final cumulative regret", "",
        markdown(finals.merge(cpu.reset_index(), on=["agent", "horizon"], how="left")), "",
        "`cell_seconds_total`: wall-clock seconds of all runs of that agent and T, summed (one core each).",
    ]
    (RESULTS / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print(cross.to_string(index=False))


if __name__ == "__main__":
    main()
