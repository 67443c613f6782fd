"""The README's "Bring your own environment" numbers: `private` on a user's {0, 1} bandit, its reward range
declared and undeclared, with LinUCB and random on the same seeds.

The environment is the test suite's own (``tests/toy_bandit.py``: built on nothing in ``dpbandit/envs/``, K = 5, d = 10
here), run the way the README tells a user to run theirs: ``dpbandit run --env toy_bandit:ToyBandit`` from the
module's folder (``tests/``), once as written (it declares ``reward_range = (0, 1)``) and once with
``--env-kwarg reward_range=None`` (it declares nothing, so `private` learns the rewards' centre and clip).
Writes ``results/own_env.csv`` (one row per command and agent: ratio to random with its 95% interval, final
regret, epsilon, delta) and ``results/own_env.md``; ``tests/test_readme_numbers.py`` checks the README's
sentence, and the numbers of the harness's undeclared-range warning, against this page.

Usage: python sims/own_env.py  (about 1.5 minutes on 2 cores)
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_examples import COLUMNS, run_example  # noqa: E402
from fig5_1 import markdown  # noqa: E402  (a pipe table without tabulate)

ROOT = Path(__file__).resolve().parents[1]
#: The folder the commands run from: the environment's module is there, as a user's would be.
MODULE_FOLDER = ROOT / "tests"
CSV = ROOT / "results" / "own_env.csv"
PAGE = ROOT / "results" / "own_env.md"
_BANDIT = (
    "dpbandit run --env toy_bandit:ToyBandit --env-kwarg n_arms=5 --env-kwarg dim=10 --horizon 20000 "
    "--seeds 10 --root-seed 777"
)
#: The reward range as declared by the environment, and undeclared: (case, command).
COMMANDS = [
    ("declared", f"{_BANDIT} --agents private,linucb,random"),
    ("undeclared", f"{_BANDIT} --env-kwarg reward_range=None --agents private,random"),
]


def main() -> int:
    rows, started, here = [], time.perf_counter(), os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(MODULE_FOLDER)  # (contextlib.chdir needs Python 3.11; the project supports 3.10)
        try:
            for case, command in COMMANDS:
                table = run_example(command, Path(tmp) / case).reindex(columns=COLUMNS[2:])
                table.insert(0, "command", command)
                table.insert(0, "case", case)
                rows.append(table)
                print(f"{case}: {command}", file=sys.stderr)
        finally:
            os.chdir(here)
    frame = pd.concat(rows, ignore_index=True)
    produced = "python sims/own_env.py"
    CSV.write_text(f"# produced by: {produced}\n" + frame.to_csv(index=False, float_format="%.4g"))
    lines = [
        "# Bring your own environment: a {0, 1} bandit with its reward range declared and undeclared",
        "",
        f"Command: `{produced}` ({time.perf_counter() - started:.0f} s), which runs each command below from "
        "`tests/` (the folder of `toy_bandit.py`, the test suite's own environment: K arms, unit-norm "
        "contexts, a Bernoulli reward of mean (1 + <x, theta_a>) / 2). Ratio = final regret over random's on "
        "the same seeds (95% t-interval). The README's numbers in 'Bring your own environment' and those of "
        "the harness's undeclared-range warning are checked against this page by "
        "`tests/test_readme_numbers.py`.",
    ]
    for case, group in frame.groupby("case", sort=False):
        lines += ["", f"## {case}: `{group['command'].iloc[0]}`", "",
                  markdown(group.drop(columns=["case", "command"]))]
    PAGE.write_text("\n".join(lines) + "\n")
    print(f"wrote {CSV} and {PAGE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
