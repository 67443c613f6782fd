"""Links, native reward laws, parameter generators, context samplers and the Section 5.4 preset."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

from dpbandit.envs import LINKS, GLMBanditEnv, Link
from dpbandit.envs.params import lp_norm, sample_contexts, sample_parameters


@pytest.mark.parametrize("name", sorted(LINKS))
def test_link_derivative_matches_finite_differences(name: str) -> None:
    link = LINKS[name]
    z = np.linspace(-3, 3, 13)
    h = 1e-6
    np.testing.assert_allclose(link.derivative(z), (link.mean(z + h) - link.mean(z - h)) / (2 * h), rtol=1e-6)


@pytest.mark.parametrize(("link", "noise"), [("logistic", "bernoulli"), ("exponential", "poisson")])
def test_native_rewards_follow_the_link_law(link: str, noise: str) -> None:
    theta = np.array([[1.0, 0.0], [0.0, -1.0]])
    env = GLMBanditEnv(2, 2, 40_000, link=link, theta=theta)
    env.reset(seed=0)
    block = env.draw_rounds(40_000)
    r, mu = block.rewards, block.expected_rewards
    assert np.all(r == np.round(r)) and r.min() >= 0
    if noise == "bernoulli":
        assert r.max() <= 1
    # conditional mean mu; variance mu(1-mu) (Bernoulli) or mu (Poisson); 40k rounds -> loose 5 se bounds
    var = mu * (1 - mu) if noise == "bernoulli" else mu
    z = (r - mu).sum(axis=0) / np.sqrt(var.sum(axis=0))
    assert np.all(np.abs(z) < 5)
    assert abs(((r - mu) ** 2).mean() / var.mean() - 1) < 0.03


def test_custom_link() -> None:
    cubic = Link(lambda z: z**3, lambda z: 3 * z**2, name="cubic")
    env = GLMBanditEnv(2, 3, 5, link=cubic, noise_std=0.0)
    obs, info = env.reset(seed=1)
    np.testing.assert_allclose(info["expected_rewards"], (env.theta @ obs) ** 3)
    assert env.step(0)[1] == info["expected_rewards"][0]  # noise_std = 0: reward = mean
    assert env.link is cubic


@pytest.mark.parametrize("p", [1.0, 1.5, 2.0, math.inf])
def test_sparse_parameters_have_support_and_norm(p: float) -> None:
    rng = np.random.default_rng(0)
    theta = sample_parameters(rng, 4, 30, sparsity=3, norm=p, radius=2.0)
    assert theta.shape == (4, 30)
    np.testing.assert_array_equal((theta != 0).sum(axis=1), 3)
    np.testing.assert_allclose(lp_norm(theta, p), 2.0)
    dense = sample_parameters(rng, 2, 30, norm=p)
    assert np.all(dense != 0)
    np.testing.assert_allclose(lp_norm(dense, p), 1.0)


def test_context_samplers() -> None:
    rng = np.random.default_rng(1)
    x = sample_contexts(rng, (20_000, 3), distribution="gaussian", std=0.5)
    assert abs(x.std() - 0.5) < 0.01
    u = sample_contexts(rng, (20_000, 3), distribution="uniform", bound=2.0)
    assert u.min() >= -2 and u.max() <= 2 and abs(u.var() - 4 / 3) < 0.03
    for p in (1.0, 3.0, math.inf):
        np.testing.assert_allclose(lp_norm(sample_contexts(rng, (50, 7), norm=p), p), 1.0)


def test_uniform_raw_contexts_give_a_bounded_box() -> None:
    env = GLMBanditEnv(2, 3, 5, contexts="uniform", context_bound=0.5, context_norm=None)
    assert env.observation_space.high.max() == 0.5
    assert env.reset(seed=0)[0] in env.observation_space


def test_hdb_section54_preset() -> None:
    """004 Section 5.4 [P] sizes, with the [C]-filled contexts, parameters and noise."""
    env = gym.make("dpbandit/HDBSection54-v0")
    base = env.unwrapped
    sizes = (base.n_arms, base.dim, base.horizon, base.link.name, base.context_model)
    assert sizes == (2, 50, 10_000, "identity", "shared")
    assert base.params["sparsity"] == 5 and base.params["theta"] is None
    for seed in range(20):
        env.reset(seed=seed)
        theta = base.theta
        assert theta.shape == (2, 50)
        np.testing.assert_array_equal((theta != 0).sum(axis=1), 5)  # 5 distinct coordinates
        np.testing.assert_allclose(theta[theta != 0], 0.2)
        np.testing.assert_allclose(np.abs(theta).sum(axis=1), 1.0)
    block = base.draw_rounds(2_000)
    np.testing.assert_allclose(np.abs(block.observations).max(axis=1), 1.0)  # l_inf-normalised
    np.testing.assert_allclose(block.expected_rewards, block.observations @ base.theta.T)
    assert abs((block.rewards - block.expected_rewards).std() - 0.05) < 0.002
