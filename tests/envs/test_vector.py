"""Must show 3: the native vector env reproduces N single envs seeded with ``replicate_seeds``."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from dpbandit.envs import GLMBanditEnv, GLMBanditVectorEnv, replicate_seeds

N, T = 8, 40


@pytest.mark.parametrize("env_id", ["dpbandit/LinearBandit-v0", "dpbandit/PerArmLinearBandit-v0",
                                    "dpbandit/PoissonBandit-v0", "dpbandit/HDBSection54-v0"])
def test_make_vec_replicates_equal_single_envs(env_id: str) -> None:
    vec = gym.make_vec(env_id, num_envs=N, vectorization_mode="vector_entry_point", horizon=T)
    assert isinstance(vec.unwrapped, GLMBanditVectorEnv)
    actions = np.random.default_rng(0).integers(vec.unwrapped.n_arms, size=(T, N))
    obs, info = vec.reset(seed=123)
    v_obs, v_mu, v_rew, v_reg = [obs], [info["expected_rewards"]], [], []
    for t in range(T):
        obs, reward, terminated, truncated, info = vec.step(actions[t])
        assert not terminated.any() and truncated.all() == (t == T - 1)
        v_obs.append(obs)
        v_mu.append(info["expected_rewards"])
        v_rew.append(reward)
        v_reg.append(info["regret"])
    v_obs, v_mu, v_rew, v_reg = (np.stack(x, axis=1) for x in (v_obs, v_mu, v_rew, v_reg))

    seeds = replicate_seeds(123, N)
    for i in range(N):
        single = gym.make(env_id, horizon=T)
        obs, info = single.reset(seed=seeds[i])
        np.testing.assert_array_equal(obs, v_obs[i, 0])
        np.testing.assert_array_equal(info["expected_rewards"], v_mu[i, 0])
        np.testing.assert_array_equal(single.unwrapped.theta, vec.unwrapped.theta[i])
        for t in range(T):
            obs, reward, _, _, info = single.step(actions[t, i])
            np.testing.assert_array_equal(obs, v_obs[i, t + 1])
            np.testing.assert_array_equal(info["expected_rewards"], v_mu[i, t + 1])
            assert reward == v_rew[i, t] and info["regret"] == v_reg[i, t]


def test_vector_blocks_equal_single_blocks_for_all_arms() -> None:
    kwargs = dict(n_arms=3, dim=6, horizon=T, link="logistic")
    vec = GLMBanditVectorEnv(N, **kwargs, chunk_rounds=5)
    vec.reset(seed=9)
    block = vec.draw_rounds(T)
    assert block.observations.shape == (N, T, 6) and block.rewards.shape == (N, T, 3)
    for i, seed in enumerate(replicate_seeds(9, N)):
        single = GLMBanditEnv(**kwargs)
        single.reset(seed=seed)
        ref = single.draw_rounds(T)
        assert block.user_ids is None and ref.user_ids is None
        for got, want in zip(block.map(lambda a, i=i: a[i]), ref, strict=True):
            np.testing.assert_array_equal(got, want)


def test_list_of_seeds_and_replicate_seed_derivation() -> None:
    seeds = [5, 17, 5]
    vec = GLMBanditVectorEnv(3, n_arms=2, dim=3, horizon=10)
    obs, _ = vec.reset(seed=seeds)
    np.testing.assert_array_equal(obs[0], obs[2])
    single = GLMBanditEnv(2, 3, 10)
    np.testing.assert_array_equal(single.reset(seed=17)[0], obs[1])
    # the documented formula, and not seed + i
    expected = [int(c.generate_state(1, np.uint64)[0]) for c in np.random.SeedSequence(4).spawn(3)]
    assert replicate_seeds(4, 3) == expected
    assert replicate_seeds(4, 3)[1] != replicate_seeds(5, 3)[0]
    assert len(set(replicate_seeds(0, 1000))) == 1000


def test_autoreset_next_step_starts_a_new_episode() -> None:
    vec = GLMBanditVectorEnv(2, n_arms=2, dim=2, horizon=3)
    vec.reset(seed=0)
    theta0 = vec.theta
    for _ in range(3):
        *_, truncated, _ = vec.step(np.zeros(2, dtype=int))
    assert truncated.all()
    obs, rewards, terminated, truncated, info = vec.step(np.ones(2, dtype=int))
    np.testing.assert_array_equal(rewards, 0.0)
    assert not terminated.any() and not truncated.any() and "regret" not in info
    assert not np.array_equal(vec.theta, theta0)
    np.testing.assert_array_equal(obs, vec.current_round()[0])
    assert not vec.step(np.zeros(2, dtype=int))[3].any()
