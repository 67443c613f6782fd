"""A sweep's env_id takes what `dpbandit run --env` takes: 'module:EnvId-v0' and 'package.module:ClassName'
(tests/toy_bandit.py, a user's own Gymnasium environment)."""

from __future__ import annotations

import pytest

from dpbandit.sweep import Sweep, run_sweep
from dpbandit.sweep.config import SweepConfigError


def test_user_environment_forms_run_in_a_sweep(tmp_path, small_config) -> None:
    config = small_config(seeds=1, zip=[])
    forms = ["toy_bandit:ToyBandit", "toy_bandit:toy/Bandit-v0"]
    config["grid"].update(agent=["random", "linucb"], env_id=forms, horizon=40, env={"n_arms": 2})
    config["grid"].pop("epsilon")
    df = run_sweep(config, tmp_path / "s", backend="inprocess", progress=False)
    assert set(df["env_id"]) == {"toy_bandit:ToyBandit", "toy_bandit:toy/Bandit-v0"}
    assert df["step"].max() == 40 and df["cumulative_regret"].notna().all()


@pytest.mark.parametrize(
    ("env_id", "match"),
    [("toy_bandit:Nothing", "toy_bandit has neither 'Nothing'"), ("no_such_module_xyz:X", "importable")],
)
def test_bad_user_environment_forms_are_named(small_config, env_id, match) -> None:
    config = small_config()
    config["grid"]["env_id"] = env_id
    with pytest.raises(SweepConfigError, match=rf"grid\.env_id: .*{match}"):
        Sweep.from_dict(config)
