"""Tree-based aggregation (binary mechanism) for private streaming prefix sums.

References:
    004_290fd04a1e656565.txt Algorithm 5 (Guha Thakurta & Smith 2013); Chan, Shi & Song 2011 (binary
    mechanism); 000_e95584ca0dc4dbfd.txt Lemma 4.3; 002_548f585b1b1c03fc.txt Algorithm 1.

Mechanism. Node ``(k, j)`` is the dyadic block ``[(j-1) 2^k + 1, j 2^k]``. At step ``t`` the block of
level ``k = ctz(t)`` (trailing zeros) ending at ``t`` completes: its exact sum plus **one** noise draw is stored
and reused for every later prefix. The prefix sum at ``t`` is the sum of the stored nodes for the set bits of
``t`` (``popcount(t)`` nodes, e.g. ``t = 7 -> [1..4] + [5,6] + [7]``). Algorithm 5 also noises the smaller
completed nodes below the new block; they are never used by any released prefix sum, so they are not drawn
here (identical law of all outputs, same accounting). Each input lies in at most one node per level, i.e. in
at most ``depth = bit_length(T)`` nodes (``<= ceil(log2 T) + 1``, the count used by 004 Eq. 3.2).

Adaptivity. ``add(z)`` returns the noisy prefix sum immediately, so ``z_{t+1}`` may depend on all earlier
outputs; privacy holds by the adaptive (post-order conditioning) argument of 004 section 6 / A.1.

Unknown horizon. With ``horizon=None`` the tree grows: depth is ``bit_length(t)`` after ``t`` steps. A noise
scale fixed at construction then gives a guarantee that *degrades* with ``t``: account with
``accounting.tree_aggregation_event(sigma / sensitivity, steps=t)`` for the number of steps actually run.
A calibration for a target (epsilon, delta) needs the horizon (depth enters the noise scale); with a horizon,
``add`` refuses steps beyond it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dpbandit import _validate as v
from dpbandit.privacy.noise import gaussian, symmetric_gaussian

__all__ = ["TreeAggregator", "binary_tree_matrix", "gaussian_tree", "nodes_in_prefix", "running_levels"]

NoiseFn = Callable[[np.random.Generator, int], np.ndarray]


def nodes_in_prefix(t: int) -> int:
    """Number of tree nodes summed for prefix ``t``: ``popcount(t)``."""
    t = v.integer(t=t, minimum=1)
    return bin(t).count("1")


def running_levels(t: int) -> tuple[int, int | None]:
    """Level ``ctz(t)`` of the node completing at step ``t``, and the level of the next set bit of ``t``.

    With a running sum per level (``TreeAggregator(..., cumulative=True)``), the prefix sum at ``t`` is
    the running sum stored at the second level (``None``: no higher set bit, nothing to add) plus the
    new node; it is then stored as the running sum of the first level.

    >>> running_levels(12)  # 12 = 0b1100: the node [9..12] completes; [1..8] sits at level 3
    (2, 3)
    """
    level = (t & -t).bit_length() - 1
    higher = t >> (level + 1)
    return level, (level + 1 + (higher & -higher).bit_length() - 1 if higher else None)


def binary_tree_matrix(horizon: int) -> np.ndarray:
    """Dense ``(T, T)`` 0/1 matrix ``B`` of the binary mechanism: noise of prefix ``t`` = ``B[t-1] @ W``.

    ``W[e-1]`` is the draw of the node that completes at step ``e`` (the block of level ``ctz(e)`` ending at
    ``e``). Slow exact reference for :class:`TreeAggregator` (and vectorised audits): with the same node
    draws, the streamed noise equals ``B @ W``.
    """
    horizon = v.integer(horizon=horizon, minimum=1)
    b = np.zeros((horizon, horizon))
    for t in range(1, horizon + 1):
        end = 0
        for k in reversed(range(t.bit_length())):
            if t >> k & 1:
                end += 1 << k
                b[t - 1, end - 1] = 1.0
    return b


class TreeAggregator:
    """Online binary-mechanism prefix sums of arrays of a fixed ``shape`` (vectors or symmetric matrices).

    Args:
        shape: shape of each input ``z_t`` (e.g. ``(d,)`` or ``(d, d)``); every dimension ``>= 1``.
        noise: ``None`` for exact prefix sums, or ``noise(rng, n) -> array (n, *shape)`` drawing ``n``
            i.i.d. node noises (called with ``n = 1`` once per completed node).
        rng: generator of the privacy-noise stream.
        horizon: number of steps ``T`` if known (fixes ``depth``; steps beyond it raise); ``None`` = unbounded.
        cumulative: ``False`` (default) sums the ``popcount(t)`` stored nodes at every step, lowest level
            first. ``True`` keeps, per level ``k``, the running sum of the stored nodes at levels ``>= k``
            (accumulated from the highest level down), so each step costs ``O(1)`` array additions instead
            of ``O(log t)``; same node draws and law, the prefix sums agree to rounding (summation order).

    Memory is ``O(prod(shape) * depth)``: one exact partial sum and one noise value per level (and one running
    sum per level with ``cumulative=True``).

    >>> import numpy as np
    >>> tree = TreeAggregator((2,), noise=None, rng=np.random.default_rng(0))
    >>> [tree.add(np.ones(2))[0] for _ in range(3)]
    [1.0, 2.0, 3.0]
    """

    def __init__(
        self,
        shape: int | tuple[int, ...],
        *,
        noise: NoiseFn | None,
        rng: np.random.Generator,
        horizon: int | None = None,
        cumulative: bool = False,
    ) -> None:
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        for k, n in enumerate(shape):
            v.integer(**{f"shape[{k}]": n}, minimum=1)
        self.shape: tuple[int, ...] = tuple(int(n) for n in shape)
        if noise is not None and not callable(noise):
            raise TypeError(f"Expected noise to be None or a callable noise(rng, n), got {type(noise).__name__}.")
        self.noise = noise
        self.rng = v.rng(rng=rng)
        self.horizon = None if horizon is None else v.integer(horizon=horizon, minimum=1)
        self._t = 0
        self._exact: list[np.ndarray] = []  # exact sum of the stored node at each level
        self._node_noise: list[np.ndarray] = []  # its noise draw (zeros when noise is None)
        self.cumulative = bool(cumulative)
        self._running: list[np.ndarray] = []  # cumulative=True: sum of the stored nodes at levels >= k

    nodes_in_prefix = staticmethod(nodes_in_prefix)

    @property
    def t(self) -> int:
        """Number of inputs added so far."""
        return self._t

    @property
    def depth(self) -> int:
        """Max number of nodes containing one input: ``bit_length(horizon)`` (or ``bit_length(t)`` if unknown)."""
        return (self.horizon if self.horizon is not None else max(self._t, 1)).bit_length()

    def add(self, z: np.ndarray) -> np.ndarray:
        """Add ``z_t`` and return the noisy prefix sum ``sum_{i<=t} z_i + TREE(t)`` (a new array)."""
        z = np.asarray(z, dtype=float)
        if z.shape != self.shape:
            raise ValueError(f"Expected z of shape {self.shape}, got z.shape={z.shape}.")
        if not np.all(np.isfinite(z)):
            raise ValueError("Expected z to be finite.")
        if self.horizon is not None and self._t >= self.horizon:
            raise ValueError(f"TreeAggregator is full: horizon={self.horizon} steps already added.")
        self._t += 1
        level = running_levels(self._t)[0]  # ctz(t): level of the block completing now
        block = z + sum(self._exact[:level], np.zeros(self.shape))
        if self.noise is None:
            draw = np.zeros(self.shape)
        else:
            draw = np.asarray(self.noise(self.rng, 1), dtype=float)
            if draw.shape != (1, *self.shape):
                raise ValueError(f"noise(rng, 1) must return shape {(1, *self.shape)}, got {draw.shape}.")
            draw = draw[0]
        if level == len(self._exact):
            self._exact.append(block)
            self._node_noise.append(draw)
        else:
            self._exact[level] = block
            self._node_noise[level] = draw
        if self.cumulative:
            return self._running_prefix(level)
        return self._prefix()

    def _running_prefix(self, level: int) -> np.ndarray:
        """Prefix = running sum of the set bits above ``level`` + the node just stored (``level = ctz(t)``).

        Valid because the levels above ``ctz(t)`` are unchanged since their running sums were formed.
        """
        node = self._exact[level] + self._node_noise[level]
        above = running_levels(self._t)[1]
        if above is not None:
            node = self._running[above] + node
        if level == len(self._running):
            self._running.append(node)
        else:
            self._running[level] = node
        return node.copy()

    def _prefix(self) -> np.ndarray:
        out = np.zeros(self.shape)
        for k in range(self._t.bit_length()):
            if self._t >> k & 1:
                out += self._exact[k] + self._node_noise[k]
        return out


def gaussian_tree(
    shape: int | tuple[int, ...],
    sigma: float,
    rng: np.random.Generator,
    horizon: int | None,
    symmetric: bool = False,
    cumulative: bool = False,
) -> TreeAggregator:
    """A :class:`TreeAggregator` with ``N(0, sigma^2)`` node noise per coordinate.

    With ``symmetric=True`` the shape must be ``(d, d)`` and each node gets ``symmetric_gaussian`` noise
    ``(Z + Z^T)/sqrt(2)`` (off-diagonal variance ``sigma^2``, diagonal ``2 sigma^2``), for Gram matrices.
    ``cumulative`` is passed to :class:`TreeAggregator` (O(1) work per step).
    Privacy per node: Gaussian with noise multiplier ``sigma / Delta_2`` (vectors) or ``sqrt(2) sigma / Delta_F``
    (symmetric); over the stream use ``accounting.tree_aggregation_event``.
    """
    sigma = v.positive(sigma=sigma)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if symmetric:
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(f"Expected a square shape (d, d) for symmetric=True, got shape={shape}.")
        dim = shape[0]

        def noise(g: np.random.Generator, n: int) -> np.ndarray:
            return symmetric_gaussian(g, sigma, dim, size=(n,))
    else:

        def noise(g: np.random.Generator, n: int) -> np.ndarray:
            return gaussian(g, sigma, (n, *shape))

    return TreeAggregator(shape, noise=noise, rng=rng, horizon=horizon, cumulative=cumulative)


