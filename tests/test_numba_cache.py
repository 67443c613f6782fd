"""numba's cache of dpbandit's kernels goes to a per-user folder, never into the package (issue 15).

Each check runs in a fresh interpreter: numba picks a function's cache location when its module is
imported, so the environment must be set before that.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from dpbandit import _numba_cache

USER_MODULE = """
import numba

@numba.njit(cache=True)
def plus_one(x):
    return x + 1
"""

PROBE = """
import json, sys
import numba  # numba is imported (and a user function cached) before dpbandit
sys.path.insert(0, sys.argv[1])
import user_module
from dpbandit.agents.kernels import hdb, linucb
print(json.dumps({"hdb": hdb.play._cache._cache_path, "linucb": linucb.play._cache._cache_path,
                  "user": user_module.plus_one._cache._cache_path}))
"""


def _probe(tmp_path: Path, **env: str) -> dict[str, str]:
    (tmp_path / "user").mkdir(exist_ok=True)
    (tmp_path / "user" / "user_module.py").write_text(USER_MODULE)
    environ = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "DPBANDIT_CACHE_DIR")}
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "user")],
        env={**environ, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(out.stdout)


def test_kernels_cache_in_the_user_folder_and_user_functions_keep_numbas_rule(tmp_path) -> None:
    paths = _probe(tmp_path, DPBANDIT_CACHE_DIR=str(tmp_path / "cache"))
    for kernel in ("hdb", "linucb"):
        assert Path(paths[kernel]).is_relative_to(tmp_path / "cache" / "numba")
        assert not Path(paths[kernel]).is_relative_to(_numba_cache.PACKAGE_DIR)
    assert Path(paths["user"]) == tmp_path / "user" / "__pycache__"  # numba's in-tree default, untouched


def test_an_explicit_numba_cache_dir_wins(tmp_path) -> None:
    paths = _probe(
        tmp_path, NUMBA_CACHE_DIR=str(tmp_path / "numba-dir"), DPBANDIT_CACHE_DIR=str(tmp_path / "c")
    )
    assert all(Path(paths[k]).is_relative_to(tmp_path / "numba-dir") for k in ("hdb", "linucb", "user"))


def test_compiling_writes_cache_files_outside_the_package_only(tmp_path) -> None:
    code = (
        "import numpy as np; from dpbandit.agents.linear import LinUCB; "
        "LinUCB(3, 2, rng=np.random.default_rng(0)).play_block(np.ones((5, 2)), np.ones((5, 3)))"
    )
    before = set(_numba_cache.PACKAGE_DIR.rglob("*.nb[ic]"))
    environ = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    subprocess.run(
        [sys.executable, "-c", code],
        env={**environ, "DPBANDIT_CACHE_DIR": str(tmp_path)},
        check=True,
        timeout=300,
    )
    assert set(_numba_cache.PACKAGE_DIR.rglob("*.nb[ic]")) == before == set()
    assert {p.suffix for p in (tmp_path / "numba").rglob("linucb.play-*")} == {".nbi", ".nbc"}


def test_cache_dir_rules(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("DPBANDIT_CACHE_DIR", str(tmp_path / "d"))
    assert _numba_cache.cache_dir() == tmp_path / "d" / "numba"
    monkeypatch.delenv("DPBANDIT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _numba_cache.cache_dir() == tmp_path / "xdg" / "dpbandit" / "numba"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert _numba_cache.cache_dir() == Path("~/.cache/dpbandit/numba").expanduser()


def test_unusable_cache_dir_falls_back_to_the_temp_folder(tmp_path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")  # a cache folder below a file cannot be made, even by root
    paths = _probe(tmp_path, DPBANDIT_CACHE_DIR=str(blocker / "cache"))
    assert Path(paths["hdb"]).is_relative_to(_numba_cache._fallback_dir())


def test_a_kernel_cache_is_stale_when_any_compiled_dpbandit_source_changes(tmp_path) -> None:
    """DP-HDB's kernel calls topdown's compiled sampler: its cache must not outlive an edit of topdown_kernel.py."""
    from dpbandit.agents.kernels import hdb

    sources = {p.relative_to(_numba_cache.PACKAGE_DIR).as_posix() for p in _numba_cache.numba_sources()}
    assert {"agents/kernels/hdb.py", "privacy/topdown_kernel.py", "agents/kernels/ties.py"} <= sources
    # the kernel's stamp is the stamp over every compiled source, not only hdb.py's
    assert hdb.play._cache._impl.locator.get_source_stamp() == _numba_cache.sources_stamp(
        _numba_cache.numba_sources()
    )
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    before = _numba_cache.sources_stamp((a, b))
    b.write_text("y = 3\n")  # the other file changes, same size
    os.utime(b, ns=(b.stat().st_atime_ns, b.stat().st_mtime_ns + 10**9))  # a later mtime, however coarse the clock
    assert _numba_cache.sources_stamp((a, b)) != before


def test_importing_the_agents_and_the_privacy_core_does_not_load_numba() -> None:
    """numba (about 60 MB and 0.2 s) loads when a compiled path first runs, not when an agent is imported:
    the learning suite's memory probes and every short study pay for it only if they use it."""
    code = (
        "import sys\n"
        "import dpbandit.privacy, dpbandit.privacy.topdown, dpbandit.optim.pofw\n"
        "from dpbandit.agents import AGENTS, agent_class\n"
        "for name in AGENTS: agent_class(name)\n"
        "print('numba' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "False"
