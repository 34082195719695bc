"""Notebook 07's reading of the 1- and 2-worker runs: a size whose runs did not have two cores,
or held one run far slower than the others, is said to be unresolved, with why."""

from __future__ import annotations

import pandas as pd

from bpe_course.bench import parallel
from bpe_course.bench.tables import stored_results


def runs(one: list[float], two: list[float], cpu_two: list[float]) -> pd.DataFrame:
    rows = [{"job": "1 worker", "seconds": s, "cpu_s": s} for s in one]
    rows += [{"job": "2 workers", "seconds": s, "cpu_s": c} for s, c in zip(two, cpu_two)]
    return pd.DataFrame(rows)


def test_two_cores_and_no_outlier_are_resolved() -> None:
    assert parallel.unresolved(runs([2.0, 2.1, 2.0], [1.1, 1.0, 1.2], [2.0, 1.9, 2.1])) == []


def test_too_few_cores_and_an_outlier_are_each_named() -> None:
    reasons = parallel.unresolved(runs([2.0, 2.1, 6.0], [2.0, 2.1, 2.2], [2.0, 2.1, 2.2]))
    assert len(reasons) == 2
    assert "1.0 cores" in reasons[0] and "a 1-worker run took 6.00 s" in reasons[1]


def test_the_stored_200mb_runs_are_unresolved_and_the_21mb_ones_are_not() -> None:
    stored = stored_results("parallel_pretokenize")
    verdicts = {size: parallel.unresolved(part) for size, part in stored.groupby("size")}
    assert verdicts["21.5MB"] == []
    assert len(verdicts["200MB"]) == 2  # 0.9 cores, and a 1-worker run of 54 s
