"""Running sweeps: cells equal harness runs, backends agree, resume, failures, changed configs, locking."""

from __future__ import annotations

import functools
import json
import os

import pandas as pd
import pytest

from dpbandit.agents.dphdb import DPHDB
from dpbandit.agents.linear import LinUCB
from dpbandit.agents.uniform import RandomAgent
from dpbandit.cli import main
from dpbandit.harness import COLUMNS, run
from dpbandit.sweep import Store, StoreError, Sweep, SweepError, default_store_dir, execute, run_sweep
from dpbandit.sweep.backends import make_backend

ENV = "dpbandit/LinearBandit-v0"


def _deterministic(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=["wall_time", "compile_time"])  # the timing columns are the only non-deterministic ones


def _files(store_dir) -> dict[str, tuple[int, int]]:
    """cell file name -> (inode, mtime_ns): a rewritten file gets a new inode (atomic rename)."""
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (store_dir / "cells").glob("*.parquet")}


@pytest.fixture(scope="module")
def reference(tmp_path_factory, small_config):
    """The small sweep run in-process: (sweep, store dir, tidy frame)."""
    sweep = Sweep.from_dict(small_config())
    store = tmp_path_factory.mktemp("reference")
    return sweep, store, run_sweep(sweep, store, backend="inprocess", progress=False)


def test_cells_equal_harness_runs_with_the_same_root_seed(reference):
    sweep, _, df = reference
    assert len(df["cell"].unique()) == len(sweep.cells) == 16
    sub = df[(df["env_dim"] == 4) & ((df["target_epsilon"] == 2.0) | df["target_epsilon"].isna())]
    agents = {
        "linucb:alpha=0.5": functools.partial(LinUCB, alpha=0.5),
        "random": RandomAgent,
        "dphdb": functools.partial(DPHDB, epsilon=2.0),
    }
    expected = run(ENV, agents, n_seeds=2, root_seed=3, horizon=150, n_points=12,
                   env_kwargs={"n_arms": 3, "dim": 4}, progress=False)
    got = sub[COLUMNS].reset_index(drop=True)
    expected = expected.astype({"epsilon": float, "claimed_epsilon": float})  # the sweep stores float64
    pd.testing.assert_frame_equal(_deterministic(got), _deterministic(expected))
    assert sub["horizon"].eq(150).all() and sub["env_n_arms"].eq(3).all()
    assert df.loc[df["agent"] == "dphdb", "claimed_epsilon"].isin([1.0, 2.0]).all()


def test_labelled_agent_tables_equal_harness_runs_under_that_name(tmp_path, small_config):
    config = small_config(seeds=1, zip=[])
    config["grid"].update(agent=[{"agent": "dphdb", "label": "DP-HDB eps=1", "epsilon": 1.0}], env={"dim": 4})
    config["grid"].pop("epsilon")
    got = run_sweep(config, tmp_path / "s", backend="inprocess", progress=False)
    expected = run(ENV, {"DP-HDB eps=1": functools.partial(DPHDB, epsilon=1.0)}, n_seeds=1, root_seed=3,
                   horizon=150, n_points=12, env_kwargs={"dim": 4}, progress=False)
    pd.testing.assert_frame_equal(_deterministic(got[COLUMNS]), _deterministic(expected))


def test_local_processes_give_identical_results(reference, tmp_path):
    sweep, _, df = reference
    other = run_sweep(sweep, tmp_path / "processes", backend="processes", workers=2, progress=False)
    pd.testing.assert_frame_equal(_deterministic(other), _deterministic(df))


def test_rerun_skips_finished_cells_and_store_is_complete(reference):
    sweep, store_dir, df = reference
    before = _files(store_dir)
    outcome = execute(sweep, store_dir, backend="inprocess", progress=False)
    assert (outcome.skipped, outcome.computed, outcome.failures) == (16, 0, {})
    assert _files(store_dir) == before and len(before) == 16
    manifest = json.loads((store_dir / "manifest.json").read_text())
    assert manifest["config_hash"] == sweep.config_hash and manifest["seeds"] == [0, 1]
    assert set(manifest["cells"]) == {c.key for c in sweep.cells}


def test_failing_cell_is_recorded_and_the_sweep_goes_on(tmp_path, small_config, capsys, write_yaml):
    config = small_config(seeds=1)
    config["grid"]["agent"] = ["linucb:alpha=-1", "random"]  # LinUCB rejects alpha < 0 when built
    config["grid"].pop("epsilon")
    path = write_yaml(tmp_path / "fail.yaml", config)
    out = tmp_path / "store"
    code = main(["sweep", str(path), "--out", str(out), "--backend", "inprocess", "--no-progress"])
    printed = capsys.readouterr().out
    assert code == 1
    assert "4 cells in" in printed and "4 computed now, 0 already done, 2 failed" in printed
    assert "linucb:alpha=-1 on dpbandit/LinearBandit-v0" in printed and "alpha" in printed
    store = Store.read(out)
    failures = store.failures()
    assert len(failures) == 2 and len(store.finished()) == 2  # the random cells finished
    record = next(iter(failures.values()))
    assert "Traceback" in record["traceback"] and "ValueError: Expected alpha >= 0" in record["error"]
    with pytest.raises(SweepError, match="2 failed") as exc:
        run_sweep(Sweep.from_file(path), out, backend="inprocess", progress=False)
    assert exc.value.outcome.skipped == 2 and exc.value.outcome.computed == 2  # failures are retried


