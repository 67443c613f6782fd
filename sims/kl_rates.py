"""Excess empirical risk rates of the KL algorithms of 003 (Menart et al.) against n, d and rho.

For each algorithm: median over seeds of F(w_out) - F* on the synthetic (gamma, kappa)-KL family
(``dpbandit.optim.kl.kl_instance``, exact F*), swept over n, d and rho one at a time; OLS slopes of
log median against log x (with a seed-bootstrap 90 % interval) are printed next to the theory's:

- KL Spider (Alg 1, Thm 1): (gamma L0 sqrt(d K log(1/beta')) / (n sqrt rho))^kappa, slopes -kappa / +kappa/2 /
  -kappa/2 in n / d / rho;
- KL proximal point (Alg 2, Thm 2): same form, kappa >= 2;
- adaptive noisy GD (Alg 3, Thm 4), d >= n sqrt(rho): (sqrt d / (n sqrt rho))^(2 kappa / (4 - kappa)), slopes
  -2 / +1 / -1 at kappa = 2.

Every run's accountant epsilon at delta = 1e-6 is printed next to the requested budget's epsilon.
Writes results/kl_rates.csv (one row per run), results/kl_rates_slopes.csv, results/kl_rates.md and
results/kl_rates.png. Usage: ``python sims/kl_rates.py [--quick] [--seeds 20] [--root 2026]``.
"""

from __future__ import annotations

import argparse
import math
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from tqdm import tqdm

from dpbandit.optim.kl import AdaptiveNoisyGD, KLProximalPoint, KLSpider, kl_instance
from dpbandit.optim.kl.schedule import prox_rounds, spider_schedule
from dpbandit.privacy.accounting import zcdp_to_epsilon

DELTA, BETA = 1e-6, 0.05
RESULTS = Path(__file__).resolve().parents[1] / "results"
#: Instance family shared by all experiments: phi(w) = w + (a / omega) sin(omega w), w0 = 0, ||w*|| = 0.5.
FAMILY = {"a": 0.2, "omega": 3.0, "r_w": 0.5, "radius": 1.0}


@dataclass(frozen=True)
class Sweep:
    """One experiment: an algorithm at fixed kappa, varying ``var`` over ``grid`` (others at ``base``)."""

    name: str
    algorithm: str
    kappa: float
    var: str
    grid: tuple[float, ...]
    base: dict[str, float]
    predicted: float
    family: dict[str, float] = field(default_factory=dict)


