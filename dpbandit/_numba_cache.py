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
"""

from __future__ import annotations

import getpass
import os
import tempfile
from pathlib import Path

__all__ = ["PACKAGE_DIR", "cache_dir", "install"]

#: The installed (or editable) dpbandit package folder: no cache file is ever written below it.
PACKAGE_DIR = Path(__file__).resolve().parent


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
