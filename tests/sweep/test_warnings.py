"""A sweep shows each agent warning once (issue 38 item 8): the cells record their warnings, the driver warns
each text once per call, and ``dpbandit sweep`` prints it in the command's format, whichever backend ran the
cells. The shipped example names only agents that can learn at its horizons."""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest

from dpbandit.cli import main
from dpbandit.sweep import Sweep, run_sweep
from dpbandit.sweep.backends import execute_cell, shutdown_pools

#: DP-HDB at epsilon 0.5 on T = 150 rounds: forced sampling takes K t0 = 3 x 122 rounds, so every seed warns
#: that it never learns (dpbandit.agents.dphdb.warn_warmup_covers_horizon), with the same text.
NEVER_LEARNS = "DPHDB: forced sampling takes K t0"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sweep_small.toml"


def _config(small_config) -> dict:
    config = small_config(seeds=3, zip=[])
    config["grid"].update(agent=["dphdb", "random"], epsilon=[0.5], env={"n_arms": 3, "dim": 3})
    return config


def test_a_cell_records_its_warnings_and_keeps_the_filters(small_config) -> None:
    cell = next(c for c in Sweep.from_dict(_config(small_config)).cells if c.agent == "dphdb")
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        result = execute_cell(cell)
    assert not shown  # recorded, not shown by the worker
    ((category, message),) = result.warnings
    assert category is UserWarning and message.startswith(NEVER_LEARNS)
    assert pickle.loads(pickle.dumps(result)).warnings == result.warnings  # crosses to the driver
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=NEVER_LEARNS)
        assert execute_cell(cell).warnings == ()  # an ignore filter in force stays in force


def test_run_sweep_warns_each_text_once(tmp_path, small_config) -> None:
    with pytest.warns(UserWarning, match=NEVER_LEARNS) as record:
        run_sweep(_config(small_config), tmp_path / "s", backend="inprocess", progress=False)
    assert len([w for w in record if NEVER_LEARNS in str(w.message)]) == 1  # 3 seeds, one text


@pytest.mark.filterwarnings("default:DPHDB. forced sampling")  # shown, as outside the tests (pyproject.toml)
@pytest.mark.parametrize("backend", ["inprocess", "processes"])
def test_dpbandit_sweep_prints_each_warning_once_in_its_format(
    tmp_path, capfd, small_config, write_yaml, backend
):
    """Three seeds give the same warning: one line, ``dpbandit: warning: ...``, none raw from a worker."""
    path = write_yaml(tmp_path / "w.yaml", _config(small_config))
    shutdown_pools()  # workers started now write to this test's captured file descriptor 2
    argv = ["sweep", str(path), "--out", str(tmp_path / "s"), "--backend", backend, "--workers", "2"]
    assert main([*argv, "--no-progress"]) == 0
    err = capfd.readouterr().err  # the workers' own output too (file descriptor 2)
    lines = [line for line in err.splitlines() if NEVER_LEARNS in line]
    assert len(lines) == 1 and lines[0].startswith(f"dpbandit: warning: {NEVER_LEARNS}")
    assert "UserWarning" not in err


def test_no_agent_of_the_shipped_example_warns_for_its_cells() -> None:
    """examples/sweep_small.toml names only agents that can learn at its horizons: none warns when built for
    its cells (DP-HDB did: forced sampling filled T = 1,000 at epsilon 0.5). docs/sweeps.md shows each one's
    ratio to random below 1 in the report."""
    built = set()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for cell in Sweep.from_file(EXAMPLE).cells:
            env = dict(cell.env_kwargs)
            if (cell.agent, cell.epsilon, env["dim"], cell.horizon) not in built:
                built.add((cell.agent, cell.epsilon, env["dim"], cell.horizon))
                _, factory = cell.factory()
                rng = np.random.default_rng(0)
                factory(n_arms=env["n_arms"], dim=env["dim"], rng=rng, horizon=cell.horizon)
    assert {agent for agent, *_ in built} == {"linucb", "random", "private"} and len(built) == 10
    grid = {"agent": "dphdb", "env_id": "dpbandit/LinearBandit-v0", "epsilon": 0.5, "horizon": 1000}
    dphdb = Sweep.from_dict({"seeds": 1, "grid": {**grid, "env": {"n_arms": 5, "dim": 5}}})
    with pytest.warns(UserWarning, match=NEVER_LEARNS):  # what the example shipped before
        dphdb.cells[0].factory()[1](n_arms=5, dim=5, rng=np.random.default_rng(0), horizon=1000)
