"""Fast paths: compiled kernels play exactly what the pure-numpy act/update loop plays (same seeds)."""

from __future__ import annotations

import copy

import numba
import numpy as np
import pytest

from dpbandit.agents.dphdb import DPHDB
from dpbandit.agents.dpucb import DPUCB
from dpbandit.agents.dpucb_disjoint import DisjointDPUCB
from dpbandit.agents.kernels.hdb import _lap1
from dpbandit.agents.linear import GreedyLeastSquares, LinUCB, OFUL
from dpbandit.privacy.noise import laplace
from dpbandit.privacy.tree import gaussian_tree
from dpbandit.envs.wrappers import block_features


@numba.njit(cache=True)
def _numba_exponentials(rng: np.random.Generator, n: int) -> np.ndarray:
    out = np.empty(n)
    for i in range(n):
        out[i] = rng.standard_exponential()
    return out


@numba.njit(cache=True)
def _kernel_laplace(rng: np.random.Generator, n: int) -> np.ndarray:
    out = np.empty(n)
    for i in range(n):
        out[i] = _lap1(rng)
    return out


def test_numba_reproduces_numpy_exponential_draws() -> None:
    """Exact equality, including the ziggurat's rare tail and wedge branches (40,000 draws)."""
    expected = np.random.default_rng(11).standard_exponential(40_000)
    np.testing.assert_array_equal(_numba_exponentials(np.random.default_rng(11), 40_000), expected)


@pytest.mark.privacy
def test_kernel_laplace_draws_equal_the_project_sampler() -> None:
    """The DP-HDB kernel's Lap(1) draws are noise.laplace's numbers and leave the stream in the same state."""
    fast, slow = np.random.default_rng(12), np.random.default_rng(12)
    np.testing.assert_array_equal(_kernel_laplace(fast, 4000), laplace(slow, 1.0, (8, 500)).ravel())
    assert fast.random() == slow.random()


