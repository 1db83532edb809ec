"""Issue 47 item 9: ``make experiments SCHEDULER=tcp://host:8786`` runs the grid's jobs on a Dask
cluster through dask.distributed's executor; a small plan on a LocalCluster gives the entries the
local run gives. The cluster's worker runs in threads of this process: a worker process would be
spawned from pytest-xdist's worker, whose __main__ cannot be re-imported."""

from __future__ import annotations

import distributed  # the lab's "distributed" extra, which make venv installs

from posenc_lib.lab.experiments import PARTS, Plan, parse_args, run_grid
from posenc_lib.lab.train import TrainConfig

PLAN = Plan(seeds=(0,), extra_seeds=(), tcfg=TrainConfig(steps=30, warmup=5), long_steps=30,
            fine_tune_steps=(2, 4))
CELLS = {("assoc_recall", "nope", 0), ("assoc_recall", "alibi", 0)}


def test_a_small_plan_on_a_local_cluster_gives_the_local_numbers() -> None:
    base = {name: {} for name in PARTS}
    local = run_grid(PLAN, progress=False, base=base, cells=CELLS)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        remote = run_grid(PLAN, progress=False, base=base, cells=CELLS,
                          scheduler=cluster.scheduler_address)
        with distributed.Client(cluster) as client:  # the jobs ran on the cluster's worker
            ran = client.run_on_scheduler(
                lambda dask_scheduler: sorted(dask_scheduler.task_prefixes))
    assert any("run_job" in prefix for prefix in ran), ran
    for name in PARTS:
        assert remote[name] == local[name], name
    assert set(remote["curves"]) == {"assoc_recall/nope/0", "assoc_recall/alibi/0"}
    assert [t["scheme"] for t in remote["timings"]] == [t["scheme"] for t in local["timings"]]


def test_the_command_and_make_pass_the_scheduler() -> None:
    assert parse_args(["--scheduler", "tcp://host:8786"]).scheduler == "tcp://host:8786"
    assert parse_args([]).scheduler is None
