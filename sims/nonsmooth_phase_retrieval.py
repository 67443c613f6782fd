"""Private nonsmooth nonconvex optimisation on robust phase retrieval (paper 002 has no experiments; notes section 6).

f(x; (a, b)) = | |<a, x>| - b | (1-Lipschitz, ||a|| <= 1, 10% outliers in b), smoothing radius alpha, so the
certified Goldstein radius is 2 alpha (Lemma 2.4). Methods, all with the same step budget:

* ``O2NC-FO`` Algorithm 2 + 5 (single pass, first order, tree), ``O2NC-ZO`` Algorithm 2 + 3 (single pass, zeroth
  order, tree), ``O2NC-MP`` Algorithm 2 + 4 (multi pass ERM, zeroth order, Gaussian composition; n <= 1e4 only,
  it evaluates every sample at every step), each with the practical preset and strict clipping;
* ``O2NC non-private`` (Algorithm 2 + 5, noise off, tuned without noise) and ``DP-SGD`` (single pass).

Metric: the gradient-sampling upper bound on ||dbar_{2 alpha} F(x)|| (``stationarity.goldstein_estimate``,
K = 2(d+1) samples) on a fresh population sample, averaged over 8 block averages drawn uniformly (= E over x_out;
DP-SGD: iterates), with the same points' mean population loss, min(||x - x*||, ||x + x*||), and the accountant's epsilon of every run.
Start: ||x0|| = 2 in a random direction [Fill] (the notes' x0 = 0.1 N(0, I/d) lies within 2 alpha of the
stationary point 0, where the Goldstein norm is already ~0). Public gap Phi = 1 [Fill]; delta = n^-1.1.

Usage: python sims/nonsmooth_phase_retrieval.py [--quick] [--seeds 3] [--replot]
Writes results/nonsmooth.csv (one row per run), results/nonsmooth_vs_n.png, results/nonsmooth_vs_eps.png and
results/nonsmooth.md (command, summary tables).
"""

from __future__ import annotations

import argparse
import itertools
import math
import shlex
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from tqdm import tqdm  # noqa: E402

from dpbandit.optim.nonsmooth import (  # noqa: E402
    DPSGD,
    PrivateO2NC,
    RobustPhaseRetrieval,
    goldstein_estimate,
    make_phase_retrieval,
    practical_preset,
)

RESULTS = Path(__file__).resolve().parents[1] / "results"
ALPHA = 0.05
GAP = 1.0
X0_NORM = 2.0
STEPS = 2000
MP_STEPS = 50
MP_MAX_N = 10_000
EVAL_BLOCKS = 8
POPULATION = 100_000
METHODS = ("O2NC-FO", "O2NC-ZO", "O2NC-MP", "O2NC non-private", "DP-SGD")
COLORS = dict(zip(METHODS, ("tab:green", "tab:purple", "tab:red", "tab:orange", "tab:blue")))


def make_optimizer(method: str, *, n: int, d: int, epsilon: float, delta: float, x0: np.ndarray, rng):
    """The optimizer of ``method`` for a data set of size n."""
    loss = RobustPhaseRetrieval()
    if method == "DP-SGD":
        return DPSGD(d, loss=loss, epsilon=epsilon, delta=delta, rng=rng, steps=STEPS, radius=X0_NORM, x0=x0)
    order = "zeroth" if method in ("O2NC-ZO", "O2NC-MP") else "first"
    private = method != "O2NC non-private"
    preset = practical_preset(
        order, n=n, dim=d, alpha=ALPHA, epsilon=epsilon, delta=delta, gap=GAP, private=private,
        multi_pass=method == "O2NC-MP", steps=MP_STEPS if method == "O2NC-MP" else STEPS,
    )
    # the non-private baseline clips nothing (strict=False drops the preset's clip norms)
    return PrivateO2NC(d, loss=loss, preset=preset, epsilon=epsilon, delta=delta, rng=rng, x0=x0, noise=private,
                       strict=private)


