"""Figure 5.2 of 004_290fd04a1e656565.txt: SubOpt training curves for several learning-rate scales.

T = 2000, d = 10, (1, 1/T)-DP, the data / loss / constraint of sims/table5_1.py. Four panels: NoisySFW and
DP-TOFW at p = 1.5, NoisySGD and DP-TOFW at p = inf; one curve per learning-rate scale of the grid (mean over
seeds, band = +-1 std). The x-axis is the fraction of the run (DP-TOFW: samples streamed; NoisySFW:
Frank-Wolfe iterations; NoisySGD: SGD steps, curve = running iterate average, i.e. the output if stopped).
The paper's claim: DP-TOFW is robust to the learning-rate scale, NoisySFW and NoisySGD are not.

Usage: python sims/fig5_2.py [--quick] [--seeds 10] [--workers 2] [--epsilon 1]
Writes results/fig5_2.png, results/fig5_2.csv (curves) and results/fig5_2.md (command, final SubOpt);
``--epsilon 30`` (the privacy level the paper's OFW numbers correspond to, see results/table5_1.diag.md)
writes results/fig5_2.eps30.*.
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from table5_1 import GRIDS, RESULTS, make_data, make_optimizer, seed_sequence  # noqa: E402
from tqdm import tqdm  # noqa: E402

from dpbandit.optim.metrics import subopt  # noqa: E402

PANELS = (("NoisySFW", 1.5), ("OFW", 1.5), ("NoisySGD", math.inf), ("OFW", math.inf))
POINTS = 40


def curves(task: tuple) -> list[dict]:
    """SubOpt curves of every scale of one (algo, p, seed) at privacy level epsilon."""
    algo, p, T, d, seed, epsilon = task
    data = make_data(T, d, p, seed)
    scales = GRIDS[(algo, p)]
    rows = []

    def emit(scale: float, history: np.ndarray, steps: np.ndarray, total: int) -> None:
        s = subopt(history, data["X_test"], data["y_test"], data["theta"])
        rows.extend(dict(algo=algo, p=p, lr_scale=scale, seed=seed, progress=k / total, subopt=v)
                    for k, v in zip(steps, s))

    if algo == "NoisySGD":
        rng = np.random.default_rng(seed_sequence(T, d, p, seed, 1, 2))
        results = make_optimizer(algo, T, d, p, 1.0, rng, epsilon=epsilon).fit_scales(
            data["X"], data["y"], list(scales), record=True, record_points=POINTS)
        for scale, r in zip(scales, results):
            emit(scale, r.history, r.history_steps, T * T)
        return rows
    for k, scale in enumerate(scales):
        rng = np.random.default_rng(seed_sequence(T, d, p, seed, 1, 0 if algo == "OFW" else 1, k))
        opt = make_optimizer(algo, T, d, p, scale, rng, epsilon=epsilon)
        if algo == "OFW":
            r = opt.run(data["X"], data["y"], record_every=max(T // POINTS, 1))
            emit(scale, r.history, r.history_steps, T)
        else:
            r = opt.fit(data["X"], data["y"], record=True)
            emit(scale, r.history, r.history_steps, len(r.history) - 1)
    return rows


def plot(df: pd.DataFrame, path: Path, T: int, d: int, epsilon: float) -> None:
    fig, axes = plt.subplots(1, 4, figsize=(17, 3.8))
    titles = {"OFW": "DP-TOFW", "NoisySFW": "NoisySFW", "NoisySGD": "NoisySGD"}
    for ax, (algo, p) in zip(axes, PANELS):
        sub = df[(df.algo == algo) & (df.p == p)]
        for scale, g in sub.groupby("lr_scale"):
            stats = g.groupby("progress")["subopt"].agg(["mean", "std"]).reset_index()
            ax.plot(stats.progress, stats["mean"], label=f"scale {scale:g}")
            lo, hi = stats["mean"] - stats["std"], stats["mean"] + stats["std"]
            ax.fill_between(stats.progress, lo, hi, alpha=0.15)
        panel = "abcd"[PANELS.index((algo, p))]
        ax.set_title(f"({panel}) {titles[algo]}, p = {'inf' if math.isinf(p) else p}")
        ax.set_xlabel("fraction of the run")
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("SubOpt (test)")
    fig.suptitle(f"SubOpt under learning-rate scalings, T = {T}, d = {d}, ({epsilon:g}, 1/T)-DP")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="T = 500, 2 seeds")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--epsilon", type=float, default=1.0,
                        help="privacy level (the paper: 1); other values write fig5_2.eps<E>.*")
    args = parser.parse_args(argv)
    T, d, seeds = (500, 10, min(args.seeds, 2)) if args.quick else (2000, 10, args.seeds)
    todo = [(algo, p, T, d, s, args.epsilon) for algo, p in PANELS for s in range(seeds)]
    start = time.perf_counter()
    rows = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for fut in tqdm(as_completed([pool.submit(curves, t) for t in todo]), total=len(todo), desc="fig5_2"):
            rows += fut.result()
    wall = time.perf_counter() - start
    df = pd.DataFrame(rows)
    suffix = (".quick" if args.quick else "") + ("" if args.epsilon == 1.0 else f".eps{args.epsilon:g}")
    RESULTS.mkdir(exist_ok=True)
    df.to_csv(RESULTS / f"fig5_2{suffix}.csv", index=False)
    plot(df, RESULTS / f"fig5_2{suffix}.png", T, d, args.epsilon)
    final = df[df.progress == 1.0].groupby(["algo", "p", "lr_scale"])["subopt"].agg(["mean", "std"])
    final = final.reset_index()
    command = "python " + " ".join(shlex.quote(a) for a in [f"sims/{Path(__file__).name}", *sys.argv[1:]])
    lines = [f"# Figure 5.2 reproduction (T = {T}, d = {d}, epsilon = {args.epsilon:g}, {seeds} seeds)", "",
             f"Command: `{command}` (wall-clock {wall:.0f} s)", "",
             "Final SubOpt per learning-rate scale (mean ± std over seeds):", "",
             "| algo | p | scale | SubOpt |", "|---|---|---|---|"]
    lines += [f"| {r.algo} | {'inf' if math.isinf(r.p) else r.p} | {r.lr_scale:g} | "
              f"{r.mean:.3g} ± {r.std:.2g} |" for r in final.itertuples()]
    (RESULTS / f"fig5_2{suffix}.md").write_text("\n".join(lines) + "\n")
    print(f"fig5_2: wall-clock {wall:.1f} s")


if __name__ == "__main__":
    main()
