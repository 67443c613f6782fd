"""Progress of a comparison, readable on a terminal and in a log file.

Two levels, both on standard error:

* **Runs** (:class:`RunProgress`): a tqdm bar over the (agent, seed) runs when standard error is a
  terminal; otherwise plain lines ``[dpbandit] runs 3/12 done (dphdb seed 0, 1.2 s); elapsed 4 s,
  ETA 12 s``, at most one per :data:`INTERVAL` seconds plus a closing line, so a log shows them.
  The ETA extrapolates the pace after the first finished run (which includes start-up and compiling).
* **Rounds inside one run** (:class:`Heartbeat`): a line ``[dpbandit] dpucb seed 0: round
  2,000/10,000 (20%), 31 s, ETA 2 min`` every :data:`INTERVAL` seconds while a long run is playing
  (also printed by worker processes, whose standard error is the parent's). A run shorter than the
  interval prints nothing.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["INTERVAL", "Heartbeat", "RunProgress", "format_seconds"]

#: Seconds between two progress lines [Fill]: a line every few seconds keeps a log readable.
INTERVAL = 5.0
_PREFIX = "[dpbandit]"


def format_seconds(seconds: float) -> str:
    """``"4.2 s"``, ``"38 s"``, ``"3 min 05 s"`` or ``"1 h 02 min"``."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, secs = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def _eta(seconds: float, done: float, remaining: float) -> str:
    """``"ETA 12 s"`` from ``done`` units in ``seconds``; unknown until something was done."""
    if done <= 0 or seconds <= 0:
        return "ETA unknown"
    return "ETA " + format_seconds(seconds / done * remaining)


class Heartbeat:
    """Prints the round reached by one long run every ``interval`` seconds (nothing if ``interval`` is None).

    The ETA extrapolates the pace since the first :meth:`tick` (the first block may include compiling
    a kernel, so it is left out); a run shorter than ``interval`` prints nothing.
    """

    def __init__(self, label: str, total_rounds: int, interval: float | None, stream: TextIO | None = None):
        self.label = label
        self.total = total_rounds
        self.interval = interval
        self.stream = stream
        self.start = time.perf_counter()
        self._last = self.start
        self._first: tuple[float, int] | None = None

    def tick(self, rounds_done: int) -> None:
        """Report ``rounds_done`` if ``interval`` seconds passed since the last line."""
        if self.interval is None or rounds_done >= self.total:
            return
        now = time.perf_counter()
        if self._first is None:
            self._first = (now, rounds_done)
        if now - self._last < self.interval:
            return
        self._last = now
        since, base = self._first
        eta = _eta(now - since, rounds_done - base, self.total - rounds_done)
        print(
            f"{_PREFIX} {self.label}: round {rounds_done:,}/{self.total:,} "
            f"({100 * rounds_done / self.total:.0f}%), {format_seconds(now - self.start)}, {eta}",
            file=self.stream or sys.stderr,
            flush=True,
        )


class RunProgress:
    """Progress over the runs of a comparison: a bar on a terminal, plain lines otherwise, or nothing.

    Args:
        total: number of runs.
        enabled: ``False`` prints nothing.
        interval: seconds between two plain lines.
        stream: where to write (default ``sys.stderr``).
    """

    def __init__(
        self, total: int, enabled: bool = True, interval: float = INTERVAL, stream: TextIO | None = None
    ):
        self.total = total
        self.stream = stream or sys.stderr
        self.interval = interval
        self.done = 0
        self.start = time.perf_counter()
        self._last = self.start
        self._first: float | None = None
        is_tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.mode = "off" if not enabled else ("bar" if is_tty else "lines")
        self._bar = None
        if self.mode == "bar":
            from tqdm.auto import tqdm

            self._bar = tqdm(total=total, desc="runs", unit="run", file=self.stream)
        elif self.mode == "lines":
            self._print(f"{total} run{'s' if total != 1 else ''} to play")

    def _print(self, text: str) -> None:
        print(f"{_PREFIX} {text}", file=self.stream, flush=True)

    def note(self, text: str) -> None:
        """A one-off line about the job (plain-line mode only; a bar shows none)."""
        if self.mode == "lines":
            self._print(text)

    def run_done(self, agent: str, seed: int, seconds: float) -> None:
        """Count one finished run (``agent`` on seed ``seed`` took ``seconds``)."""
        self.done += 1
        if self._bar is not None:
            self._bar.update()
            return
        now = time.perf_counter()
        if self._first is None:
            self._first = now
        if self.mode == "lines" and (now - self._last >= self.interval or self.done == self.total):
            self._last = now
            eta = _eta(
                now - self._first, self.done - 1, self.total - self.done
            )  # first run: start-up, compile
            self._print(
                f"runs {self.done}/{self.total} done ({agent} seed {seed}, {format_seconds(seconds)}); "
                f"elapsed {format_seconds(now - self.start)}, {eta}"
            )

    def close(self) -> None:
        """Close the bar, or print the closing line."""
        if self._bar is not None:
            self._bar.close()
        elif self.mode == "lines":
            elapsed = format_seconds(time.perf_counter() - self.start)
            self._print(f"{self.done} run{'s' if self.done != 1 else ''} finished in {elapsed}")
