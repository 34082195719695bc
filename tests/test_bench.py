"""The benchmark harness: fresh processes, CSV resume, timeouts, cross-version verification."""

from __future__ import annotations

import pandas as pd
import pytest

from bpe_course.bench import harness as bench
from bpe_course.bench.grids import Grid
from bpe_course.bench.harness import BenchmarkMismatch, run_grid

pytestmark = pytest.mark.usefixtures("data_folder")

SMALL = Grid(("v4", "v5"), ("30KB",), (280, 320), repeats=1, timeout_s=120)


def test_grid_runs_records_and_resumes(tmp_path, monkeypatch) -> None:
    csv = tmp_path / "bench.csv"
    table = run_grid(SMALL, csv, workers=1, progress=False)
    assert len(table) == 4 and set(table["status"]) == {"ok"}
    assert (table["total_s"] >= table["merge_s"]).all() and (table["peak_rss_mb"] > 0).all()
    assert set(table["merges"]) == {280 - 257, 320 - 257}
    assert table.groupby("vocab_size")["merges_sha"].nunique().eq(1).all()
    assert {"python", "machine", "date", "package", "corpus", "words"} <= set(table.columns)

    def must_not_run(*args, **kwargs):
        raise AssertionError("a finished cell was run again")

    monkeypatch.setattr(bench, "run_cell", must_not_run)
    again = run_grid(SMALL, csv, workers=1, progress=False)
    assert len(again) == 4 and len(pd.read_csv(csv)) == 4


def test_timeout_is_recorded_and_larger_cells_skipped(tmp_path) -> None:
    grid = Grid(("v1",), ("30KB",), (280, 320), repeats=1, timeout_s=0.01)
    table = run_grid(grid, None, workers=1, progress=False)
    assert list(table["status"]) == ["timeout"]  # the 320 cell was skipped


def test_mismatch_stops_the_sweep(monkeypatch) -> None:
    real = bench.run_cell

    def wrong_v5(corpus, version, vocab_size, workers, timeout_s):
        result = real(corpus, version, vocab_size, workers, timeout_s)
        if version == "v5":
            result["merges_sha"] = "0" * 16
        return result

    monkeypatch.setattr(bench, "run_cell", wrong_v5)
    with pytest.raises(BenchmarkMismatch, match="v5 and v4 learned different merges"):
        run_grid(SMALL, None, workers=1, progress=False)


def test_peak_memory_is_the_worker_s_own(tmp_path) -> None:
    """A worker started by a large process reports its own peak, not its parent's (Linux keeps
    ru_maxrss across exec, so the harness reads VmHWM there)."""
    from bpe_course.bench.harness import run_cell
    from bpe_course.corpora.datasets import course_corpus

    ballast = bytearray(400_000_000)  # the parent: a large notebook kernel, say
    ballast[::4096] = b"x" * len(ballast[::4096])  # touch every page, so it is resident
    row = run_cell(course_corpus("30KB"), "v5", 300, 1, 120)
    assert row["status"] == "ok" and 0 < row["peak_rss_mb"] < 300, row["peak_rss_mb"]
    del ballast


def test_the_progress_bar_counts_a_run_when_it_has_finished(tmp_path, monkeypatch) -> None:
    """The bar must never say 2/2 while the second run goes on: each run is counted after it."""
    import tqdm.auto

    events: list[str] = []

    class Bar:
        def __init__(self, total, **options) -> None:
            self.n = 0

        def update(self, n: int) -> None:
            self.n += n
            events.append(f"counted {self.n}")

        def close(self) -> None:
            events.append("closed")

    def fake_run(corpus, version, vocab_size, workers, timeout_s):
        events.append(f"ran {version}")
        return {"status": "ok", "merges_sha": "same"}

    monkeypatch.setattr(tqdm.auto, "tqdm", Bar)
    monkeypatch.setattr(bench, "run_cell", fake_run)
    grid = Grid(("v4", "v5"), ("30KB",), (280,), repeats=1, timeout_s=120, name="test")
    table = run_grid(grid, tmp_path / "runs.csv", workers=1, progress=True)
    assert events == ["ran v4", "counted 1", "ran v5", "counted 2", "closed"]
    assert set(table["grid"]) == {"test"}  # each row names its grid: grids never pool
    assert "cores" in table["machine"].iloc[0]  # and its machine, with its cores
