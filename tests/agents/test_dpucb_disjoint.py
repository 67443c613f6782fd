"""Disjoint DP-UCB (one Gaussian tree per arm): tree mechanics, sampled noise, calibration inputs, bounds."""

from __future__ import annotations

import copy
import itertools
import math
import re

import dp_accounting
import numpy as np
import pytest
from scipy import stats

from dpbandit.agents import agent_class
from dpbandit.agents.dpucb import DPUCB
from dpbandit.agents.dpucb_disjoint import DisjointDPUCB
from dpbandit.harness import run
from dpbandit.privacy import TreeAggregator

ALPHA = 1e-3  # acceptance level of the goodness-of-fit tests (fixed seeds: deterministic outcomes)


def _rounds(T: int, d: int, K: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, (T, d))
    return X, X[:, :K] + 0.1 * rng.normal(size=(T, K))


def _packed(x: np.ndarray, y: float) -> np.ndarray:
    """The released entries of [x; y][x; y]^T: lower triangle of x x^T row by row, then y x."""
    rows, cols = np.tril_indices(x.size)
    return np.concatenate([np.outer(x, x)[rows, cols], y * x])


def _chi2_variance_pvalue(x: np.ndarray, var: float) -> float:
    """Two-sided p-value that zero-mean Gaussian samples ``x`` have variance ``var``."""
    cdf = stats.chi2.cdf(float(np.sum(x**2) / var), x.size)
    return 2 * min(cdf, 1 - cdf)


@pytest.mark.privacy
def test_one_user_moves_the_stacked_leaves_by_at_most_sqrt2_ltilde2() -> None:
    """The derivation of the module docstring, checked on random and extreme pairs of rounds."""
    rng = np.random.default_rng(0)
    d, K, ltilde2 = 3, 4, 2.5
    for _ in range(200):
        z, z2 = (v / np.linalg.norm(v) * math.sqrt(ltilde2 * rng.uniform()) for v in rng.normal(size=(2, d + 1)))
        for a, a2 in itertools.product(range(K), repeat=2):
            leaves, leaves2 = np.zeros((K, d + 1, d + 1)), np.zeros((K, d + 1, d + 1))
            leaves[a], leaves2[a2] = np.outer(z, z), np.outer(z2, z2)
            assert np.linalg.norm(leaves - leaves2) <= math.sqrt(2) * ltilde2 * (1 + 1e-12)
    z, z2 = math.sqrt(ltilde2) * np.eye(d + 1)[:2]  # orthogonal, full norm: the bound is attained
    same = np.linalg.norm(np.outer(z, z) - np.outer(z2, z2))
    switched = math.hypot(np.linalg.norm(np.outer(z, z)), np.linalg.norm(np.outer(z2, z2)))
    assert same == pytest.approx(math.sqrt(2) * ltilde2) and switched == pytest.approx(math.sqrt(2) * ltilde2)


