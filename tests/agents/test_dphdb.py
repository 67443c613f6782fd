"""DP-HDB (Algorithm 3 of 004): warm-up, frozen estimators, pre-selection, synthetic updates, privacy."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from dpbandit.agents.dphdb import DPHDB, default_warmup


def _env(horizon: int, **kwargs):
    env = gymnasium.make("dpbandit/HDBSection54-v0", disable_env_checker=True, horizon=horizon, **kwargs)
    return env


def _play(agent: DPHDB, env, rounds: int, seed: int = 0, on_round=None) -> np.ndarray:
    obs, _ = env.reset(seed=seed)
    regret = np.empty(rounds)
    for t in range(rounds):
        action = agent.act(obs)
        before = (agent.step_counts, agent.bank.direction.copy(), agent.theta)
        new_obs, reward, _, _, info = env.step(action)
        agent.update(obs, action, reward)
        if on_round is not None:
            on_round(action, before)
        regret[t] = info["regret"]
        obs = new_obs
    return regret


@pytest.mark.privacy
def test_synthetic_updates_reach_every_unpulled_arm_every_round():
    K, t0, T = 3, 5, 200
    env = _env(T, n_arms=K, dim=8, sparsity=2)
    agent = DPHDB(K, 8, rng=np.random.default_rng(0), horizon=T, warmup=t0)
    seen = []

    def check(action, before):
        counts, direction, theta = before
        if agent.round <= K * t0:  # forced sampling: only the pulled arm steps
            expected = counts.copy()
            expected[action] += 1
            np.testing.assert_array_equal(agent.step_counts, expected)
            return
        np.testing.assert_array_equal(agent.step_counts, counts + 1)  # every arm steps
        others = np.arange(K) != action
        s = agent.step_counts[others]
        # synthetic item (0, zeta(0)) has zero gradient: d_s = (1 - rho_s) d_{s-1} exactly
        np.testing.assert_allclose(agent.bank.direction[others], (s / (s + 1.0))[:, None] * direction[others])
        assert np.all(np.any(agent.theta[others] != theta[others], axis=1))  # fresh noisy FW step
        seen.append(action)

    _play(agent, env, T, on_round=check)
    assert len(seen) == T - K * t0
    assert agent.step_counts.tolist() == [T - (K - 1) * t0] * K


def test_forced_sampling_blocks_and_frozen_estimators():
    K, t0 = 2, 4
    env = _env(50)
    agent = DPHDB(K, 50, rng=np.random.default_rng(1), horizon=50, warmup=t0)
    obs, _ = env.reset(seed=1)
    actions = []
    for t in range(20):
        action = agent.act(obs)
        actions.append(action)
        obs2, reward, *_ = env.step(action)
        agent.update(obs, action, reward)
        obs = obs2
        if t + 1 == K * t0:
            frozen = agent.theta
    assert actions[: K * t0] == [0] * t0 + [1] * t0
    np.testing.assert_array_equal(agent.frozen_theta, frozen)  # kept, not updated afterwards
    assert np.any(agent.theta != frozen)
    with pytest.raises(ValueError, match="forced"):
        fresh = DPHDB(K, 50, rng=np.random.default_rng(1), horizon=50, warmup=t0)
        fresh.update(obs, 1, 0.0)


def test_preselection_uses_frozen_estimators_and_greedy_uses_current():
    agent = DPHDB(3, 2, rng=np.random.default_rng(0), horizon=100, warmup=1, h_sub=0.2, noise=False)
    agent.round = 3
    agent.frozen_theta = np.array([[1.0, 0.0], [0.95, 0.0], [0.0, 0.0]])  # arm 2 is 1.0 below: excluded
    agent.bank.theta[:] = [[0.0, 0.0], [0.5, 0.0], [2.0, 0.0]]  # arm 2 would win greedily
    assert agent.act(np.array([1.0, 0.0])) == 1


def test_noise_off_learns_and_privacy_is_none():
    T = 3000
    agent = DPHDB(2, 50, rng=np.random.default_rng(0), horizon=T, noise=False)
    regret = _play(agent, _env(T), T)
    assert agent.privacy is None
    first, second = regret[: T // 2].sum(), regret[T // 2 :].sum()
    assert second < 0.5 * first


@pytest.mark.privacy
def test_privacy_reports_joint_and_paper_calibrations():
    joint = DPHDB(2, 50, rng=np.random.default_rng(0), horizon=10_000).privacy
    assert joint.calibration == "accountant" and "JDP" in joint.relation
    assert joint.claimed_epsilon == 1.0 and joint.epsilon == pytest.approx(1.0, rel=1e-4)
    assert "2 stream" in joint.notes
    paper = DPHDB(2, 50, rng=np.random.default_rng(0), horizon=10_000, calibration="paper").privacy
    assert paper.calibration == "paper" and paper.claimed_epsilon == 1.0
    assert 0 < paper.epsilon < 1.0  # the two-stream accountant epsilon of line 8, printed next to the claim
    assert "epsilon=" in str(paper)


def test_defaults_and_logistic_gradient():
    assert default_warmup(50, 10_000, 1.0) == 120  # [C]: floor(log(dT) log(T) / eps^2)
    agent = DPHDB(2, 3, rng=np.random.default_rng(0), horizon=10, link="logistic", clip_norm=5.0)
    X = np.array([[1.0, -0.5, 0.0], [0.0, 0.0, 0.0]])
    theta = np.array([[0.2, 0.4, 0.0], [0.1, 0.0, 0.0]])
    grads = agent._gradients(theta, X, np.array([1.0, 0.5]))
    np.testing.assert_allclose(grads[0], (1 / (1 + np.exp(-0.0)) - 1.0) * X[0])
    np.testing.assert_array_equal(grads[1], 0.0)  # synthetic item: zero gradient
    assert agent.smoothness == pytest.approx(0.25)


def test_validation():
    with pytest.raises(ValueError, match="horizon"):
        DPHDB(2, 3, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="calibration"):
        DPHDB(2, 3, rng=np.random.default_rng(0), horizon=10, calibration="x")
    agent = DPHDB(2, 3, rng=np.random.default_rng(0), horizon=10)
    with pytest.raises(ValueError, match="feature_bound"):
        agent.act(np.array([2.0, 0.0, 0.0]))


@pytest.mark.privacy
def test_vertex_sampler_auto_draws_top_down_from_dimension_1000_and_keeps_the_per_vertex_stream_below():
    from dpbandit.agents.dphdb import TOPDOWN_MIN_DIM

    def make(dim, **kwargs):
        return DPHDB(2, dim, rng=np.random.default_rng(0), horizon=100, warmup=5, **kwargs)

    assert TOPDOWN_MIN_DIM == 1000
    assert make(999).vertex_sampler == make(999).params["vertex_sampler"] == "per-vertex"
    assert make(1000).vertex_sampler == "topdown"
    assert make(1000, selection="exponential").vertex_sampler == "per-vertex"  # Gumbel draws per vertex
    assert make(5, vertex_sampler="topdown").bank.sampler == "topdown"
    # below the threshold "auto" plays the per-vertex stream bit for bit (the published pages' numbers)
    rng = np.random.default_rng(3)
    X, R = rng.uniform(-1, 1, (300, 30)), rng.normal(size=(300, 2))
    auto, per_vertex, topdown = (DPHDB(2, 30, rng=np.random.default_rng(4), horizon=300, warmup=20, vertex_sampler=s)
                                 for s in ("auto", "per-vertex", "topdown"))
    np.testing.assert_array_equal(auto.play_block(X, R), per_vertex.play_block(X, R))
    np.testing.assert_array_equal(auto.theta, per_vertex.theta)
    topdown.play_block(X, R)
    assert not np.array_equal(topdown.theta, per_vertex.theta)  # other random numbers, the same law
    with pytest.raises(ValueError, match="vertex_sampler"):
        make(5, vertex_sampler="fast")
    with pytest.raises(ValueError, match="vertex_sampler='topdown'"):
        make(5, vertex_sampler="topdown", selection="exponential")
