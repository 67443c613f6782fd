"""Reward centring and intercepts on {0, 1} rewards (issue 40 item 4, issue 37 item 6): each linear agent with
``centring="none"`` (the published form) beside ``"range"`` (rewards centred at the declared range's midpoint)
and, for the non-private references, ``"intercept"`` (a constant feature appended).

Settings (Bernoulli rewards, declared range (0, 1)):

* ``per-arm``: ``dpbandit/LogisticBandit-v0`` with per-arm features, d = 2, K = 10 (the unit-circle scale of
  issue 37's LDP-GLM setting), T = 10^4: ``shared-linucb``, ``ldp-linucb``, ``shuffle-linucb``,
  ``shuffle-vec-linucb``;
* ``shared``: ``dpbandit/LogisticBandit-v0`` at its defaults (d = 10, K = 5), T = 10^4: ``linucb``,
  ``greedy``, ``linucb-diag``, ``ldp-linucb-disjoint``, ``shuffle-linucb-disjoint``;
* ``classes``: ``dpbandit/ImbalancedClasses-v0``, T = 10^4: ``linucb``, ``greedy`` (accuracy and the
  majority share).

Private agents at epsilon = 1. A seed *fails* when its regret is above half of random play's on that seed
(the issue's bar for "sent the wrong way"); the page lists the seeds that fail uncentred and pass centred.

Usage: python sims/centring.py [--seeds 10] [--horizon 10000]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import functools  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from fig5_1 import RESULTS, command_line, markdown, write_csv  # noqa: E402

from dpbandit.agents import agent_class  # noqa: E402
from dpbandit.harness import run, t_interval  # noqa: E402

SETTINGS = {
    "per-arm": ("dpbandit/LogisticBandit-v0", {"dim": 2, "n_arms": 10, "context_model": "per_arm"},
                ("shared-linucb", "ldp-linucb", "shuffle-linucb", "shuffle-vec-linucb"), "random-perarm"),
    "shared": ("dpbandit/LogisticBandit-v0", {},
               ("linucb", "greedy", "linucb-diag", "ldp-linucb-disjoint", "shuffle-linucb-disjoint"), "random"),
    "classes": ("dpbandit/ImbalancedClasses-v0", {}, ("linucb", "greedy"), "random"),
}


def forms(name: str) -> tuple[str, ...]:
    """The centrings compared for an agent: the private ones cannot take an intercept (its feature bound)."""
    return ("none", "range") if agent_class(name).trust_model else ("none", "range", "intercept")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--horizon", type=int, default=10_000)
    parser.add_argument("--root-seed", type=int, default=40)
    parser.add_argument("--settings", nargs="*", default=list(SETTINGS))
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message=".*max_rounds_per_user=None")
    rows, failing = [], []
    for label in args.settings:
        env_id, env_kwargs, names, random = SETTINGS[label]
        agents = {random: agent_class(random)}
        for name in names:
            extra = {"epsilon": 1.0} if agent_class(name).trust_model else {}
            for form in forms(name):
                agents[f"{name} [{form}]"] = functools.partial(agent_class(name), centring=form, **extra)
        df = run(env_id, agents, n_seeds=args.seeds, root_seed=args.root_seed, horizon=args.horizon,
                 env_kwargs=env_kwargs, n_points=2, progress=False)
        last = df[df["step"] == args.horizon]
        regret = {a: g.sort_values("seed")["cumulative_regret"].to_numpy() for a, g in last.groupby("agent")}
        for agent, values in regret.items():
            ratio = values / regret[random]
            low, high = t_interval(ratio)
            rows.append({"setting": label, "agent": agent, "seeds": values.size, "regret": values.mean(),
                         "worst_seed_regret": values.max(), "ratio_to_random": ratio.mean(), "ratio_ci95_low": low,
                         "ratio_ci95_high": high, "failed_seeds": int(np.sum(ratio > 0.5)),
                         **({"accuracy": 1.0 - values.mean() / args.horizon} if label == "classes" else {})})
        for name in names:
            before = regret[f"{name} [none]"] / regret[random]
            after = regret[f"{name} [range]"] / regret[random]
            fixed = [int(s) for s in np.flatnonzero((before > 0.5) & (after <= 0.5))]
            broken = [int(s) for s in np.flatnonzero((before <= 0.5) & (after > 0.5))]
            failing.append({"setting": label, "agent": name, "failed uncentred": int(np.sum(before > 0.5)),
                            "failed centred": int(np.sum(after > 0.5)),
                            "seeds fixed (ratio before -> after)": ", ".join(
                                f"{s} ({before[s]:.2f} -> {after[s]:.2f})" for s in fixed) or "-",
                            "seeds broken": ", ".join(str(s) for s in broken) or "-"})
        print(pd.DataFrame(rows).tail(len(regret)).to_string(index=False), flush=True)
    table, seeds = pd.DataFrame(rows), pd.DataFrame(failing)
    command = command_line()
    write_csv(table, RESULTS / "centring.csv", f"produced by: {command} (root seed {args.root_seed})")
    with open(RESULTS / "centring.md", "w") as fh:
        fh.write("# Reward centring and intercepts on {0, 1} rewards\n\n"
                 f"Command: `{command}` (root seed {args.root_seed}, {args.seeds} seeds, T = {args.horizon})\n\n"
                 + __doc__.split("\n\n", 1)[1].split("Usage:")[0]
                 + "## Seeds that failed uncentred and pass centred (`range`)\n\n" + markdown(seeds)
                 + "\n\n## Every agent and form\n\n" + markdown(table) + "\n")


if __name__ == "__main__":
    main()
