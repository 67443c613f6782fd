"""The batched agents' benchmark floor (benchmarks/agents.py) draws exactly the agent's random numbers."""

from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "benchmarks"))
agents_bench = pytest.importorskip("agents")


@pytest.mark.parametrize(("name", "kinds"), [("batched-peeling", {"gumbel", "normal"}),
                                             ("fliphat-disjoint", {"exponential"})])
def test_batched_floor_consumes_the_agents_numbers(name: str, kinds: set[str]) -> None:
    bench = agents_bench.Bench(name, 20, 3)
    bench.draw(300)
    plan = bench.plan(300)
    assert plan[0].start == 0 and plan[-1].stop == 300
    assert {kind for batch in plan for kind, _ in batch.draws} == kinds
    assert bench.floor_counts_match(300)


def test_count_check_fails_when_a_draw_is_missing() -> None:
    bench = agents_bench.Bench("batched-screening", 20, 3)
    bench.draw(200)
    plan = bench.plan(200)
    finished = next(i for i, batch in enumerate(plan) if batch.draws)
    kind, count = plan[finished].draws[0]
    plan[finished] = plan[finished]._replace(draws=[(kind, count - 1)])
    assert not bench.floor_counts_match(200)


def test_dphdb_anatomy_cuts_apply_to_the_shipped_kernel() -> None:
    """benchmarks/dphdb_anatomy.py edits the kernel's source: the edits must still find their text, and the
    stripped copies must keep the kernel's draws (the selection-only copy) or drop them (the no-draws one)."""
    anatomy = pytest.importorskip("dphdb_anatomy")
    sources = anatomy.variants()
    assert list(sources) == ["kernel", "no draws", "selection only", "draws only"]
    assert sources["no draws"].count("_lap1(rng)") == sources["kernel"].count("_lap1(rng)") - 2
    assert "val = scores[j] + _lap1(rng)" in sources["selection only"]
    assert "direction[i, j] = keep" not in sources["selection only"] and "a = 0" in sources["selection only"]
    assert "total += _lap1(rng)" in sources["draws only"]
    with pytest.raises(RuntimeError, match="the kernel changed"):
        anatomy._replace(sources["kernel"], "text the kernel does not contain", "")