def test_changed_config_is_refused_and_default_directory_follows_the_config(reference, small_config, tmp_path):
    sweep, store_dir, _ = reference
    changed = Sweep.from_dict(small_config(seeds=3))
    with pytest.raises(StoreError, match=r"different sweep config .*changed: seeds\).*another output directory"):
        execute(changed, store_dir, backend="inprocess", progress=False)
    assert default_store_dir(changed) != default_store_dir(sweep)
    assert default_store_dir(sweep).name == f"t-{sweep.config_hash[:8]}"
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "notes.txt").write_text("x")
    with pytest.raises(StoreError, match="not a sweep store"):
        Store.open(tmp_path / "foreign", sweep)


def test_a_store_is_locked_by_its_running_sweep(reference):
    sweep, store_dir, _ = reference
    with Store.open(store_dir, sweep), pytest.raises(StoreError, match="in use by another running sweep"):
        Store.open(store_dir, sweep)
    Store.open(store_dir, sweep).close()  # released


def test_leftover_temporary_files_are_removed_on_resume(reference):
    sweep, store_dir, _ = reference
    leftover = store_dir / "cells" / f".{sweep.cells[0].key}.parquet.{os.getpid()}.tmp"
    leftover.write_bytes(b"partial")
    Store.open(store_dir, sweep).close()
    assert not leftover.exists()


def test_backend_choice_is_checked():
    with pytest.raises(ValueError, match="scheduler"):
        make_backend("dask")
    with pytest.raises(ValueError, match="must be 'dask'"):
        make_backend("inprocess", scheduler="tcp://127.0.0.1:1")


def test_missing_dask_gives_an_install_hint(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)  # makes `import distributed` fail
    with pytest.raises(ImportError, match=r"pip install 'dpbandit\[dask\]'"):
        make_backend(scheduler="tcp://127.0.0.1:1")


def test_sweeps_run_together_store_what_each_stores_alone(tmp_path, small_config):
    """execute_many: one backend call for several sweeps (no idle worker at a sweep's end); each cell lands in
    its own sweep's store, identical to running the sweeps one at a time; the study hears of every sweep."""
    from dpbandit.sweep import execute_many
    from dpbandit.sweep.study import StudyProgress

    grid = small_config()["grid"]
    first = Sweep.from_dict(small_config(name="a", grid={**grid, "agent": ["dphdb"]}))
    second = Sweep.from_dict(small_config(name="b", grid={
        **{k: v for k, v in grid.items() if k != "epsilon"}, "agent": ["linucb:alpha=0.5", "random"]}))
    dirs = [tmp_path / "together_a", tmp_path / "together_b"]
    execute(second, dirs[1], backend="inprocess", progress=False)  # finished already: told at once, not rerun
    before = _files(dirs[1])
    lines = []

    class Stream:
        def write(self, text):
            lines.append(text)

        def flush(self):
            pass

    study = StudyProgress([first, second], stream=Stream())
    outcomes = execute_many([first, second], dirs, backend="processes", workers=2, progress=False, study=study)
    assert [(o.name, o.computed, o.skipped, o.failures) for o in outcomes] == [
        ("a", len(first.cells), 0, {}), ("b", 0, len(second.cells), {})]
    assert _files(dirs[1]) == before and study.done_sweeps == 2
    for sweep, directory in zip([first, second], dirs):
        alone = run_sweep(sweep, tmp_path / f"alone_{sweep.name}", backend="inprocess", progress=False)
        pd.testing.assert_frame_equal(_deterministic(Store.read(directory).load()), _deterministic(alone))


def test_a_cell_two_sweeps_share_runs_once_and_is_stored_in_both(tmp_path, small_config, monkeypatch):
    import dpbandit.sweep.backends as backends
    from dpbandit.sweep import execute_many

    sweep = Sweep.from_dict(small_config(name="a"))
    twin = Sweep.from_dict(small_config(name="b"))  # the same cells under another name
    ran = []
    real = backends.execute_cell
    monkeypatch.setattr(backends, "execute_cell", lambda cell: ran.append(cell.key) or real(cell))
    outcomes = execute_many([sweep, twin], [tmp_path / "a", tmp_path / "b"], backend="inprocess", progress=False)
    assert sorted(ran) == sorted(c.key for c in sweep.cells)  # once each
    assert [o.computed for o in outcomes] == [len(sweep.cells)] * 2
    pd.testing.assert_frame_equal(Store.read(tmp_path / "a").load(), Store.read(tmp_path / "b").load())
    with pytest.raises(ValueError, match="one store_dirs entry per sweep"):
        execute_many([sweep], [tmp_path / "a", tmp_path / "b"], backend="inprocess", progress=False)
