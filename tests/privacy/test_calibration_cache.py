"""Calibrations cached across processes (issue 31 item 2): the cached value is the computed one, bit for bit;
another key (event, epsilon, delta) recomputes; a file for another key or a damaged file is never used."""

from __future__ import annotations

import json
import subprocess
import sys

import dp_accounting
import pytest

from dpbandit.privacy import accounting, calibration_cache

pytestmark = pytest.mark.privacy


def sigma(epsilon: float, delta: float, **options) -> float:
    """A Gaussian calibration with the RDP accountant (fast; the PLD one takes seconds)."""
    return accounting.gaussian_sigma(epsilon, delta, accountant="rdp", **options)


def test_cached_equals_computed_and_is_read_back(cache, monkeypatch) -> None:
    computed = accounting._search(dp_accounting.GaussianDpEvent, 1.0, 1e-4, "rdp", accounting.RELATION)
    assert sigma(1.0, 1e-4) == computed and len(cache) == 2  # our search, then the one behind the cache
    assert len(list(calibration_cache.folder().glob("*.json"))) == 1
    monkeypatch.setattr(calibration_cache, "_memory", {})  # a new process: only the file is left
    assert sigma(1.0, 1e-4) == computed
    assert len(cache) == 2  # read, not searched


def test_another_key_recomputes(cache) -> None:
    base = sigma(1.0, 1e-4)
    assert sigma(2.0, 1e-4) < base  # epsilon
    assert sigma(1.0, 1e-6) > base  # delta
    tree = accounting.tree_gaussian_sigma(1.0, 1e-4, 100)  # another event
    assert accounting.tree_gaussian_sigma(1.0, 1e-4, 1000) > tree  # the event's count
    assert cache == [(1.0, 1e-4), (2.0, 1e-4), (1.0, 1e-6), (1.0, 1e-4), (1.0, 1e-4)]
    assert len(list(calibration_cache.folder().glob("*.json"))) == 5
    assert sigma(1.0, 1e-4, sensitivity=3.0, count=4) == base * 3.0 * 2.0  # the same search
    assert len(cache) == 5
    assert accounting.gaussian_sigma(1.0, 1e-4, accountant="rdp") == base
    assert len(cache) == 5


def test_damaged_or_foreign_file_is_ignored(cache, monkeypatch) -> None:
    value = sigma(1.0, 1e-4)
    (path,) = calibration_cache.folder().glob("*.json")
    stored = json.loads(path.read_text())
    assert '"delta": "0.0001"' in stored["key"]
    foreign = stored["key"].replace('"delta": "0.0001"', '"delta": "1e-05"')
    for damaged in ({"key": foreign, "value": value / 2}, {**stored, "value": -1.0}, "not json"):
        path.write_text(damaged if isinstance(damaged, str) else json.dumps(damaged))
        monkeypatch.setattr(calibration_cache, "_memory", {})
        assert sigma(1.0, 1e-4) == value
    assert len(cache) == 4  # recomputed after each damage


def test_another_process_reads_the_file(cache) -> None:
    """A fresh process (a sweep's worker) gets the calibration from the file, without searching."""
    code = ("import sys; from dpbandit.privacy import accounting; "
            "accounting._search = lambda *a: sys.exit('searched'); "
            "print(repr(accounting.gaussian_sigma(1.0, 1e-4, accountant='rdp')))")
    here = sigma(1.0, 1e-4)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr or done.stdout
    assert float(done.stdout) == here


def test_a_file_whose_value_misses_the_target_is_recomputed(cache, monkeypatch) -> None:
    """The right key with a multiplier too small for (epsilon, delta) (a stale or edited file): one accountant
    evaluation rejects it, and the search runs again; the right value is read back without a search."""
    value = sigma(1.0, 1e-4)
    (path,) = calibration_cache.folder().glob("*.json")
    stored = json.loads(path.read_text())
    path.write_text(json.dumps({**stored, "value": value * 0.99}))
    monkeypatch.setattr(calibration_cache, "_memory", {})
    assert sigma(1.0, 1e-4) == value and len(cache) == 2
    monkeypatch.setattr(calibration_cache, "_memory", {})
    assert sigma(1.0, 1e-4) == value and len(cache) == 2
