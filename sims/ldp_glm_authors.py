"""Run the authors' LDP-Bandit code (Han, Liang, Wang and Zhang, NeurIPS 2021) unmodified (issue 37 item 4).

Their code is not part of this repository: check it out outside it and pass its ``Scheme1`` folder,

    git clone https://github.com/liangzp/LDP-Bandit /tmp/h37/LDP-Bandit     # commit 62d90936
    nice -n 10 python sims/ldp_glm_authors.py --scheme1 /tmp/h37/LDP-Bandit/Scheme1 \
        --out results/ldp_glm_authors.csv

This drives their ``workers.workers.WorkerA`` with their ``utils.wrap_params`` exactly as their
``Scheme1/instances/{singleparam,logistic,poisson}.py`` do (lines 29-48 of each: env 'GaussianLinear',
worker 'A', context_type 'gapless', d = 2, K = 10, their delta 0.01 from utils.py:100), one run at a
time instead of through their multiprocessing pool and plotter. Their worker seeds numpy's global
generator with the run's seed (workers.py:8), so every run is reproducible. One CSV row per finished
run (appended, so a cut run resumes): the cumulative pseudo-regret at each horizon checkpoint.
"""
from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from functools import partial
from pathlib import Path

# Their instance scripts' algorithm settings (name, mechanism, server, extra), singleparam.py:35-48.
AUTHORS_ALGORITHMS = {
    "LDP-SGD": dict(mechanism="SGD", server="GSGD", batch=False),
    "LDP-UCB": dict(mechanism="OLS", server="LUCB", batch=False),
    "LDP-GLOC": dict(mechanism="GLM", server="LUCBG"),
}
# singleparam.py:50 runs all of them; logistic.py:50 and poisson.py:50 run LDP-GLOC and LDP-SGD only.
REWARDS = {"normal": ("LDP-SGD", "LDP-UCB", "LDP-GLOC"),
           "logistic": ("LDP-SGD", "LDP-GLOC"),
           "poisson": ("LDP-SGD", "LDP-GLOC")}
FIELDS = ["algorithm", "reward", "epsilon", "seed", "T", "checkpoint", "cum_regret", "seconds"]


def run_one(wrap_params, workers, name: str, reward: str, eps: float, seed: int, T: int) -> list[tuple[int, float]]:
    """One run of their WorkerA; returns (t, cumulative pseudo-regret) at their profiler's records."""
    common = partial(wrap_params, dimension=2, n_action=10, T=T, env="GaussianLinear", worker="A",
                     reward=reward, context_type="gapless", profiler="Profiler", echo=False, echo_freq=100)
    params = common(name=name, random_seed=seed, eps=eps, **AUTHORS_ALGORITHMS[name])
    worker = workers.WorkerA(params)
    worker.run()
    df = worker.profiler.df
    return list(zip(df["time"].tolist(), df["cum_regrets"].tolist()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scheme1", required=True, type=Path, help="path to their Scheme1 folder (outside this repo)")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--horizons", type=int, nargs="+", default=[20_000, 100_000])
    ap.add_argument("--eps", type=float, nargs="+", default=[1.0, 0.5])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--rewards", nargs="+", default=list(REWARDS))
    ap.add_argument("--algorithms", nargs="+", default=list(AUTHORS_ALGORITHMS))
    ap.add_argument("--checkpoints", type=int, nargs="+", default=[20_000, 100_000],
                    help="also record the cumulative regret at these rounds (within the horizon)")
    args = ap.parse_args()
    sys.path.insert(0, str(args.scheme1.resolve()))
    import utils  # noqa: E402  (their Scheme1/utils.py)
    from workers import workers  # noqa: E402

    done = set()
    if args.out.exists():
        with args.out.open() as fh:
            done = {(r["algorithm"], r["reward"], float(r["epsilon"]), int(r["seed"]), int(r["T"]))
                    for r in csv.DictReader(fh)}
    new = not args.out.exists()
    with args.out.open("a", newline="") as fh:
        w = csv.writer(fh)
        if new:
            w.writerow(FIELDS)
        for T in args.horizons:
            for eps in args.eps:
                for reward in args.rewards:
                    for name in [n for n in REWARDS[reward] if n in args.algorithms]:
                        for seed in range(args.seeds):
                            if (name, reward, eps, seed, T) in done:
                                continue
                            # LDP-SGD has no horizon parameter: its T = 2e4 run is the prefix of the 1e5 run.
                            t0 = time.perf_counter()
                            trace = dict(run_one(utils.wrap_params, workers, name, reward, eps, seed, T))
                            sec = time.perf_counter() - t0
                            for c in sorted({T, *[c for c in args.checkpoints if c < T]}):
                                w.writerow([name, reward, eps, seed, T, c, f"{trace[c]:.6g}", f"{sec:.1f}"])
                            fh.flush()
                            print(f"{name} {reward} eps={eps} seed={seed} T={T}: {trace[T]:.1f} ({sec:.0f}s)",
                                  flush=True)


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
