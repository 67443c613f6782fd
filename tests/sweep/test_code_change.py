"""A store remembers the code that computed its cells: resuming it with other dpbandit code is refused before any
cell runs, unless allowed (then warned and recorded); the code fingerprint follows the package's source files."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import dpbandit
from dpbandit.cli import main
from dpbandit.sweep import Store, StoreError, Sweep, execute, execute_many, run_sweep
from dpbandit.sweep.fingerprint import Fingerprint, code_fingerprint, differences

CONFIG = {
    "name": "code",
    "seeds": 3,
    "n_points": 5,
    "grid": {"agent": ["random"], "env_id": "dpbandit/LinearBandit-v0", "horizon": 50},
}
"""3 tiny cells."""


def _other_code(*changed: str) -> Fingerprint:
    """The current fingerprint with ``changed`` files edited (another digest)."""
    current = code_fingerprint()
    return Fingerprint("f" * 64, {**current.files, **{name: "0" * 12 for name in changed}})


@pytest.fixture
def interrupted(tmp_path):
    """A store of :data:`CONFIG` with two of its three cells finished: (sweep, store directory)."""
    sweep = Sweep.from_dict(CONFIG)
    store_dir = tmp_path / "store"
    run_sweep(sweep, store_dir, backend="inprocess", progress=False)
    Store.read(store_dir).cell_path(sweep.cells[-1].key).unlink()
    return sweep, store_dir


@pytest.fixture
def ran(monkeypatch):
    """Keys of the cells run from now on."""
    import dpbandit.sweep.backends as backends

    keys = []
    real = backends.execute_cell
    monkeypatch.setattr(backends, "execute_cell", lambda cell: keys.append(cell.key) or real(cell))
    return keys


def _manifest(store_dir: Path) -> dict:
    return json.loads((store_dir / "manifest.json").read_text())


def test_a_new_store_records_the_code_fingerprint(interrupted):
    _, store_dir = interrupted
    manifest = _manifest(store_dir)
    assert manifest["code_digest"] == code_fingerprint().digest
    assert manifest["code_files"] == code_fingerprint().files and "sweep/store.py" in manifest["code_files"]
    assert "resumed_with_code" not in manifest


def test_resuming_after_a_code_change_is_refused_before_any_cell_runs(interrupted, ran, monkeypatch):
    sweep, store_dir = interrupted
    before = (store_dir / "manifest.json").read_bytes()
    monkeypatch.setattr("dpbandit.sweep.store.code_fingerprint", lambda: _other_code("agents/uniform.py"))
    with pytest.raises(StoreError) as exc:
        execute(sweep, store_dir, backend="inprocess", progress=False)
    message = str(exc.value)
    assert "its 2 finished cells were computed by other dpbandit code" in message
    assert "files: dpbandit/agents/uniform.py (changed))" in message
    assert "another output directory" in message and "delete this one" in message
    assert "allow_code_change=True" in message and "--allow-code-change" in message
    assert ran == [] and len(Store.read(store_dir).finished()) == 2
    assert (store_dir / "manifest.json").read_bytes() == before
    monkeypatch.undo()
    Store.open(store_dir, sweep).close()  # the lock was released, and the unchanged code still resumes


def test_the_refusal_names_five_files_at_most(interrupted, monkeypatch):
    sweep, store_dir = interrupted
    fake = _other_code("agents/uniform.py", "agents/linear.py", "envs/new.py")
    del fake.files["sweep/grid.py"]
    fake.files.update({"a.py": "1" * 12, "b.py": "2" * 12, "c.py": "3" * 12})
    monkeypatch.setattr("dpbandit.sweep.store.code_fingerprint", lambda: fake)
    expected = ("files: dpbandit/a.py (added), dpbandit/agents/linear.py (changed), dpbandit/agents/uniform.py "
                "(changed), dpbandit/b.py (added), dpbandit/c.py (added) and 2 more)")
    with pytest.raises(StoreError) as exc:
        Store.open(store_dir, sweep)
    assert str(exc.value).startswith(f"{store_dir}: its 2 finished cells") and expected in str(exc.value)


def test_allow_code_change_resumes_warns_and_records_it(interrupted, ran, monkeypatch):
    sweep, store_dir = interrupted
    original = _manifest(store_dir)["code_digest"]
    fake = _other_code("agents/uniform.py")
    monkeypatch.setattr("dpbandit.sweep.store.code_fingerprint", lambda: fake)
    with pytest.warns(UserWarning, match=r"resuming although its 2 finished cells .*agents/uniform.py \(changed\)"):
        outcome = execute(sweep, store_dir, backend="inprocess", progress=False, allow_code_change=True)
    assert (outcome.skipped, outcome.computed) == (2, 1) and ran == [sweep.cells[-1].key]
    manifest = _manifest(store_dir)
    assert manifest["code_digest"] == original  # the store's own code stays the one that created it
    (resumed,) = manifest["resumed_with_code"]
    assert resumed["code_digest"] == fake.digest and resumed["changed"] == ["agents/uniform.py (changed)"]
    assert resumed["time"].endswith("+00:00")
    assert len(Store.read(store_dir).load()["cell"].unique()) == 3  # read as ever: report never refuses


def test_a_store_that_predates_code_fingerprints_is_refused(interrupted, ran):
    sweep, store_dir = interrupted
    manifest = _manifest(store_dir)
    for key in ("code_digest", "code_files"):
        del manifest[key]
    (store_dir / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(StoreError, match=r"finished cells predate code fingerprints .*--allow-code-change"):
        execute(sweep, store_dir, backend="inprocess", progress=False)
    assert ran == []
    with pytest.warns(UserWarning, match="predate code fingerprints"):
        Store.open(store_dir, sweep, allow_code_change=True).close()
    assert _manifest(store_dir)["resumed_with_code"][0]["changed"] is None


@pytest.mark.parametrize("old", ["other code", "no code digest"])
def test_a_store_without_finished_cells_is_stamped_with_the_current_code(tmp_path, monkeypatch, old):
    sweep = Sweep.from_dict(CONFIG)
    store_dir = tmp_path / "empty"
    monkeypatch.setattr("dpbandit.sweep.store.code_fingerprint", lambda: _other_code("agents/uniform.py"))
    Store.open(store_dir, sweep).close()
    monkeypatch.undo()
    if old == "no code digest":
        manifest = _manifest(store_dir)
        del manifest["code_digest"], manifest["code_files"]
        (store_dir / "manifest.json").write_text(json.dumps(manifest))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Store.open(store_dir, sweep).close()
    manifest = _manifest(store_dir)
    assert (manifest["code_digest"], manifest["code_files"]) == code_fingerprint()
    assert "resumed_with_code" not in manifest


def test_the_cli_flag_reaches_the_store(interrupted, ran, monkeypatch, capsys, write_yaml, tmp_path):
    sweep, store_dir = interrupted
    path = write_yaml(tmp_path / "code.yaml", CONFIG)
    monkeypatch.setattr("dpbandit.sweep.store.code_fingerprint", lambda: _other_code("agents/uniform.py"))
    command = ["sweep", str(path), "--out", str(store_dir), "--backend", "inprocess", "--no-progress"]
    with pytest.raises(SystemExit) as exc:
        main(command)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "dpbandit: error:" in err and "agents/uniform.py (changed)" in err and "--allow-code-change" in err
    assert ran == []
    assert main([*command, "--allow-code-change"]) == 0
    captured = capsys.readouterr()
    assert "dpbandit: warning:" in captured.err and "resuming although its 2 finished cells" in captured.err
    assert "1 computed now, 2 already done" in captured.out and ran == [sweep.cells[-1].key]
    assert len(_manifest(store_dir)["resumed_with_code"]) == 1


def test_a_dry_run_says_that_resuming_would_be_refused(interrupted, ran, monkeypatch, capsys, write_yaml,
                                                       tmp_path):
    sweep, store_dir = interrupted
    path = write_yaml(tmp_path / "code.yaml", CONFIG)
    command = ["sweep", str(path), "--out", str(store_dir), "--dry-run"]
    assert main(command) == 0
    assert "refused" not in capsys.readouterr().out  # the same code: nothing to say
    monkeypatch.setattr("dpbandit.sweep.store.code_fingerprint", lambda: _other_code("agents/uniform.py"))
    assert main(command) == 0
    out = capsys.readouterr().out
    assert "3 cells (2 finished)" in out and "resuming would be refused: its 2 finished cells" in out
    assert "agents/uniform.py (changed)" in out and "--allow-code-change" in out
    assert main([*command, "--allow-code-change"]) == 0
    assert "refused" not in capsys.readouterr().out
    assert ran == [] and "resumed_with_code" not in _manifest(store_dir)  # read-only


def test_the_fingerprint_follows_the_source_files(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "a.py").write_text("A = 1\n")
    (package / "sub" / "b.py").write_text("B = 2\n")
    (package / "data.txt").write_text("not code")
    first = code_fingerprint(package)
    assert set(first.files) == {"a.py", "sub/b.py"} and len(first.digest) == 64
    assert code_fingerprint(package) == first
    (package / "data.txt").write_text("still not code")
    assert code_fingerprint(package) == first
    (package / "sub" / "b.py").write_text("B = 3\n")
    edited = code_fingerprint(package)
    assert edited.digest != first.digest and differences(first.files, edited.files) == ["sub/b.py (changed)"]
    (package / "sub" / "b.py").rename(package / "c.py")
    moved = code_fingerprint(package)
    assert moved.digest != edited.digest
    assert differences(edited.files, moved.files) == ["c.py (added)", "sub/b.py (removed)"]
    with pytest.raises(ValueError, match="root"):
        code_fingerprint(tmp_path / "missing")


def test_the_installed_fingerprint_is_the_package_directory_computed_once():
    assert code_fingerprint() is code_fingerprint()
    assert code_fingerprint() == code_fingerprint(Path(dpbandit.__file__).parent)


def test_a_study_lists_every_refusing_store_in_one_error_before_any_cell_runs(tmp_path, ran, monkeypatch):
    sweeps = [Sweep.from_dict({**CONFIG, "name": f"code{i}", "root_seed": i}) for i in range(3)]
    dirs = [tmp_path / f"store{i}" for i in range(3)]
    for sweep, store_dir in zip(sweeps[:2], dirs[:2]):  # two stores with finished cells; the third is new
        run_sweep(sweep, store_dir, backend="inprocess", progress=False)
        Store.read(store_dir).cell_path(sweep.cells[-1].key).unlink()
    ran.clear()
    monkeypatch.setattr("dpbandit.sweep.store.code_fingerprint", lambda: _other_code("agents/uniform.py"))
    with pytest.raises(StoreError) as exc:
        execute_many(sweeps, dirs, backend="inprocess", progress=False)
    message = str(exc.value)
    assert message.startswith("2 of 3 stores hold finished cells of other dpbandit code")
    assert f"  {dirs[0]}: 2 finished cells" in message and f"  {dirs[1]}: 2 finished cells" in message
    assert message.count("files: dpbandit/agents/uniform.py (changed)") == 2 and str(dirs[2]) not in message
    assert message.count("allow_code_change=True") == 1 and message.count("--allow-code-change") == 1
    assert "other output directories" in message and "delete these stores" in message
    assert ran == [] and [len(Store.read(d).finished()) for d in dirs[:2]] == [2, 2]
    with pytest.warns(UserWarning, match="resuming although"):  # every lock was released: the study proceeds
        outcomes = execute_many(sweeps, dirs, backend="inprocess", progress=False, allow_code_change=True)
    assert [(o.skipped, o.computed) for o in outcomes] == [(2, 1), (2, 1), (0, 3)] and len(ran) == 5


def test_a_study_names_ten_refusing_stores_then_counts_the_rest(tmp_path, monkeypatch):
    from dpbandit.sweep.store import CodeChangeError, code_change_refusal

    refused = [CodeChangeError(tmp_path / f"s{i}", 1, None if i == 0 else "a" * 64, "b" * 64,
                               None if i == 0 else ["x.py (changed)"]) for i in range(12)]
    message = str(code_change_refusal(refused, 200))
    assert message.startswith("12 of 200 stores hold finished cells of other dpbandit code (now code digest")
    assert f"  {tmp_path / 's0'}: 1 finished cells, predate code fingerprints\n" in message
    ninth = f"  {tmp_path / 's9'}: 1 finished cells, code digest aaaaaaaaaaaa, files: dpbandit/x.py (changed)"
    assert ninth + "\n" in message
    assert str(tmp_path / "s10") not in message and "\n  and 2 more\n" in message
