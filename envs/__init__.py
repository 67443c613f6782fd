"""Gymnasium environments for (private) contextual bandits: generalized-linear rewards, classification data.

``import envs`` registers the ``dpbandit/`` ids (see :mod:`envs.registration` and docs/envs.md)::

    import gymnasium as gym
    import envs  # noqa: F401  (registers the ids)

    env = gym.make("dpbandit/LinearBandit-v0")
    vec = gym.make_vec("dpbandit/LinearBandit-v0", num_envs=8, vectorization_mode="vector_entry_point")
"""

from __future__ import annotations

from envs.classification import ClassificationBanditEnv, ClassificationBanditVectorEnv, ClassificationProblem
from envs.glm import GLMBanditEnv, GLMBanditVectorEnv
from envs.links import LINKS, Link
from envs.problem import GLMProblem
from envs.registration import (
    CLASSIFICATION_IDS,
    CLASSIFICATION_PRESETS,
    ENV_IDS,
    FIXED_ARMS_IDS,
    PRESETS,
    register_envs,
)
from envs.rounds import RoundBlock, replicate_seeds
from envs.wrappers import BlockFeatures, block_features

register_envs()

__all__ = [
    "CLASSIFICATION_IDS",
    "CLASSIFICATION_PRESETS",
    "ENV_IDS",
    "FIXED_ARMS_IDS",
    "LINKS",
    "PRESETS",
    "BlockFeatures",
    "ClassificationBanditEnv",
    "ClassificationBanditVectorEnv",
    "ClassificationProblem",
    "GLMBanditEnv",
    "GLMBanditVectorEnv",
    "GLMProblem",
    "Link",
    "RoundBlock",
    "block_features",
    "replicate_seeds",
]
