"""``private`` against its noise-off form as epsilon grows (issue 29): does epsilon -> large recover it?

Regret (accuracy on classification data) of ``private`` at its defaults for epsilon in {1, 4, 16, 64} and with
``noise=False``, and LinUCB's, on Figure 5.1 (``dpbandit/HDBSection54-v0``), digits and the item-1 imbalanced
data set (``dpbandit/ImbalancedClasses-v0``), T = 10^4, paired seeds.

Usage: python sims/private_epsilon_limit.py [--seeds 3] [--root-seed 29]; writes results/private_epsilon_limit.md.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import functools  # noqa: E402

import pandas as pd  # noqa: E402
from fig5_1 import RESULTS, command_line, markdown  # noqa: E402

from dpbandit.agents.batched.private import PrivateAgent  # noqa: E402
from dpbandit.agents.linear import LinUCB  # noqa: E402
from dpbandit.harness import run  # noqa: E402

EPSILONS = (1.0, 4.0, 16.0, 64.0)
SETTINGS = {"Figure 5.1": ("dpbandit/HDBSection54-v0", {}), "digits": ("dpbandit/Digits-v0", {}),
            "item-1 imbalanced": ("dpbandit/ImbalancedClasses-v0", {})}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--root-seed", type=int, default=29)
    parser.add_argument("--horizon", type=int, default=10_000)
    args = parser.parse_args()
    agents = {f"epsilon {e:g}": functools.partial(PrivateAgent, epsilon=e) for e in EPSILONS}
    agents |= {"noise off": functools.partial(PrivateAgent, noise=False), "LinUCB": LinUCB}
    rows = []
    for name, (env_id, env) in SETTINGS.items():
        df = run(env_id, agents, n_seeds=args.seeds, root_seed=args.root_seed, horizon=args.horizon,
                 env_kwargs=env, n_points=2, progress=False)
        last = df[df["step"] == args.horizon].groupby("agent", sort=False)
        regret = last["cumulative_regret"].mean()
        row = {"setting": name, **{a: regret[a] for a in agents}}
        row["epsilon 64 / noise off"] = regret["epsilon 64"] / regret["noise off"]
        if env_id != "dpbandit/HDBSection54-v0":
            rows.append({**row, "setting": f"{name} (regret)"})
            accuracy = last["cumulative_reward"].mean() / args.horizon
            row = {"setting": f"{name} (accuracy)", **{a: accuracy[a] for a in agents}}
        rows.append(row)
    table = pd.DataFrame(rows)
    with open(RESULTS / "private_epsilon_limit.md", "w") as fh:
        fh.write(f"# `private` as epsilon grows\n\nCommand: `{command_line()}` (root seed {args.root_seed}, "
                 f"{args.seeds} seeds, T = {args.horizon:,}; mean final regret or accuracy)\n\n")
        fh.write(markdown(table) + "\n")
    print(table.to_string())


if __name__ == "__main__":
    main()
