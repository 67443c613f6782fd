"""TreeAggregator: exact sums, dense-reference equality, node counts, adaptivity, variance (chi-square)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpbandit.privacy import TreeAggregator, binary_tree_matrix, gaussian_tree, nodes_in_prefix

pytestmark = pytest.mark.privacy

ALPHA = 1e-3  # acceptance level of goodness-of-fit tests (fixed seeds: deterministic outcomes)


def test_noise_free_prefix_sums_are_exact() -> None:
    rng = np.random.default_rng(1)
    z = rng.normal(size=(37, 4))
    tree = TreeAggregator((4,), noise=None, rng=np.random.default_rng(0))
    out = np.array([tree.add(zt) for zt in z])
    np.testing.assert_allclose(out, np.cumsum(z, axis=0), rtol=1e-12, atol=1e-12)


def test_nodes_in_prefix_is_popcount() -> None:
    assert [nodes_in_prefix(t) for t in (1, 2, 3, 6, 7, 8)] == [1, 1, 2, 2, 3, 1]
    assert binary_tree_matrix(8).sum(axis=1).tolist() == [nodes_in_prefix(t) for t in range(1, 9)]
    # t = 7 -> blocks [1..4], [5, 6], [7]: the nodes completing at steps 4, 6, 7
    assert np.flatnonzero(binary_tree_matrix(7)[6]).tolist() == [3, 5, 6]


class _Recorder:
    """Noise callable that records every node draw (one call per completed node)."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape, self.draws = shape, []

    def __call__(self, rng: np.random.Generator, n: int) -> np.ndarray:
        draw = rng.normal(size=(n, *self.shape))
        self.draws.append(draw[0])
        return draw


@pytest.mark.parametrize("shape", [(3,), (2, 2)])
def test_streamed_noise_equals_dense_binary_tree(shape: tuple[int, ...]) -> None:
    horizon = 45
    rec = _Recorder(shape)
    tree = TreeAggregator(shape, noise=rec, rng=np.random.default_rng(3), horizon=horizon)
    z = np.random.default_rng(4).normal(size=(horizon, *shape))
    out = np.array([tree.add(zt) for zt in z])
    assert len(rec.draws) == horizon  # exactly one draw per completed node, one node per step
    dense = np.tensordot(binary_tree_matrix(horizon), np.array(rec.draws), axes=1)
    np.testing.assert_allclose(out - np.cumsum(z, axis=0), dense, atol=1e-10)


def test_adaptive_inputs_and_reuse_of_node_noise() -> None:
    """Inputs depending on earlier outputs: output(t) - exact(t) is still B @ W (draws reused, never redrawn)."""
    horizon = 20
    rec = _Recorder((2,))
    tree = TreeAggregator((2,), noise=rec, rng=np.random.default_rng(5), horizon=horizon)
    out, z = [], []
    prev = np.zeros(2)
    for _ in range(horizon):
        zt = np.tanh(prev) + 1.0  # depends on the previous noisy release
        z.append(zt)
        prev = tree.add(zt)
        out.append(prev)
    dense = binary_tree_matrix(horizon) @ np.array(rec.draws)
    np.testing.assert_allclose(np.array(out) - np.cumsum(z, axis=0), dense, atol=1e-10)


def test_horizon_depth_and_overflow() -> None:
    tree = TreeAggregator(2, noise=None, rng=np.random.default_rng(0), horizon=4)
    assert tree.depth == 3  # bit_length(4): levels of size 1, 2, 4
    for _ in range(4):
        tree.add(np.zeros(2))
    assert tree.t == 4
    with pytest.raises(ValueError, match="horizon"):
        tree.add(np.zeros(2))
    grow = TreeAggregator(2, noise=None, rng=np.random.default_rng(0))
    for _ in range(9):
        grow.add(np.zeros(2))
    assert grow.depth == 4


def test_shape_is_checked() -> None:
    tree = TreeAggregator((3,), noise=None, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="shape"):
        tree.add(np.zeros(4))


def _tree_noise(symmetric: bool, sigma: float, runs: int, horizon: int, dim: int) -> np.ndarray:
    """Noise of every prefix over ``runs`` independent trees: shape (runs, horizon, *shape)."""
    shape = (dim, dim) if symmetric else (dim,)
    rng = np.random.default_rng(11 + symmetric)
    out = np.empty((runs, horizon, *shape))
    for r in range(runs):
        tree = gaussian_tree(shape, sigma, rng, horizon, symmetric=symmetric)
        for t in range(horizon):
            out[r, t] = tree.add(np.zeros(shape))
    return out


def _chi2_variance_pvalue(x: np.ndarray, var: float) -> float:
    """Two-sided p-value that zero-mean Gaussian samples ``x`` have variance ``var`` (sum x^2/var ~ chi2(n))."""
    stat, df = float(np.sum(x**2) / var), x.size
    cdf = stats.chi2.cdf(stat, df)
    return 2 * min(cdf, 1 - cdf)


@pytest.mark.parametrize("symmetric", [False, True])
def test_prefix_noise_variance_is_nodes_times_sigma2(symmetric: bool) -> None:
    sigma, runs, horizon, dim = 1.7, 300, 15, 3
    noise = _tree_noise(symmetric, sigma, runs, horizon, dim)
    for t in range(1, horizon + 1):
        x = noise[:, t - 1]
        if symmetric:
            iu = np.triu_indices(dim, 1)
            parts = [(x[:, iu[0], iu[1]], 1.0), (np.diagonal(x, axis1=1, axis2=2), 2.0)]
            np.testing.assert_array_equal(x, np.swapaxes(x, 1, 2))
        else:
            parts = [(x, 1.0)]
        for values, factor in parts:
            var = nodes_in_prefix(t) * factor * sigma**2
            assert _chi2_variance_pvalue(values, var) > ALPHA, (t, factor)
            # power: the same samples reject a tree whose noise were halved (variance / 4) or doubled
            assert _chi2_variance_pvalue(values, var / 4) < ALPHA
            assert _chi2_variance_pvalue(values, 2 * var) < ALPHA
