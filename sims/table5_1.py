"""Table 5.1 of 004_290fd04a1e656565.txt: DP-TOFW (OFW) vs NoisySFW (p = 1.5) and NoisySGD (p = inf).

Setting (Section 5.3, with the data generation that fits the table, notes/ofw_hdb.md Section 4.1):
linear regression y = <x, theta> + N(0, 0.05^2); contexts N(0, 0.05^2 I_d) normalised to unit l_q norm;
theta = 1_d / ||1_d||_p ([Fill]: the text's Gaussian theta does not fit the table); squared loss
(y - <x, theta>)^2 with per-example gradients clipped to l_q norm 1 (ClippedLoss: L = 1, and the GLM clip
keeps beta = 2 ||x||_q^2 = 2); constraint: l_p ball of radius 2 (D = 4); (1, 1/T)-DP; 10 seeds;
test set of 10,000 fresh points; every algorithm's learning-rate scale is tuned on the grid of the authors'
code ([C], execute.sh) and the scale with the lowest mean SubOpt is reported.

Speed: cells run in parallel processes; NoisySGD (n^2 steps) runs its whole learning-rate grid in one
numba pass on shared indices and noise (see dpbandit.optim.baselines.noisy_sgd), and its reported time is
that pass divided by the number of scales ("amortised"). As in the paper, NoisySGD is not run at
(T, d) = (10000, 5) (no such row in Table 5.1); ``--all-sgd`` adds it.

Usage: python sims/table5_1.py [--quick] [--workers 2] [--seeds 10] [--all-sgd] [--resume]
       [--ofw-epsilons 1 10 30 100] [--replica] [--epsilon-star]
Writes results/table5_1.runs.csv (one row per run), results/table5_1.csv (best scale per cell, with the
paper's numbers) and results/table5_1.md (the table, wall-clock, the command). ``--ofw-epsilons`` is a
diagnostic (OFW only, at several epsilons) written to results/table5_1.diag.*.

Fidelity (issue 14; results/table5_1.fidelity.{csv,md}, summarised at the end of table5_1.md):
``--replica`` runs the replicas of the authors' DP-TOFW code (``dpbandit.optim.tofw_replica``, NOT
private; code versions 615a971 and 302d221) at epsilon = 1 on the same data and learning-rate grid
(results/table5_1.replica.*); ``--epsilon-star`` runs the faithful DP-TOFW on ``EPSILON_STAR_GRID``
(results/table5_1.epsstar.*): epsilon* of a cell is the smallest grid epsilon at which the best-scale
mean SubOpt is within the paper's mean +- 2 std.
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np
import pandas as pd
from table5_1_fidelity import EPSILON_STAR_GRID, REPLICAS, _fmt, fidelity_lines, write_fidelity
from tqdm import tqdm

from dpbandit.optim.baselines import NoisySFW, NoisySGD
from dpbandit.optim.geometry import dual_exponent, lp_norm
from dpbandit.optim.losses import ClippedLoss, SquaredLoss
from dpbandit.optim.metrics import risk, subopt
from dpbandit.optim.tofw import DPTOFW
from dpbandit.optim.tofw_replica import AuthorsCodeTOFW

RESULTS = Path(__file__).resolve().parents[1] / "results"
ROOT_SEED = 20221122
NOISE_STD = 0.05  # nu ([C]; the table's risk floor is nu^2 = 0.0025)
CONTEXT_STD = 0.05
RADIUS = 2.0
EPSILON = 1.0
CLIP = 1.0
TEST_SIZE = 10_000
GRIDS = {  # learning-rate scales of the authors' execute.sh (notes Section 4.1)
    ("OFW", 1.5): (0.4, 0.6, 1.0),
    ("OFW", math.inf): (0.6, 0.7, 0.8, 1.0),
    ("NoisySFW", 1.5): (0.01, 0.02, 0.04, 0.06, 0.08, 0.1),
    ("NoisySGD", math.inf): (0.1, 0.4, 0.8, 1.0, 1.2, 2.0),
}
BASELINE = {1.5: "NoisySFW", math.inf: "NoisySGD"}
#: Noise stream per algorithm (NoisySGD draws from stream 2 inside its own pass).
STREAMS = {"OFW": 0, "NoisySFW": 1, "OFW replica 615a971": 3, "OFW replica 302d221": 4}

# Table 5.1 of the paper: (T, d, p, algo) -> (risk mean, std, subopt mean, std, time mean, std)
PAPER = {
    (1000, 5, 1.5, "NoisySFW"): (0.0885, 0.00907, 0.522, 0.0565, 0.0189, 0.00216),
    (1000, 5, 1.5, "OFW"): (0.00536, 0.00155, 0.0172, 0.00987, 0.0929, 0.00157),
    (1000, 5, math.inf, "NoisySGD"): (0.0259, 0.0176, 0.0802, 0.0613, 30.2, 0.805),
    (1000, 5, math.inf, "OFW"): (0.0357, 0.0216, 0.112, 0.0727, 0.0765, 0.00345),
    (1000, 10, 1.5, "NoisySFW"): (0.0771, 0.0107, 0.953, 0.0947, 0.0216, 0.000514),
    (1000, 10, 1.5, "OFW"): (0.0183, 0.00332, 0.201, 0.0483, 0.105, 0.0124),
    (1000, 10, math.inf, "NoisySGD"): (0.0525, 0.0149, 0.636, 0.186, 31.2, 0.516),
    (1000, 10, math.inf, "OFW"): (0.0915, 0.0209, 0.582, 0.157, 0.0852, 0.0109),
    (1000, 20, 1.5, "NoisySFW"): (0.0414, 0.000302, 1.05, 0.0108, 0.0217, 0.0027),
    (1000, 20, 1.5, "OFW"): (0.0307, 0.00344, 0.775, 0.128, 0.108, 0.00901),
    (1000, 20, math.inf, "NoisySGD"): (0.0202, 0.00262, 0.955, 0.111, 31.4, 0.945),
    (1000, 20, math.inf, "OFW"): (0.0766, 0.00464, 0.982, 0.0768, 0.0825, 0.0114),
    (2000, 5, 1.5, "NoisySFW"): (0.0746, 0.00644, 0.44, 0.0287, 0.0376, 0.000492),
    (2000, 5, 1.5, "OFW"): (0.00285, 0.000197, 0.00235, 0.00106, 0.222, 0.0184),
    (2000, 5, math.inf, "NoisySGD"): (0.0127, 0.00371, 0.0344, 0.0133, 119, 0.962),
    (2000, 5, math.inf, "OFW"): (0.0152, 0.00585, 0.0432, 0.02, 0.156, 0.00851),
    (2000, 10, 1.5, "NoisySFW"): (0.0701, 0.00493, 0.887, 0.0691, 0.0366, 0.00502),
    (2000, 10, 1.5, "OFW"): (0.00704, 0.00247, 0.0595, 0.0321, 0.189, 0.00384),
    (2000, 10, math.inf, "NoisySGD"): (0.0382, 0.0133, 0.484, 0.178, 124, 2.36),
    (2000, 10, math.inf, "OFW"): (0.0582, 0.0113, 0.364, 0.0795, 0.159, 0.00928),
    (2000, 20, 1.5, "NoisySFW"): (0.0376, 0.00262, 0.957, 0.0673, 0.0397, 0.00427),
    (2000, 20, 1.5, "OFW"): (0.018, 0.00374, 0.406, 0.106, 0.2, 0.00776),
    (2000, 20, math.inf, "NoisySGD"): (0.0209, 0.00148, 0.947, 0.0672, 125, 0.345),
    (2000, 20, math.inf, "OFW"): (0.067, 0.00799, 0.82, 0.114, 0.164, 0.0098),
    (5000, 5, 1.5, "NoisySFW"): (0.0587, 0.0212, 0.35, 0.135, 0.0979, 0.0143),
    (5000, 5, 1.5, "OFW"): (0.00258, 1.58e-05, 0.000702, 0.00051, 0.469, 0.00995),
    (5000, 5, math.inf, "NoisySGD"): (0.00538, 0.000982, 0.00989, 0.00378, 742, 3.35),
    (5000, 5, math.inf, "OFW"): (0.00667, 0.000392, 0.0145, 0.00153, 0.397, 0.0291),
    (5000, 10, 1.5, "NoisySFW"): (0.0659, 0.00926, 0.808, 0.115, 0.0867, 0.00326),
    (5000, 10, 1.5, "OFW"): (0.00376, 0.000479, 0.0163, 0.0053, 0.477, 0.0189),
    (5000, 10, math.inf, "NoisySGD"): (0.0201, 0.00175, 0.115, 0.0118, 747, 2.4),
    (5000, 10, math.inf, "OFW"): (0.022, 0.00347, 0.125, 0.0204, 0.38, 0.0117),
    (5000, 20, 1.5, "NoisySFW"): (0.0401, 0.000848, 1.0, 0.0264, 0.0834, 0.0121),
    (5000, 20, 1.5, "OFW"): (0.00962, 0.00209, 0.185, 0.0558, 0.527, 0.0121),
    (5000, 20, math.inf, "NoisySGD"): (0.049, 0.00585, 0.602, 0.0571, 755, 2.89),
    (5000, 20, math.inf, "OFW"): (0.0535, 0.00736, 0.637, 0.105, 0.413, 0.004),
    (10000, 5, 1.5, "NoisySFW"): (0.0607, 0.027, 0.351, 0.161, 0.163, 0.00869),
    (10000, 5, 1.5, "OFW"): (0.00255, 4.72e-05, 0.000318, 0.000179, 1.04, 0.0295),
    (10000, 5, math.inf, "OFW"): (0.00337, 0.000336, 0.00293, 0.00106, 0.76, 0.0157),
    (10000, 10, 1.5, "NoisySFW"): (0.0646, 0.00522, 0.789, 0.0744, 0.175, 0.0253),
    (10000, 10, 1.5, "OFW"): (0.00282, 0.00025, 0.00465, 0.00184, 1.07, 0.0987),
    (10000, 10, math.inf, "NoisySGD"): (0.0103, 0.000748, 0.0505, 0.00514, 3030, 8.8),
    (10000, 10, math.inf, "OFW"): (0.00976, 0.00259, 0.0467, 0.0159, 0.803, 0.013),
    (10000, 20, 1.5, "NoisySFW"): (0.0391, 0.00178, 0.937, 0.0303, 0.153, 0.0194),
    (10000, 20, 1.5, "OFW"): (0.00487, 0.000584, 0.0592, 0.0155, 1.04, 0.102),
    (10000, 20, math.inf, "NoisySGD"): (0.0409, 0.00362, 0.482, 0.0453, 3120, 27.6),
    (10000, 20, math.inf, "OFW"): (0.0316, 0.00192, 0.363, 0.0283, 0.844, 0.0464),
}


def seed_sequence(T: int, d: int, p: float, seed: int, *stream: int) -> np.random.SeedSequence:
    """Stable stream per (cell, seed, purpose): independent of which cells a run includes."""
    return np.random.SeedSequence(ROOT_SEED, spawn_key=(T, d, 0 if math.isinf(p) else 1, seed, *stream))


def make_data(T: int, d: int, p: float, seed: int) -> dict[str, np.ndarray]:
    """Training stream (T points) and test set of Section 5.3 for one seed (stream 0)."""
    rng = np.random.default_rng(seed_sequence(T, d, p, seed, 0))
    q = dual_exponent(p)
    theta = np.ones(d) / lp_norm(np.ones(d), p)

    def draw(n: int) -> tuple[np.ndarray, np.ndarray]:
        X = rng.normal(0.0, CONTEXT_STD, size=(n, d))
        X /= lp_norm(X, q)[:, None]
        return X, X @ theta + rng.normal(0.0, NOISE_STD, size=n)

    X, y = draw(T)
    X_test, y_test = draw(TEST_SIZE)
    return {"X": X, "y": y, "X_test": X_test, "y_test": y_test, "theta": theta}


def make_loss(p: float) -> ClippedLoss:
    """Squared loss with per-example l_q clipping at 1 (L = 1; beta = 2 for ||x||_q = 1)."""
    return ClippedLoss(SquaredLoss(), clip_norm=CLIP, p=p)


def make_optimizer(algo: str, T: int, d: int, p: float, scale: float, rng: np.random.Generator,
                   noise: bool = True, epsilon: float = EPSILON):
    """OFW / NoisySFW / NoisySGD for one cell (radius 2, (epsilon, 1/T)-DP, L = 1, beta = 2)."""
    loss = make_loss(p)
    common = dict(p=p, radius=RADIUS, epsilon=epsilon, delta=1.0 / T, lipschitz=loss.lipschitz, rng=rng,
                  lr_scale=scale, noise=noise)
    if algo == "OFW":
        return DPTOFW(d, horizon=T, smoothness=loss.smoothness(1.0), loss=loss, **common)
    if algo in REPLICAS:  # the authors' constants (beta = 1, their L, clipping and sampler), not private
        return AuthorsCodeTOFW(d, p=p, horizon=T, epsilon=epsilon, delta=1.0 / T, rng=rng, lr_scale=scale,
                               radius=RADIUS, code_version=REPLICAS[algo])
    if algo == "NoisySFW":
        return NoisySFW(d, loss=loss, smoothness=loss.smoothness(1.0), **common)
    if algo == "NoisySGD":
        return NoisySGD(d, loss=loss, **common)
    raise ValueError(f"Unknown algo={algo!r}")


def run_task(task: tuple) -> list[dict]:
    """All learning-rate scales of one (algo, T, d, p, seed, epsilon)."""
    algo, T, d, p, seed, epsilon = task
    data = make_data(T, d, p, seed)
    scales = GRIDS[("OFW" if algo in REPLICAS else algo, p)]
    rows = []

    def row(scale: float, theta: np.ndarray, seconds: float, cpu: float, n_grad: int) -> dict:
        return dict(T=T, d=d, p=p, algo=algo, epsilon=epsilon, lr_scale=scale, seed=seed,
                    risk=float(risk(theta, data["X_test"], data["y_test"])),
                    subopt=float(subopt(theta, data["X_test"], data["y_test"], data["theta"])),
                    time=seconds, cpu=cpu, n_gradients=n_grad)

    if algo == "NoisySGD":  # one numba pass for the whole grid (shared indices and noise)
        rng = np.random.default_rng(seed_sequence(T, d, p, seed, 1, 2))
        start, cpu = time.perf_counter(), time.process_time()
        results = make_optimizer(algo, T, d, p, 1.0, rng).fit_scales(data["X"], data["y"], list(scales))
        seconds = (time.perf_counter() - start) / len(scales)
        cpu = (time.process_time() - cpu) / len(scales)
        return [row(s, r.theta, seconds, cpu, r.n_gradients) for s, r in zip(scales, results)]
    for k, scale in enumerate(scales):
        rng = np.random.default_rng(seed_sequence(T, d, p, seed, 1, STREAMS[algo], k))
        opt = make_optimizer(algo, T, d, p, scale, rng, epsilon=epsilon)
        start, cpu = time.perf_counter(), time.process_time()
        res = opt.fit(data["X"], data["y"]) if algo == "NoisySFW" else opt.run(data["X"], data["y"])
        rows.append(row(scale, res.theta, time.perf_counter() - start, time.process_time() - cpu,
                        res.n_gradients))
    return rows


def tasks(Ts, ds, seeds: int, all_sgd: bool, ofw_epsilons: list[float] | None = None,
          replicas: bool = False) -> list[tuple]:
    """Work items; ``ofw_epsilons``: OFW only, at these epsilons; ``replicas``: the replicas only."""
    out = []
    for T in Ts:
        for d in ds:
            for p in (1.5, math.inf):
                if replicas:
                    out += [(algo, T, d, p, s, EPSILON) for algo in REPLICAS for s in range(seeds)]
                    continue
                if ofw_epsilons:
                    out += [("OFW", T, d, p, s, e) for e in ofw_epsilons for s in range(seeds)]
                    continue
                for algo in ("OFW", BASELINE[p]):
                    if algo == "NoisySGD" and (T, d) == (10000, 5) and not all_sgd:
                        continue
                    out += [(algo, T, d, p, s, EPSILON) for s in range(seeds)]
    # the linear-time algorithms first, then NoisySGD cheapest first (cost ~ T^2 d): an interrupted grid
    # keeps the most cells (resume with --resume)
    return sorted(out, key=lambda t: (t[0] == "NoisySGD", t[1] ** 2 * t[2] if t[0] == "NoisySGD" else -t[1]))


def summarise(runs: pd.DataFrame) -> pd.DataFrame:
    """Best scale (lowest mean SubOpt) per (T, d, p, algo), mean +- std over seeds, next to the paper."""
    g = runs.groupby(["T", "d", "p", "algo", "epsilon", "lr_scale"])
    stats = g.agg(risk_mean=("risk", "mean"), risk_std=("risk", "std"), subopt_mean=("subopt", "mean"),
                  subopt_std=("subopt", "std"), time_mean=("time", "mean"), time_std=("time", "std"),
                  cpu_mean=("cpu", "mean"), cpu_std=("cpu", "std"),
                  n_gradients=("n_gradients", "mean"), seeds=("seed", "nunique")).reset_index()
    best_index = stats.groupby(["T", "d", "p", "algo", "epsilon"])["subopt_mean"].idxmin()
    best = stats.loc[best_index].reset_index(drop=True)
    keys = [(int(r.T), int(r.d), float(r.p), "OFW" if r.algo in REPLICAS else r.algo)
            for r in best.itertuples()]
    paper = [PAPER.get(key, (math.nan,) * 6) for key in keys]
    cols = ["paper_risk_mean", "paper_risk_std", "paper_subopt_mean", "paper_subopt_std", "paper_time_mean",
            "paper_time_std"]
    best[cols] = pd.DataFrame(paper, columns=cols)
    gap = (best.subopt_mean - best.paper_subopt_mean).abs()
    best["subopt_within_2std"] = gap <= 2 * best.paper_subopt_std
    return best


def claims(best: pd.DataFrame) -> list[str]:
    """The qualitative claims of Section 5.3 checked on our numbers (issue 5, Must show 2)."""
    key = ["T", "d"]
    ofw = best[best.algo == "OFW"]
    sfw = ofw[ofw.p == 1.5].merge(best[best.algo == "NoisySFW"], on=key, suffixes=("", "_b"))
    sgd = ofw[np.isinf(ofw.p)].merge(best[best.algo == "NoisySGD"], on=key, suffixes=("", "_b"))
    lines = ["", "Claims of Section 5.3 on our runs (best scale per algorithm):", ""]
    wins = sfw.risk_mean < sfw.risk_mean_b
    lines.append(f"- OFW risk < NoisySFW risk at p = 1.5: {int(wins.sum())}/{len(sfw)} cells "
                 f"(risk ratio OFW/NoisySFW {(sfw.risk_mean / sfw.risk_mean_b).min():.2g} .. "
                 f"{(sfw.risk_mean / sfw.risk_mean_b).max():.2g}).")
    if len(sgd):
        ratio = sgd.risk_mean / sgd.risk_mean_b
        speed = sgd.cpu_mean_b / sgd.cpu_mean
        grads = sgd.n_gradients_b / sgd.n_gradients
        lines.append(f"- OFW risk within 2x of NoisySGD at p = inf: {int((ratio <= 2).sum())}/{len(sgd)} "
                     f"cells (ratio {ratio.min():.2g} .. {ratio.max():.2g}).")
        lines.append("- NoisySGD / OFW CPU time per run (NoisySGD amortised over its grid): "
                     f"{speed.min():.2g} "
                     f".. {speed.max():.2g}x; gradient evaluations: {grads.min():.0f} .. {grads.max():.0f}x "
                     "(n^2 vs 2n).")
    return lines


def write_markdown(best: pd.DataFrame, runs: pd.DataFrame, wall: str, command: str, path: Path) -> None:
    cpu_total = runs.cpu.sum()
    lines = [
        "# Table 5.1 of 004 (Han et al.): reproduction",
        "",
        f"Command: `{command}`  ",
        f"Wall-clock: **{wall}** on {os.cpu_count()} cores ({runs.seed.nunique()} seeds, {len(runs)} runs; "
        f"the cores were shared with other jobs). CPU time of all runs: {cpu_total:.0f} s, "
        f"i.e. **{cpu_total / 2:.0f} s** on 2 dedicated cores.",
        "",
        "Setting: y = <x, theta> + N(0, 0.05^2), x ~ N(0, 0.05^2 I) normalised to ||x||_q = 1, "
        "theta = 1/||1||_p, squared loss with l_q gradient clipping at 1 (L = 1, beta = 2), "
        "l_p ball of radius 2, (1, 1/T)-DP, test set 10,000; best learning-rate scale per algorithm "
        "(lowest mean SubOpt). Ours: mean ± std over seeds; paper: Table 5.1. 'in' = our OFW SubOpt "
        "mean within the paper's mean ± 2 std. Times are CPU seconds per run (process time; wall-clock "
        "per run is in the CSV, inflated by other jobs on the machine). NoisySGD time is amortised over "
        "its learning-rate grid (one numba pass on shared randomness).",
        "",
        "| T | d | p | algo | scale | Risk (ours) | Risk (paper) | SubOpt (ours) | SubOpt (paper) | in | "
        "Time s (ours) | Time s (paper) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in best.sort_values(["T", "d", "p", "algo"], ascending=[True, True, True, False]).itertuples():
        inside = ("yes" if r.subopt_within_2std else "**no**") if r.algo == "OFW" else ""
        lines.append(
            f"| {r.T} | {r.d} | {'inf' if math.isinf(r.p) else r.p} | {r.algo} | {r.lr_scale:g} | "
            f"{_fmt(r.risk_mean, r.risk_std)} | {_fmt(r.paper_risk_mean, r.paper_risk_std)} | "
            f"{_fmt(r.subopt_mean, r.subopt_std)} | {_fmt(r.paper_subopt_mean, r.paper_subopt_std)} | "
            f"{inside} | "
            f"{_fmt(r.cpu_mean, r.cpu_std)} | {_fmt(r.paper_time_mean, r.paper_time_std)} |"
        )
    ofw = best[(best.algo == "OFW") & best.paper_subopt_mean.notna()]
    lines += ["", f"OFW cells within the paper's mean ± 2 std (SubOpt): {int(ofw.subopt_within_2std.sum())}"
              f"/{len(ofw)}.", *claims(best), "",
              "CPU time per algorithm (sum over all its runs; mean per run by T):", ""]
    for algo, t in runs.groupby("algo")["cpu"].sum().items():
        per = runs[runs.algo == algo].groupby(["T"])["cpu"].mean()
        lines.append(f"- {algo}: total {t:.1f} s; mean per run by T: "
                     + ", ".join(f"T={T}: {v:.3g} s" for T, v in per.items()))
    fidelity = RESULTS / "table5_1.fidelity.csv"
    if fidelity.exists():
        lines += ["", "## Fidelity: epsilon* and the replica of the authors' code (issue 14)", "",
                  "From results/table5_1.fidelity.md (`python sims/table5_1.py --replica` and "
                  "`--epsilon-star`); all seed papers: results/fidelity.md; the faithful DP-HDB at long "
                  "horizons: results/fig5_1_long.md.", "", *fidelity_lines(pd.read_csv(fidelity))]
    path.write_text("\n".join(lines) + "\n")


def write_diagnostic(best: pd.DataFrame, wall: float, command: str, path: Path) -> None:
    """OFW SubOpt at several epsilons next to the paper's (epsilon = 1) numbers."""
    wide = best.pivot_table(index=["T", "d", "p"], columns="epsilon", values="subopt_mean").reset_index()
    eps = [c for c in wide.columns if c not in ("T", "d", "p")]
    lines = [
        "# Table 5.1, OFW rows: which privacy level do the paper's numbers correspond to?",
        "",
        f"Command: `{command}` (wall-clock {wall:.0f} s)",
        "",
        "DP-TOFW with the noise of Eq 3.2 calibrated for the epsilon in the column header (delta = 1/T, "
        "same data, loss and learning-rate grid as the main table; best scale per cell). "
        "Mean SubOpt over seeds.",
        "",
        "| T | d | p | paper (eps = 1) | " + " | ".join(f"ours, eps = {e:g}" for e in eps) + " |",
        "|---|---|---|---|" + "---|" * len(eps),
    ]
    for r in wide.itertuples(index=False):
        T, d, p, *vals = r
        pm, ps = PAPER[(int(T), int(d), float(p), "OFW")][2:4]
        lines.append(f"| {T} | {d} | {'inf' if math.isinf(p) else p} | {pm:.3g} ± {ps:.2g} | "
                     + " | ".join(f"{v:.3g}" for v in vals) + " |")
    path.write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="T in {1000, 2000}, d in {5, 10}, 3 seeds")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--all-sgd", action="store_true", help="also run NoisySGD at (T, d) = (10000, 5)")
    parser.add_argument("--resume", action="store_true",
                        help="skip tasks in results/table5_1.partial.runs.csv (checkpoint of a killed run)")
    parser.add_argument("--summarise-only", metavar="WALL_CLOCK_NOTE",
                        help="rebuild csv/md from results/table5_1.runs.csv; the note gives the wall-clock")
    parser.add_argument("--ofw-epsilons", type=float, nargs="+", default=None,
                        help="diagnostic: run only OFW at these epsilons (writes table5_1.diag.*)")
    parser.add_argument("--replica", action="store_true",
                        help="the replicas of the authors' code at epsilon = 1 (table5_1.replica.*, fidelity)")
    parser.add_argument("--epsilon-star", action="store_true",
                        help="faithful OFW on EPSILON_STAR_GRID (table5_1.epsstar.*, fidelity)")
    args = parser.parse_args(argv)
    mode = ".replica" if args.replica else ".epsstar" if args.epsilon_star else ""
    if args.epsilon_star:
        args.ofw_epsilons = list(EPSILON_STAR_GRID)
    Ts, ds, seeds = ((1000, 2000), (5, 10), min(args.seeds, 3)) if args.quick else (
        (1000, 2000, 5000, 10000), (5, 10, 20), args.seeds)
    suffix = (".quick" if args.quick else "") + (mode or (".diag" if args.ofw_epsilons else ""))
    if args.summarise_only:
        runs = pd.read_csv(RESULTS / f"table5_1{suffix}.runs.csv")
        best = summarise(runs)
        best.to_csv(RESULTS / f"table5_1{suffix}.csv", index=False)
        write_markdown(best, runs, args.summarise_only, "python sims/table5_1.py",
                       RESULTS / f"table5_1{suffix}.md")
        return
    todo = tasks(Ts, ds, seeds, args.all_sgd, args.ofw_epsilons, replicas=args.replica)
    rows = []
    partial = RESULTS / f"table5_1{suffix}.partial.runs.csv"
    if args.resume and partial.exists():
        rows = pd.read_csv(partial).to_dict("records")
        done = {(r["algo"], r["T"], r["d"], r["p"], r["seed"], r["epsilon"]) for r in rows}
        todo = [t for t in todo if t not in done]
        print(f"resuming: {len(rows)} runs loaded, {len(todo)} tasks left")
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        futures = [pool.submit(run_task, t) for t in todo]
        for k, fut in enumerate(tqdm(as_completed(futures), total=len(futures), desc="table5_1 tasks")):
            rows += fut.result()
            if k % 25 == 24:  # checkpoint of the finished runs (a killed grid keeps its results)
                pd.DataFrame(rows).to_csv(partial, index=False)
    wall = time.perf_counter() - start
    runs = pd.DataFrame(rows).sort_values(["T", "d", "p", "algo", "epsilon", "lr_scale", "seed"])
    best = summarise(runs)
    partial.unlink(missing_ok=True)
    RESULTS.mkdir(exist_ok=True)
    runs.to_csv(RESULTS / f"table5_1{suffix}.runs.csv", index=False, float_format="%.6g" if mode else None)
    best.to_csv(RESULTS / f"table5_1{suffix}.csv", index=False)
    command = "python " + " ".join(shlex.quote(a) for a in [f"sims/{Path(__file__).name}", *sys.argv[1:]])
    if mode and not args.quick:
        write_fidelity()
    elif args.ofw_epsilons:
        write_diagnostic(best, wall, command, RESULTS / f"table5_1{suffix}.md")
    else:
        write_markdown(best, runs, f"{wall:.0f} s", command, RESULTS / f"table5_1{suffix}.md")
    print(f"table5_1: {len(todo)} tasks, {len(runs)} runs, wall-clock {wall:.1f} s")


if __name__ == "__main__":
    main()
