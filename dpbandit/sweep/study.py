"""Progress of a study made of many sweeps (a suite, a frontier): cells done and an ETA, one line per sweep.

Each sweep shows its own bar (:func:`dpbandit.sweep.runner.execute`); :class:`StudyProgress` adds where the
whole study stands. Its ETA is the rounds left times the seconds per round measured so far on the same
environment (the same ``env_id`` and keyword arguments: a round at d = 5000 costs a hundred times one at
d = 50), or over the whole study where that environment has not run yet [Fill]. Cells already in their
store (a resumed study) count as done and cost nothing. Agents differ in cost on one environment, so the ETA
is an estimate that sharpens as the study goes.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import IO, Any

from dpbandit.sweep.config import Sweep
from dpbandit.sweep.grid import Cell

__all__ = ["StudyProgress"]


def _rounds(cell: Cell) -> int:
    """Rounds of a cell (its horizon, else the registered environment's default, else 1)."""
    if cell.horizon is not None:
        return cell.horizon
    import gymnasium

    try:
        return int(gymnasium.spec(cell.env_id).kwargs.get("horizon", 1))
    except Exception:  # noqa: BLE001  (an unregistered or odd id: count the cell, not its rounds)
        return 1


def _group(cell: Cell) -> tuple[str, Any]:
    return cell.env_id, cell.env_kwargs


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


class StudyProgress:
    """``progress = StudyProgress(sweeps)``; after each sweep ``progress.done(sweep, computed, seconds)`` prints
    (to ``stream``, standard error by default) sweeps and cells done, time so far and the ETA."""

    def __init__(self, sweeps: Sequence[Sweep], *, stream: IO[str] | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.cells = sum(len(sweep.cells) for sweep in sweeps)
        self.sweeps = len(sweeps)
        self._left: dict[tuple[str, Any], int] = {}
        for sweep in sweeps:
            for cell in sweep.cells:
                self._left[_group(cell)] = self._left.get(_group(cell), 0) + _rounds(cell)
        self._spent: dict[tuple[str, Any], list[float]] = {}  # environment -> [seconds, rounds computed]
        self.done_sweeps = self.done_cells = 0
        self._stream = stream
        self._clock = clock
        self._start = clock()

    def eta(self) -> float:
        """Seconds left: each environment's rounds left at its measured rate (else the study's)."""
        seconds = sum(s for s, _ in self._spent.values())
        rounds = sum(r for _, r in self._spent.values())
        overall = seconds / rounds if rounds else float("nan")
        total = 0.0
        for group, left in self._left.items():
            spent, computed = self._spent.get(group, (0.0, 0))
            total += left * (spent / computed if computed else overall)
        return total

    def done(self, sweep: Sweep, computed: int, seconds: float) -> str:
        """Record a finished sweep (``computed`` of its cells run now, in ``seconds``); print and return the
        line."""
        for cell in sweep.cells:
            self._left[_group(cell)] -= _rounds(cell)
        if computed and sweep.cells:  # the computed share of the sweep's rounds, on its first cell's environment
            rounds = sum(_rounds(cell) for cell in sweep.cells) * computed / len(sweep.cells)
            spent = self._spent.setdefault(_group(sweep.cells[0]), [0.0, 0])
            spent[0] += seconds
            spent[1] += rounds
        self.done_sweeps += 1
        self.done_cells += len(sweep.cells)
        left = self.eta()
        eta = "ETA unknown until a cell has run" if left != left else (
            f"about {_minutes(left)} left (ETA {time.strftime('%H:%M', time.localtime(time.time() + left))})")
        line = (f"study: {self.done_sweeps}/{self.sweeps} sweeps, {self.done_cells}/{self.cells} cells, "
                f"{_minutes(self._clock() - self._start)} so far, {eta}")
        print(line, file=self._stream or sys.stderr, flush=True)
        return line
