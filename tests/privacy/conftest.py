"""Fixtures shared by the privacy tests."""

from __future__ import annotations

import pytest

from dpbandit.privacy import accounting, calibration_cache


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty calibration-cache folder and in-process memo; records dp-accounting's searches."""
    monkeypatch.setenv("DPBANDIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(calibration_cache, "_memory", {})
    calls = []
    search = accounting._search
    monkeypatch.setattr(accounting, "_search", lambda *a: calls.append(a[1:3]) or search(*a))
    return calls
