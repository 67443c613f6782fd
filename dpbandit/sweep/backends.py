"""Where cells run: in this process, in local worker processes, or on a Dask cluster.

Every backend maps cells to :class:`CellResult` through the same :func:`execute_cell`, in the
order cells finish. A cell's numbers depend only on the cell (its seed is derived from the sweep's
root seed and the cell's seed index), so all backends give identical results. Workers only compute;
the driver writes the store, so workers need no shared file system.

Warnings a cell gives travel back in its result and are shown by the driver, each text once per
sweep (:func:`dpbandit.sweep.runner.execute_many`), in the format of whoever shows them (the
``dpbandit`` command's own), not printed raw by each worker. On Dask they stay in the workers' logs:
Dask runs cells in threads, and recording warnings swaps process-wide state
(``warnings.catch_warnings`` is not thread-safe).
"""

from __future__ import annotations

import atexit
import concurrent.futures as futures
import dataclasses
import functools
import math
import multiprocessing
import os
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from dpbandit.harness import seeding
from dpbandit.harness.checks import check_main_guard
from dpbandit.harness.run import run_one
from dpbandit.sweep.grid import Cell, canonical_json

__all__ = [
    "Backend", "CellResult", "available_cores", "execute_cell", "make_backend", "run_cell", "shutdown_pools"
]

#: Columns the sweep adds after the harness's :data:`dpbandit.harness.run.COLUMNS` (then ``env_<kwarg>``).
SWEEP_COLUMNS = ["cell", "horizon", "target_epsilon", "target_delta"]


@dataclass(frozen=True)
class CellResult:
    """The outcome of one cell: its rows, or the formatted traceback of the exception it raised, and the
    distinct warnings it gave, as ``(category, message)`` in the order first given."""

    key: str
    frame: pd.DataFrame | None
    error: str | None
    warnings: tuple[tuple[type[Warning], str], ...] = ()


Backend = Callable[[Sequence[Cell]], Iterator[CellResult]]


def run_cell(cell: Cell) -> pd.DataFrame:
    """Run one cell: :func:`dpbandit.harness.run_one` with the cell's seed, plus the cell's parameters.

    The harness columns equal those of ``dpbandit.harness.run`` for the same agent, environment,
    root seed and seed index; the sweep adds :data:`SWEEP_COLUMNS` and one ``env_<kwarg>`` column
    per environment keyword argument (lists and tables as JSON text, so they can be grouped on).
    """
    name, factory = cell.factory()
    frame = run_one(
        cell.env_id,
        name,
        factory,
        seeding.seed_sequence(cell.root_seed, cell.seed),
        seed_index=cell.seed,
        horizon=cell.horizon,
        env_kwargs=dict(cell.env_kwargs),
        n_points=cell.n_points,
        spacing=cell.spacing,
    )
    extra = {
        "cell": cell.key,
        "horizon": int(frame["step"].iloc[-1]),
        "target_epsilon": math.nan if cell.epsilon is None else cell.epsilon,
        "target_delta": math.nan if cell.delta is None else cell.delta,
        **{f"env_{k}": v if isinstance(v, (bool, int, float, str)) else canonical_json(v) for k, v in cell.env_kwargs},
    }
    floats = {"epsilon": float, "claimed_epsilon": float}  # object dtype in run_one when non-private
    return frame.astype(floats).assign(**{k: [v] * len(frame) for k, v in extra.items()})


def _run_cell(cell: Cell) -> CellResult:
    """Run a cell; an exception becomes a recorded failure (with traceback), so the sweep goes on."""
    try:
        return CellResult(cell.key, run_cell(cell), None)
    except Exception:  # recorded in the store and listed in the summary, never swallowed
        return CellResult(cell.key, None, traceback.format_exc())


def execute_cell(cell: Cell) -> CellResult:
    """Run a cell (:func:`_run_cell`), recording the warnings it gives (the filters in force decide which;
    each distinct one once) in the result instead of printing them: the driver shows them."""
    with warnings.catch_warnings(record=True) as caught:
        result = _run_cell(cell)
    given = dict.fromkeys((w.category, str(w.message)) for w in caught)
    return dataclasses.replace(result, warnings=tuple(given))


def _failure(cell: Cell, err: BaseException, where: str) -> CellResult:
    text = "".join(traceback.format_exception(err))
    return CellResult(cell.key, None, f"{where} failed to return cell {cell.key}:\n{text}")


def in_process(cells: Sequence[Cell]) -> Iterator[CellResult]:
    """Run cells one after the other in this process (for debugging: breakpoints and prints work)."""
    for cell in cells:
        yield execute_cell(cell)


def available_cores() -> int:
    """The CPU cores this process may use (its affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1  # pragma: no cover


def _exit_with_parent(parent: int) -> None:
    """Worker initializer: exit when the driver dies (e.g. SIGKILL), instead of lingering as an orphan."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="dpbandit-parent-watch", daemon=True).start()


