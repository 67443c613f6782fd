"""Why faithful DP-HDB plays like random in the default job: its selection noise against the vertex-score gap.

The default job's note (``dpbandit/cli.py``, ``DEFAULT_NOTE``) says DP-HDB's selection noise at t = 10^4 is many
times the gap it must resolve. This script measures it on the default job's setting (``dpbandit/HDBSection54-v0``
at its defaults: Figure 5.1, d = 50, K = 2; T = 10^4; epsilon = 1, DP-HDB's default delta 1/T): after the run, for
each arm, the noiseless scores ``s_v = <d_t, v>`` of the 2d vertices ``v = +-r e_j`` (Algorithm 2 line 9, the
arm's recursive gradient ``d_t`` at its last step t) and the Laplace scale ``b_t`` of line 8 at that t (times
the accountant's multiplier). The scores come in pairs ``+-r d_j``, so their median is 0 (a vertex that says
nothing); the gap the noise must resolve is the best vertex's margin over it, ``r max_j |d_j|``. The ratio
``b_t / (r max_j |d_j|)`` says how far the noise is from letting the best vertex win: near 1 the best vertex
wins often; at 100 the choice is nearly uniform over the 2d = 100 vertices. The ratio to the gap between the
best and second-best vertex, ``b_t / (s_(2) - s_(1))``, is larger still (a column of the CSV).

Usage: python sims/dphdb_noise_gap.py [--seeds 10]; writes results/dphdb_noise_gap.{csv,md}.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from fig5_1 import RESULTS, command_line, markdown, write_csv

from dpbandit.agents.specs import agent_factory
from dpbandit.harness import seeding
from dpbandit.harness.run import run_one
from dpbandit.optim.pofw import line8_scale

ENV_ID = "dpbandit/HDBSection54-v0"
HORIZON = 10_000


def measure(seed_index: int, root: int) -> list[dict]:
    """One DP-HDB run of the default job's setting; per arm, its last step's scale, gap and their ratio."""
    _, base = agent_factory("dphdb", {}, {"epsilon": 1.0})
    built = []

    def factory(**kwargs):
        built.append(base(**kwargs))
        return built[-1]

    run_one(ENV_ID, "dphdb", factory, seeding.seed_sequence(root, seed_index), horizon=HORIZON, n_points=2)
    bank = built[0].bank
    scale = line8_scale(bank.t, radius=bank.radius, smoothness=bank.smoothness, lipschitz=bank.lipschitz,
                        privacy=bank.privacy_calibration)
    scores = np.sort(bank.radius * np.concatenate([bank.direction, -bank.direction], axis=1), axis=1)
    gap = -scores[:, 0]  # the best vertex's margin over the median score 0
    second = scores[:, 1] - scores[:, 0]
    return [{"seed": seed_index, "arm": arm, "steps": int(bank.t[arm]), "scale": scale[arm], "gap": gap[arm],
             "scale_over_gap": scale[arm] / gap[arm], "scale_over_second_gap": scale[arm] / second[arm]}
            for arm in range(bank.n_instances)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--root-seed", type=int, default=0)
    args = parser.parse_args()
    rows = pd.DataFrame([r for i in range(args.seeds) for r in measure(i, args.root_seed)])
    command = command_line()
    write_csv(rows, RESULTS / "dphdb_noise_gap.csv", f"produced by: {command} (root seed {args.root_seed})")
    ratio = rows["scale_over_gap"]
    summary = pd.DataFrame([{"runs": args.seeds, "arms": len(rows), "median_scale_over_gap": ratio.median(),
                             "q25": ratio.quantile(0.25), "q75": ratio.quantile(0.75),
                             "median_scale": rows["scale"].median(), "median_gap": rows["gap"].median()}])
    with open(RESULTS / "dphdb_noise_gap.md", "w") as fh:
        fh.write(f"# DP-HDB's selection noise against the vertex-score gap\n\nCommand: `{command}` (root seed "
                 f"{args.root_seed}; {ENV_ID} at its defaults, T = {HORIZON:,}, epsilon = 1, delta = 1/T)\n\n"
                 + __doc__.split("\n\n")[1].replace("\n", " ") + "\n\n" + markdown(summary) + "\n\n"
                 + "Per arm and seed: `results/dphdb_noise_gap.csv`.\n")
    print(summary.to_string(index=False))


if __name__ == "__main__":
    main()
