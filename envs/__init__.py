"""Gymnasium environments for (private) contextual bandits with generalized-linear rewards.

``import envs`` registers the ``dpbandit/`` ids (see :mod:`envs.registration` and docs/envs.md)::

    import gymnasium as gym
    import envs  # noqa: F401  (registers the ids)

    env = gym.make("dpbandit/LinearBandit-v0")
    vec = gym.make_vec("dpbandit/LinearBandit-v0", num_envs=8, vectorization_mode="vector_entry_point")
"""

from __future__ import annotations

from envs.glm import GLMBanditEnv, GLMBanditVectorEnv
from envs.links import LINKS, Link
from envs.problem import GLMProblem
from envs.registration import ENV_IDS, PRESETS, register_envs
from envs.rounds import RoundBlock, replicate_seeds
from envs.wrappers import BlockFeatures, block_features

register_envs()

__all__ = [
    "ENV_IDS",
    "LINKS",
    "PRESETS",
    "BlockFeatures",
    "GLMBanditEnv",
    "GLMBanditVectorEnv",
    "GLMProblem",
    "Link",
    "RoundBlock",
    "block_features",
    "replicate_seeds",
]
