"""The README's command-line examples at full size: what each prints, for the numbers the README quotes.

Reads the first ``bash`` block of the README's "Command line" section, runs every ``dpbandit`` command in it
as written (through :func:`dpbandit.cli.main`, each into its own temporary ``--out``), and writes
``results/cli_examples.csv`` (one row per example and agent: the printed table's ratio to random with its 95%
interval, final regret, epsilon and delta) and ``results/cli_examples.md`` (the commands and those tables).
``tests/test_readme_numbers.py`` checks every ratio the README quotes for these commands against this page,
and the default job's row against a fresh run, so a change of a number fails in one place.

Usage: python sims/cli_examples.py  (about 1-2 minutes on 2 cores)
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from dpbandit import cli

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fig5_1 import markdown  # noqa: E402  (a pipe table without tabulate)

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
CSV = ROOT / "results" / "cli_examples.csv"
PAGE = ROOT / "results" / "cli_examples.md"
COLUMNS = [
    "example",
    "command",
    "agent",
    "ratio_to_random",
    "ratio_to_random_ci95_low",
    "ratio_to_random_ci95_high",
    "final_regret_mean",
    "epsilon",
    "delta",
    "seeds",
    "horizon",
]


def readme_commands(readme: Path = README) -> list[str]:
    """The ``dpbandit`` commands of the first ``bash`` block after ``## Command line``, without comments."""
    text = readme.read_text()
    section = text[text.index("## Command line") :]
    block = re.search(r"```bash\n(.*?)```", section, flags=re.S)
    assert block, "no bash block in the README's Command line section"
    commands = []
    for line in block.group(1).splitlines():
        args = shlex.split(line, comments=True)
        if args[:1] == ["dpbandit"]:
            commands.append(" ".join(shlex.quote(a) for a in args))
    return commands


def run_example(command: str, out: Path) -> pd.DataFrame:
    """Run one documented command into ``out``; its final-regret table."""
    args = shlex.split(command)[1:]
    with contextlib.redirect_stdout(io.StringIO()):
        status = cli.main([*args, "--out", str(out), "--no-progress"])
    if status != 0:
        raise RuntimeError(f"{command!r} exited with {status}")
    return pd.read_csv(out / "final_regret.csv")


def main() -> int:
    rows, started = [], time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for number, command in enumerate(readme_commands(), start=1):
            table = run_example(command, Path(tmp) / str(number))
            table.insert(0, "command", command)
            table.insert(0, "example", number)
            rows.append(table.reindex(columns=COLUMNS))
            print(f"{number}: {command}", file=sys.stderr)
    frame = pd.concat(rows, ignore_index=True)
    produced = "python sims/cli_examples.py"
    CSV.write_text(f"# produced by: {produced}\n" + frame.to_csv(index=False, float_format="%.4g"))
    lines = [
        "# The README's command-line examples, at full size",
        "",
        f"Command: `{produced}` ({time.perf_counter() - started:.0f} s). Each example of the README's "
        '"Command line" section run as written; ratio = final regret over random\'s on the same seeds (95% '
        "t-interval). The README's numbers for these commands are checked against this page by "
        "`tests/test_readme_numbers.py`.",
    ]
    for number, group in frame.groupby("example", sort=True):
        lines += [
            "",
            f"## {number}. `{group['command'].iloc[0]}`",
            "",
            markdown(group.drop(columns=["example", "command"])),
        ]
    PAGE.write_text("\n".join(lines) + "\n")
    print(f"wrote {CSV} and {PAGE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
