"""StudyProgress: cells done and an ETA from each environment's measured seconds per round."""

from __future__ import annotations

import io

import pytest

from dpbandit.sweep import Sweep
from dpbandit.sweep.study import StudyProgress


def _sweep(name: str, dim: int, horizon: int, seeds: int = 2) -> Sweep:
    return Sweep.from_dict({"name": name, "seeds": seeds, "grid": {
        "agent": ["random"], "env_id": "dpbandit/LinearBandit-v0", "horizon": horizon, "env": {"dim": dim}}})


def test_eta_uses_each_environments_rate() -> None:
    small, big = _sweep("a", 5, 1000), _sweep("b", 50, 1000)
    later_small, later_big = _sweep("c", 5, 3000), _sweep("d", 50, 2000, seeds=1)
    now = [0.0]
    out = io.StringIO()
    progress = StudyProgress([small, big, later_small, later_big], stream=out, clock=lambda: now[0])
    now[0] = 2.0
    line = progress.done(small, computed=2, seconds=2.0)  # 1 ms per round at d = 5
    # nothing measured at d = 50 yet: the study's rate (1 ms) for its 3,000 rounds, plus 6,000 at d = 5
    assert progress.eta() == pytest.approx((2 * 3000 + 2000 + 2 * 1000) * 1e-3)
    assert "1/4 sweeps, 2/7 cells" in line and line in out.getvalue()
    now[0] = 22.0
    progress.done(big, computed=2, seconds=20.0)  # 10 ms per round at d = 50
    assert progress.eta() == pytest.approx(2 * 3000 * 1e-3 + 2000 * 10e-3)
    progress.done(later_small, computed=0, seconds=0.01)  # resumed: already in its store, costs nothing
    assert progress.eta() == pytest.approx(2000 * 10e-3)
    assert "3/4 sweeps, 6/7 cells, 22 s so far, about 20 s left" in out.getvalue().splitlines()[-1]


def test_eta_unknown_before_any_cell_ran() -> None:
    out = io.StringIO()
    progress = StudyProgress([_sweep("a", 5, 100), _sweep("b", 5, 100)], stream=out)
    progress.done(_sweep("a", 5, 100), computed=0, seconds=0.0)
    assert "ETA unknown" in out.getvalue()
