"""Must-show 1: a real Dask LocalCluster (scheduler + 2 worker processes) through `--scheduler`."""

from __future__ import annotations

import pandas as pd
import pytest

from dpbandit.cli import main
from dpbandit.sweep import Store, run_sweep

distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")


def test_dask_scheduler_gives_the_in_process_results(tmp_path, small_yaml):
    inprocess = run_sweep(small_yaml, tmp_path / "inprocess", backend="inprocess", progress=False)
    out = tmp_path / "dask"
    with (
        distributed.LocalCluster(  # dashboard on a free port: no warning when another job holds 8787
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", protocol="tcp"
        ) as cluster,
        distributed.Client(cluster) as observer,
    ):
        observer.wait_for_workers(2)
        with distributed.get_task_stream(observer) as stream:
            code = main(["sweep", str(small_yaml), "--scheduler", cluster.scheduler_address,
                         "--out", str(out), "--no-progress"])
        workers = {task["worker"] for task in stream.data if str(task["key"]).startswith("dpbandit-cell-")}
    assert cluster.scheduler_address.startswith("tcp://")
    assert code == 0
    assert len(workers) == 2  # both worker processes ran cells
    distributed_df = Store.read(out).load()
    assert len(distributed_df) == len(inprocess) and distributed_df["cell"].nunique() == 16
    columns = [c for c in inprocess.columns if c not in ("wall_time", "compile_time")]
    pd.testing.assert_frame_equal(distributed_df[columns], inprocess[columns])
