"""More seeds at one epsilon (issue 37 item 5): the authors' LDP-SGD (their code, unmodified, through
sims/ldp_glm_authors.py), ``ldp-sgd``, ``ldp-linucb`` (told the declared range (0, 1)) and random play on
``dpbandit/LDPGLMUnitCircle-v0`` with logistic rewards, seeds ``--first`` .. ``--first + --seeds - 1``, the same
per-seed setting as sims/ldp_glm.py (the authors' theta for the seed). One CSV row per run, appended.

Usage (their code checked out outside the repository, as for sims/ldp_glm_authors.py):

    nice -n 10 python sims/ldp_glm_seeds.py --scheme1 /tmp/h37/LDP-Bandit/Scheme1 --eps 0.5 --first 10 \
        --seeds 20 --out results/ldp_glm_eps0.5_seeds10-29.csv
"""

from __future__ import annotations

import argparse
import csv
import sys
import warnings
from pathlib import Path

import ldp_glm_authors as authors
import ldp_glm as ours

AGENTS = ("ldp-sgd", "ldp-linucb", "random")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scheme1", required=True, type=Path, help="their Scheme1 folder (outside this repository)")
    ap.add_argument("--eps", type=float, default=0.5)
    ap.add_argument("--first", type=int, default=10)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--horizon", type=int, default=20_000)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    sys.path.insert(0, str(args.scheme1))
    import utils  # their code
    from workers import workers

    warnings.simplefilter("ignore")
    new = not args.out.exists()
    with open(args.out, "a", newline="") as fh:
        out = csv.writer(fh)
        if new:
            out.writerow(["agent", "reward", "epsilon", "seed", "T", "cum_regret"])
        T = args.horizon
        for seed in range(args.first, args.first + args.seeds):
            for label in AGENTS:
                agent, options = ours.TRUST_AGENTS[label]
                res = ours.run_one(agent, options("logistic"), "logistic", args.eps, seed, T, [T], authors_delta=False)
                out.writerow([label, "logistic", args.eps, seed, T, round(res[T], 4)])
            theirs = dict(authors.run_one(utils.wrap_params, workers, "LDP-SGD", "logistic", args.eps, seed, T))[T]
            out.writerow(["LDP-SGD (authors)", "logistic", args.eps, seed, T, round(theirs, 4)])
            fh.flush()


if __name__ == "__main__":
    main()