def run_one(method: str, *, d: int, n: int, epsilon: float, seed_seq: np.random.SeedSequence, population) -> dict:
    """One run: data, optimisation, Goldstein / loss / recovery metrics, privacy."""
    data_ss, x0_ss, opt_ss, eval_ss = seed_seq.spawn(4)
    data = make_phase_retrieval(n, d, rng=np.random.default_rng(data_ss), x_star=population.x_star)
    x0 = np.random.default_rng(x0_ss).standard_normal(d)
    x0 *= X0_NORM / np.linalg.norm(x0)
    delta = n**-1.1
    loss = RobustPhaseRetrieval()
    start = time.perf_counter()
    opt = make_optimizer(method, n=n, d=d, epsilon=epsilon, delta=delta, x0=x0, rng=np.random.default_rng(opt_ss))
    result = opt.fit(data.X, data.y)
    seconds = time.perf_counter() - start
    eval_rng = np.random.default_rng(eval_ss)
    pick = eval_rng.choice(len(result.history), size=min(EVAL_BLOCKS, len(result.history)), replace=False)
    points = result.history[pick]
    est = goldstein_estimate(lambda p: loss.mean_grads(p, population.X, population.y),
                             np.vstack([points, x0]), 2 * ALPHA, rng=eval_rng, iters=1000)
    row = dict(
        method=method, d=d, n=n, epsilon=epsilon if method != "O2NC non-private" else math.inf, delta=delta,
        goldstein=float(est.upper[:-1].mean()), goldstein_x0=float(est.upper[-1]),
        loss=float(loss.mean_values(points, population.X, population.y).mean()),
        recovery=float(population.recovery_error(points).mean()),
        accountant_epsilon=result.privacy.epsilon if result.privacy else math.inf,
        evaluations=result.n_gradients, seconds=seconds,
    )
    if method == "O2NC-MP":  # ERM objective too (Prop 5.1 transfers it to F)
        row["goldstein_erm"] = goldstein_estimate(lambda p: loss.mean_grads(p, data.X, data.y), points, 2 * ALPHA,
                                                  rng=eval_rng, iters=1000).mean
    counters = result.info.get("counters")
    if counters is not None:
        used = max(1, counters.anchors + counters.increments)
        row["clipped_per_step"] = sum(counters.clipped.values()) / used
        preset = result.info["preset"]
        row.update(period=preset.params.period, D=preset.D, M=preset.M, steps=preset.steps, m=preset.params.m)
    return row


