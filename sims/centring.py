"""Reward centring and intercepts on {0, 1} rewards (issue 40 item 4, issue 37 item 6): each linear agent with
``centring="none"`` (the published form) beside ``"range"`` (rewards centred at the declared range's midpoint)
and, for the non-private references, ``"intercept"`` (a constant feature appended).

Settings (Bernoulli rewards, declared range (0, 1)):

* ``per-arm``: ``dpbandit/LogisticBandit-v0`` with per-arm features, d = 2, K = 10 (the unit-circle scale of
  issue 37's LDP-GLM setting), T = 10^4: ``shared-linucb``, ``ldp-linucb``, ``shuffle-linucb``,
  ``shuffle-vec-linucb``, the private agents at their default feature bound ``sqrt(d)``;
* ``per-arm L=1``: the same, the private agents told the environment's public row norm (``feature_bound=1``:
  its rows are scaled to unit l2 norm, ``context_norm=2``), as sims/ldp_glm.py tells ``ldp-linucb``;
* ``shared``: ``dpbandit/LogisticBandit-v0`` at its defaults (d = 10, K = 5), T = 10^4: ``linucb``,
  ``greedy``, ``linucb-diag``, ``ldp-linucb-disjoint``, ``shuffle-linucb-disjoint``;
* ``classes``: ``dpbandit/ImbalancedClasses-v0``, T = 10^4: ``linucb``, ``greedy`` (accuracy and the
  majority share).

Private agents at epsilon = 1, in three forms: ``none``; ``range, B=1`` (centred, the report's reward clipped
at 1 as before issue 37 item 6 was closed); ``range`` (centred and clipped at the range's half-width 0.5, the
default now). Every form of an agent runs under the agent's own name, so on a seed all its forms draw the same
noise stream (the harness keys an agent's generator by its name): the forms are paired. A seed *fails* when
its regret is above half of random play's on that seed (the issue's bar for "sent the wrong way"); the page
lists the seeds that fail uncentred (or centred with the old clip) and pass centred. A failed seed is *locked*
(sent the wrong way and kept there) when its regret over the second half of the run is above random play's over
the same rounds; the other failed seeds are learning, slowly.

Usage: python sims/centring.py [--seeds 10] [--horizon 10000] [--settings ...] [--agents ...] [--page centring]
(``--agents``: only these of each setting; ``--page``: writes results/<page>.md and .csv)
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

PER_ARM = ("dpbandit/LogisticBandit-v0", {"dim": 2, "n_arms": 10, "context_model": "per_arm"})
SETTINGS = {
    "per-arm": (*PER_ARM, ("shared-linucb", "ldp-linucb", "shuffle-linucb", "shuffle-vec-linucb"), "random-perarm",
                {}),
    "per-arm L=1": (*PER_ARM, ("ldp-linucb", "shuffle-linucb", "shuffle-vec-linucb"), "random-perarm",
                    {"feature_bound": 1.0}),
    "shared": ("dpbandit/LogisticBandit-v0", {},
               ("linucb", "greedy", "linucb-diag", "ldp-linucb-disjoint", "shuffle-linucb-disjoint"), "random", {}),
    "classes": ("dpbandit/ImbalancedClasses-v0", {}, ("linucb", "greedy"), "random", {}),
}
#: form label -> agent options; the private agents' forms (an intercept would change their report) and the others'
PRIVATE_FORMS = {"none": {"centring": "none"}, "range, B=1": {"centring": "range", "reward_bound": 1.0},
                 "range": {"centring": "range"}}
PLAIN_FORMS = {"none": {"centring": "none"}, "range": {"centring": "range"}, "intercept": {"centring": "intercept"}}


def forms(name: str) -> dict[str, dict]:
    """The forms compared for an agent (label -> options)."""
    return PRIVATE_FORMS if agent_class(name).trust_model else PLAIN_FORMS


def fixed_seeds(before: np.ndarray, after: np.ndarray) -> tuple[str, str]:
    """Seeds failing in ``before`` and passing in ``after`` (with both ratios), and the reverse."""
    fixed = [int(s) for s in np.flatnonzero((before > 0.5) & (after <= 0.5))]
    broken = [int(s) for s in np.flatnonzero((before <= 0.5) & (after > 0.5))]
    return (", ".join(f"{s} ({before[s]:.2f} -> {after[s]:.2f})" for s in fixed) or "-",
            ", ".join(str(s) for s in broken) or "-")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--horizon", type=int, default=10_000)
    parser.add_argument("--root-seed", type=int, default=40)
    parser.add_argument("--settings", nargs="*", default=list(SETTINGS))
    parser.add_argument("--agents", nargs="*", default=None, help="only these agents of each setting")
    parser.add_argument("--page", default="centring", help="results/<page>.md and results/<page>.csv")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message=".*max_rounds_per_user=None")
    rows, failing = [], []
    for label in args.settings:
        env_id, env_kwargs, names, random, private_options = SETTINGS[label]
        names = tuple(n for n in names if args.agents is None or n in args.agents)
        runs = [{random: agent_class(random)}]
        labels = sorted({form for name in names for form in forms(name)}, key=list(PRIVATE_FORMS | PLAIN_FORMS).index)
        for form in labels:  # one run per form: the agents keep their names, hence their noise streams
            agents = {}
            for name in names:
                if form in forms(name):
                    extra = {"epsilon": 1.0, **private_options} if agent_class(name).trust_model else {}
                    agents[name] = functools.partial(agent_class(name), **forms(name)[form], **extra)
            runs.append({f"{name} [{form}]": factory for name, factory in agents.items()})
        regret, late = {}, {}  # final regret; regret over the second half of the run
        for agents in runs:
            df = run(env_id, {a.split(" [")[0]: f for a, f in agents.items()}, n_seeds=args.seeds,
                     root_seed=args.root_seed, horizon=args.horizon, env_kwargs=env_kwargs, n_points=3,
                     spacing="linear", progress=False)
            half = sorted(df["step"].unique())[1]
            for label_form in agents:
                g = df[df["agent"] == label_form.split(" [")[0]].sort_values("seed")
                end = g[g["step"] == args.horizon]["cumulative_regret"].to_numpy()
                regret[label_form] = end
                late[label_form] = end - g[g["step"] == half]["cumulative_regret"].to_numpy()
        locked = {agent: (late[agent] > late[random]) & (regret[agent] > 0.5 * regret[random]) for agent in regret}
        for agent, values in regret.items():
            ratio = values / regret[random]
            low, high = t_interval(ratio)
            rows.append({"setting": label, "agent": agent, "seeds": values.size, "regret": values.mean(),
                         "worst_seed_regret": values.max(), "ratio_to_random": ratio.mean(), "ratio_ci95_low": low,
                         "ratio_ci95_high": high, "failed_seeds": int(np.sum(ratio > 0.5)),
                         "locked_seeds": int(np.sum(locked[agent])),
                         **({"accuracy": 1.0 - values.mean() / args.horizon} if label == "classes" else {})})
        for name in names:
            ratio = {form: regret[f"{name} [{form}]"] / regret[random] for form in forms(name)}
            fixed, broken = fixed_seeds(ratio["none"], ratio["range"])
            old = ratio.get("range, B=1")
            clip_fixed, clip_broken = fixed_seeds(old, ratio["range"]) if old is not None else ("n/a", "n/a")
            count = {form: f"{np.sum(r > 0.5)} ({np.sum(locked[f'{name} [{form}]'])})" for form, r in ratio.items()}
            failing.append({"setting": label, "agent": name, "failed (locked) uncentred": count["none"],
                            "failed (locked) centred, B=1": count.get("range, B=1", "n/a"),
                            "failed (locked) centred": count["range"],
                            "seeds fixed by centring (ratio uncentred -> centred)": fixed,
                            "seeds broken by centring": broken,
                            "seeds fixed by the half-width clip (B=1 -> 0.5)": clip_fixed,
                            "seeds broken by the clip": clip_broken})
        print(pd.DataFrame(rows).tail(len(regret)).to_string(index=False), flush=True)
    table, seeds = pd.DataFrame(rows), pd.DataFrame(failing)
    command = command_line()
    write_csv(table, RESULTS / f"{args.page}.csv", f"produced by: {command} (root seed {args.root_seed})")
    with open(RESULTS / f"{args.page}.md", "w") as fh:
        fh.write("# Reward centring and intercepts on {0, 1} rewards\n\n"
                 f"Command: `{command}` (root seed {args.root_seed}, {args.seeds} seeds, T = {args.horizon})\n\n"
                 + __doc__.split("\n\n", 1)[1].split("Usage:")[0]
                 + "## Seeds that failed before and pass centred (`range`)\n\n" + markdown(seeds)
                 + "\n\n## Every agent and form\n\n" + markdown(table) + "\n")


if __name__ == "__main__":
    main()
