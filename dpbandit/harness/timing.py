"""Wall time of a run without the one-time compilation of its kernels.

The built-in agents' fast paths run numba kernels, compiled (or loaded from numba's cache) on their first
call in a process: seconds once, then never again. :class:`RunClock` measures the time spent in numba's
compiler (numba's ``"numba:compiler_lock"`` event, which covers compiling and loading from the cache) while
a run plays, so the harness reports ``wall_time`` without it and ``compile_time`` apart.
"""

from __future__ import annotations

import sys
import time
from contextlib import ExitStack
from typing import Any

__all__ = ["RunClock"]


class RunClock:
    """``with RunClock(watch_numba) as clock:`` then ``clock.elapsed()`` (seconds, compilation excluded) and
    ``clock.compiled`` (seconds spent compiling so far).

    ``watch_numba``: import numba first (before the clock starts, so the import is not timed either) and
    watch its compiler; numba is watched anyway when it is already imported.
    """

    def __init__(self, watch_numba: bool) -> None:
        self._watch = watch_numba or "numba" in sys.modules
        self._stack = ExitStack()
        self._depth = 0
        self._entered = 0.0
        self.compiled = 0.0
        self.start = 0.0

    def _started(self) -> None:
        if self._depth == 0:
            self._entered = time.perf_counter()
        self._depth += 1

    def _ended(self) -> None:
        self._depth -= 1
        if self._depth == 0:
            self.compiled += time.perf_counter() - self._entered

    def __enter__(self) -> RunClock:
        if self._watch:
            from numba.core import event

            clock = self

            class _Listener(event.Listener):
                def on_start(self, ev: Any) -> None:
                    clock._started()

                def on_end(self, ev: Any) -> None:
                    clock._ended()

            self._stack.enter_context(event.install_listener("numba:compiler_lock", _Listener()))
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.close()

    def elapsed(self) -> float:
        """Seconds since the clock started, without the time spent compiling."""
        return time.perf_counter() - self.start - self.compiled
