"""Issue 40 item 3: ``private`` against the simple thing on three generated imbalanced classification sets.

Sets (docs/batched_agents.md, "Issue 40 item 3"; ``make_classification``, 5,000 rows, ``n_redundant=2``): A 6
classes, 20 features, 8 informative, weights .4/.2/.15/.1/.1/.05, ``random_state=1``; B 4 classes, 15 features,
6 informative, .6/.2/.15/.05, state 2; C 8 classes, 20 features, 10 informative, .3/.2/.15/.1/.1/.05/.05/.05,
state 3. Each is played as ``dpbandit/Classification-v0`` at epsilon 1, T = 10^4, with the seeds paired (same root).
Printed per set: each agent's mean accuracy, the majority share, and the paired difference of ``private`` (and of
each other label) to ``max(majority share, private-etc)`` per seed, mean and 95% t-interval (the bar: >= -0.01).

Usage: python sims/imbalanced_sets.py [SEEDS] [AGENTS] [OPTIONS]   (defaults 20, private,private-etc, {})
  AGENTS  comma-separated labels, ``name@tag`` runs agent ``name`` under that label
  OPTIONS a Python dict literal, label -> keyword arguments
"""

from __future__ import annotations

import ast
import functools
import sys
import warnings

import numpy as np
from scipy import stats
from sklearn.datasets import make_classification

from dpbandit.agents import agent_class
from dpbandit.harness import run

SETS = {
    "A": dict(n_classes=6, n_features=20, n_informative=8, weights=[.4, .2, .15, .1, .1, .05], random_state=1),
    "B": dict(n_classes=4, n_features=15, n_informative=6, weights=[.6, .2, .15, .05], random_state=2),
    "C": dict(n_classes=8, n_features=20, n_informative=10, weights=[.3, .2, .15, .1, .1, .05, .05, .05],
              random_state=3),
}
HORIZON = 10_000


def main() -> None:
    warnings.filterwarnings("ignore", message=".*max_rounds_per_user=None")
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    labels = (sys.argv[2] if len(sys.argv) > 2 else "private,private-etc").split(",")
    options = ast.literal_eval(sys.argv[3]) if len(sys.argv) > 3 else {}
    agents = {}
    for label in dict.fromkeys([*labels, "private-etc"]):
        kwargs = {"epsilon": 1.0, **options.get(label, {})}
        agents[label] = functools.partial(agent_class(label.split("@")[0]), **kwargs)
    for name, spec in SETS.items():
        X, y = make_classification(n_samples=5_000, n_redundant=2, **spec)
        majority = float(np.bincount(y).max() / y.size)
        df = run("dpbandit/Classification-v0", agents, n_seeds=seeds, horizon=HORIZON,
                 env_kwargs={"X": X, "y": y}, n_points=2, progress=False)
        final = df[df.step == HORIZON].pivot(index="seed", columns="agent", values="cumulative_reward") / HORIZON
        bar = np.maximum(final["private-etc"].to_numpy(), majority)
        print(f"set {name}: majority share {majority:.3f}; " + ", ".join(
            f"{label} {final[label].mean():.3f}" for label in agents))
        for label in agents:
            diff = final[label].to_numpy() - bar
            half = stats.t.ppf(0.975, seeds - 1) * diff.std(ddof=1) / np.sqrt(seeds)
            print(f"   {label:14s} - max(majority, private-etc): {diff.mean():+.4f} [{diff.mean() - half:+.4f}, "
                  f"{diff.mean() + half:+.4f}]  worst seed {diff.min():+.3f}")


if __name__ == "__main__":
    main()
