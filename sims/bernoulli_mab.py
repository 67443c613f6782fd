"""Per-seed regret on the plain K-armed Bernoulli bandit (issue 40 item 3): mean, worst seed and every seed,
printed (the learning suite's M3 / M5 rows tabulate the default agents; this script compares options).

Usage: python sims/bernoulli_mab.py MEANS T SEEDS AGENTS [OPTIONS] [ROOT]
  MEANS   comma-separated arm means, e.g. 0.3,0.5,0.7
  AGENTS  comma-separated labels; ``name@tag`` runs agent ``name`` under that label
  OPTIONS a Python dict literal, label -> keyword arguments, e.g. "{'private@2': {'elimination': 2.0}}"
  ROOT    the root seed (default 0)
Private agents run at epsilon = 1; the counts of seeds above 0.5x random's mean regret
(``T (max mean - mean of means) / 2``) are printed beside each agent.
"""

from __future__ import annotations

import ast
import functools
import sys
import warnings

import numpy as np

from dpbandit.agents import agent_class
from dpbandit.harness import run


def main() -> None:
    warnings.filterwarnings("ignore", message=".*max_rounds_per_user=None")
    means = tuple(float(x) for x in sys.argv[1].split(","))
    horizon, seeds, labels = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split(",")
    options = ast.literal_eval(sys.argv[5]) if len(sys.argv) > 5 else {}
    root = int(sys.argv[6]) if len(sys.argv) > 6 else 0
    agents = {}
    for label in labels:
        name = label.split("@")[0]
        kwargs = dict(options.get(label, {}))
        if agent_class(name).trust_model:
            kwargs.setdefault("epsilon", 1.0)
        agents[label] = functools.partial(agent_class(name), **kwargs)
    df = run("dpbandit/BernoulliMAB-v0", agents, n_seeds=seeds, root_seed=root, horizon=horizon, env_kwargs={"means": means},
             n_points=2, progress=False)
    half_random = 0.5 * horizon * (max(means) - float(np.mean(means)))
    for label, group in df[df["step"] == horizon].groupby("agent", sort=False):
        regret = group.sort_values("seed")["cumulative_regret"].to_numpy()
        print(f"{label:20s} mean {regret.mean():7.1f} worst {regret.max():7.1f} median {np.median(regret):7.1f} "
              f"seeds above {half_random:.0f}: {int(np.sum(regret > half_random))}")
        print("   ", np.round(regret).astype(int).tolist())


if __name__ == "__main__":
    main()
