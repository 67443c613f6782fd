"""Must show 7 (environment part): bad input raises a clear error naming the parameter."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

from dpbandit.envs import GLMBanditEnv, GLMBanditVectorEnv, Link, block_features, replicate_seeds


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        (dict(n_arms=1), ValueError, "n_arms"),
        (dict(n_arms=2.5), TypeError, "n_arms"),
        (dict(dim=0), ValueError, "dim"),
        (dict(horizon=0), ValueError, "horizon"),
        (dict(link="probit"), ValueError, "link"),
        (dict(link=3), TypeError, "link"),
        (dict(noise_std=math.inf), ValueError, "noise_std"),
        (dict(noise_std=math.nan), ValueError, "noise_std"),
        (dict(noise_std=-0.1), ValueError, "noise_std"),
        (dict(context_std=math.inf), ValueError, "context_std"),
        (dict(context_std=0.0), ValueError, "context_std"),
        (dict(context_model="dense"), ValueError, "context_model"),
        (dict(contexts="cauchy"), ValueError, "contexts"),
        (dict(context_norm=0.5), ValueError, "context_norm"),
        (dict(theta_norm=0.0), ValueError, "theta_norm"),
        (dict(theta_radius=-1.0), ValueError, "theta_radius"),
        (dict(sparsity=11), ValueError, "sparsity"),
        (dict(theta_values="laplace"), ValueError, "theta_values"),
        (dict(noise="native"), ValueError, "noise"),  # the identity link has no native law
        (dict(noise="poisson"), ValueError, "noise"),
        (dict(theta=np.ones((3, 10))), ValueError, "theta"),
        (dict(theta=np.full((5, 10), np.nan)), ValueError, "theta"),
        (dict(chunk_rounds=0), ValueError, "chunk_rounds"),
    ],
)
def test_bad_constructor_arguments_name_the_parameter(kwargs: dict, error: type, name: str) -> None:
    full = dict(n_arms=5, dim=10, horizon=100) | kwargs
    with pytest.raises(error, match=name):
        GLMBanditEnv(**full)
    with pytest.raises(error, match=name):
        gym.make("dpbandit/GLMBandit-v0", **kwargs)


def test_custom_link_must_be_callable() -> None:
    with pytest.raises(TypeError, match="mean"):
        Link("not callable", np.ones_like)
    with pytest.raises(ValueError, match="distribution"):
        Link(np.tanh, np.ones_like, distribution="gamma")


@pytest.mark.parametrize(
    ("action", "error"),
    [
        (5, ValueError),
        (-1, ValueError),
        (1.0, TypeError),
        ("1", TypeError),
        (True, TypeError),
        (np.array([1]), TypeError),
    ],
)
def test_bad_action_names_action(action: object, error: type) -> None:
    env = GLMBanditEnv(5, 3, 10)
    env.reset(seed=0)
    with pytest.raises(error, match="action"):
        env.step(action)


def test_numpy_integer_actions_are_accepted() -> None:
    env = GLMBanditEnv(5, 3, 10)
    env.reset(seed=0)
    env.step(np.int64(4))
    env.step(np.array(2, dtype=np.uint8))


def test_bad_vector_actions() -> None:
    vec = GLMBanditVectorEnv(3, n_arms=4, dim=2, horizon=10)
    vec.reset(seed=0)
    with pytest.raises(TypeError, match="actions"):
        vec.step(np.zeros(3))
    with pytest.raises(ValueError, match="actions"):
        vec.step(np.zeros(2, dtype=int))
    with pytest.raises(ValueError, match="actions"):
        vec.step(np.array([0, 4, 1]))


def test_bad_seeds_and_sizes() -> None:
    with pytest.raises(ValueError, match="seed"):
        replicate_seeds(-1, 3)
    with pytest.raises(ValueError, match="num_envs"):
        replicate_seeds(0, 0)
    vec = GLMBanditVectorEnv(3, n_arms=2, dim=2, horizon=10)
    with pytest.raises(ValueError, match="seed"):
        vec.reset(seed=[1, 2])
    with pytest.raises(TypeError, match="seed"):
        vec.reset(seed=[1, 2, 3.5])
    with pytest.raises(ValueError, match="num_envs"):
        GLMBanditVectorEnv(0, n_arms=2, dim=2, horizon=10)
    with pytest.raises(ValueError, match="n_arms"):
        block_features(np.ones(3), 0)


def test_stepping_before_reset_and_past_the_horizon() -> None:
    env = GLMBanditEnv(2, 2, 2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    assert env.step(0)[3] is False
    assert env.step(1)[3] is True
    with pytest.raises(RuntimeError, match="horizon=2"):
        env.step(0)
    with pytest.raises(RuntimeError, match="horizon=2"):
        env.unwrapped.draw_rounds(1)
    env.reset()
    with pytest.raises(ValueError, match="m"):
        env.draw_rounds(3)
