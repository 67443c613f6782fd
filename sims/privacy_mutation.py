"""Mutation check of the privacy tests: plant each bug of ``sims/privacy_mutants.py``, run its tests, report.

For every mutant (one exact text replacement in one file) the script runs the mutant's tests that carry the
``privacy`` marker (``pytest -m privacy`` on the mutant's paths) on a temporary copy of the project with the
bug planted, and records which tests failed (killed it) and how long it took.
The working tree is never modified: the copy lives in a temporary directory and each mutated file is restored
in a ``finally`` block before the next mutant. Before anything runs, every mutant's old text must occur
exactly once in the current tree, otherwise the script stops and names each mutant whose text went missing
(re-target it after a refactor). The unmutated tests must pass first (baseline).

Writes ``results/privacy_mutation.md`` (with ``--only P Q``: ``results/privacy_mutation_P_Q.md``, so a partial
run never overwrites the full page): the command, one row per mutant (killed or SURVIVED, the killing tests, seconds) and the total run time. Exits non-zero if a mutant survives or if a mutant of issue 17
(``listed=True``) is killed by fewer than two tests in two different files. Outside the default test run.

Usage::

    python sims/privacy_mutation.py [--only NAME_PREFIX ...] [--workers 2] [--report PATH]
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from privacy_mutants import MUTANTS, Mutant  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
COPIED = ("dpbandit", "tests", "pyproject.toml")


@dataclass
class Outcome:
    """What one mutant's test run showed."""

    mutant: Mutant
    killers: list[str] = field(default_factory=list)
    seconds: float = 0.0
    note: str = ""

    @property
    def killed(self) -> bool:
        return bool(self.killers)

    @property
    def independent(self) -> bool:
        """Killed by >= 2 test functions in >= 2 different files."""
        functions = {k.split("[")[0] for k in self.killers}
        return len(functions) >= 2 and len({f.split("::")[0] for f in functions}) >= 2


def check_targets(mutants: tuple[Mutant, ...], root: Path = ROOT) -> None:
    """Stop, naming every mutant whose old text is not found exactly once in its file."""
    problems = []
    for m in mutants:
        path = root / m.path
        count = path.read_text().count(m.old) if path.exists() else -1
        if count != 1:
            where = "file missing" if count < 0 else f"old text found {count} times"
            problems.append(f"  mutant {m.name!r}: {where} in {m.path}: {m.old!r}")
    names = [m.name for m in mutants]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        problems.append(f"  duplicate mutant names: {dupes}")
    if problems:
        raise SystemExit(
            "Mutants that must be re-targeted (each needs its old text exactly once):\n" + "\n".join(problems)
        )


def copy_project(dest: Path) -> None:
    """Copy the project's importable packages, tests and config (with numba caches) into ``dest``."""
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns(".pytest_cache"))
        else:
            shutil.copy2(src, dest / name)


def run_tests(copy: Path, tests: tuple[str, ...], workers: int) -> tuple[int, list[str], str]:
    """Run the privacy tests (``-m privacy``) among ``tests`` inside ``copy``; returns (exit code, failed/errored
    node ids, output). Only tests marked ``privacy`` can kill a mutant; a mutant's paths narrow the run for time
    (killed by a subset of ``pytest -m privacy`` means killed by the set)."""
    env = {**os.environ, "PYTHONPATH": str(copy)}
    cmd = [sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider", "-n", str(workers),
           "-m", "privacy", *tests]
    proc = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True)
    out = proc.stdout + proc.stderr
    failed = sorted({m.group(2) for m in re.finditer(r"^(FAILED|ERROR) (\S+)", out, flags=re.M)})
    return proc.returncode, failed, out


