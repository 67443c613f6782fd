"""Local-DP and shuffle-model agents: the noise each agent actually adds, batching, reports per user, the
guarantee they state, the size guard, and that without noise they are ridge LinUCB."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from dpbandit.agents import agent_class
from dpbandit.audit.drawn import gaussian_scale_pvalues, only_stated_scale_fits
from dpbandit.privacy.accounting import gaussian_sigma
from dpbandit.privacy.local import report_sensitivity
from dpbandit.privacy.shuffle import gaussian_shuffle_calibration, shuffle_epsilon

NAMES = ("ldp-linucb", "ldp-linucb-disjoint", "shuffle-linucb", "shuffle-linucb-disjoint")
K, D, T = 3, 2, 400


def build(name: str, seed: int = 0, **kw):
    return agent_class(name)(K, D, rng=np.random.default_rng(seed), horizon=T, feature_bound=1.0, **kw)


def observation(agent, rng: np.random.Generator) -> np.ndarray:
    shape = (K, agent.dim) if agent.observation_model == "per_arm" else (agent.dim,)
    x = rng.normal(size=shape)
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def expected_sigma(agent) -> float:
    """The report std computed here, independently of the agent: PLD Gaussian calibration of the (local or
    shuffle-calibrated) budget at the sensitivity of the report, composed over reports per user."""
    return _expected_sigma(agent.trust_model, agent.observation_model == "shared", agent.epsilon, agent.delta,
                           agent.reports_per_user or 1, agent.batch)


@functools.lru_cache
def _expected_sigma(trust: str, disjoint: bool, epsilon: float, delta: float, m: int, batch: int) -> float:
    sens = report_sensitivity(1.0, 1.0, disjoint=disjoint)
    if trust == "local":
        return gaussian_sigma(epsilon, delta, sens, m)
    cal = gaussian_shuffle_calibration(epsilon / m, delta / m, batch)
    return gaussian_sigma(cal.eps0, cal.delta0, sens)


def added_noise(agent, rounds: int, rng: np.random.Generator) -> np.ndarray:
    """The noise the agent added to its statistics over ``rounds`` rounds (its sums minus the exact ones):
    Gram diagonal, reward vector and sqrt 2 times the Gram off-diagonal, all of std sqrt(rounds) sigma."""
    exact_g = np.zeros_like(agent.gram)
    exact_u = np.zeros_like(agent._pending_u)
    for _ in range(rounds):
        obs = observation(agent, rng)
        a = agent.act(obs)
        r = float(rng.uniform())
        agent.update(obs, a, r)
        f = obs[a] if agent.observation_model == "per_arm" else obs
        exact_g[agent._model_of(a)] += np.outer(f, f)
        exact_u[agent._model_of(a)] += r * f
    noise_g = agent.gram + agent._pending_gram - exact_g
    noise_u = agent._u_published + agent._pending_u - exact_u
    iu = np.triu_indices(exact_g.shape[-1], 1)
    diag = np.diagonal(noise_g, axis1=-2, axis2=-1)
    return np.concatenate([diag.ravel(), noise_u.ravel(), math.sqrt(2.0) * noise_g[:, iu[0], iu[1]].ravel()])


@pytest.mark.parametrize("name", NAMES)
def test_noise_each_agent_adds_has_the_calibrated_scale(name: str) -> None:
    """40 agents (3 reports per user, D = 4), 30 rounds each: the noise in their statistics has per-entry
    std sqrt(30) sigma (sigma from this file's own calibration); halved and doubled noise rejected."""
    rng = np.random.default_rng(1)
    samples, sigmas = [], []
    for seed in range(40):
        agent = agent_class(name)(K, 4, rng=np.random.default_rng(seed), horizon=T, feature_bound=1.0,
                                  reports_per_user=3, epsilon=0.7, batch=7) if name.startswith("shuffle") else \
            agent_class(name)(K, 4, rng=np.random.default_rng(seed), horizon=T, feature_bound=1.0,
                              reports_per_user=3, epsilon=0.7)
        noise = added_noise(agent, 30, rng)
        samples.append(noise)
        sigmas.append(np.full(noise.shape, expected_sigma(agent) * math.sqrt(30)))
    assert only_stated_scale_fits(gaussian_scale_pvalues(np.concatenate(samples), np.concatenate(sigmas)))


def test_the_shuffle_agent_refits_only_at_the_end_of_a_batch() -> None:
    agent = build("shuffle-linucb", batch=25)
    rng = np.random.default_rng(2)
    thetas = []
    for _ in range(75):
        obs = observation(agent, rng)
        agent.update(obs, agent.act(obs), float(rng.uniform()))
        thetas.append(agent.theta_hat.copy())
    changes = [t for t in range(1, 75) if not np.array_equal(thetas[t], thetas[t - 1])]
    assert changes == [24, 49, 74]  # after reports 25, 50 and 75
    assert agent.published == 75 and agent.pending == 0


@pytest.mark.parametrize("name", NAMES)
def test_a_user_above_reports_per_user_is_an_error(name: str) -> None:
    agent = build(name, reports_per_user=2)
    rng = np.random.default_rng(3)
    obs = observation(agent, rng)
    agent.update(obs, 0, 0.5, user_id=7)
    agent.update(obs, 1, 0.5, user_id=7)
    agent.update(obs, 1, 0.5, user_id=8)
    with pytest.raises(ValueError, match="reports_per_user"):
        agent.update(obs, 0, 0.5, user_id=7)


def test_by_default_a_returning_user_is_several_reports_and_user_epsilon_is_inf() -> None:
    agent = build("ldp-linucb")
    obs = observation(agent, np.random.default_rng(5))
    for _ in range(3):
        agent.update(obs, 0, 0.5, user_id=1)
    assert agent.privacy.user_epsilon == math.inf and agent.privacy.max_rounds_per_user is None
    capped = build("ldp-linucb", reports_per_user=3).privacy
    assert capped.user_epsilon == capped.epsilon and capped.max_rounds_per_user == 3


def test_stated_guarantees() -> None:
    """Local: the PLD epsilon at the drawn sigma is the claim, trust model local. Shuffle: the central epsilon
    is the numerical clone bound at the drawn local epsilon, below the local epsilon of a report."""
    local = build("ldp-linucb", epsilon=0.5).privacy
    assert local.trust_model == "local" and local.holds
    assert local.epsilon == pytest.approx(0.5, rel=1e-4) and local.local_epsilon == local.epsilon
    agent = build("shuffle-linucb", epsilon=0.5, batch=400)
    shuffled = agent.privacy
    assert shuffled.trust_model == "shuffle" and shuffled.holds
    cal = agent.shuffle
    assert shuffled.local_epsilon == pytest.approx(cal.eps0, rel=1e-4) and shuffled.local_epsilon > 0.5
    assert shuffle_epsilon(shuffled.local_epsilon, 400, cal.delta_clone) <= 0.5 + 1e-6


def test_without_noise_the_local_agent_is_ridge_regression_on_its_reports() -> None:
    agent = build("ldp-linucb", noise=False)
    rng = np.random.default_rng(4)
    X, y = [], []
    for _ in range(50):
        obs = observation(agent, rng)
        a = agent.act(obs)
        r = float(rng.uniform())
        agent.update(obs, a, r)
        X.append(obs[a])
        y.append(r)
    X, y = np.array(X), np.array(y)
    ridge = np.linalg.solve(X.T @ X + agent.regularization * np.eye(D), X.T @ y)
    assert np.allclose(agent.theta_hat[0], ridge)
    assert agent.privacy is None


def test_huge_dimension_refuses_at_construction_with_the_memory() -> None:
    with pytest.raises(ValueError, match="GB"):
        agent_class("ldp-linucb-disjoint")(10, 5000, rng=np.random.default_rng(0), horizon=100)


def test_horizon_is_required_and_rows_above_the_feature_bound_are_errors() -> None:
    with pytest.raises(ValueError, match="horizon"):
        agent_class("ldp-linucb")(K, D, rng=np.random.default_rng(0))
    agent = build("ldp-linucb")
    with pytest.raises(ValueError, match="feature_bound"):
        agent.update(np.full((K, D), 2.0), 0, 0.5)