#: Worker pools kept between sweeps of this process, by size: a suite of many small sweeps starts its workers
#: (interpreter, imports, kernels from numba's cache, calibrations) once, not once per sweep (issue 31 item 3).
_POOLS: dict[int, futures.ProcessPoolExecutor] = {}
#: Whether :func:`shutdown_pools` is registered with :mod:`atexit` (on the first pool started, once).
_SHUTDOWN_AT_EXIT = False


def _pool(workers: int) -> futures.ProcessPoolExecutor:
    """The kept pool of ``workers`` processes (``spawn`` start method, as the harness), started on first use."""
    global _SHUTDOWN_AT_EXIT
    pool = _POOLS.get(workers)
    if pool is None:
        check_main_guard("the processes backend", instead='use backend="inprocess"')
        context = multiprocessing.get_context("spawn")
        pool = futures.ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=_exit_with_parent, initargs=(os.getpid(),)
        )
        _POOLS[workers] = pool
        if not _SHUTDOWN_AT_EXIT:  # stop the pools while the interpreter is whole (see shutdown_pools)
            atexit.register(shutdown_pools)
            _SHUTDOWN_AT_EXIT = True
    return pool


def shutdown_pools() -> None:
    """Stop the kept worker pools; registered with :mod:`atexit` when the first one starts.

    At exit, ``concurrent.futures`` has already stopped the workers (its own exit hook runs first); this drops
    the executors while the modules are intact. Left to the final teardown of the modules, a kept executor
    would be collected after ``concurrent.futures.process`` lost its globals, and its weakref callback would
    print an ignored ``AttributeError: 'NoneType' object has no attribute 'util'``.
    """
    while _POOLS:
        _POOLS.popitem()[1].shutdown(wait=True, cancel_futures=True)


def local_processes(cells: Sequence[Cell], workers: int) -> Iterator[CellResult]:
    """Run cells on ``workers`` local processes, kept for the next sweep of this process; a sweep that stops
    early (an error, an interrupt) shuts its pool down instead."""
    key = max(1, min(workers, len(cells)))
    pool = _pool(key)
    finished = False
    try:
        try:
            pending = {pool.submit(execute_cell, cell): cell for cell in cells}
        except futures.BrokenExecutor:  # a worker of an earlier sweep died: start afresh
            _POOLS.pop(key, None)
            pool = _pool(key)
            pending = {pool.submit(execute_cell, cell): cell for cell in cells}
        for future in futures.as_completed(pending):
            cell = pending.pop(future)  # drop our reference: results are not kept twice
            err = future.exception()
            yield _failure(cell, err, "local worker") if err else future.result()
        finished = True
    finally:
        if not finished:
            _POOLS.pop(key, None)
            pool.shutdown(wait=False, cancel_futures=True)


def _distributed() -> Any:
    try:
        import distributed
    except ImportError as err:
        raise ImportError(
            "The Dask backend needs dask.distributed, which is not installed: pip install 'dpbandit[dask]'."
        ) from err
    return distributed


def dask_cluster(cells: Sequence[Cell], scheduler: Any) -> Iterator[CellResult]:
    """Run cells on a Dask cluster: ``scheduler`` is an address (``tcp://host:8786``), a cluster
    object (``LocalCluster``, ``dask_jobqueue.SLURMCluster``, ...) or a ``distributed.Client``.

    Workers must have dpbandit installed. Tasks are named ``dpbandit-cell-<key>`` (dashboard). The cells'
    warnings go to the workers' logs (module docstring).
    """
    distributed = _distributed()
    owned = not isinstance(scheduler, distributed.Client)
    client = distributed.Client(scheduler) if owned else scheduler
    try:
        pending = {client.submit(_run_cell, cell, key=f"dpbandit-cell-{cell.key}"): cell for cell in cells}
        for future in distributed.as_completed(pending):
            cell = pending.pop(future)  # the last reference: the cluster frees the result
            try:
                result = future.result()
            except Exception as err:  # e.g. KilledWorker: the worker died running this cell
                result = _failure(cell, err, "dask worker")
            yield result
    finally:
        if owned:
            client.close()


def make_backend(name: str | None = None, *, workers: int | None = None, scheduler: Any = None) -> Backend:
    """The backend ``name`` (``"processes"`` default, ``"inprocess"``, ``"dask"``); a ``scheduler`` implies Dask."""
    if scheduler is not None and name not in (None, "dask"):
        raise ValueError(f"A Dask scheduler was given, so backend={name!r} must be 'dask' (or unset).")
    if name == "dask" or scheduler is not None:
        if scheduler is None:
            raise ValueError("backend='dask' needs scheduler= (e.g. 'tcp://host:8786' or a cluster object).")
        _distributed()  # fail now, with the install hint, before any work
        return functools.partial(dask_cluster, scheduler=scheduler)
    if name == "inprocess":
        return in_process
    if name not in (None, "processes"):
        raise ValueError(f"Unknown backend={name!r}; expected one of 'processes', 'inprocess', 'dask'.")
    return functools.partial(local_processes, workers=workers or available_cores())
