"""Where numba caches dpbandit's compiled kernels: a per-user cache directory, never the package folder.

``numba.njit(cache=True)`` writes ``.nbi`` / ``.nbc`` files next to the source by default, i.e. into
the installed package in site-packages. A later ``pip install -e`` uninstalls the wheel but leaves
that folder behind, where it shadows the editable package as a namespace package (issue 15). So
dpbandit sends the cache of every ``cache=True`` function *whose source file lies inside the
dpbandit package* to

1. ``$DPBANDIT_CACHE_DIR/numba`` if ``DPBANDIT_CACHE_DIR`` is set, else
2. ``$XDG_CACHE_HOME/dpbandit/numba`` (``XDG_CACHE_HOME`` defaults to ``~/.cache``) [O] XDG base
   directory specification, else, if that is not writable,
3. ``<tempdir>/dpbandit-<user>/numba``.

A user's explicit ``NUMBA_CACHE_DIR`` (``numba.config.CACHE_DIR``) still wins, as numba documents.
Nothing changes for numba functions outside dpbandit: the locator declines them and numba's own
rules apply. :func:`install` must run before a kernel module is imported (numba picks a function's
cache location when ``njit(cache=True)`` decorates it); :mod:`dpbandit.agents.kernels` calls it in
its ``__init__``, so every kernel module under it is covered whether or not numba was imported
before. Compiled code elsewhere in dpbandit calls :func:`install` before its decorators run.

A cached kernel is valid only while *every* dpbandit source file with compiled code is unchanged, not only its
own: numba's default stamp is the function's own file, so a kernel calling a compiled function of another
module (DP-HDB's kernel calls :func:`dpbandit.privacy.topdown_kernel.noisy_argmin_topdown`, every kernel
:mod:`dpbandit.agents.kernels.ties`) would keep running the other module's old code after an edit. The stamp of
dpbandit's locator is therefore the SHA-256 of all those files' contents (:func:`numba_sources`).
"""

from __future__ import annotations

import functools
import getpass
import hashlib
import os
import tempfile
from pathlib import Path

__all__ = ["PACKAGE_DIR", "cache_dir", "install", "numba_sources", "sources_stamp"]

#: The installed (or editable) dpbandit package folder: no cache file is ever written below it.
PACKAGE_DIR = Path(__file__).resolve().parent


@functools.lru_cache(maxsize=1)
def numba_sources() -> tuple[Path, ...]:
    """The package's source files that define compiled (``numba.njit``) functions, sorted."""
    return tuple(sorted(p for p in PACKAGE_DIR.rglob("*.py") if "numba.njit(" in p.read_text(encoding="utf-8")))


def sources_stamp(paths: tuple[Path, ...]) -> bytes:
    """SHA-256 over the contents of ``paths`` (in order): changes when any of them changes. The files are read
    once per (path, modification time, size), not once per compiled function."""
    return _contents_digest(tuple((str(p), (st := p.stat()).st_mtime_ns, st.st_size) for p in paths))


@functools.lru_cache(maxsize=8)
def _contents_digest(keys: tuple[tuple[str, int, int], ...]) -> bytes:
    digest = hashlib.sha256()
    for path, _, _ in keys:
        digest.update(Path(path).read_bytes())
    return digest.digest()


def cache_dir() -> Path:
    """The preferred numba cache folder of dpbandit (rules 1-2 of the module docstring)."""
    root = os.environ.get("DPBANDIT_CACHE_DIR")
    if root:
        return Path(root).expanduser() / "numba"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path("~/.cache").expanduser())
    return Path(xdg) / "dpbandit" / "numba"


def _fallback_dir() -> Path:
    """Rule 3: a per-user folder in the system temporary directory."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no user name (e.g. a container without a passwd entry)
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    return Path(tempfile.gettempdir()) / f"dpbandit-{user}" / "numba"


def _inside_package(py_file: str) -> bool:
    try:
        return Path(py_file).resolve().is_relative_to(PACKAGE_DIR)
    except OSError:
        return False


def _locator_class() -> type:
    """A numba cache locator for dpbandit's own source files (built lazily: numba imports in ~0.3 s)."""
    from numba.core import caching, config

    class DpbanditCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        """Cache files of dpbandit functions in :func:`cache_dir` (or the per-user temp fallback)."""

        def __init__(self, py_func, py_file: str, root: Path) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = str(root / self.get_suitable_cache_subpath(py_file))

        def get_cache_path(self) -> str:
            return self._cache_path

        def get_source_stamp(self) -> bytes:
            """Every compiled dpbandit source, not only this function's file (module docstring)."""
            return sources_stamp(numba_sources())

        @classmethod
        def from_function(cls, py_func, py_file: str):
            if config.CACHE_DIR or not os.path.exists(py_file) or not _inside_package(py_file):
                return None  # the user's NUMBA_CACHE_DIR, or not ours: numba's own rules
            for root in (cache_dir(), _fallback_dir()):
                locator = cls(py_func, py_file, root)
                try:
                    locator.ensure_cache_path()
                except OSError:
                    continue
                return locator
            return None

    return DpbanditCacheLocator


def install() -> None:
    """Put dpbandit's locator first in numba's locator list (idempotent)."""
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # public name since numba 0.61
    if not any(getattr(c, "__name__", "") == "DpbanditCacheLocator" for c in impl._locator_classes):
        impl._locator_classes.insert(0, _locator_class())
