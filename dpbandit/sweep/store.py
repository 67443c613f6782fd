"""The sweep store: one parquet file per finished cell, a manifest, and failure records.

Layout of a store directory::

    manifest.json            format, sweep name, config hash, dpbandit version, code fingerprint (digest
                             and per-file digests), root seed, seeds, the normalised config and every
                             cell's parameters (key -> params); resumes with other code (if allowed)
    cells/<key>.parquet      the tidy rows of one finished cell
    failures/<key>.json      traceback of a cell that raised (removed when the cell later succeeds)
    .lock                    held (``fcntl.flock``) by the one process running the sweep

Every file is written to a temporary name in the same directory, flushed to disk and renamed over
its final name (``os.replace`` is atomic on POSIX), so a sweep killed at any instant leaves each
cell either absent or complete. Only the driver process writes; workers return their results.

A store is keyed by its sweep's config *and* the code that computes its cells
(:func:`dpbandit.sweep.fingerprint.code_fingerprint`): resuming finished cells with other ``dpbandit``
code is refused unless allowed (``allow_code_change``), so cells of two codes are never mixed unknowingly.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import socket
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pandas as pd

import dpbandit
from dpbandit.sweep.config import Sweep
from dpbandit.sweep.fingerprint import code_fingerprint, differences
from dpbandit.sweep.grid import Cell

try:  # POSIX advisory locks; released by the kernel when the holder dies (even by SIGKILL)
    import fcntl
except ImportError:  # pragma: no cover  (Windows: no lock, one sweep per store is up to the user)
    fcntl = None  # type: ignore[assignment]

__all__ = ["FORMAT", "CodeChangeError", "Store", "StoreError"]

FORMAT = 1
MANIFEST = "manifest.json"


class StoreError(ValueError):
    """The directory is not a store of this sweep (changed config or code, foreign files, or busy)."""


class CodeChangeError(StoreError):
    """The store's finished cells were computed by other ``dpbandit`` code (or predate code fingerprints).

    ``root``: the store; ``done``: its finished cells; ``recorded``: the code digest in its manifest (``None``
    if none); ``current``: this code's digest; ``changed``: the differing files (``None`` if not known)."""

    def __init__(
        self, root: Path, done: int, recorded: str | None, current: str, changed: list[str] | None
    ) -> None:
        self.root, self.done, self.recorded = root, done, recorded
        self.current, self.changed = current, changed
        #: What the finished cells were computed by, as the messages say it.
        self.provenance = f"its {done} finished cells {_provenance(recorded, current, changed)}"
        super().__init__(
            f"{root}: {self.provenance}. Resuming would "
            "mix them with cells of this code: use another output directory, delete this one, or resume "
            "anyway with allow_code_change=True (dpbandit sweep --allow-code-change), in which case the "
            "resumed cells may differ from the finished ones."
        )


#: Refusing stores named one by one in :func:`code_change_refusal`; the rest are counted.
SHOWN_STORES = 10


def code_change_refusal(refused: list[CodeChangeError], total: int) -> StoreError:
    """One error for several stores of a study that refuse to resume with this code (:class:`CodeChangeError`
    each): every store's directory and changed files (the first :data:`SHOWN_STORES` stores, then a count),
    and the choices once."""
    lines = [
        f"{len(refused)} of {total} stores hold finished cells of other dpbandit code (now code digest "
        f"{refused[0].current[:12]}); resuming would mix them with cells of this code. Nothing ran."
    ]
    for err in refused[:SHOWN_STORES]:
        if err.recorded is None:
            what = "predate code fingerprints"
        else:
            what = f"code digest {err.recorded[:12]}, files: {_named(err.changed) or 'not recorded'}"
        lines.append(f"  {err.root}: {err.done} finished cells, {what}")
    if len(refused) > SHOWN_STORES:
        lines.append(f"  and {len(refused) - SHOWN_STORES} more")
    lines.append(
        "Use other output directories, delete these stores, or resume anyway with allow_code_change=True "
        "(dpbandit sweep --allow-code-change), in which case the resumed cells may differ from the finished "
        "ones."
    )
    return StoreError("\n".join(lines))


