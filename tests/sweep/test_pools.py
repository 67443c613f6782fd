"""The kept worker pools are stopped at exit while the interpreter is whole: no ignored error at teardown."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import dpbandit

SCRIPT = textwrap.dedent(
    """
    import atexit
    import concurrent.futures.process as process


    def teardown():  # registered first, so it runs after the hooks registered later: as the modules' teardown
        import dpbandit.sweep.backends as backends

        print("pools at teardown:", len(backends._POOLS), flush=True)
        process.mp = None  # what clearing concurrent.futures.process does
        backends._POOLS.clear()


    if __name__ == "__main__":
        atexit.register(teardown)
        from dpbandit.sweep.backends import _pool

        print(_pool(1).submit(abs, -3).result(), flush=True)
    """
)


def test_the_kept_pools_are_shut_down_at_exit(tmp_path):
    script = tmp_path / "pools.py"
    script.write_text(SCRIPT)
    package_parent = str(Path(dpbandit.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([package_parent, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["3", "pools", "at", "teardown:", "0"]
    assert "Exception ignored" not in done.stderr
    assert "'NoneType' object has no attribute 'util'" not in done.stderr
