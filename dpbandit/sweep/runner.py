"""Run a sweep: skip finished cells, execute the rest on a backend, store each result as it arrives.

Re-running the same sweep on the same store resumes it: finished cells are never recomputed and
failed cells are retried. A store created by a different config is refused (see
:class:`dpbandit.sweep.store.StoreError`); the default store directory includes the config hash,
so a changed config writes to a new directory. A store whose finished cells were computed by other
``dpbandit`` code is refused too, unless ``allow_code_change=True``.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from dpbandit import _validate
from dpbandit.sweep.backends import make_backend
from dpbandit.sweep.config import Sweep
from dpbandit.sweep.grid import Cell
from dpbandit.sweep.store import CodeChangeError, Store, code_change_refusal
from dpbandit.sweep.study import StudyProgress

__all__ = ["SweepError", "SweepOutcome", "as_sweep", "default_store_dir", "execute", "execute_many", "run_sweep"]


@dataclass(frozen=True)
class SweepOutcome:
    """What one invocation did: cells in total, skipped (already finished), computed now, failures."""

    name: str
    store: Path
    total: int
    skipped: int
    computed: int
    failures: dict[str, dict[str, Any]]

    def summary(self) -> str:
        """A few lines for people: counts, then one line per failed cell."""
        lines = [
            f"sweep {self.name!r}: {self.total} cells in {self.store}: {self.computed} computed now, "
            f"{self.skipped} already done, {len(self.failures)} failed."
        ]
        if self.failures:
            lines.append(f"failed cells (full tracebacks in {self.store / 'failures'}/<key>.json):")
            lines += [f"  {key}  {rec['description']}: {rec['error']}" for key, rec in self.failures.items()]
            lines.append("re-run the same command to retry them (finished cells are kept).")
        return "\n".join(lines)


class SweepError(RuntimeError):
    """Some cells failed; ``outcome`` has the details. Finished cells are in the store."""

    def __init__(self, outcome: SweepOutcome) -> None:
        super().__init__(outcome.summary())
        self.outcome = outcome


def as_sweep(config: Sweep | Mapping[str, Any] | str | Path) -> Sweep:
    """A :class:`Sweep` from a sweep, a config mapping, or a TOML / YAML file path."""
    if isinstance(config, Sweep):
        return config
    if isinstance(config, Mapping):
        return Sweep.from_dict(config)
    return Sweep.from_file(config)


def default_store_dir(sweep: Sweep, base: str | Path = "out/sweeps") -> Path:
    """``<base>/<name>-<first 8 digits of the config hash>``: one directory per config."""
    return Path(base) / f"{sweep.name}-{sweep.config_hash[:8]}"


def execute(
    config: Sweep | Mapping[str, Any] | str | Path,
    store_dir: str | Path | None = None,
    *,
    backend: str | None = None,
    workers: int | None = None,
    scheduler: Any = None,
    progress: bool | None = None,
    study: StudyProgress | None = None,
    allow_code_change: bool = False,
) -> SweepOutcome:
    """Run the unfinished cells of a sweep into its store; failures are recorded, never raised.

    Args:
        config: a :class:`Sweep`, a config mapping or a TOML / YAML path (validated before any work).
        store_dir: the store directory (default :func:`default_store_dir`).
        backend: ``"processes"`` (default; all cores), ``"inprocess"`` or ``"dask"``. With neither
            ``backend`` nor ``scheduler`` given, the config's ``backend`` / ``scheduler`` apply.
        workers: local worker processes (default: the config's ``workers``, else every core).
        scheduler: Dask scheduler address, cluster object or ``distributed.Client`` (implies Dask).
        progress: show a progress bar with cells done / total and ETA (``None``: on a terminal).
        study: the progress of a study this sweep belongs to (told when the sweep ends; prints its ETA).
        allow_code_change: resume a store whose finished cells were computed by other ``dpbandit`` code
            (refused by default, before any cell runs): warn, record it in the manifest, and go on; the
            resumed cells may differ from the finished ones.
    """
    (outcome,) = execute_many(
        [config], None if store_dir is None else [store_dir], backend=backend, workers=workers,
        scheduler=scheduler, progress=progress, study=study, allow_code_change=allow_code_change,
    )
    return outcome


def execute_many(
    configs: Sequence[Sweep | Mapping[str, Any] | str | Path],
    store_dirs: Sequence[str | Path] | None = None,
    *,
    backend: str | None = None,
    workers: int | None = None,
    scheduler: Any = None,
    progress: bool | None = None,
    study: StudyProgress | None = None,
    allow_code_change: bool = False,
) -> list[SweepOutcome]:
    """Run the unfinished cells of several sweeps through one backend call, each result stored in its own
    sweep's store as it arrives; failures are recorded, never raised. One call keeps every worker busy until the
    last cell: run one after the other, each sweep's last cells leave workers idle (a study of many small sweeps,
    e.g. ``sims/learning_suite.py``'s one sweep per agent and setting, loses minutes that way).

    Arguments as for :func:`execute`; ``store_dirs``: one per sweep (default :func:`default_store_dir`); the
    backend options are the first sweep's unless given. ``study`` is told of each sweep when its last cell ends,
    with the wall time since the previous sweep ended. A cell two sweeps share (the same parameters, e.g. the
    same agent, environment and horizon in two studies' settings) runs once and is stored in both. The cells'
    warnings are warned here, in this process, each text once per call (:mod:`dpbandit.sweep.backends`).

    Every store is opened before any cell runs. Stores whose finished cells were computed by other code
    (without ``allow_code_change``) are all listed in one :class:`~dpbandit.sweep.store.StoreError` (one
    refusing store raises :meth:`Store.open`'s own error); any other refusal (another config, a busy store)
    raises at once. Either way no cell runs and the stores opened are unlocked.
    """
    began = time.perf_counter()
    sweeps = [as_sweep(config) for config in configs]
    if not sweeps:
        return []
    if store_dirs is not None and len(store_dirs) != len(sweeps):
        raise ValueError(f"Expected one store_dirs entry per sweep ({len(sweeps)}), got {len(store_dirs)}.")
    if backend is None and scheduler is None:
        backend, scheduler = sweeps[0].execution.backend, sweeps[0].execution.scheduler
    if workers is not None:
        workers = _validate.integer(workers=workers, minimum=1)
    run = make_backend(backend, workers=workers or sweeps[0].execution.workers, scheduler=scheduler)
    dirs = [Path(d) for d in store_dirs] if store_dirs is not None else [default_store_dir(s) for s in sweeps]
    with ExitStack() as stack:  # raising here releases the locks taken
        stores: list[Store] = []
        refused: list[CodeChangeError] = []
        for directory, sweep in zip(dirs, sweeps, strict=True):  # every store checked before any cell runs
            try:
                store = Store.open(directory, sweep, allow_code_change=allow_code_change)
            except CodeChangeError as err:  # after a change, a study's stores all refuse: list all
                refused.append(err)
                continue
            stores.append(stack.enter_context(store))
        if len(refused) == 1:
            raise refused[0]
        if refused:
            raise code_change_refusal(refused, len(sweeps))
        todo: dict[str, list[tuple[int, Cell]]] = {}  # a cell shared by sweeps runs once, stored in each
        computed = []
        for index, (sweep, store) in enumerate(zip(sweeps, stores, strict=True)):
            done = store.finished()
            cells = [cell for cell in sweep.cells if cell.key not in done]
            for cell in cells:
                todo.setdefault(cell.key, []).append((index, cell))
            computed.append(len(cells))
        left = list(computed)
        total = sum(len(sweep.cells) for sweep in sweeps)
        bar = tqdm(
            total=total,
            initial=total - len(todo),
            desc=f"sweep {sweeps[0].name}" if len(sweeps) == 1 else f"{len(sweeps)} sweeps",
            unit="cell",
            disable=None if progress is None else not progress,
        )
        last_end = began

        def finished(index: int) -> None:
            nonlocal last_end
            now = time.perf_counter()
            if study is not None:
                study.done(sweeps[index], computed[index], now - last_end)
            last_end = now

        failed = 0
        shown: set[tuple[type[Warning], str]] = set()
        try:
            for index in range(len(sweeps)):
                if not left[index]:
                    finished(index)
            for result in run([owners[0][1] for owners in todo.values()]) if todo else ():
                for category, message in result.warnings:  # each text once per call, as the CLI shows its own
                    if (category, message) not in shown:
                        shown.add((category, message))
                        warnings.warn(message, category, stacklevel=2)
                for index, cell in todo[result.key]:
                    if result.error is None:
                        stores[index].save_result(result.key, result.frame)
                    else:
                        stores[index].save_failure(cell, result.error)
                        failed += 1
                        bar.set_postfix(failed=failed)
                    bar.update()
                    left[index] -= 1
                    if not left[index]:
                        finished(index)
        finally:
            bar.close()
        return [
            SweepOutcome(
                name=sweep.name,
                store=directory,
                total=len(sweep.cells),
                skipped=len(sweep.cells) - count,
                computed=count,
                failures=store.failures(),
            )
            for sweep, directory, store, count in zip(sweeps, dirs, stores, computed, strict=True)
        ]


def run_sweep(
    config: Sweep | Mapping[str, Any] | str | Path,
    store_dir: str | Path | None = None,
    *,
    backend: str | None = None,
    workers: int | None = None,
    scheduler: Any = None,
    progress: bool | None = None,
    study: StudyProgress | None = None,
    allow_code_change: bool = False,
) -> pd.DataFrame:
    """Run (or resume) a sweep and return the tidy rows of all its cells, in the sweep's order.

    Same arguments as :func:`execute`. Raises :class:`SweepError` (listing the failed cells) if any
    cell failed; the finished cells stay in the store, and calling again retries only the rest.

    Example:
        >>> import tempfile
        >>> config = {"seeds": 2, "n_points": 10, "grid": {"agent": ["linucb", "random"],
        ...           "env_id": "dpbandit/LinearBandit-v0", "horizon": 100}}
        >>> df = run_sweep(config, tempfile.mkdtemp(), backend="inprocess", progress=False)
        >>> df.groupby("agent")["seed"].nunique().to_dict()
        {'linucb': 2, 'random': 2}
    """
    sweep = as_sweep(config)
    outcome = execute(sweep, store_dir, backend=backend, workers=workers, scheduler=scheduler, progress=progress,
                      study=study, allow_code_change=allow_code_change)
    if outcome.failures:
        raise SweepError(outcome)
    return Store.read(outcome.store).load([cell.key for cell in sweep.cells])
