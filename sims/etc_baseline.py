"""The simple reference (issue 29, item 5): private explore-then-commit against ``private`` and LinUCB.

Agents, every private one at its defaults with epsilon = 1 (delta the agent's default ``min(1e-5, 1/(10T))``):

* ``private-etc``: uniform exploration for ``ceil(K^(1/3) T^(2/3))`` rounds, one Gaussian release of the
  per-arm reward sums, then the best arm (``dpbandit/agents/batched/etc.py``);
* ``etc-ridge``: the context-greedy explore-then-commit, ``batched-ridge`` with ``first_batch`` the same
  exploration and ``batch_ratio = T`` (no second batch ends before T: one release of each arm's Gram and
  ``sum x r``, then greedy ridge), measured to decide which form ships;
* ``private`` (the recommended agent), LinUCB (not private), random play;
* ``best constant arm``: the arm with the largest total expected reward over the seed's T rounds, in hindsight
  (not an agent: on a classification bandit it is the majority class of the rows drawn).

Settings: the five classification ids (four bundled data sets and issue 29's imbalanced
``make_classification`` set, ``dpbandit/ImbalancedClasses-v0``), T = 10^4 (the imbalanced set also 10^5), and
S1 (Figure 5.1, ``dpbandit/HDBSection54-v0``), T = 10^4. Accuracy = 1 - regret / T; ratio = final regret over
random play's on the same seed (common random numbers).

Usage: python sims/etc_baseline.py [--seeds 5] [--root-seed 2911]
Writes results/etc_baseline.{csv,md}.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import functools  # noqa: E402
import warnings  # noqa: E402

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from fig5_1 import RESULTS, command_line, markdown, write_csv  # noqa: E402

from dpbandit.agents import agent_class  # noqa: E402
from dpbandit.agents.batched.etc import default_exploration  # noqa: E402
from dpbandit.harness import run, seeding, t_interval  # noqa: E402

#: (label, env id, T): the classification settings and S1.
SETTINGS = [
    ("digits", "dpbandit/Digits-v0", 10_000),
    ("wine", "dpbandit/Wine-v0", 10_000),
    ("breast cancer", "dpbandit/BreastCancer-v0", 10_000),
    ("iris", "dpbandit/Iris-v0", 10_000),
    ("imbalanced", "dpbandit/ImbalancedClasses-v0", 10_000),
    ("imbalanced", "dpbandit/ImbalancedClasses-v0", 100_000),
    ("S1 (Figure 5.1)", "dpbandit/HDBSection54-v0", 10_000),
]
CONSTANT = "best constant arm"


def agents(n_arms: int, horizon: int) -> dict:
    """The compared agents at epsilon = 1 (module docstring)."""
    explore = default_exploration(n_arms, horizon)
    return {
        "private-etc": functools.partial(agent_class("private-etc"), epsilon=1.0),
        "etc-ridge": functools.partial(agent_class("batched-ridge"), epsilon=1.0, first_batch=explore,
                                       batch_ratio=float(horizon)),
        "private": functools.partial(agent_class("private"), epsilon=1.0),
        "linucb": agent_class("linucb"),
        "random": agent_class("random"),
    }


def best_constant_regret(env_id: str, horizon: int, seeds: int, root: int) -> np.ndarray:
    """Per seed: the regret of the arm with the largest total expected reward over the seed's rounds."""
    out = []
    for sequence in seeding.run_seeds(root, seeds):  # the harness's seeds: the rounds every agent met
        env = gymnasium.make(env_id, horizon=horizon, disable_env_checker=True)
        env.reset(seed=seeding.env_seed(sequence))
        means = env.unwrapped.draw_rounds(horizon).expected_rewards
        out.append(float(means.max(axis=1).sum() - means.sum(axis=0).max()))
    return np.array(out)


def exploration_lengths(seeds: int, root: int) -> pd.DataFrame:
    """``private-etc`` at T = 10^4 with ``explore_fraction`` 0.02, 0.05, 0.2 against its default."""
    out = []
    for label, env_id, horizon in SETTINGS:
        if horizon != 10_000:
            continue
        etc = agent_class("private-etc")
        factories = {"default": functools.partial(etc, epsilon=1.0), "random": agent_class("random"),
                     **{f"{f:g} T": functools.partial(etc, epsilon=1.0, explore_fraction=f)
                        for f in (0.02, 0.05, 0.2)}}
        df = run(env_id, factories, n_seeds=seeds, root_seed=root, horizon=horizon, n_points=2,
                 progress=False)
        last = df[df["step"] == horizon]
        regret = last.groupby("agent")["cumulative_regret"].mean()
        s1 = env_id == "dpbandit/HDBSection54-v0"
        metric = regret / regret["random"] if s1 else 1.0 - regret / horizon
        out.append({"setting": label, **{k: metric[k] for k in ("0.02 T", "0.05 T", "default", "0.2 T")}})
    return pd.DataFrame(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--root-seed", type=int, default=2911)
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message=".*max_rounds_per_user=None")  # per-round privacy, rows repeat
    rows = []
    for label, env_id, horizon in SETTINGS:
        n_arms = gymnasium.make(env_id, disable_env_checker=True).action_space.n
        df = run(env_id, agents(n_arms, horizon), n_seeds=args.seeds, root_seed=args.root_seed,
                 horizon=horizon, n_points=2, progress=False)
        last = df[df["step"] == horizon]
        regret = {a: g.sort_values("seed")["cumulative_regret"].to_numpy() for a, g in last.groupby("agent")}
        regret[CONSTANT] = best_constant_regret(env_id, horizon, args.seeds, args.root_seed)
        classification = env_id != "dpbandit/HDBSection54-v0"
        for agent, values in regret.items():
            ratio = values / regret["random"]
            to_private = values / regret["private"]
            row = {"setting": label, "T": horizon, "K": n_arms, "agent": agent, "seeds": values.size,
                   "ratio_to_random": ratio.mean(), "ratio_ci95_low": t_interval(ratio)[0],
                   "ratio_ci95_high": t_interval(ratio)[1], "regret_over_private": to_private.mean()}
            if classification:
                accuracy = 1.0 - values / horizon
                row.update(accuracy=accuracy.mean(), accuracy_ci95_low=t_interval(accuracy)[0],
                           accuracy_ci95_high=t_interval(accuracy)[1])
            rows.append(row)
        print(pd.DataFrame(rows[-len(regret):]).to_string(index=False), flush=True)
    table = pd.DataFrame(rows)
    lengths = exploration_lengths(args.seeds, args.root_seed)
    command = command_line()
    write_csv(table, RESULTS / "etc_baseline.csv", f"produced by: {command} (root seed {args.root_seed})")
    with open(RESULTS / "etc_baseline.md", "w") as fh:
        fh.write(
            "# Private explore-then-commit, the simple reference\n\n"
            f"Command: `{command}` (root seed {args.root_seed}, {args.seeds} seeds, the same for every "
            "agent)\n\n"
            + __doc__.split("\n\n", 1)[1].split("Usage:")[0]
            + markdown(table) + "\n\n"
            "## Exploration length of `private-etc`\n\n"
            "Accuracy (regret ratio to random on S1) at T = 10^4 with the exploration a fixed fraction of T "
            "against the default `ceil(K^(1/3) T^(2/3))` (5.9% of T at K = 2, 6.7% at K = 3, 7.4% at K = 4, "
            "10% at K = 10); same seeds (the agent's coins are keyed by its label, so `default` differs from "
            "`private-etc` above by its coins only).\n\n" + markdown(lengths) + "\n"
        )


if __name__ == "__main__":
    main()