@pytest.mark.privacy
def test_every_arm_gets_an_input_and_fresh_noise_every_round() -> None:
    T, d, K = 40, 3, 3
    X, R = _rounds(T, d, K)
    agent = DisjointDPUCB(K, d, rng=np.random.default_rng(1), horizon=T)
    exact = np.zeros((K, d * (d + 3) // 2))
    previous_noise = np.zeros_like(exact)
    for x, r in zip(X, R):
        a = agent.act(x)
        agent.update(x, a, float(r[a]))
        exact[a] += _packed(x, float(np.clip(r[a], -agent.reward_bound, agent.reward_bound)))
        np.testing.assert_allclose(agent.exact, exact, rtol=1e-12, atol=1e-12)  # data only in the pulled arm
        noise = agent.noisy_sums() - agent.exact
        assert np.all(np.any(noise != previous_noise, axis=1))  # every arm's tree stepped
        previous_noise = noise
    assert agent.t == T and agent.noise_sums.shape == (T.bit_length(), K, exact.shape[1])


@pytest.mark.privacy
def test_trees_equal_the_reference_tree_aggregator_on_the_stacked_statistic() -> None:
    """Slow exact reference: TreeAggregator over the (K, P) leaves, zero for unpulled arms, same draws."""
    T, d, K = 75, 4, 3
    X, R = _rounds(T, d, K, seed=2)
    agent = DisjointDPUCB(K, d, rng=np.random.default_rng(4), horizon=T, calibration="accountant")
    P = d * (d + 3) // 2
    sigma = agent.sigma_noise
    diagonal = np.isin(np.arange(P), [i * (i + 1) // 2 + i for i in range(d)])
    scale = np.where(diagonal, math.sqrt(2) * sigma, sigma)  # (Z + Z^T)/sqrt 2: diagonal sqrt(2) sigma
    reference = TreeAggregator((K, P), noise=lambda g, n: scale * g.standard_normal((n, K, P)),
                               rng=copy.deepcopy(agent.tree_rng), horizon=T)
    for x, r in zip(X, R):
        a = agent.act(x)
        agent.update(x, a, float(r[a]))
        leaves = np.zeros((K, P))
        leaves[a] = _packed(x, float(r[a]))
        np.testing.assert_allclose(agent.noisy_sums(), reference.add(leaves), rtol=1e-12, atol=1e-9)


def _zero_data_node_noise(agent: DisjointDPUCB, T: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Node noises the agent draws on zero data, read off its released V_t and u_t at odd t."""
    d = agent.dim
    zero = np.zeros(d)
    grams, us = [agent.gram], [agent.u.copy()]
    for _ in range(T):
        agent.update(zero, agent.act(zero), 0.0)
        grams.append(agent.gram)
        us.append(agent.u.copy())
    G, U = np.array(grams), np.array(us)
    dG, dU = G[1::2][1:] - G[:-1:2][1:], U[1::2][1:] - U[:-1:2][1:]  # t odd: one new level-0 node
    rows, cols = np.tril_indices(d, -1)
    return dG[..., rows, cols].ravel(), np.diagonal(dG, axis1=-2, axis2=-1).ravel(), dU.ravel()


@pytest.mark.privacy
@pytest.mark.parametrize("calibration", ["paper", "accountant"])
def test_sampled_node_noise_has_the_reported_std(calibration: str) -> None:
    T, d, K = 400, 4, 3
    agent = DisjointDPUCB(K, d, rng=np.random.default_rng(5), horizon=T, calibration=calibration,
                          feature_bound=2.0, reward_bound=1.5)
    sigma = float(re.search(r"node std ([0-9.e+-]+)", agent.privacy.notes).group(1))
    off_diagonal, diagonal, cross = _zero_data_node_noise(agent, T)
    for values, var in ((off_diagonal, sigma**2), (cross, sigma**2), (diagonal, 2 * sigma**2)):
        assert _chi2_variance_pvalue(values, var) > ALPHA
        assert _chi2_variance_pvalue(values, var / 4) < ALPHA  # halved noise is rejected
        assert _chi2_variance_pvalue(values, 4 * var) < ALPHA  # doubled noise is rejected


@pytest.mark.privacy
def test_calibration_inputs_pinned_from_the_derivation() -> None:
    """Sensitivity Ltilde^2 = L^2 + B^2, one stream (the stacked tree), T steps, depth bit_length(T)."""
    T, L, B, eps, delta = 1000, 2.0, 1.5, 1.0, 1e-3
    ltilde2, depth, m = 4.0 + 2.25, 10, 11  # 1000 < 2^10: 10 nodes per leaf; m = 1 + ceil(log2 1000)
    paper = DisjointDPUCB(3, 4, rng=np.random.default_rng(0), horizon=T, epsilon=eps, delta=delta,
                          feature_bound=L, reward_bound=B)
    assert paper.sigma_noise == pytest.approx(4 * math.sqrt(m) * ltilde2 * math.log(4 / delta) / eps)

    def rdp_epsilon(sigma: float, streams: int) -> float:
        acc = dp_accounting.rdp.RdpAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_SPECIAL)
        gaussian = dp_accounting.GaussianDpEvent(sigma / ltilde2)  # multiplier sqrt2 sigma / (sqrt2 Ltilde^2)
        return acc.compose(dp_accounting.SelfComposedDpEvent(gaussian, depth * streams)).get_epsilon(delta)

    for agent in (paper, DisjointDPUCB(3, 4, rng=np.random.default_rng(0), horizon=T, epsilon=eps, delta=delta,
                                       feature_bound=L, reward_bound=B, calibration="accountant")):
        report = agent.privacy
        assert report.epsilon == pytest.approx(rdp_epsilon(agent.sigma_noise, 1), rel=1e-9)
        assert rdp_epsilon(agent.sigma_noise, 2) > 1.2 * report.epsilon  # counting 2 streams would show
        assert report.claimed_epsilon == eps and report.claimed_delta == delta and "JDP" in report.relation
    assert report.epsilon == pytest.approx(eps, rel=1e-4)  # accountant calibration meets the target
    assert paper.privacy.epsilon < eps


def test_constants_are_per_arm_with_alpha_over_k() -> None:
    T, d, K = 10_000, 50, 2
    agent = DisjointDPUCB(K, d, rng=np.random.default_rng(0), horizon=T)
    block = DPUCB(K, d * K, rng=np.random.default_rng(0), horizon=T, feature_bound=math.sqrt(d))
    assert agent.sigma_noise == block.sigma_noise  # same Ltilde^2 = 50 + 1.15^2, same calibration
    m, sigma, alpha = 15, agent.sigma_noise, 1 / T / K
    ups = sigma * math.sqrt(2 * m) * (4 * math.sqrt(d) + 2 * math.log(2 * T / alpha))
    assert agent.upsilon == pytest.approx(ups)
    assert agent.gamma == pytest.approx(sigma * math.sqrt(m / ups) * (math.sqrt(d) + math.sqrt(2 * math.log(2 * T / alpha))))
    log_det = d * math.log(3 + 7 * 50 / (d * ups))
    width = 0.05 * math.sqrt(2 * math.log(2 / alpha) + log_det) + math.sqrt(3 * ups) + agent.gamma
    agent.t = 7
    assert agent._width() == pytest.approx(width)


def test_noise_off_keeps_exact_statistics_and_draws_nothing() -> None:
    T, d, K = 200, 3, 2
    X, R = _rounds(T, d, K, seed=3)
    agent = DisjointDPUCB(K, d, rng=np.random.default_rng(0), horizon=T, noise=False)
    untouched = copy.deepcopy(agent.tree_rng)
    actions = agent.play_block(X, R, compiled=False)
    assert agent.privacy is None and agent.tree_rng.random() == untouched.random()
    for k in range(K):
        Xk, yk = X[actions == k], R[actions == k, k]
        gram = Xk.T @ Xk + 2 * agent.upsilon * np.eye(d)
        np.testing.assert_allclose(agent.gram[k], gram, rtol=1e-12)
        np.testing.assert_allclose(agent.theta_hat[k], np.linalg.solve(gram, Xk.T @ yk), rtol=1e-8, atol=1e-14)


def test_v_stays_positive_definite_and_bounds_are_explicit() -> None:
    T, d, K = 300, 5, 3
    X, R = _rounds(T, d, K, seed=4)
    agent = DisjointDPUCB(K, d, rng=np.random.default_rng(0), horizon=T, calibration="accountant")
    for x, r in zip(X, R):
        agent.update(x, agent.act(x), float(r[agent.act(x)]))
        assert np.linalg.eigvalsh(agent.gram).min() > agent.rho_min  # the accurate event
    agent = DisjointDPUCB(2, 2, rng=np.random.default_rng(0), horizon=10, feature_bound=1.0, reward_bound=1.0)
    agent.update(np.array([0.6, 0.0]), 0, 5.0)
    assert agent.clipped_rewards == 1
    for compiled in (True, False):
        with pytest.raises(ValueError, match="feature_bound"):
            agent.play_block(np.array([[2.0, 0.0]]), np.zeros((1, 2)), compiled=compiled)
    with pytest.raises(ValueError, match="horizon"):
        DisjointDPUCB(2, 2, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="observations"):
        agent.play_block(np.zeros((2, 3)), np.zeros((2, 2)))


@pytest.mark.parametrize("compiled", [True, False])
def test_failed_factorisation_names_the_arm(compiled: bool) -> None:
    agent = DisjointDPUCB(2, 3, rng=np.random.default_rng(0), horizon=10)
    agent.upsilon = -1e9  # V = noise - 2e9 I: negative definite
    with pytest.raises(np.linalg.LinAlgError, match="arm 0 is not positive definite at t=1"):
        agent.play_block(np.zeros((2, 3)), np.zeros((2, 2)), compiled=compiled)


def test_registry_names_and_harness_run() -> None:
    assert agent_class("dpucb-disjoint") is DisjointDPUCB
    assert agent_class("dpucb-block") is DPUCB and agent_class("dpucb") is DPUCB
    df = run("dpbandit/HDBSection54-v0", {"DP-UCB disjoint": DisjointDPUCB}, n_seeds=1, horizon=300, n_points=10)
    assert df["epsilon"].iloc[-1] < 1.0 and df["claimed_epsilon"].iloc[-1] == 1.0
    assert df["cumulative_regret"].iloc[-1] > 0
