"""The privacy tests are one marked set (issue 39 item 1): ``pytest -m privacy`` runs them wherever they live.

Checked on the files' text (no collection, so it costs milliseconds): the marker is registered; every test
file under tests/privacy and tests/audit is marked as a whole; every file or folder a privacy mutant runs
holds marked tests; the mutation script selects with ``-m privacy``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.privacy

ROOT = Path(__file__).resolve().parents[1]
WHOLE = "pytestmark = pytest.mark.privacy"


def test_the_marker_is_registered() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^markers = \[\n\s+"privacy: ', text, flags=re.M)


@pytest.mark.parametrize("folder", ["tests/privacy", "tests/audit"])
def test_every_file_of_the_privacy_folders_is_marked_whole(folder: str) -> None:
    files = sorted((ROOT / folder).glob("test_*.py"))
    assert files
    unmarked = [f.name for f in files if WHOLE not in f.read_text()]
    assert not unmarked, f"{folder}: add `{WHOLE}` to {unmarked}"


def test_every_file_a_mutant_runs_holds_privacy_tests_and_the_script_selects_them() -> None:
    sys.path.insert(0, str(ROOT / "sims"))
    try:
        from privacy_mutants import MUTANTS
    finally:
        sys.path.remove(str(ROOT / "sims"))
    def marked(path: Path) -> bool:
        return "pytest.mark.privacy" in path.read_text()

    paths = {t.split("::")[0] for m in MUTANTS for t in m.tests}
    unmarked = sorted(p for p in paths if not (marked(ROOT / p) if p.endswith(".py")
                                               else any(map(marked, (ROOT / p).rglob("test_*.py")))))
    assert not unmarked, f"mutants run paths without privacy tests: {unmarked}"
    assert '"-m", "privacy"' in (ROOT / "sims/privacy_mutation.py").read_text()
