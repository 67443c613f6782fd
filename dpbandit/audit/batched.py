"""Run an object's own noise sampler over many independent audit runs at once.

The private agents and optimizers draw their node noise through a callable ``noise(rng, n) -> (n, *shape)``
of i.i.d. draws (``TreeAggregator.noise``, ``DPTOFW.node_noise``, ...). Drawing ``n * runs`` nodes and
reshaping gives ``n`` nodes of ``runs`` independent trees, so one :class:`TreeAggregator` whose shape
carries the run axis audits the object's own sampler, tree logic and horizon, vectorised over runs.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dpbandit.privacy.tree import TreeAggregator

__all__ = ["NoiseFn", "batched", "chunk_sizes", "halved", "power_of_two_steps", "summed_releases"]

NoiseFn = Callable[[np.random.Generator, int], np.ndarray]


def batched(noise: NoiseFn, runs: int) -> NoiseFn:
    """``noise`` for ``runs`` independent trees: ``n`` nodes of each, shape ``(n, runs, *shape)``."""

    def draw(rng: np.random.Generator, n: int) -> np.ndarray:
        x = np.asarray(noise(rng, n * runs))
        return x.reshape(n, runs, *x.shape[1:])

    return draw


def halved(noise: NoiseFn) -> NoiseFn:
    """The broken twin of a calibrated sampler: the same draws times 1/2 (noise halved, same claim)."""
    return lambda rng, n: 0.5 * np.asarray(noise(rng, n))


def chunk_sizes(n_runs: int, chunk: int) -> list[int]:
    """Sizes of consecutive chunks of at most ``chunk`` runs covering ``n_runs``."""
    return [min(chunk, n_runs - start) for start in range(0, n_runs, chunk)]


def power_of_two_steps(horizon: int) -> list[int]:
    """Steps ``1, 2, 4, ... <= horizon``: the releases of the ``bit_length(horizon)`` nodes holding step 1."""
    return [2**k for k in range(horizon.bit_length())]


def summed_releases(
    noise: NoiseFn,
    first: np.ndarray,
    rest: np.ndarray,
    *,
    horizon: int,
    checkpoints: list[int],
    n_runs: int,
    rng: np.random.Generator,
    cumulative: bool = False,
    chunk: int = 8192,
) -> np.ndarray:
    """Sum of the released prefix sums at ``checkpoints`` of ``n_runs`` independent trees (``(n_runs, ...)``).

    Step 1 adds ``first``, every later step ``rest`` (arrays of the node shape). The sum over the releases
    that contain step 1 is a post-processing that keeps the likelihood-ratio statistic of a change in step 1.
    """
    out = []
    for m in chunk_sizes(n_runs, chunk):
        tree = TreeAggregator(
            (m, *first.shape), noise=batched(noise, m), rng=rng, horizon=horizon, cumulative=cumulative
        )
        total = np.zeros((m, *first.shape))
        for t in range(1, max(checkpoints) + 1):
            released = tree.add(np.broadcast_to(first if t == 1 else rest, (m, *first.shape)))
            if t in checkpoints:
                total += released
        out.append(total)
    return np.concatenate(out)
