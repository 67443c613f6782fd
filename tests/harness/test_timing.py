"""compile_time: the time spent in numba's compiler is reported apart from wall_time (no timing asserted:
a fake clock, and whether a compilation happened at all)."""

from __future__ import annotations

import numba
import numpy as np
from numba.core import event
from toy_bandit import ToyBandit

from dpbandit.agents import Agent
from dpbandit.harness import run, timing


def test_run_clock_leaves_out_time_inside_numba_compiler_sections(monkeypatch) -> None:
    now = iter([10.0, 11.0, 13.0, 13.5, 14.0, 20.0, 21.0, 30.0]).__next__
    monkeypatch.setattr(timing.time, "perf_counter", now)
    with timing.RunClock(watch_numba=True) as clock:  # starts at 10
        event.start_event("numba:compiler_lock")  # 11: compiling starts
        event.start_event("numba:compiler_lock")  # nested: not counted twice
        event.end_event("numba:compiler_lock")
        event.end_event("numba:compiler_lock")  # 13: the inner pair read no clock
        assert clock.compiled == 13.0 - 11.0
        assert clock.elapsed() == 13.5 - 10.0 - 2.0
    event.start_event("numba:compiler_lock")  # after the clock stopped: not counted
    event.end_event("numba:compiler_lock")
    assert clock.compiled == 2.0


class CompilesOnFirstAct(Agent):
    """Calls a freshly jitted function: the first run compiles it, the next ones do not."""

    kernel = None

    def act(self, observation):
        if CompilesOnFirstAct.kernel is None:
            CompilesOnFirstAct.kernel = numba.njit(lambda x: x.sum() * 0.0)
        return int(CompilesOnFirstAct.kernel(np.asarray(observation)))

    def update(self, observation, action, reward):
        pass


def test_compile_time_is_reported_apart_and_zero_when_nothing_compiles() -> None:
    df = run(ToyBandit, {"jit": CompilesOnFirstAct}, n_seeds=2, horizon=20, n_points=5, progress=False)
    first, second = (df[df["seed"] == s] for s in (0, 1))
    assert (first["compile_time"].iloc[-1] > 0) and (second["compile_time"] == 0.0).all()
    assert first["compile_time"].is_monotonic_increasing and (df["wall_time"] >= 0).all()
