"""Every file in ``results/`` names the command that made it, and that command's script exists.

A page written from a script's folder once named ``python etc_baseline.py``: a newcomer at the repository's root
could not run it. ``sims/fig5_1.command_line`` now names the script relative to the root; this test keeps the pages
honest."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = sorted((ROOT / "results").glob("*.md")) + sorted((ROOT / "results").glob("*.csv"))
SCRIPT = re.compile(r"python (?:-m )?((?:sims|benchmarks)/[\w./-]+\.py)")


def _named_scripts(text: str) -> list[str]:
    return SCRIPT.findall(text)


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.name)
def test_each_result_names_a_runnable_command(path: Path) -> None:
    text = path.read_text()
    if path.suffix == ".csv":
        header = text.splitlines()[0] if text else ""
        if header.startswith("# produced by:"):
            text = header
        else:  # a CSV without a header is data of the page whose name it extends (kl_rates_slopes: kl_rates.md)
            pages = [p for p in (ROOT / "results").glob("*.md") if path.name.startswith(p.stem)]
            assert pages, f"{path.name}: no '# produced by:' line and no page whose name it extends"
            text = max(pages, key=lambda p: len(p.stem)).read_text()
    scripts = _named_scripts(text)
    assert scripts, f"{path.name} names no 'python sims/...' or 'python benchmarks/...' command"
    missing = [s for s in scripts if not (ROOT / s).exists()]
    assert not missing, f"{path.name} names scripts that do not exist from the repository's root: {missing}"


def test_command_line_names_the_script_from_the_root(monkeypatch) -> None:
    """Started from ``sims/`` (``python etc_baseline.py --seeds 5``), the page still says ``python sims/...``."""
    import sys

    monkeypatch.syspath_prepend(str(ROOT / "sims"))
    import fig5_1

    monkeypatch.chdir(ROOT / "sims")
    monkeypatch.setattr(sys, "argv", ["etc_baseline.py", "--seeds", "5"])
    assert fig5_1.command_line() == "python sims/etc_baseline.py --seeds 5"