def _rounds(T: int, d: int, K: int, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Contexts in [-1, 1]^d with some all-zero rows (they tie every arm's score), rewards (T, K)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, (T, d))
    X[rng.random(T) < 0.05] = 0.0
    R = X[:, :K] + 0.1 * rng.normal(size=(T, K))
    return X, R


def _play_both(make, X: np.ndarray, R: np.ndarray, cuts: tuple[int, ...]):
    """Compiled path in blocks split at ``cuts``, numpy loop in one block; both agents and actions."""
    fast, slow = make(), make()
    edges = (0, *cuts, len(X))
    fast_actions = np.concatenate([fast.play_block(X[a:b], R[a:b]) for a, b in zip(edges[:-1], edges[1:])])
    slow_actions = slow.play_block(X, R, compiled=False)
    return fast, slow, fast_actions, slow_actions


@pytest.mark.privacy
@pytest.mark.parametrize("sampler", ["per-vertex", "topdown"])
def test_dphdb_compiled_equals_numpy_through_warmup_ties_and_block_edges(sampler) -> None:
    T, d, K = 1500, 12, 3
    X, R = _rounds(T, d, K)

    def make() -> DPHDB:
        return DPHDB(K, d, rng=np.random.default_rng(7), horizon=T, warmup=40, vertex_sampler=sampler)

    fast, slow, a_fast, a_slow = _play_both(make, X, R, cuts=(1, 57, 120, 121, 700))
    np.testing.assert_array_equal(a_fast, a_slow)
    assert a_fast[:120].tolist() == [0] * 40 + [1] * 40 + [2] * 40
    assert len(set(a_fast[120:].tolist())) > 1
    np.testing.assert_allclose(fast.bank.theta, slow.bank.theta, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fast.bank.direction, slow.bank.direction, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(fast.frozen_theta, slow.frozen_theta)
    np.testing.assert_array_equal(fast.step_counts, slow.step_counts)
    assert fast.round == slow.round == T
    # every stream consumed the same number of draws: the next numbers agree
    assert fast.bank.rng.random() == slow.bank.rng.random()
    assert fast._tie_rng.random() == slow._tie_rng.random()


@pytest.mark.privacy
def test_dphdb_kernel_draws_two_exponentials_per_vertex_and_step() -> None:
    """The compiled path consumes exactly ``2 x 2d`` standard exponentials per arm step (the floor's count)."""
    T, d, K = 400, 7, 3
    X, R = _rounds(T, d, K, seed=8)
    agent = DPHDB(K, d, rng=np.random.default_rng(9), horizon=T, warmup=20)
    start = copy.deepcopy(agent.bank.rng)
    agent.play_block(X, R)
    steps = int(agent.step_counts.sum())
    assert steps == K * 20 + K * (T - K * 20)  # warm-up: the pulled arm; afterwards every arm
    start.standard_exponential(2 * 2 * d * steps)
    assert agent.bank.rng.random() == start.random()


@pytest.mark.parametrize("cls", [LinUCB, GreedyLeastSquares])
def test_linucb_compiled_equals_numpy_including_ties(cls) -> None:
    T, d, K = 800, 6, 4
    X, R = _rounds(T, d, K, seed=5)

    def make():
        return cls(K, d, rng=np.random.default_rng(2), horizon=T)

    fast, slow, a_fast, a_slow = _play_both(make, X, R, cuts=(3, 400))
    np.testing.assert_array_equal(a_fast, a_slow)
    assert len(set(a_fast.tolist())) == K
    np.testing.assert_allclose(fast.v_inv, slow.v_inv, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fast.theta_hat, slow.theta_hat, rtol=1e-10, atol=1e-12)
    assert fast.t == slow.t == T
    assert fast.rng.random() == slow.rng.random()


@pytest.mark.privacy
@pytest.mark.parametrize("noise", [True, False])
def test_disjoint_dpucb_compiled_equals_numpy_bit_for_bit_including_ties(noise: bool) -> None:
    T, d, K = 700, 5, 3
    X, R = _rounds(T, d, K, seed=6)
    R[::50] = 5.0  # some rewards beyond reward_bound: clipped on both paths

    def make() -> DisjointDPUCB:
        return DisjointDPUCB(K, d, rng=np.random.default_rng(4), horizon=T, calibration="accountant", noise=noise)

    fast, slow, a_fast, a_slow = _play_both(make, X, R, cuts=(1, 2, 333, 600))
    np.testing.assert_array_equal(a_fast, a_slow)
    assert len(set(a_fast.tolist())) == K
    zero_rows = np.flatnonzero(~X.any(axis=1))
    assert zero_rows.size > 10  # every arm scores exactly 0: ties, broken in Python on both paths
    for name in ("exact", "noise_sums", "factor", "u", "theta_hat"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name), err_msg=name)
    assert fast.t == slow.t == T and fast.clipped_rewards == slow.clipped_rewards > 0
    assert fast.tree_rng.random() == slow.tree_rng.random()
    assert fast._tie_rng.random() == slow._tie_rng.random()


@pytest.mark.privacy
def test_agents_without_kernel_play_blocks_through_act_update() -> None:
    T, d, K = 60, 3, 2
    X, R = _rounds(T, d, K)
    F = block_features(X / np.sqrt(d), K)
    for make in (
        lambda: OFUL(K, d * K, rng=np.random.default_rng(0), horizon=T),
        lambda: DPUCB(K, d * K, rng=np.random.default_rng(0), horizon=T),
        lambda: DPHDB(K, d, rng=np.random.default_rng(0), horizon=T, link="logistic", warmup=5),
    ):
        obs = X if make().observation_model == "shared" else F
        a, b = make(), make()
        np.testing.assert_array_equal(a.play_block(obs, R), b.play_block(obs, R, compiled=False))


def test_block_input_is_validated() -> None:
    agent = DPHDB(2, 3, rng=np.random.default_rng(0), horizon=10)
    with pytest.raises(ValueError, match="feature_bound"):
        agent.play_block(np.full((2, 3), 2.0), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="rewards"):
        LinUCB(2, 3, rng=np.random.default_rng(0)).play_block(np.zeros((2, 3)), np.zeros((3, 2)))


@pytest.mark.privacy
def test_cumulative_tree_reuses_the_same_draws_and_agrees_to_rounding() -> None:
    T, D = 77, 4
    z = np.random.default_rng(1).normal(size=(T, D, D))
    plain = gaussian_tree((D, D), 0.5, np.random.default_rng(9), T, symmetric=True)
    fast = gaussian_tree((D, D), 0.5, np.random.default_rng(9), T, symmetric=True, cumulative=True)
    out_plain = np.array([plain.add(zt) for zt in z])
    out_fast = np.array([fast.add(zt) for zt in z])
    np.testing.assert_allclose(out_fast, out_plain, rtol=0, atol=1e-12)
    assert len(fast._running) == fast.depth  # O(depth) running sums, never O(T)
    assert fast.rng.random() == plain.rng.random()


def test_dpucb_memory_is_independent_of_the_horizon() -> None:
    import tracemalloc

    d, K = 3, 2
    peaks = []
    for T in (64, 1024):
        X, R = _rounds(T, d, K)
        agent = DPUCB(K, d * K, rng=np.random.default_rng(0), horizon=T)
        F = block_features(X / np.sqrt(d), K)
        tracemalloc.start()
        agent.play_block(F[: T // 2], R[: T // 2])
        tracemalloc.reset_peak()
        agent.play_block(F[T // 2 :], R[T // 2 :])
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] < 2 * peaks[0] + 64_000  # 16x the rounds: same order of memory (O(D^2 log T))
