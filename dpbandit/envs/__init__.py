"""Gymnasium environments for (private) contextual bandits: generalized-linear rewards, classification data.

``import dpbandit`` registers the ``dpbandit/`` ids (see :mod:`dpbandit.envs.registration` and
docs/envs.md); so does Gymnasium's ``"module:EnvId"`` form, ``gymnasium.make("dpbandit:dpbandit/Digits-v0")``::

    import gymnasium as gym
    import dpbandit  # noqa: F401  (registers the ids)

    env = gym.make("dpbandit/LinearBandit-v0")
    vec = gym.make_vec("dpbandit/LinearBandit-v0", num_envs=8, vectorization_mode="vector_entry_point")

The classes below load on first use (PEP 562), so registering the ids costs only Gymnasium's import,
not SciPy's signal module or scikit-learn's.
"""

from __future__ import annotations

import importlib
from typing import Any

from dpbandit.envs.registration import (
    CLASSIFICATION_IDS,
    CLASSIFICATION_PRESETS,
    ENV_IDS,
    FIXED_ARMS_IDS,
    PRESETS,
    register_envs,
)

register_envs()

#: public name -> the submodule that defines it (loaded on first attribute access)
_LAZY = {
    "ClassificationBanditEnv": "classification",
    "ClassificationBanditVectorEnv": "classification",
    "ClassificationProblem": "classification",
    "GLMBanditEnv": "glm",
    "GLMBanditVectorEnv": "glm",
    "LINKS": "links",
    "Link": "links",
    "GLMProblem": "problem",
    "RoundBlock": "rounds",
    "replicate_seeds": "rounds",
    "BlockFeatures": "wrappers",
    "block_features": "wrappers",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f"dpbandit.envs.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'dpbandit.envs' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
