"""Different blocks of one release get independent noise (issue 24).

``BlockGaussianRelease`` is one Gaussian mechanism only if every coordinate of every block gets its own fresh
draw: noise of one block reused for another (one draw sliced for every block, a draw cached per shape) leaves
each block's marginal law right, so the scale tests pass, but the stacked release then has correlated noise
and a smaller effective multiplier (two blocks moved by one user see the same noise). The test releases zeros
many times, each call separate, standardises each block's noise by the block's own ``sigma``, and requires the
correlation of every pair of coordinates in different blocks (and within a block) to be near 0: with 3,000
releases a correlation has standard deviation 0.018, the threshold 0.12 is 6.6 of them (and Bonferroni-safe
over the pairs tested), while reused noise gives a correlation of 1. Checked on a release with blocks of equal
and of different shapes, and on the release object of every Gaussian batched agent of the registry with the
blocks and sensitivities of one of its real batches.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandit.agents import AGENTS, agent_class
from dpbandit.privacy.recording import ReleaseRecorder
from dpbandit.privacy.release import BlockGaussianRelease

pytestmark = pytest.mark.privacy

RELEASES = 3000
THRESHOLD = 0.12


def _standardised(release: BlockGaussianRelease, values: dict[str, np.ndarray],
                  sensitivities: dict[str, float], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``RELEASES`` separate releases of ``values``: each coordinate's noise over its sigma; the block ids."""
    rng = np.random.default_rng(seed)
    rows, blocks = [], None
    for _ in range(RELEASES):
        out = release.release(rng, values, sensitivities)
        rows.append(np.concatenate([
            np.ravel(out[b] - values[b]) / release.sigma(b, sensitivities[b]) for b in release.shares
        ]))
        if blocks is None:
            blocks = np.concatenate([np.full(np.size(values[b]), i) for i, b in enumerate(release.shares)])
    return np.array(rows), blocks


def _assert_independent(draws: np.ndarray, blocks: np.ndarray, where: str) -> None:
    assert np.all(np.abs(draws.std(axis=0) - 1.0) < 0.1), f"{where}: a block's noise is not at its sigma"
    corr = np.corrcoef(draws, rowvar=False)
    off = ~np.eye(len(blocks), dtype=bool)
    worst = np.unravel_index(np.argmax(np.where(off, np.abs(corr), 0.0)), corr.shape)
    assert np.abs(corr[worst]) < THRESHOLD, (
        f"{where}: coordinates {worst} (blocks {blocks[worst[0]]}, {blocks[worst[1]]}) have correlated noise "
        f"{corr[worst]:.3f}"
    )
    # the test can see reuse: copying one block's noise into another gives a correlation of 1
    copied = draws.copy()
    first = np.flatnonzero(blocks == blocks[-1])[0]
    copied[:, first] = copied[:, 0]
    assert abs(np.corrcoef(copied[:, 0], copied[:, first])[0, 1]) > 1 - 1e-9


def test_blocks_of_equal_and_different_shapes_get_independent_noise() -> None:
    shares = {"a": 0.4, "b": 0.3, "c": 0.2, "d": 0.1}
    release = BlockGaussianRelease(1.0, 1e-5, shares)
    values = {"a": np.zeros(3), "b": np.zeros(3), "c": np.zeros((2, 2)), "d": np.zeros(())}
    sensitivities = {"a": 2.0, "b": math.sqrt(2.0), "c": 1.0, "d": 1.0}
    _assert_independent(*_standardised(release, values, sensitivities, 1), "BlockGaussianRelease")


BATCHED = sorted(name for name, target in AGENTS.items() if target.startswith("dpbandit.agents.batched."))
OPTIONS = {"batched-peeling": {"select": 2}, "batched-peeling-perarm": {"select": 2}}  # select <= d = 6


@pytest.mark.parametrize("name", BATCHED)
def test_agents_release_objects_draw_independent_blocks(name: str) -> None:
    """The agent's own release object, with the blocks (shapes, sensitivities) of one of its real batches."""
    agent = agent_class(name)(3, 6, rng=np.random.default_rng(0), horizon=200, epsilon=1.0, delta=0.01,
                              first_batch=32, **OPTIONS.get(name, {}))
    if not isinstance(getattr(agent, "release", None), BlockGaussianRelease):
        pytest.skip(f"{name} makes no BlockGaussianRelease (its selections are tested by their own laws)")
    shape = (32, 6) if agent.observation_model == "shared" else (32, 3, 6)
    rng = np.random.default_rng(1)
    with ReleaseRecorder() as recorder:
        agent.play_block(rng.standard_normal(shape), rng.standard_normal((32, 3)))
    [released] = [out for kind, out in recorder.outputs if kind == "block_gaussian"]
    values = {b: np.zeros(np.shape(v)) for b, v in released.items()}
    sensitivities = agent.sensitivities()
    assert sum(np.size(v) for v in values.values()) >= 3  # coordinate pairs to test (within a block too)
    _assert_independent(*_standardised(agent.release, values, sensitivities, 2), name)
