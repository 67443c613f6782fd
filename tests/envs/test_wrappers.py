"""Block features: shared context model -> per-arm model (e_a kron x)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from dpbandit.envs import BlockFeatures, GLMBanditEnv, block_features


def test_block_features_is_kron() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(4)
    phi = block_features(x, 3)
    assert phi.shape == (3, 12)
    for a in range(3):
        np.testing.assert_array_equal(phi[a], np.kron(np.eye(3)[a], x))
    batch = rng.standard_normal((5, 2, 4))  # leading axes are kept
    out = block_features(batch, 3)
    assert out.shape == (5, 2, 3, 12)
    np.testing.assert_array_equal(out[4, 1], block_features(batch[4, 1], 3))


def test_wrapper_gives_per_arm_model_with_same_means() -> None:
    env = BlockFeatures(gym.make("dpbandit/LinearBandit-v0", horizon=20))
    obs, info = env.reset(seed=0)
    assert obs.shape == (5, 50) and obs in env.observation_space
    np.testing.assert_allclose(obs @ env.theta, info["expected_rewards"])
    obs, reward, terminated, truncated, info = env.step(2)
    np.testing.assert_allclose(obs @ env.theta, env.unwrapped.current_round()[1]["expected_rewards"])


@pytest.mark.filterwarnings("ignore:.*different from the unwrapped version")
def test_wrapper_passes_env_checker_and_rejects_per_arm() -> None:
    check_env(BlockFeatures(GLMBanditEnv(3, 2, 10)), skip_render_check=True)
    with pytest.raises(ValueError, match="context_model"):
        BlockFeatures(GLMBanditEnv(3, 2, 10, context_model="per_arm"))

