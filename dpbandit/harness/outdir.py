"""One job per output folder: a lock file held while a job writes its results there.

Two ``dpbandit run`` jobs given the same ``--out`` would overwrite each other's files, the last one silently
winning. A job holds ``.dpbandit.lock`` (its process id) in the folder while it runs; a second job is refused
before any work, naming the holder. A lock whose process is gone (a job killed without cleaning up) is taken
over. Jobs one after another on the same folder are fine: the later one replaces the files.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["LOCK", "lock_holder", "locked"]

#: The lock file of a job writing into an output folder (removed when the job ends).
LOCK = ".dpbandit.lock"


@contextlib.contextmanager
def locked(out: Path, option: str = "out") -> Iterator[None]:
    """Hold ``out/.dpbandit.lock`` while a job writes there; refuse, naming ``option``, if another live job
    holds it (a lock left by a job that died is taken over)."""
    lock = out / LOCK
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            holder = lock_holder(lock)
            if holder is not None:
                raise ValueError(
                    f"Expected {option}={str(out)!r} to be free, but another dpbandit job (process "
                    f"{holder}) is writing there; give this job another {option} (or wait; {lock} goes "
                    "when that job ends)."
                ) from None
            lock.unlink(missing_ok=True)  # stale: its job is gone
            continue
        with os.fdopen(fd, "w") as handle:
            handle.write(str(os.getpid()))
        break
    try:
        yield
    finally:
        lock.unlink(missing_ok=True)


def lock_holder(lock: Path) -> int | None:
    """The live process that holds ``lock``, or ``None`` (stale or unreadable lock)."""
    try:
        pid = int(lock.read_text().strip() or 0)
    except (OSError, ValueError):
        return None
    if pid <= 0:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:  # alive, another user's
        return pid
    return pid
