"""Must-show 2: SIGKILL a local sweep part-way, re-run it: nothing finished is recomputed or lost."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from dpbandit.cli import main
from dpbandit.sweep import Store, run_sweep

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs POSIX signals and /proc")

CONFIG = {
    "name": "kill",
    "seeds": 6,
    "n_points": 20,
    "grid": {"agent": ["linucb", "linucb:alpha=0.5"], "env_id": "dpbandit/LinearBandit-v0", "horizon": 100_000},
}
"""12 cells of about 0.2 s each (LinUCB on the harness fast path)."""


def _files(store_dir: Path) -> dict[str, tuple[int, int]]:
    """cell file name -> (inode, mtime_ns): rewriting a file (atomic rename) changes its inode."""
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (store_dir / "cells").glob("*.parquet")}


def _alive_in_group(pgid: int) -> list[int]:
    """Live (non-zombie) processes of process group ``pgid``."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(stat.parent.name))
    return alive


def _wait_for(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {seconds} s waiting for {what}")
        time.sleep(0.005)


def test_sigkill_then_resume_recomputes_nothing_and_loses_nothing(tmp_path, write_yaml, capsys):
    config = write_yaml(tmp_path / "kill.yaml", CONFIG)
    out = tmp_path / "store"
    command = [sys.executable, "-m", "dpbandit.cli", "sweep", str(config), "--out", str(out),
               "--workers", "2", "--no-progress"]
    with open(tmp_path / "stderr.txt", "w") as stderr:
        proc = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=stderr,
                                start_new_session=True)
    try:
        cells = out / "cells"
        _wait_for(lambda: proc.poll() is not None or len(list(cells.glob("*.parquet"))) >= 2, 120, "2 cells")
        os.kill(proc.pid, signal.SIGKILL)  # the driver only, as the OOM killer would
        assert proc.wait() == -signal.SIGKILL, (tmp_path / "stderr.txt").read_text()  # killed part-way
        # orphaned workers notice that the driver died and exit on their own
        _wait_for(lambda: not _alive_in_group(proc.pid), 30, "the orphaned workers to exit")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    killed = _files(out)
    assert 2 <= len(killed) < 12, len(killed)
    for name in killed:  # every stored cell is complete (atomic rename)
        assert len(pd.read_parquet(cells / name)) > 0

    code = main(["sweep", str(config), "--out", str(out), "--workers", "2", "--no-progress"])
    assert code == 0
    assert f"{12 - len(killed)} computed now, {len(killed)} already done, 0 failed" in capsys.readouterr().out
    resumed = _files(out)
    assert {name: resumed[name] for name in killed} == killed  # same inode and mtime: not recomputed
    assert len(resumed) == 12 and not list(cells.glob(".*.tmp"))

    uninterrupted = run_sweep(config, tmp_path / "reference", backend="inprocess", progress=False)
    assert set(_files(tmp_path / "reference")) == set(resumed)
    columns = [c for c in uninterrupted.columns if c not in ("wall_time", "compile_time")]
    pd.testing.assert_frame_equal(Store.read(out).load()[columns], uninterrupted[columns])
