"""Must show 2: every registered ``dpbandit/`` id passes Gymnasium's env checker, scalar and vector."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from dpbandit import envs

DPBANDIT_IDS = sorted(env_id for env_id in gym.registry if env_id.startswith("dpbandit/"))
_IRIS = __import__("sklearn.datasets", fromlist=["load_iris"]).load_iris(return_X_y=True)
#: Keyword arguments an id needs to be made (Classification-v0 has no default data).
DATA = {"dpbandit/Classification-v0": dict(X=_IRIS[0], y=_IRIS[1])}


def make(env_id: str, **kwargs):
    return gym.make(env_id, **DATA.get(env_id, {}), **kwargs)


def test_every_preset_is_registered() -> None:
    assert set(envs.ENV_IDS) | set(envs.CLASSIFICATION_IDS) | set(envs.FIXED_ARMS_IDS) == set(DPBANDIT_IDS)
    assert "dpbandit/HDBSection54-v0" in DPBANDIT_IDS
    classification = ("Classification", "Digits", "Wine", "BreastCancer", "Iris")
    assert {f"dpbandit/{name}-v0" for name in classification} <= set(DPBANDIT_IDS)


@pytest.mark.parametrize("env_id", DPBANDIT_IDS)
def test_check_env_passes_without_warnings(env_id: str) -> None:
    env = make(env_id, horizon=50)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []
    assert env.unwrapped.spec.id == env_id


@pytest.mark.parametrize("env_id", DPBANDIT_IDS)
def test_make_vec_vector_entry_point(env_id: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vec = gym.make_vec(
            env_id, num_envs=3, vectorization_mode="vector_entry_point", horizon=5, **DATA.get(env_id, {})
        )
        obs, info = vec.reset(seed=0)
    assert [str(w.message) for w in caught] == []
    assert obs.shape == (3, *vec.single_observation_space.shape)
    assert obs in vec.observation_space
    obs, rewards, terminated, truncated, info = vec.step(vec.action_space.sample())
    assert rewards.shape == (3,) and info["regret"].shape == (3,)
    assert not terminated.any() and not truncated.any()
    assert np.all(info["regret"] >= 0)


@pytest.mark.parametrize("env_id", DPBANDIT_IDS)
def test_render_modes_follow_gymnasium(env_id: str) -> None:
    assert gym.spec(env_id) is not None
    for mode in (None, "ansi"):
        env = make(env_id, horizon=20, render_mode=mode)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env.unwrapped)  # also makes the env once per declared render mode
        assert [str(w.message) for w in caught] == []
        env.reset(seed=1)
        _, _, _, _, info = env.step(1)
        text = env.render()
        if mode is None:
            assert text is None
        else:
            assert "round 1/20: played arm 1" in text and f"regret {info['regret']:.4g}" in text
            assert "round 2/20: context" in text
    assert isinstance(env.unwrapped.metadata["render_fps"], int)
    with pytest.warns(UserWarning, match="render_mode"), pytest.raises(ValueError, match="render_mode"):
        make(env_id, render_mode="human")  # Gymnasium warns, the env refuses


@pytest.mark.parametrize(
    "program",
    [
        "import dpbandit, gymnasium; gymnasium.make('dpbandit/Digits-v0')",  # dpbandit first: the post-import hook
        "import gymnasium, dpbandit; gymnasium.make('dpbandit/Digits-v0')",  # Gymnasium first: registered at once
        "import gymnasium; gymnasium.make('dpbandit:dpbandit/Iris-v0')",  # Gymnasium's module:EnvId form
        "from dpbandit.harness import run; import gymnasium; gymnasium.make('dpbandit/HDBSection54-v0')",
        # Gymnasium first loaded by the registration module itself (the hook must not re-enter it)
        "import dpbandit; from dpbandit.envs import registration; import gymnasium; gymnasium.make('dpbandit/Iris-v0')",
        "import dpbandit.envs.glm, gymnasium; gymnasium.make('dpbandit/LinearBandit-v0')",
    ],
)
def test_import_dpbandit_registers_the_ids_in_either_order(program: str) -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_importing_dpbandit_alone_does_not_import_gymnasium() -> None:
    """``dpbandit --help`` stays fast: registration waits for Gymnasium's own import."""
    import subprocess
    import sys

    probe = "import sys, dpbandit.cli; print('gymnasium' in sys.modules, 'dpbandit.envs' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["False", "False"], done.stderr
