"""A fingerprint of the code that computes sweep cells: SHA-256 over the ``dpbandit`` package's ``*.py``.

A store records the fingerprint of the code that created it (:mod:`dpbandit.sweep.store`), so that resuming
it after the code changed is refused instead of silently mixing cells of two codes. The per-file digests
let the refusal name the files that changed.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import NamedTuple

import dpbandit

__all__ = ["Fingerprint", "code_fingerprint", "differences"]

#: Hex digits of a file's digest kept in :attr:`Fingerprint.files` (enough to tell versions of a file apart).
SHORT = 12


class Fingerprint(NamedTuple):
    """``digest``: SHA-256 (hex) over each ``*.py`` file of a package, in order of relative path: the path and
    the SHA-256 of the contents;
    ``files``: relative path (POSIX) -> first :data:`SHORT` hex digits of that file's SHA-256."""

    digest: str
    files: dict[str, str]


def code_fingerprint(root: str | Path | None = None) -> Fingerprint:
    """The fingerprint of the ``*.py`` files under ``root`` (default: the imported ``dpbandit`` package,
    computed once per process)."""
    if root is None:
        return _installed()
    return _fingerprint(Path(root))


@functools.cache
def _installed() -> Fingerprint:
    return _fingerprint(Path(dpbandit.__file__).resolve().parent)


def _fingerprint(root: Path) -> Fingerprint:
    if not root.is_dir():
        raise ValueError(f"Expected root to be a package directory, got {str(root)!r}.")
    total = hashlib.sha256()
    files = {}
    for path in sorted(root.rglob("*.py"), key=lambda p: p.relative_to(root).as_posix()):
        name = path.relative_to(root).as_posix()
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        total.update(f"{name}\0{digest}\n".encode())
        files[name] = digest[:SHORT]
    return Fingerprint(total.hexdigest(), files)


def differences(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """The files that differ between two :attr:`Fingerprint.files` maps, each as ``"<path> (changed)"``,
    ``"(added)"`` or ``"(removed)"``, in path order."""
    names = sorted(old.keys() | new.keys())
    return [
        f"{name} ({'added' if name not in old else 'removed' if name not in new else 'changed'})"
        for name in names
        if old.get(name) != new.get(name)
    ]
