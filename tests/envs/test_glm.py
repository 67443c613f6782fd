"""Contract of GLMBanditEnv: shapes, info, truncation, seeding, common random numbers, block access."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from dpbandit.envs import GLMBanditEnv, RoundBlock


def rollout(env: gym.Env, seed: int, policy_seed: int, steps: int) -> dict[str, np.ndarray]:
    """Play ``steps`` rounds with uniformly random arms; record everything."""
    actions = np.random.default_rng(policy_seed).integers(env.unwrapped.n_arms, size=steps)
    obs, info = env.reset(seed=seed)
    out: dict[str, list] = {k: [] for k in ("obs", "mu", "reward", "regret", "best")}
    for a in actions:
        out["obs"].append(obs)
        obs, reward, terminated, truncated, info = env.step(a)
        assert terminated is False
        out["mu"].append(info["expected_rewards"])
        out["reward"].append(reward)
        out["regret"].append(info["regret"])
        out["best"].append(info["optimal_action"])
    return {k: np.array(v) for k, v in out.items() if v} | {"actions": actions, "theta": env.unwrapped.theta}


@pytest.mark.parametrize("env_id", ["dpbandit/LinearBandit-v0", "dpbandit/PerArmLinearBandit-v0",
                                    "dpbandit/LogisticBandit-v0", "dpbandit/PoissonBandit-v0"])
def test_same_seed_same_rollout_different_seed_different(env_id: str) -> None:
    env = gym.make(env_id, horizon=200)
    a, b, c = rollout(env, 7, 0, 200), rollout(env, 7, 0, 200), rollout(env, 8, 0, 200)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
    assert not np.array_equal(a["obs"], c["obs"])
    assert not np.array_equal(a["mu"], c["mu"])
    assert not np.array_equal(a["theta"], c["theta"])


def test_shapes_info_and_truncation() -> None:
    env = GLMBanditEnv(3, 4, 5)
    obs, info = env.reset(seed=0)
    assert obs.shape == (4,) and obs.dtype == np.float64
    assert env.theta.shape == (3, 4)
    np.testing.assert_allclose(info["expected_rewards"], env.theta @ obs)
    assert info["optimal_action"] == int(np.argmax(env.theta @ obs))
    for t in range(1, 6):
        played = obs
        a = t % 3
        obs, reward, terminated, truncated, step_info = env.step(a)
        mu = env.theta @ played
        np.testing.assert_allclose(step_info["expected_rewards"], mu)
        assert step_info["regret"] == pytest.approx(mu.max() - mu[a])
        assert isinstance(reward, float) and terminated is False and truncated is (t == 5)
    np.testing.assert_array_equal(obs, np.zeros(4))


def test_per_arm_model_shapes_and_means() -> None:
    env = GLMBanditEnv(3, 4, 5, context_model="per_arm", link="logistic")
    obs, info = env.reset(seed=1)
    assert obs.shape == (3, 4) and env.theta.shape == (4,)
    np.testing.assert_allclose(info["expected_rewards"], 1 / (1 + np.exp(-obs @ env.theta)))
    np.testing.assert_allclose(np.linalg.norm(obs, axis=1), 1.0)


def test_common_random_numbers_across_policies() -> None:
    """Two policies see the same contexts and draw rewards from the same per-arm realisations."""
    env = GLMBanditEnv(4, 6, 300, noise_std=0.3)
    block = (env.reset(seed=3), env.draw_rounds(300))[1]
    for policy_seed in (1, 2):
        run = rollout(env, 3, policy_seed, 300)
        np.testing.assert_array_equal(run["obs"], block.observations)
        np.testing.assert_array_equal(run["mu"], block.expected_rewards)
        np.testing.assert_array_equal(run["reward"], block.rewards[np.arange(300), run["actions"]])
        np.testing.assert_array_equal(run["best"], block.optimal_actions)


@pytest.mark.parametrize("context_model", ["shared", "per_arm"])
@pytest.mark.parametrize("link", ["identity", "logistic", "exponential"])
def test_draw_rounds_is_bit_identical_to_stepping_for_any_chunking(context_model: str, link: str) -> None:
    kwargs = dict(n_arms=3, dim=5, horizon=60, link=link, context_model=context_model)
    stepped = rollout(GLMBanditEnv(**kwargs), 11, 0, 60)
    for chunk_rounds in (None, 1, 7, 60):
        env = GLMBanditEnv(**kwargs, chunk_rounds=chunk_rounds)
        obs, info = env.reset(seed=11)
        blocks = [env.draw_rounds(m) for m in (1, 2, 13, 44)]
        block = RoundBlock.concatenate(blocks)
        np.testing.assert_array_equal(block.observations, stepped["obs"])
        np.testing.assert_array_equal(block.observations[0], obs)
        np.testing.assert_array_equal(block.expected_rewards, stepped["mu"])
        np.testing.assert_array_equal(block.rewards[np.arange(60), stepped["actions"]], stepped["reward"])


def test_step_and_draw_rounds_can_be_mixed() -> None:
    ref = GLMBanditEnv(2, 3, 30, chunk_rounds=4)
    ref.reset(seed=5)
    whole = ref.draw_rounds(30)
    env = GLMBanditEnv(2, 3, 30, chunk_rounds=4)
    env.reset(seed=5)
    env.step(0)
    middle = env.draw_rounds(10)
    obs, info = env.current_round()
    np.testing.assert_array_equal(middle.rewards, whole.rewards[1:11])
    np.testing.assert_array_equal(obs, whole.observations[11])
    np.testing.assert_array_equal(info["expected_rewards"], whole.expected_rewards[11])
    assert env.step(1)[1] == whole.rewards[11, 1]


def test_streams_are_separate() -> None:
    """Changing the parameter generator or the noise scale never shifts the context stream."""
    base = GLMBanditEnv(3, 8, 50, noise_std=0.1)
    base.reset(seed=4)
    ref = base.draw_rounds(50)
    sparse = GLMBanditEnv(3, 8, 50, noise_std=0.4, sparsity=2, theta_values="ones", theta_norm=1)
    sparse.reset(seed=4)
    other = sparse.draw_rounds(50)
    np.testing.assert_array_equal(other.observations, ref.observations)
    z_ref = (ref.rewards - ref.expected_rewards) / 0.1
    z_other = (other.rewards - other.expected_rewards) / 0.4
    np.testing.assert_allclose(z_other, z_ref, rtol=1e-9, atol=1e-9)


def test_reset_without_seed_draws_a_new_reproducible_instance() -> None:
    env = GLMBanditEnv(2, 3, 10)
    env.reset(seed=0)
    theta0 = env.theta
    env.reset()
    theta1 = env.theta
    assert not np.array_equal(theta0, theta1)
    env.reset(seed=0)
    np.testing.assert_array_equal(env.theta, theta0)
    env.reset()
    np.testing.assert_array_equal(env.theta, theta1)


def test_fixed_theta_and_gaussian_noise_level() -> None:
    theta = np.array([[1.0, 0.0], [0.0, 0.5]])
    env = GLMBanditEnv(2, 2, 20_000, theta=theta, noise_std=0.2)
    env.reset(seed=0)
    np.testing.assert_array_equal(env.theta, theta)
    block = env.draw_rounds(20_000)
    np.testing.assert_allclose(block.expected_rewards, block.observations @ theta.T)
    residual = block.rewards - block.expected_rewards
    assert abs(residual.std() - 0.2) < 0.005 and abs(residual.mean()) < 0.005


def test_high_dimension_is_chunked_and_consistent() -> None:
    env = GLMBanditEnv(2, 10_000, 120)
    assert env._stream.chunk_rounds < 120  # several chunks per episode, bounded memory
    stepped = rollout(env, 2, 0, 120)
    env.reset(seed=2)
    block = env.draw_rounds(120)
    np.testing.assert_array_equal(block.observations, stepped["obs"])
    np.testing.assert_array_equal(block.rewards[np.arange(120), stepped["actions"]], stepped["reward"])
    np.testing.assert_allclose(np.linalg.norm(block.observations, axis=1), 1.0)