def check_copy_is_imported(copy: Path) -> None:
    """The tests in the copy must import the copy's dpbandit, not the installed one."""
    env = {**os.environ, "PYTHONPATH": str(copy)}
    path = subprocess.run(
        [sys.executable, "-c", "import dpbandit; print(dpbandit.__file__)"],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not Path(path).resolve().is_relative_to(copy.resolve()):
        raise SystemExit(f"The copy's tests would import {path}, not the copy under {copy}.")


def run_mutant(copy: Path, mutant: Mutant, workers: int) -> Outcome:
    """Plant ``mutant`` in the copy, run its tests, and restore the file (always)."""
    target = copy / mutant.path
    original = target.read_text()
    start = time.perf_counter()
    try:
        target.write_text(original.replace(mutant.old, mutant.new, 1))
        code, failed, out = run_tests(copy, mutant.tests, workers)
    finally:
        target.write_text(original)
    outcome = Outcome(mutant, failed, time.perf_counter() - start)
    if code not in (0, 1):
        outcome.note = f"pytest exit code {code}"
        if not failed:
            raise SystemExit(
                f"Mutant {mutant.name!r}: pytest exit code {code} without failures:\n{out[-3000:]}"
            )
    return outcome


def _functions(killers: list[str]) -> str:
    """Killing tests by test function: each node id if a function has at most two, else the count."""
    groups: dict[str, list[str]] = {}
    for k in killers:
        groups.setdefault(k.split("[")[0], []).append(k)
    cells = []
    for function, ids in groups.items():
        shown = ids if len(ids) <= 2 else [f"{function} (x{len(ids)})"]
        cells += [f"`{n.removeprefix('tests/')}`" for n in shown]
    return "<br>".join(cells)


def write_report(outcomes: list[Outcome], path: Path, command: str, seconds: float, baseline: float) -> None:
    killed = sum(o.killed for o in outcomes)
    listed = [o for o in outcomes if o.mutant.listed]
    rows = ["| mutant | file | issue 17 | verdict | killing tests | s |", "|---|---|---|---|---|---|"]
    for o in outcomes:
        verdict = "killed" if o.killed else "**SURVIVED**"
        flag = (
            ("yes: " + ("2+ files" if o.independent else "**fewer than 2 files**")) if o.mutant.listed else ""
        )
        rows.append(
            f"| `{o.mutant.name}` | `{o.mutant.path.removeprefix('dpbandit/')}` | {flag} | {verdict} "
            f"| {_functions(o.killers)} | {o.seconds:.0f} |"
        )
    path.write_text(
        f"# Privacy mutation check\n\nCommand: `{command}`\n\n"
        f"{killed}/{len(outcomes)} mutants killed; the {len(listed)} mutants of issue 17 "
        f"(`issue 17` column) killed by tests in two or more files: "
        f"{sum(o.independent for o in listed)}/{len(listed)}. Total run time {seconds / 60:.1f} min "
        f"(baseline run of all selected tests {baseline:.0f} s; each row: planting, the mutant's tests, "
        "restore).\n\nEach mutant is one exact replacement listed in `sims/privacy_mutants.py` (old and new "
        "text there); the "
        "tests run on a temporary copy of the tree, never on the working tree.\n\n" + "\n".join(rows) + "\n"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", default=[], help="run only mutants whose name starts with these")
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers per run")
    parser.add_argument("--report", type=Path, default=None,
                        help="default results/privacy_mutation.md; with --only, results/privacy_mutation_<prefixes>.md "
                             "(a partial run never overwrites the full page)")
    args = parser.parse_args(argv)
    if args.report is None:
        suffix = "_" + "_".join(re.sub(r"\W+", "", p) for p in args.only) if args.only else ""
        args.report = ROOT / "results" / f"privacy_mutation{suffix}.md"
    check_targets(MUTANTS)
    mutants = [m for m in MUTANTS if not args.only or m.name.startswith(tuple(args.only))]
    if not mutants:
        raise SystemExit(f"No mutant matches --only {args.only}.")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dpbandit-mutation-") as tmp:
        copy = Path(tmp)
        copy_project(copy)
        check_copy_is_imported(copy)
        selected = tuple(dict.fromkeys(t for m in mutants for t in m.tests))
        code, failed, out = run_tests(copy, selected, args.workers)
        if code != 0:
            raise SystemExit(f"Baseline: the unmutated tests fail ({failed}):\n{out[-3000:]}")
        baseline = time.perf_counter() - start
        outcomes = []
        for m in mutants:
            outcomes.append(run_mutant(copy, m, args.workers))
            o = outcomes[-1]
            print(
                f"{m.name:42s} {'killed' if o.killed else 'SURVIVED':8s} by {len(o.killers):3d} tests "
                f"({o.seconds:.0f} s){' ' + o.note if o.note else ''}",
                flush=True,
            )
    seconds = time.perf_counter() - start
    command = "python " + " ".join(
        shlex.quote(a) for a in ["sims/privacy_mutation.py", *(argv or sys.argv[1:])]
    )
    args.report.parent.mkdir(exist_ok=True)
    write_report(outcomes, args.report, command, seconds, baseline)
    survivors = [o.mutant.name for o in outcomes if not o.killed]
    weak = [o.mutant.name for o in outcomes if o.mutant.listed and not o.independent]
    print(
        f"{len(outcomes) - len(survivors)}/{len(outcomes)} killed in {seconds / 60:.1f} min; "
        f"report {args.report}"
    )
    if survivors or weak:
        raise SystemExit(
            f"Survivors: {survivors}; issue-17 mutants with fewer than two independent killers: {weak}"
        )


if __name__ == "__main__":
    main()
