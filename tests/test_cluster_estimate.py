"""The paper estimate of notebook 14: each term follows its formula (no Dask needed)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from bpe_course.bench.cluster import Costs, costs_from, estimate, path_ratios
from bpe_course.counting.cluster import TASK_BYTES

COSTS = Costs(core_mb_s=5.0, start_s=4.0, task_ms=2.0, add_s=0.05, merge_s=30.0, words=60_000)


def test_each_term() -> None:
    terms = estimate(COSTS, 11e9, 8)
    assert terms["tasks"] == math.ceil(11e9 / TASK_BYTES)  # the task cap, more than 4 per core
    assert terms["tasks"] > 4 * 8
    assert terms["count_s"] == pytest.approx(11e9 / 1e6 / (8 * 5.0))
    assert terms["tasks_s"] == pytest.approx((2 * terms["tasks"] - 1) * 2.0 / 1e3)
    assert terms["reduce_s"] == pytest.approx(math.ceil(math.log2(terms["tasks"])) * 0.05)
    parts = ("start_s", "count_s", "tasks_s", "reduce_s", "merge_s")
    assert terms["total_s"] == pytest.approx(sum(terms[p] for p in parts))
    # the lower bound shares the tasks' own cost among the cores; the rest is the same
    assert terms["tasks_shared_s"] == pytest.approx(terms["tasks_s"] / 8)
    assert terms["lower_s"] == pytest.approx(terms["total_s"] - terms["tasks_s"] * (1 - 1 / 8))


def test_many_cores_mean_four_tasks_each_and_the_fixed_terms_remain() -> None:
    small, large = estimate(COSTS, 1e9, 8), estimate(COSTS, 1e9, 512)
    assert large["tasks"] == 4 * 512
    assert large["count_s"] < small["count_s"] and large["tasks_s"] > small["tasks_s"]
    assert large["total_s"] > COSTS.start_s + COSTS.merge_s
    assert COSTS.start_s + COSTS.merge_s < large["lower_s"] < small["lower_s"]


def test_costs_come_from_the_largest_size() -> None:
    table = pd.DataFrame(
        [
            {"size_bytes": 10**6, "path": "pool", "workers": 2, "count_s": 1.0, "merge_s": 1.0},
            {"size_bytes": 10**9, "path": "pool", "workers": 2, "count_s": 100.0, "merge_s": 9.0},
            {"size_bytes": 10**9, "path": "dask", "workers": 2, "count_s": 110.0, "merge_s": 9.0},
        ]
    ).assign(words=500, start_s=3.0, task_ms=4.0, add_s=0.1)
    costs = costs_from(table)
    assert costs.core_mb_s == pytest.approx(1000 / (100 * 2))
    assert (costs.merge_s, costs.start_s, costs.task_ms, costs.words) == (9.0, 3.0, 4.0, 500)


def overhead_table(repeats: int) -> pd.DataFrame:
    rows = []
    for repeat in range(repeats):
        load = 2.0 if repeat == 1 else 1.0  # round 1 under twice the load, on both paths
        for path, seconds in (("pool", 100.0), ("dask", 110.0)):
            rows.append(
                {"size": "2.1GB", "size_bytes": 10**9, "path": path, "workers": 2}
                | {"repeat": repeat, "count_s": seconds * load, "merge_s": 9.0, "words": 500}
                | {"start_s": 3.0, "task_ms": 4.0, "add_s": 0.1, "tasks": 8}
            )
    return pd.DataFrame(rows)


def test_dask_over_the_pool_is_taken_within_a_round_and_the_costs_are_medians() -> None:
    ratios = path_ratios(overhead_table(3)).iloc[0]
    assert (ratios["median"], ratios["min"], ratios["max"]) == pytest.approx((1.1, 1.1, 1.1))
    assert ratios["repeats"] == 3
    assert ratios["overheads_s"] == pytest.approx(15 * 4.0 / 1e3 + 3 * 0.1)  # 15 tasks, depth 3
    assert costs_from(overhead_table(3)).core_mb_s == pytest.approx(1000 / (100 * 2))
    one = path_ratios(overhead_table(1).drop(columns="repeat")).iloc[0]  # tables of one run
    assert one["repeats"] == 1


class _FakeRun:
    """run_worker for the overhead grid (it starts each run): a row per run, failing the runs it
    is told to."""

    def __init__(self, failures: set[int]) -> None:
        self.calls, self.failures = 0, failures

    def __call__(self, command, timeout_s):
        import json
        import subprocess

        self.calls += 1
        if self.calls in self.failures:
            failed = subprocess.CompletedProcess(
                command, 1, "", "CommClosedError: Stream is closed"
            )
            return "ok", failed
        row = {"count_s": 1.0, "merges_sha": "same", "words": 3, "merge_s": 0.1}
        return "ok", subprocess.CompletedProcess(command, 0, json.dumps(row) + "\n", "")


def test_a_failed_run_is_run_again_once_and_the_row_says_so(tmp_path, monkeypatch) -> None:
    import bpe_course.bench.cluster as bench

    monkeypatch.setenv("BPE_COURSE_DATA", str(tmp_path))
    fake = _FakeRun({2})
    monkeypatch.setattr(bench, "run_worker", fake)
    table = bench.run_overhead(["300KB"], progress=False)
    assert list(table["attempts"]) == [1, 2]
    assert fake.calls == 3  # no real run started


def test_a_grid_that_stops_keeps_its_finished_runs_in_a_partial_file(tmp_path, monkeypatch):
    import bpe_course.bench.cluster as bench

    monkeypatch.setenv("BPE_COURSE_DATA", str(tmp_path))
    monkeypatch.setattr(bench, "run_worker", _FakeRun({2, 3}))  # the second run fails twice
    csv = tmp_path / "overhead.csv"
    with pytest.raises(RuntimeError, match="failed 2 times"):
        bench.main(["300KB", "--csv", str(csv)])
    assert not csv.exists()  # never a CSV that looks whole
    (partial,) = tmp_path.glob("overhead.csv.*.partial")
    assert len(pd.read_csv(partial)) == 1
