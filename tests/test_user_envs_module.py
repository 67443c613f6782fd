"""A user's own ``envs.py`` does not shadow dpbandit's environments (issue 38 item 2).

dpbandit used to install a top-level ``envs`` package; in a folder that held a one-line ``envs.py`` the Quick
start and ``dpbandit run`` failed with "Unknown env_id='dpbandit/...'". The environments are now
``dpbandit.envs``. Both run here as a user would, in fresh processes whose current folder (first on
``sys.path``) holds such a file.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
USER_ENVS = "GREETING = 'a user module that happens to be called envs'\n"


def _quick_start() -> str:
    """The README's Quick start block, at a smaller horizon and seed count."""
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"## Quick start from Python\n\n```python\n(.*?)```", readme, flags=re.S).group(1)
    assert "horizon=2_000" in block and "n_seeds=5" in block
    return block.replace("horizon=2_000", "horizon=100").replace("n_seeds=5", "n_seeds=2")


def _run(args: list[str], folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=folder, capture_output=True, text=True, timeout=300)


def test_quick_start_runs_next_to_a_users_envs_py(tmp_path: Path) -> None:
    (tmp_path / "envs.py").write_text(USER_ENVS)
    (tmp_path / "quick_start.py").write_text(_quick_start())
    done = _run([sys.executable, "quick_start.py"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "LinUCB" in done.stdout and (tmp_path / "out" / "quickstart.png").exists()


def test_dpbandit_run_works_next_to_a_users_envs_py(tmp_path: Path) -> None:
    (tmp_path / "envs.py").write_text(USER_ENVS)
    cli = "import sys; from dpbandit.cli import main; sys.exit(main())"  # '' (this folder) first on sys.path
    done = _run([sys.executable, "-c", cli, "run", "--agents", "random,linucb", "--horizon", "50", "--seeds", "1",
                 "--out", "out"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "dpbandit/HDBSection54-v0" in done.stdout + done.stderr and "linucb" in done.stdout


def test_the_users_envs_py_is_what_import_envs_gives_there(tmp_path: Path) -> None:
    """The two tests above would pass vacuously if the folder's file were not importable as ``envs``."""
    (tmp_path / "envs.py").write_text(USER_ENVS)
    probe = "import dpbandit, envs, gymnasium; print(envs.GREETING); print(gymnasium.spec('dpbandit/Digits-v0').id)"
    done = _run([sys.executable, "-c", probe], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["a user module that happens to be called envs", "dpbandit/Digits-v0"]