@contextlib.contextmanager
def _atomic(path: Path, mode: str = "wb") -> Iterator[IO[Any]]:
    """Open a temporary sibling of ``path`` for writing; on success fsync and rename it to ``path``."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, mode) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _write_json(path: Path, value: Any) -> None:
    with _atomic(path, "w") as handle:
        json.dump(value, handle, indent=1, sort_keys=False)


class Store:
    """A sweep's result directory. Open with :meth:`open` (to run) or :meth:`read` (to report)."""

    def __init__(self, root: Path, manifest: dict[str, Any]) -> None:
        self.root = root
        self.manifest = manifest
        self.cells_dir = root / "cells"
        self.failures_dir = root / "failures"
        self._lock: IO[Any] | None = None

    # -- opening -----------------------------------------------------------------------------
    @classmethod
    def open(cls, root: str | Path, sweep: Sweep, *, allow_code_change: bool = False) -> Store:
        """Create the store for ``sweep`` or reopen it to resume; lock it for this process.

        A store whose finished cells were computed by other ``dpbandit`` code (another code fingerprint, or
        none recorded) is refused, unless ``allow_code_change``: then it resumes with a warning and the
        manifest records the resume under ``resumed_with_code``. A store without finished cells is simply
        stamped with the current code.

        Raises:
            StoreError: ``root`` holds another sweep (the message lists what changed), finished cells of
                other code (the message names changed files), files that are not a store, or is locked
                by a running sweep.
        """
        root = Path(root)
        manifest_path = root / MANIFEST
        if not manifest_path.exists() and root.exists() and any(p.name != ".lock" for p in root.iterdir()):
            raise StoreError(f"{root} is not empty and has no {MANIFEST}: not a sweep store; choose another directory.")
        root.mkdir(parents=True, exist_ok=True)
        store = cls(root, {})
        store._acquire()
        try:
            if manifest_path.exists():
                store.manifest = json.loads(manifest_path.read_text())
                store._check(sweep)
                store._check_code(allow_code_change)
            else:
                store.manifest = _manifest(sweep)
                _write_json(manifest_path, store.manifest)
            for folder in (store.cells_dir, store.failures_dir):
                folder.mkdir(exist_ok=True)
                for leftover in folder.glob(".*.tmp"):  # from a killed writer; we hold the lock
                    leftover.unlink()
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def read(cls, root: str | Path) -> Store:
        """Open an existing store read-only (no lock), e.g. to report on it while it runs."""
        root = Path(root)
        path = root / MANIFEST
        if not path.exists():
            raise StoreError(f"{root} has no {MANIFEST}: not a sweep store.")
        return cls(root, json.loads(path.read_text()))

    def _acquire(self) -> None:
        if fcntl is None:  # pragma: no cover
            return
        self._lock = open(self.root / ".lock", "w")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.close()
            raise StoreError(f"{self.root} is in use by another running sweep.") from None

    def _check(self, sweep: Sweep) -> None:
        old = self.manifest
        if old.get("format") != FORMAT:
            raise StoreError(f"{self.root}: store format {old.get('format')!r} is not {FORMAT}.")
        if old["config_hash"] != sweep.config_hash:
            changed = _changed(old["config"], sweep.config)
            raise StoreError(
                f"{self.root} holds results of a different sweep config (hash {old['config_hash'][:12]}, now "
                f"{sweep.config_hash[:12]}; changed: {', '.join(changed) or 'the cells'}). Finished cells are never "
                "mixed across configs: use another output directory (without --out, each config gets its own "
                "directory out/sweeps/<name>-<hash>), or delete this one."
            )

    def code_provenance(self) -> str | None:
        """Why resuming this store with the running code would be refused (its finished cells were computed by
        other ``dpbandit`` code, or predate code fingerprints), or ``None`` if it would not (read-only: for
        ``dpbandit sweep --dry-run``)."""
        refusal = self._code_change()
        return None if refusal is None else refusal.provenance

    def _code_change(self) -> CodeChangeError | None:
        """The refusal to resume this store's finished cells with the running code, or ``None`` (the same code,
        or nothing finished)."""
        current = code_fingerprint()
        recorded = self.manifest.get("code_digest")
        if recorded == current.digest:
            return None
        done = len(self.finished())
        if not done:
            return None
        files = self.manifest.get("code_files", {})
        changed = None if recorded is None else differences(files, current.files)
        return CodeChangeError(self.root, done, recorded, current.digest, changed)

    def _check_code(self, allow_code_change: bool) -> None:
        """Refuse (or, if allowed, warn about and record) resuming finished cells with other code."""
        current = code_fingerprint()
        if self.manifest.get("code_digest") == current.digest:
            return
        refusal = self._code_change()
        if refusal is None:  # nothing finished, nothing to mix: the store is this code's now
            self.manifest.update(  # a copy: the manifest never shares the cached fingerprint's dict
                dpbandit_version=dpbandit.__version__,
                code_digest=current.digest,
                code_files=dict(current.files),
            )
            _write_json(self.root / MANIFEST, self.manifest)
            return
        if not allow_code_change:
            raise refusal
        warnings.warn(
            f"{self.root}: resuming although {refusal.provenance}; the resumed cells may differ from the "
            f"finished ones (recorded in {MANIFEST} under resumed_with_code).",
            UserWarning,
            stacklevel=3,
        )
        resumed = {"code_digest": current.digest, "time": _now(), "changed": refusal.changed}
        self.manifest.setdefault("resumed_with_code", []).append(resumed)
        _write_json(self.root / MANIFEST, self.manifest)

    def close(self) -> None:
        """Release the lock (idempotent)."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- contents ----------------------------------------------------------------------------
    def cells(self) -> list[Cell]:
        """All cells of the sweep, in the sweep's order."""
        return [Cell.from_params(params) for params in self.manifest["cells"].values()]

    def cell_path(self, key: str) -> Path:
        """The result file of cell ``key`` (it exists once the cell has finished)."""
        return self.cells_dir / f"{key}.parquet"

    def finished(self) -> set[str]:
        """Keys of the finished cells."""
        known = self.manifest["cells"]
        return {p.stem for p in self.cells_dir.glob("*.parquet") if p.stem in known}

    def failures(self) -> dict[str, dict[str, Any]]:
        """Failure records (key -> record with ``description``, ``error``, ``traceback``, ``host``, ``time``)."""
        return {p.stem: json.loads(p.read_text()) for p in sorted(self.failures_dir.glob("*.json"))}

    def save_result(self, key: str, frame: pd.DataFrame) -> None:
        """Store a finished cell atomically and drop any earlier failure record of it."""
        with _atomic(self.cell_path(key)) as handle:
            frame.to_parquet(handle, index=False)
        (self.failures_dir / f"{key}.json").unlink(missing_ok=True)

    def save_failure(self, cell: Cell, traceback: str) -> None:
        """Record that ``cell`` raised (its formatted traceback); the sweep goes on."""
        lines = traceback.strip().splitlines()
        record = {
            "description": cell.describe(),
            "params": cell.params(),
            "error": lines[-1] if lines else "",
            "traceback": traceback,
            "host": socket.gethostname(),
            "time": _now(),
        }
        _write_json(self.failures_dir / f"{cell.key}.json", record)

    def load(self, keys: list[str] | None = None) -> pd.DataFrame:
        """The tidy rows of the finished cells (of ``keys``, default all), in the sweep's order."""
        done = self.finished()
        order = [k for k in (keys if keys is not None else self.manifest["cells"]) if k in done]
        frames = [pd.read_parquet(self.cell_path(k)) for k in order]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _manifest(sweep: Sweep) -> dict[str, Any]:
    code = code_fingerprint()
    return {
        "format": FORMAT,
        "name": sweep.name,
        "config_hash": sweep.config_hash,
        "dpbandit_version": dpbandit.__version__,
        "code_digest": code.digest,
        "code_files": dict(code.files),
        "created": _now(),
        "root_seed": sweep.config["root_seed"],
        "seeds": sweep.config["seeds"],
        "seeding": "cell seed = numpy.random.SeedSequence(root_seed, spawn_key=(seed,)) "
        "(dpbandit.harness.seeding.seed_sequence), independent of worker and completion order",
        "config": sweep.config,
        "cells": {cell.key: cell.params() for cell in sweep.cells},
    }


def _provenance(recorded: str | None, current: str, changed: list[str] | None) -> str:
    """How a store's finished cells relate to the current code: predating fingerprints, or the changed files
    (up to 5 named)."""
    if recorded is None:
        return (
            "predate code fingerprints (the manifest records no code digest), so the code that computed them "
            "is unknown"
        )
    return (
        f"were computed by other dpbandit code (code digest {recorded[:12]}, now {current[:12]}; files: "
        f"{_named(changed) or 'not recorded'})"
    )


def _named(changed: list[str] | None) -> str:
    """Up to 5 changed files, then a count of the rest."""
    names = ", ".join(f"dpbandit/{name}" for name in (changed or [])[:5])
    if changed and len(changed) > 5:
        names += f" and {len(changed) - 5} more"
    return names


def _flatten(config: dict[str, Any]) -> dict[str, Any]:
    settings = {k: v for k, v in config.items() if k != "groups"}
    axes = {f"axis {axis}": values for group in config.get("groups", []) for axis, values in group.items()}
    return {**settings, **axes}


def _changed(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Names of settings and axes whose values differ between two normalised configs."""
    a, b = _flatten(old), _flatten(new)
    return [k for k in dict.fromkeys([*a, *b]) if a.get(k) != b.get(k)]