def plot(df: pd.DataFrame, path_n: Path, path_eps: Path, eps_fixed: float) -> None:
    """Goldstein estimate vs n at fixed epsilon (one panel per d) and vs epsilon at the largest n."""
    ds = sorted(df.d.unique())
    fig, axes = plt.subplots(1, len(ds), figsize=(4.2 * len(ds), 3.6), squeeze=False, sharey=True)
    for ax, d in zip(axes[0], ds):
        sub = df[(df.d == d) & ((df.epsilon == eps_fixed) | np.isinf(df.epsilon))]
        for method, g in sub.groupby("method"):
            agg = g.groupby("n").goldstein.agg(["mean", "sem"]).reset_index()
            ax.errorbar(agg.n, agg["mean"], yerr=agg["sem"].fillna(0), marker="o", capsize=3, label=method,
                        color=COLORS[method])
        ax.axhline(df[df.d == d].goldstein_x0.mean(), color="grey", ls=":", lw=1, label="at x0")
        ax.set_xscale("log")
        ax.set_title(f"d = {d}, epsilon = {eps_fixed:g}")
        ax.set_xlabel("n")
    axes[0, 0].set_ylabel(f"Goldstein norm, radius {2 * ALPHA:g} (upper bd)")
    axes[0, -1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path_n, dpi=120)
    plt.close(fig)
    n_max = df.n.max()
    sub = df[(df.n == n_max) & np.isfinite(df.epsilon)]
    fig, axes = plt.subplots(1, len(ds), figsize=(4.2 * len(ds), 3.6), squeeze=False, sharey=True)
    for ax, d in zip(axes[0], ds):
        for method, g in sub[sub.d == d].groupby("method"):
            agg = g.groupby("epsilon").goldstein.agg(["mean", "sem"]).reset_index()
            ax.errorbar(agg.epsilon, agg["mean"], yerr=agg["sem"].fillna(0), marker="o", capsize=3, label=method,
                        color=COLORS[method])
        ref = df[(df.d == d) & (df.n == n_max) & np.isinf(df.epsilon)].goldstein.mean()
        ax.axhline(ref, color=COLORS["O2NC non-private"], ls="--", lw=1, label="O2NC non-private")
        ax.set_xscale("log")
        ax.set_title(f"d = {d}, n = {n_max:g}")
        ax.set_xlabel("epsilon")
    axes[0, 0].set_ylabel(f"Goldstein norm, radius {2 * ALPHA:g} (upper bd)")
    axes[0, -1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path_eps, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small grid (d=10, n in {1e3, 1e4}, eps=1, 1 seed)")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--root-seed", type=int, default=2024)
    parser.add_argument("--replot", action="store_true", help="redraw the PNGs from the existing CSV only")
    args = parser.parse_args(argv)
    if args.quick:
        dims, sizes, epsilons, seeds, suffix = (10,), (1_000, 10_000), (1.0,), 1, "_quick"
    else:
        dims, sizes, epsilons, seeds, suffix = (5, 10, 30), (1_000, 10_000, 100_000, 1_000_000), (1.0, 4.0), args.seeds, ""
    if args.replot:
        df = pd.read_csv(RESULTS / f"nonsmooth{suffix}.csv")
        plot(df, RESULTS / f"nonsmooth{suffix}_vs_n.png", RESULTS / f"nonsmooth{suffix}_vs_eps.png", epsilons[0])
        return
    root = np.random.SeedSequence(args.root_seed)
    pop_ss, run_ss = root.spawn(2)
    populations = {d: make_phase_retrieval(POPULATION, d, rng=np.random.default_rng(s))
                   for d, s in zip(dims, pop_ss.spawn(len(dims)))}
    jobs = []
    for d, n, seed in itertools.product(dims, sizes, range(seeds)):
        for method in METHODS:
            if method == "O2NC-MP" and n > MP_MAX_N:
                continue
            for eps in (epsilons if method != "O2NC non-private" else (1.0,)):
                jobs.append((method, d, n, eps, seed))
    seed_seqs = {key: ss for key, ss in zip(itertools.product(dims, sizes, range(seeds)),
                                            run_ss.spawn(len(dims) * len(sizes) * seeds))}
    rows = []
    for method, d, n, eps, seed in tqdm(jobs, desc="runs"):
        row = run_one(method, d=d, n=n, epsilon=eps, seed_seq=seed_seqs[(d, n, seed)], population=populations[d])
        row["seed"] = seed
        rows.append(row)
        tqdm.write(f"{method:17s} d={d:3d} n={n:7d} eps={row['epsilon']:<4} goldstein={row['goldstein']:.4f} "
                   f"loss={row['loss']:.4f} accountant_epsilon={row['accountant_epsilon']:.4f}")
    df = pd.DataFrame(rows)
    RESULTS.mkdir(exist_ok=True)
    command = "python sims/nonsmooth_phase_retrieval.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    df.to_csv(RESULTS / f"nonsmooth{suffix}.csv", index=False)
    eps_fixed = epsilons[0]
    plot(df, RESULTS / f"nonsmooth{suffix}_vs_n.png", RESULTS / f"nonsmooth{suffix}_vs_eps.png", eps_fixed)
    table = (df.groupby(["d", "n", "epsilon", "method"])[["goldstein", "loss", "recovery", "accountant_epsilon"]]
             .mean().round(4))
    (RESULTS / f"nonsmooth{suffix}.md").write_text(
        f"# Nonsmooth phase retrieval (paper 002)\n\nCommand: `{command.strip()}`\n\n"
        f"alpha = {ALPHA} (certified radius {2 * ALPHA}), ||x0|| = {X0_NORM}, steps = {STEPS} "
        f"(multi-pass {MP_STEPS}), population proxy {POPULATION}, delta = n^-1.1, {seeds} seed(s).\n\n"
        "Goldstein = mean gradient-sampling upper bound on ||dbar_{2 alpha} F|| over block averages.\n\n"
        + "```\n" + table.to_string() + "\n```\n"
    )
    print(table.to_string())


if __name__ == "__main__":
    main()
