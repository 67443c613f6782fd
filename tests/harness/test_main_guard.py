"""``run(..., n_jobs=2)`` from a script file run as a user would (``python script.py``, issue 38 item 3):
worker processes start with ``spawn`` and re-import the script, so without ``if __name__ == "__main__":``
the job stops at once with one line naming the guard (before: the script ran three times, 165 lines of
tracebacks, a ``BrokenProcessPool``); with the guard the runs play on the workers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IMPORTS = """\
from dpbandit.agents.uniform import RandomAgent
from dpbandit.harness import run
"""
CALL = (
    'frame = run("dpbandit/LinearBandit-v0", {"random": RandomAgent}, n_seeds=2, horizon=50, n_jobs=2, '
    "progress=False)"
)


def _python(script: str, folder: Path) -> subprocess.CompletedProcess:
    (folder / "script.py").write_text(script)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "script.py"], cwd=folder, env=env, capture_output=True, text=True, timeout=600
    )


def test_an_unguarded_script_stops_at_once_naming_the_guard(tmp_path):
    done = _python(IMPORTS + "print('started')\n" + CALL + "\n", tmp_path)
    assert done.returncode == 1
    assert done.stdout == "started\n"  # the script ran once: no worker re-ran it
    last = done.stderr.strip().splitlines()[-1]
    assert last == (
        "RuntimeError: run(n_jobs=2) starts worker processes, which re-import script.py: put the script's "
        'work under `if __name__ == "__main__":` (line 4 is outside it), or use n_jobs=1.'
    )
    assert done.stderr.count("Traceback") == 1 and "BrokenProcessPool" not in done.stderr


def test_an_unguarded_call_through_a_function_is_found_too(tmp_path):
    script = IMPORTS + "\n\ndef main():\n    " + CALL + "\n\n\nmain()\n"
    done = _python(script, tmp_path)
    assert done.returncode == 1 and "(line 9 is outside it)" in done.stderr


def test_a_guarded_script_plays_on_two_workers(tmp_path):
    report = 'print(int(frame["step"].max()), frame["seed"].nunique())'
    script = IMPORTS + '\nif __name__ == "__main__":\n    ' + CALL + "\n    " + report + "\n"
    done = _python(script, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["50", "2"]


def test_an_unguarded_sweep_on_worker_processes_stops_at_once(tmp_path):
    script = (
        "from dpbandit.sweep import run_sweep\n"
        "config = {'name': 'g', 'seeds': 1, 'grid': {'agent': 'random', 'env_id': 'dpbandit/LinearBandit-v0',"
        " 'horizon': 20}}\n"
        "run_sweep(config, 'store', backend='processes', workers=2, progress=False)\n"
    )
    done = _python(script, tmp_path)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.endswith('(line 3 is outside it), or use backend="inprocess".')
