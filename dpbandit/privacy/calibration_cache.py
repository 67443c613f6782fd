"""Noise calibrations kept across runs and processes: computed once per machine, then read back.

A calibration (the smallest noise multiplier meeting ``(epsilon, delta)`` for a privacy event, found by
dp-accounting's search: seconds with the PLD accountant) depends only on the event, epsilon, delta, the
accountant and the neighbouring relation. :func:`cached` keeps each result in this process and in one small
JSON file per key in ``calibrations/`` beside dpbandit's numba cache (:func:`dpbandit._numba_cache.cache_dir`:
``$DPBANDIT_CACHE_DIR``, else ``$XDG_CACHE_HOME/dpbandit``, else ``~/.cache/dpbandit``), so a worker process,
a later run or a later sweep reads the value instead of searching again (issue 31 item 2).

The key is the full text of what the result depends on: the event's ``repr`` at two probe multipliers (1 and
2: the event family and its counts, e.g. ``SingleEpochTreeAggregationDpEvent(noise_multiplier=1.0,
step_counts=10000)``), epsilon, delta, the accountant, the relation, this module's :data:`VERSION` and
dp-accounting's version. A file is used only if it holds exactly that key and a finite positive value (a file
written for another key, a truncated or edited one, is ignored and rewritten). Floats round-trip exactly
through JSON (``repr``), so a cached calibration is the computed one bit for bit (tested). Writing is
atomic (a temporary file renamed); a folder that cannot be written only means no cache. Delete the folder to
recompute everything.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

from dpbandit._numba_cache import cache_dir

__all__ = ["VERSION", "cached", "folder", "key"]

#: Bump when what a calibration computes changes without its key changing (e.g. the search's tolerance).
VERSION = 1

_memory: dict[str, float] = {}


def folder() -> Path:
    """Where the calibration files live: ``calibrations/`` beside the numba cache."""
    return cache_dir().parent / "calibrations"


def key(make_event: Callable[[float], Any], **parts: Any) -> str:
    """The text identifying a calibration of ``make_event`` (a multiplier -> ``DpEvent``) with ``parts``
    (epsilon, delta, accountant, relation, ...)."""
    probes = [repr(make_event(1.0)), repr(make_event(2.0))]
    values = {name: repr(value) for name, value in sorted(parts.items())}
    return json.dumps({"version": VERSION, "dp_accounting": version("dp-accounting"), "event": probes, **values},
                      sort_keys=True)


def _path(text: str) -> Path:
    return folder() / f"{hashlib.sha256(text.encode()).hexdigest()[:32]}.json"


def _read(text: str) -> float | None:
    try:
        stored = json.loads(_path(text).read_text())
        value = float(stored["value"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if stored.get("key") != text or not (math.isfinite(value) and value > 0):
        return None
    return value


def _write(text: str, value: float) -> None:
    path = _path(text)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False) as out:
            json.dump({"key": text, "value": value}, out)
        os.replace(out.name, path)
    except OSError:
        return


def cached(text: str, compute: Callable[[], float], meets: Callable[[float], bool]) -> float:
    """The calibration keyed ``text`` (:func:`key`): from this process, else from its file if ``meets(value)``
    (the privacy target, checked once per process: a file is never trusted for privacy), else ``compute()``
    (then stored in both)."""
    if text in _memory:
        return _memory[text]
    value = _read(text)
    if value is not None and not meets(value):
        value = None
    if value is None:
        value = float(compute())
        _write(text, value)
    _memory[text] = value
    return value
