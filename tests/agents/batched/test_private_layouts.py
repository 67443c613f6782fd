"""Every layout of `private` (issue 39 item 5): post-processing and the selection block beyond the defaults.

* Post-processing replay (tests/agents/batched/test_postprocessing.py's machinery: record every release, rerun
  on other data with the releases fixed, compare the whole carried state and the policy) for
  ``second_moments`` pooled, diagonal (the public rule's choice for d > 2048) and none, each with and without
  intercepts (``intercept=True``: least squares on (1, x) with the ``sums`` block; ``"backfit"``: the
  ``predictions`` block). A fit that reads an exact batch statistic in one layout only is seen there.
* The ``selection`` block's brute-force sensitivity with non-zero candidate offsets (the slopes' intercepts,
the per-arm constant's released means), in configurations that select, with and without the constant
candidate: a round's loss must stay in [0, 4 B^2] whatever the offsets, so the block moves by at most ``4
sqrt(M) B^2`` (attained). A loss clipped in the wrong place (slope and offset clipped apart) moves it 1.5x.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from batched_helpers import statistics
from test_postprocessing import OPTIONS, _assert_same_state, _run, _stream

from dpbandit.agents.batched.private import PrivateAgent

pytestmark = pytest.mark.privacy

LAYOUTS = [(second, intercept) for second in ("pooled", "diag", "none")
           for intercept in (True, False, "backfit")]


@pytest.mark.parametrize(("second_moments", "intercept"), LAYOUTS)
def test_fixed_releases_give_the_same_carried_state_in_every_layout(second_moments, intercept,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    options = {"second_moments": second_moments, "intercept": intercept}
    if intercept == "backfit":
        options["reward_range"] = (-3.0, 3.0)  # backfitted intercepts need a declared range
    if second_moments == "pooled":
        options["candidates"] = ("dense", "sparse", "constant")
    first, second = _stream("shared", 2, 3.0, 1.0, 0.7), _stream("shared", 1, 1.0, 0.05, 0.0)
    if intercept == "backfit":  # rewards inside the declared range
        first, second = ((X, np.clip(R, -3.0, 3.0)) for X, R in (first, second))
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(OPTIONS, "private", options)
        recorded = _run("private", first, monkeypatch)
        agent = recorded["agent"]
        assert agent.second_moments == second_moments
        assert ("sums" in agent.main_blocks) == (intercept is True)
        assert ("predictions" in agent.main_blocks) == (intercept == "backfit")
        assert any(np.any(s[k] != 0) for s in recorded["states"] for k in ("theta", "intercept", "centres")
                   if k in s), "nothing learned"
        fresh = _run("private", second, monkeypatch)
        pairs = zip(recorded["states"], fresh["states"], strict=True)
        assert any(any(not np.array_equal(s[k], t[k]) for k in s if k in t) for s, t in pairs), \
            "the streams do not differ"
        replayed = _run("private", second, monkeypatch, replay=recorded["releases"])
    assert replayed["replayed"] == len(recorded["releases"][0])
    for batch, (a, b) in enumerate(zip(recorded["states"], replayed["states"], strict=True)):
        _assert_same_state(a, b, f"private {options}, after batch {batch}")
    for a, b in zip(recorded["policies"], replayed["policies"], strict=True):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("options", [
    {"second_moments": "pooled", "candidates": ("dense", "sparse")},
    {"second_moments": "pooled", "candidates": ("dense", "sparse", "constant")},
    {"second_moments": "pooled", "candidates": ("dense", "sparse"), "reward_range": (-1.0, 1.0)},
    {"second_moments": "pooled", "candidates": ("dense", "sparse", "constant"), "reward_range": (-1.0, 1.0)},
])
def test_selection_block_sensitivity_with_non_zero_offsets(options: dict) -> None:
    """Replace one user's record: the ``selection`` block moves by at most 4 sqrt(M) B^2 and reaches it, with
    every candidate's offset non-zero (intercepts of +-B/2 for the slopes, released means at the range's ends
    for the constant): each loss 0 on the first row, 4 B^2 when its context is reversed on an arm whose offset
    has the other sign."""
    K, d = 3, 5
    agent = PrivateAgent(K, d, rng=np.random.default_rng(0), horizon=100, **options)
    assert agent.selecting
    C, B = 1.7, (agent.clipping.reward_clip if agent.reward_range else 0.4)
    agent.clipping.context_clip, agent.clipping.reward_clip = C, B
    c = agent.clipping.reward_center
    rng = np.random.default_rng(1)
    rows = rng.normal(size=(12, d))
    models = rng.integers(K, size=12)
    sign = np.where(np.arange(K) == models[0], 1.0, -1.0)
    slope = np.outer(np.ones(K), np.eye(d)[0])
    agent.estimates = {"dense": 10.0 * slope, "sparse": 5.0 * slope, "constant": np.zeros((K, d))}
    agent._offsets = {"dense": 0.5 * B * sign, "sparse": -0.5 * B * sign, "constant": B * sign}
    agent._offsets = {name: agent._offsets[name] for name in agent.candidates}
    agent.estimates = {name: agent.estimates[name] for name in agent.candidates}
    rewards = c + rng.uniform(-B, B, size=12)
    rows[0] = 0.0
    rows[0, 0] = 10.0
    rewards[0] = c + B
    base = statistics(agent, rows, models, rewards)["selection"]
    worst = 0.0
    for x in [rng.normal(scale=s, size=d) for s in (0.1, 1.0, 10.0) for _ in range(10)] + [rows[0], -rows[0]]:
        for model in range(K):
            for r in (c - B, c, c + B):
                rows2, models2, rewards2 = rows.copy(), models.copy(), rewards.copy()
                rows2[0], models2[0], rewards2[0] = x, model, r
                moved = statistics(agent, rows2, models2, rewards2)["selection"] - base
                worst = max(worst, float(np.linalg.norm(moved)))
    stated = 4.0 * math.sqrt(len(agent.candidates)) * B**2
    assert agent.sensitivities()["selection"] == pytest.approx(stated)
    assert worst <= stated * (1 + 1e-12)
    assert worst >= 0.99 * stated
