"""Size guard of the batched agents (issue 23 item 4): refuse at d = 5000, K = 10 what would be huge or slow.

Construction only (no runs). Shared-context agents get ``dim = 5000``; per-arm agents the block features the
harness builds from that context, ``dim = 5000 * 10``.
"""

from __future__ import annotations

import re
import tracemalloc

import numpy as np
import pytest

from dpbandit.agents import agent_class
from dpbandit.agents import size

D, K, T = 5000, 10, 3000
PER_ARM_D = D * K

#: agent -> (dim it gets on HDBSection54-v0 at d = 5000, K = 10; horizon at which it refuses)
REFUSING = {
    "batched-ridge": (D, T),
    "batched-ridge-perarm": (PER_ARM_D, T),
    "batched-screening-perarm": (PER_ARM_D, T),
    "batched-peeling-perarm": (PER_ARM_D, T),
    "fliphat": (PER_ARM_D, T),
    "fliphat-disjoint": (D, 10**5),  # from T = 16,383: 10 Gram matrices of 5000^2 (2.0 GB)
    "dphdb-batched": (D, 10**5),  # from T = 65,504: the batch of 32,768 rounds kept twice (2.6 GB)
}
RUNNING = ("batched-screening", "batched-peeling", "fliphat-disjoint", "dphdb-batched")


def build(name: str, dim: int, horizon: int):
    return agent_class(name)(K, dim, rng=np.random.default_rng(0), horizon=horizon)


@pytest.mark.parametrize("name", sorted(REFUSING))
def test_refuses_at_d5000_k10_with_memory_and_alternative(name: str) -> None:
    dim, horizon = REFUSING[name]
    with pytest.raises(ValueError, match=f"n_arms={K}, dim={dim}") as error:
        build(name, dim, horizon)
    needed = re.search(r"would need ([0-9.]+) GB of state", str(error.value))
    assert needed is not None and float(needed.group(1)) > 0
    alternative = r"Use (batched-screening|batched-peeling|fliphat-disjoint)\b.* instead"
    assert re.search(alternative, str(error.value))


@pytest.mark.parametrize(
    ("name", "dim", "horizon", "gigabytes"),
    [
        ("batched-ridge", D, T, 6 * 8 * K * D**2 / 1e9),  # 12: Grams, factors and the fit's temporaries
        ("batched-ridge-perarm", PER_ARM_D, T, 6 * 8 * PER_ARM_D**2 / 1e9),  # 120
        ("fliphat-disjoint", D, 10**5, 8 * K * (D**2 + D) / 1e9),  # 2.0: the episodes' Gram statistics
        ("dphdb-batched", D, 10**5, 8 * (K * 16 * D + 2 * 32_768 * D) / 1e9),  # 2.6
    ],
)
def test_refusal_states_the_memory_of_the_formula(name: str, dim: int, horizon: int, gigabytes: float):
    with pytest.raises(ValueError, match=rf"would need {re.escape(size.gigabytes(gigabytes * 1e9))} GB of state"):
        build(name, dim, horizon)


@pytest.mark.parametrize("name", RUNNING)
def test_runs_at_d5000_k10_t3000(name: str) -> None:
    agent = build(name, D, T)
    footprint = agent.footprint()
    assert footprint.state_bytes <= size.MAX_STATE_BYTES
    assert footprint.work_per_round <= size.WORK_RATIO * (K * D + size.ROUND_OVERHEAD)


def test_refusal_before_any_allocation() -> None:
    """batched-ridge at d = 5000 would allocate 12 GB; refused, it allocates (almost) nothing."""
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="GB of state"):
            build("batched-ridge", D, T)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 10e6


@pytest.mark.parametrize(
    ("name", "n_arms", "dim", "horizon"),
    [
        ("fliphat", 3, 4000, 10_000),  # sims/fliphat_setting2.py, d = 4000
        ("batched-screening-perarm", 3, 4000, 10_000),
        ("batched-peeling-perarm", 3, 4000, 10_000),
        ("batched-ridge", 4, 300, 50_000),  # learning suite S3
        ("batched-ridge", 10, 64, 100_000),  # digits
        ("batched-ridge", 4, 300, 100),  # a short run: its per-batch factorisations over few rounds
        ("batched-ridge", 2, 300, 3000),
        ("fliphat-disjoint", 10, D, 16_382),  # last horizon before its Gram episodes
        ("dphdb-batched", 10, D, 65_503),  # last horizon before its 32,768-round batch
    ],
)
def test_project_sizes_are_not_refused(name: str, n_arms: int, dim: int, horizon: int) -> None:
    agent_class(name)(n_arms, dim, rng=np.random.default_rng(0), horizon=horizon)


def test_fliphat_disjoint_refuses_from_its_first_gram_episode() -> None:
    with pytest.raises(ValueError, match="state over 2 GB"):
        build("fliphat-disjoint", D, 16_383)


@pytest.mark.parametrize(
    ("footprint", "per_arm", "reason"),
    [
        (size.Footprint(size.MAX_STATE_BYTES * 1.01, 1.0, 10), False, "state over 2 GB"),
        (size.Footprint(1.0, size.WORK_RATIO * (10 + size.ROUND_OVERHEAD) * 1.01, 10), False, "times the"),
        (size.Footprint(1.0, 1.0, size.MAX_INPUT + 1), True, "floats of features per round"),
    ],
)
def test_each_threshold_refuses_just_above(footprint: size.Footprint, per_arm: bool, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        size.check("Agent", footprint, n_arms=2, dim=5, per_arm=per_arm, instead="other")


def test_thresholds_pass_at_the_limit() -> None:
    work = size.WORK_RATIO * (10 + size.ROUND_OVERHEAD)
    size.check("Agent", size.Footprint(size.MAX_STATE_BYTES, work, 10), n_arms=2, dim=5, per_arm=False,
               instead="other")
    size.check("Agent", size.Footprint(1.0, 1.0, size.MAX_INPUT), n_arms=2, dim=5, per_arm=True,
               instead="other")
    # a shared-context agent's input is its context: no per-arm cap
    size.check("Agent", size.Footprint(1.0, 1.0, size.MAX_INPUT + 1), n_arms=2, dim=5, per_arm=False,
               instead="other")