def sweeps(quick: bool) -> list[Sweep]:
    def g(*values: float) -> tuple[float, ...]:
        return (values[0], values[len(values) // 2], values[-1]) if quick else values

    s2 = {"n": 1e8, "d": 20, "rho": 1.0}
    s15 = {"n": 1e9, "d": 20, "rho": 1.0}
    ad = {"n": 2.0**16, "d": 2.0**17, "rho": 1.0}
    px = {"n": 128, "d": 2, "rho": 1.0}
    return [
        Sweep("spider_k2_n", "spider", 2.0, "n", g(1e6, 10**6.5, 1e7, 10**7.5, 1e8, 1e9), s2, -2.0),
        Sweep("spider_k2_d", "spider", 2.0, "d", g(5, 10, 20, 40, 80), s2, 1.0),
        Sweep("spider_k2_rho", "spider", 2.0, "rho", g(0.25, 0.5, 1.0, 2.0, 4.0), s2, -1.0),
        Sweep("spider_k1.5_n", "spider", 1.5, "n", g(1e8, 1e9, 1e10, 1e11), s15, -1.5),
        Sweep("spider_k1.5_d", "spider", 1.5, "d", g(5, 10, 20, 40, 80), s15, 0.75),
        Sweep("spider_k1.5_rho", "spider", 1.5, "rho", g(0.25, 0.5, 1.0, 2.0, 4.0), s15, -0.75),
        Sweep("adaptive_k2_n", "adaptive", 2.0, "n", g(*(2.0**k for k in (15, 15.5, 16, 16.5, 17))), ad, -2.0,
              {"pairs": 1}),
        Sweep("adaptive_k2_d", "adaptive", 2.0, "d", g(*(2.0**k for k in (15, 16, 17, 18))), ad, 1.0,
              {"pairs": 1}),
        Sweep("adaptive_k2_rho", "adaptive", 2.0, "rho", g(0.25, 0.5, 1.0, 2.0, 4.0), ad, -1.0, {"pairs": 1}),
        Sweep("prox_k3_n", "prox", 3.0, "n", g(48, 96, 192, 384), px, -3.0),
        Sweep("prox_k3_d", "prox", 3.0, "d", g(1, 2, 4, 8), px, 1.5),
        Sweep("prox_k3_rho", "prox", 3.0, "rho", g(0.25, 0.5, 1.0, 2.0), px, -1.5),
    ]


def prox_inner_steps(inst, n: int, d: int, rho: float) -> int:
    """T_in = ceil(n^2 (rho / T) / d): Theorem 9's value without its log^2(2 / beta') factor (CPU) [Fill]."""
    T = prox_rounds(n=n, dim=d, rho=rho, gamma=inst.gamma, kappa=inst.kappa, L0=inst.L0,
                    weak_convexity=inst.weak_convexity, F0=inst.F0)
    return max(2, math.ceil(n * n * rho / (max(T, 1) * d)))


def build(sweep: Sweep, inst, n: int, d: int, rho: float, rng: np.random.Generator):
    common = {"rho": rho, "beta": BETA, "rng": rng, "delta": DELTA, "clip": True}
    if sweep.algorithm == "spider":
        return KLSpider(gamma=inst.gamma, kappa=inst.kappa, L0=inst.L0, L1=inst.L1, F0=inst.F0, **common)
    if sweep.algorithm == "adaptive":
        return AdaptiveNoisyGD(L0=inst.L0, L1=inst.L1, **common)
    return KLProximalPoint(gamma=inst.gamma, kappa=inst.kappa, L0=inst.L0, weak_convexity=inst.weak_convexity,
                           F0=inst.F0, inner_steps=prox_inner_steps(inst, n, d, rho), **common)


def active(sweep: Sweep, inst, n: int, d: int, rho: float) -> bool:
    """Algorithm 1 is non-trivial only when its floor is below F0 (notes A4); the others always run."""
    if sweep.algorithm != "spider":
        return True
    s = spider_schedule(n=n, dim=d, rho=rho, beta=BETA, gamma=inst.gamma, kappa=inst.kappa, L0=inst.L0,
                        L1=inst.L1, F0=inst.F0)
    return bool(s.K and s.floor < inst.F0)


def run(args: argparse.Namespace) -> pd.DataFrame:
    exps = sweeps(args.quick)
    seed_seqs = np.random.SeedSequence(args.root).spawn(args.seeds)
    jobs = [(exp, x, s) for exp in exps for x in exp.grid for s in range(args.seeds)]
    rows = []
    for exp, x, s in tqdm(jobs, desc="kl_rates", file=sys.stderr):
        p = {**exp.base, exp.var: x}
        n, d, rho = int(round(p["n"])), int(round(p["d"])), float(p["rho"])
        inst_ss, noise_ss = seed_seqs[s].spawn(2)  # same instance draw for every grid point of a seed
        inst = kl_instance(np.random.default_rng(inst_ss), kappa=exp.kappa, dim=d, n=n, **FAMILY,
                           **exp.family)
        # noise stream keyed by the run's parameters (not its grid position): shared points reuse it
        key = zlib.crc32(f"{exp.algorithm}|{exp.kappa}|{n}|{d}|{rho}".encode())
        point_ss = np.random.SeedSequence(noise_ss.entropy, spawn_key=(*noise_ss.spawn_key, key))
        noise_rng = np.random.default_rng(point_ss)
        res = build(exp, inst, n, d, rho, noise_rng).fit(inst)
        g = res.privacy
        rows.append({
            "experiment": exp.name, "algorithm": exp.algorithm, "kappa": exp.kappa, "var": exp.var, "x": x,
            "n": n, "d": d, "rho": rho, "seed": s, "excess": inst.excess(res.theta), "F0": inst.F0,
            "epsilon": g.epsilon, "epsilon_requested": g.claimed_epsilon,
            "active": active(exp, inst, n, d, rho),
            "steps": res.info.get("steps", res.info.get("rounds")), "spent": res.info.get("spent", rho),
            "max_distance": res.info.get("max_distance", np.nan),
        })
        tqdm.write(f"{exp.name} {exp.var}={x:.4g} seed={s}: epsilon={g.epsilon:.6g} "
                   f"(requested {g.claimed_epsilon:.6g} at delta={DELTA:g}, rho={rho:g}) "
                   f"excess={rows[-1]['excess']:.3e}", file=sys.stdout)
    return pd.DataFrame(rows)


def slope(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def fit_slopes(
    df: pd.DataFrame, exps: list[Sweep], rng: np.random.Generator, n_boot: int = 300
) -> pd.DataFrame:
    out = []
    for exp in exps:
        sub = df[(df.experiment == exp.name) & df.active]
        xs = np.sort(sub.x.unique())
        if len(xs) < 2:
            continue
        groups = [sub[sub.x == x].excess.to_numpy() for x in xs]
        med = np.array([np.median(gr) for gr in groups])
        boot = [slope(xs, np.array([np.median(rng.choice(gr, gr.size)) for gr in groups]))
                for _ in range(n_boot)]
        out.append({"experiment": exp.name, "algorithm": exp.algorithm, "kappa": exp.kappa, "var": exp.var,
                    "range": f"[{xs[0]:.4g}, {xs[-1]:.4g}]", "slope": slope(xs, med),
                    "predicted": exp.predicted,
                    "ci05": np.quantile(boot, 0.05), "ci95": np.quantile(boot, 0.95),
                    "within_0.25": abs(slope(xs, med) - exp.predicted) <= 0.25})
    return pd.DataFrame(out)


def plot(df: pd.DataFrame, exps: list[Sweep], path: Path) -> None:
    names = [e for e in exps if (df.experiment == e.name).any()]
    cols = 3
    rows = math.ceil(len(names) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(13, 3.4 * rows))
    for ax, exp in zip(axes.ravel(), names):
        sub = df[df.experiment == exp.name]
        q = sub.groupby("x").excess.quantile([0.1, 0.5, 0.9]).unstack()
        act = sub.groupby("x").active.all()
        ax.fill_between(q.index, q[0.1], q[0.9], alpha=0.25)
        ax.plot(q.index, q[0.5], "o-", label="median (10-90%)")
        if not act.all():
            ax.plot(q.index[~act.to_numpy()], q[0.5][~act.to_numpy()], "x", color="red", ms=10,
                    label="trivial (floor >= F0)")
        xa = q.index[act.to_numpy()]
        if len(xa):
            ref = q[0.5][xa[0]] * (np.asarray(xa) / xa[0]) ** exp.predicted
            ax.plot(xa, ref, "k--", lw=1, label=f"slope {exp.predicted:+g} (theory)")
        ax.axhline(sub.F0.iloc[0], color="grey", lw=0.8, ls=":", label="F0")
        ax.set(xscale="log", yscale="log", xlabel=exp.var, ylabel="F(w) - F*",
               title=f"{exp.algorithm}, kappa={exp.kappa:g}")
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.legend(fontsize=7)
    for ax in axes.ravel()[len(names):]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def markdown(df: pd.DataFrame) -> str:
    """A GitHub table (floats to 3 decimals) without the optional ``tabulate`` dependency."""
    cells = [[f"{v:.3f}" if isinstance(v, float) else str(v) for v in row]
             for row in df.itertuples(index=False)]
    lines = ["| " + " | ".join(df.columns) + " |", "|" + "---|" * len(df.columns)]
    return "\n".join(lines + ["| " + " | ".join(c) + " |" for c in cells])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 grid points per sweep, 6 seeds")
    ap.add_argument("--seeds", type=int, default=None, help="seeds per grid point (default 20, quick 6)")
    ap.add_argument("--root", type=int, default=2026, help="root of the SeedSequence")
    ap.add_argument("--out", default="kl_rates", help="output stem inside results/")
    args = ap.parse_args()
    args.seeds = args.seeds or (6 if args.quick else 20)
    df = run(args)
    exps = sweeps(args.quick)
    boot_rng = np.random.default_rng(np.random.SeedSequence(args.root).spawn(args.seeds + 1)[-1])
    slopes = fit_slopes(df, exps, boot_rng)
    dev = (df.epsilon / df.epsilon_requested - 1).abs()
    RESULTS.mkdir(exist_ok=True)
    df.to_csv(RESULTS / f"{args.out}.csv", index=False)
    slopes.to_csv(RESULTS / f"{args.out}_slopes.csv", index=False)
    plot(df, exps, RESULTS / f"{args.out}.png")
    cmd = "python sims/kl_rates.py " + " ".join(sys.argv[1:])
    eps_line = (f"{len(df)} runs; accountant epsilon at delta={DELTA:g} vs requested: max relative deviation "
                f"{dev.max():.2e}; requested epsilon(rho=1) = {zcdp_to_epsilon(1.0, DELTA):.4f}")
    table = markdown(slopes)
    (RESULTS / f"{args.out}.md").write_text(
        f"# KL rates (paper 003)\n\nCommand: `{cmd}` (root {args.root}, {args.seeds} seeds per point)\n\n"
        f"Family: {FAMILY}; beta={BETA}; per-example clipping on. Slopes: OLS of log median excess vs log x"
        f" over the active grid points (range column); ci: 90 % seed bootstrap.\n\n{table}\n\n{eps_line}\n")
    print(table)
    print(eps_line)


if __name__ == "__main__":
    main()
