"""Start-up cost: fresh interpreters importing dpbandit's entry points, median of ``--reps`` runs.

Usage: ``python benchmarks/startup.py [--reps 7]``. Each command runs in a new process (so nothing is
cached in memory; the OS file cache is warm after the first run, which is not timed). Targets (issue
15): ``from dpbandit.harness import run`` <= 1 s and ``dpbandit --help`` <= 0.3 s. Plotting, seaborn,
matplotlib, pandas and scipy load on first use, not at import; ``python -X importtime -c "from
dpbandit.harness import run"`` shows what remains.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import load, table

BIN = Path(sys.executable).parent
COMMANDS = {
    "python -c pass (interpreter floor)": [sys.executable, "-c", "pass"],
    "from dpbandit.harness import run": [sys.executable, "-c", "from dpbandit.harness import run"],
    "dpbandit --help": [str(BIN / "dpbandit"), "--help"],
    "import dpbandit, gymnasium (registers the ids)": [sys.executable, "-c", "import dpbandit, gymnasium"],
    "from dpbandit.harness import plot_regret; import seaborn (first plot)": [
        sys.executable,
        "-c",
        "from dpbandit.harness import plot_regret; import seaborn",
    ],
}
TARGETS = {"from dpbandit.harness import run": 1.0, "dpbandit --help": 0.3}


def seconds(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def main(reps: int) -> str:
    for command in COMMANDS.values():  # warm the file cache, untimed
        seconds(command)
    runs: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(reps):  # interleaved
        for name, command in COMMANDS.items():
            runs[name].append(seconds(command))
    rows = [
        [
            name,
            f"{statistics.median(v):.3f}",
            f"{min(v):.3f}",
            f"{max(v):.3f}",
            f"<= {TARGETS[name]}" if name in TARGETS else "",
        ]
        for name, v in runs.items()
    ]
    return f"Fresh processes, median of {reps} interleaved runs, wall seconds (load {load()}):\n\n" + table(
        ["command", "median s", "min s", "max s", "target s"], rows
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    print(main(parser.parse_args().reps))
