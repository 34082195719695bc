"""Benchmark arguments that cannot run and benchmark CSVs edited by hand (issue 36, items 5 and
14): refused in one line before anything runs (naming the file, line and column of a table's
first bad value), never a traceback, never a row a rerun cannot replace; the explorer's page says
the same line instead of failing."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from bpe_course.__main__ import main  # noqa: E402
from bpe_course.bench import harness  # noqa: E402
from bpe_course.bench.grids import Grid  # noqa: E402
from bpe_course.bench.harness import run_grid  # noqa: E402
from bpe_course.bench.results import load_results  # noqa: E402
from bpe_course.errors import BPEInputError  # noqa: E402
from bpe_course.paths import notebooks_dir  # noqa: E402

pytestmark = pytest.mark.usefixtures("data_folder")

STORED = notebooks_dir() / "results" / "crossover_stories.csv"


def one_line(capsys, code: int, *says: str) -> str:
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err, err
    assert err.count("\n") == 1 and err.startswith("bpe-course: error: "), err
    assert all(part in err for part in says), err
    return err


@pytest.fixture
def no_runs(monkeypatch):
    def must_not_run(*args, **kwargs):
        raise AssertionError("a benchmark cell ran")

    monkeypatch.setattr(harness, "run_cell", must_not_run)


# --- Item 5: arguments that cannot run --------------------------------------------------------


@pytest.mark.parametrize(
    "arguments, says",
    [
        (["--timeout", "-1"], "--timeout must be a number of seconds above 0"),
        (["--timeout", "0"], "--timeout must be a number of seconds above 0"),
        (["--timeout", "nan"], "--timeout must be a number of seconds above 0"),
        (["--timeout", "inf"], "--timeout must be a finite number"),
        (["--vocab-sizes", "10"], "vocab size 10 leaves no merge to time"),
        (["--vocab-sizes", "257"], "vocab size 257 leaves no merge to time"),
        (["--repeats", "0"], "--repeats must be 1 or more"),
        (["--repeats", "-2"], "--repeats must be 1 or more"),
        (["--vocab-sizes", "300", "300"], "the vocab sizes repeat 300"),
        (["--versions", "v4", "v4"], "the versions repeat v4"),
        (["--sizes", "30KB", "30000"], "the sizes repeat 30000"),
    ],
)
def test_impossible_arguments_are_refused_before_any_run(
    tmp_path, capsys, no_runs, arguments, says
) -> None:
    csv = tmp_path / "bench.csv"
    base = ["bench", "--csv", str(csv), "--corpus", "stories", "--versions", "v4", "v5"]
    base += ["--sizes", "30KB", "--vocab-sizes", "300"]
    one_line(capsys, main([*base, *arguments]), says)
    assert not csv.exists()  # no row stored for a run that never happened


def test_a_timeout_is_run_again_under_a_longer_limit_only(tmp_path, monkeypatch) -> None:
    # a timeout under 1 s was final for good: every later run skipped the cell
    ran: list[float] = []

    def fake(corpus, version, vocab_size, workers, timeout_s):
        ran.append(timeout_s)
        if timeout_s < 10:
            return {"status": "timeout"}
        return {"status": "ok", "merge_s": 0.5, "total_s": 1.0, "merges_sha": "same"}

    monkeypatch.setattr(harness, "run_cell", fake)
    csv = tmp_path / "bench.csv"
    grid = Grid(("v4",), ("30KB",), (280, 320), repeats=1, timeout_s=1)
    assert list(run_grid(grid, csv, progress=False)["status"]) == ["timeout"]  # 320 skipped
    assert list(run_grid(grid, csv, progress=False)["status"]) == ["timeout"]  # not again
    shorter = Grid(("v4",), ("30KB",), (280, 320), repeats=1, timeout_s=0.5)
    run_grid(shorter, csv, progress=False)  # would time out again: not run
    assert ran == [1]
    longer = Grid(("v4",), ("30KB",), (280, 320), repeats=1, timeout_s=60)
    table = run_grid(longer, csv, progress=False)
    assert ran == [1, 60, 60]  # both cells measured now
    assert list(table["status"]) == ["timeout", "ok", "ok"]
    run_grid(longer, csv, progress=False)
    assert ran == [1, 60, 60]  # and never again


# --- Item 14: tables edited by hand -------------------------------------------------------------


def edited(tmp_path, edit) -> tuple:
    """A copy of a stored grid (crossover, stories) with one edit made to its lines; the
    (line number, column) the edit broke comes back with it."""
    lines = STORED.read_text(encoding="utf-8").splitlines(keepends=True)
    where = edit(lines)
    path = tmp_path / "crossover_stories.csv"
    path.write_text("".join(lines), encoding="utf-8")
    return path, where


def set_value(line: int, column: str, value: str):
    def edit(lines: list[str]) -> tuple[int, str]:
        header = lines[0].rstrip("\n").split(",")
        import csv
        import io

        row = next(csv.reader(io.StringIO(lines[line - 1])))
        row[header.index(column)] = value
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerow(row)
        lines[line - 1] = out.getvalue()
        return line, column

    return edit


def drop_column(column: str):
    def edit(lines: list[str]) -> tuple[int, str]:
        import csv
        import io

        rows = list(csv.reader(io.StringIO("".join(lines))))
        index = rows[0].index(column)
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([r[:index] + r[index + 1 :] for r in rows])
        lines[:] = out.getvalue().splitlines(keepends=True)
        return 1, column

    return edit


def repeat_header(at: int):
    def edit(lines: list[str]) -> tuple[int, str]:
        lines.insert(at - 1, lines[0])
        return at, "size_bytes"

    return edit


EDITS = {
    "a duplicated header line": repeat_header(40),
    "text in a number's column": set_value(12, "merge_s", "fast"),
    "NaN as a finished run's time": set_value(30, "total_s", "nan"),
    "an empty time of a finished run": set_value(30, "merge_s", ""),
    "1e308 seconds": set_value(7, "merge_s", "1e308"),
    "inf seconds": set_value(7, "total_s", "inf"),
    "a negative time": set_value(9, "merge_s", "-0.5"),
    "a vocab size that is not whole": set_value(5, "vocab_size", "300.5"),
    "a size of 0 bytes": set_value(5, "size_bytes", "0"),
    "a status of another case": set_value(20, "status", "OK"),
    "a row without its version": set_value(21, "version", ""),
}


@pytest.mark.parametrize("edit", list(EDITS.values()), ids=list(EDITS))
def test_plot_names_the_file_line_and_column(tmp_path, capsys, edit) -> None:
    path, (line, column) = edited(tmp_path, edit)
    code = main(["plot", str(path), "-o", str(tmp_path / "figures")])
    one_line(capsys, code, f"{path}, line {line}, column {column}:")


@pytest.mark.parametrize("edit", list(EDITS.values()), ids=list(EDITS))
def test_bench_names_the_file_line_and_column_and_runs_nothing(
    tmp_path, capsys, no_runs, edit
) -> None:
    path, (line, column) = edited(tmp_path, edit)
    before = path.read_bytes()
    arguments = ["bench", "--grid", "crossover", "--corpus", "stories", "--csv", str(path)]
    one_line(capsys, main(arguments), f"{path}, line {line}, column {column}:")
    assert path.read_bytes() == before  # a stored table is never rewritten on the way


def test_a_missing_column_is_one_line(tmp_path, capsys, no_runs) -> None:
    path, _ = edited(tmp_path, drop_column("repeat"))
    arguments = ["bench", "--grid", "crossover", "--corpus", "stories", "--csv", str(path)]
    one_line(capsys, main(arguments), f"{path}: no column 'repeat'")


@pytest.mark.parametrize("edit", [EDITS["a duplicated header line"], EDITS["1e308 seconds"]])
def test_the_explorer_says_the_same_line(tmp_path, monkeypatch, edit) -> None:
    from bpe_course.course.widgets.explorer import explorer_page

    path, (line, column) = edited(tmp_path, edit)
    with pytest.raises(BPEInputError, match=f"line {line}, column {column}:"):
        load_results([path])
    build = tmp_path / "build"
    (build / "bench").mkdir(parents=True)
    path.rename(build / "bench" / path.name)  # the reader's own runs, beside the stored grids
    monkeypatch.setenv("BPE_COURSE_BUILD", str(build))
    page = explorer_page()
    assert "The explorer cannot start" in page.value
    assert f"crossover_stories.csv, line {line}, column {column}:" in page.value


def test_the_explorer_page_shows_the_page_function() -> None:
    import json
    from pathlib import Path

    from bpe_course import course

    notebook = Path(course.__file__).parent / "pages" / "explore.ipynb"
    page = json.loads(notebook.read_text(encoding="utf-8"))
    code = "".join("".join(cell["source"]) for cell in page["cells"] if cell["cell_type"] == "code")
    assert "explorer_page()" in code


def test_the_stored_tables_pass_their_schema() -> None:
    from bpe_course.bench.results import stored_result_files

    stored = [p for p in stored_result_files() if p.parent.name == "results"]
    assert len(load_results(stored)) > 1000
    assert pd.api.types.is_integer_dtype(load_results(stored)["size_bytes"])


def test_rows_the_explorer_measures_stay_in_their_columns(tmp_path) -> None:
    # a timeout (few columns) and a finished run (more) appended to one file: the second line
    # had more fields than the header (the file could not be read again), or, the other way
    # round, its values slid into other columns (a machine's name as a merge time)
    from bpe_course.course.widgets.explorer import Explorer

    from .test_explorer import fake_row, grid

    def runner(cell, cancel):
        row = fake_row(cell)
        if cell[3] == "v4":  # the cell's other columns only, as the harness writes a timeout
            cell_only = ("corpus", "size_bytes", "size", "vocab_size", "version", "repeat")
            return {k: row[k] for k in cell_only} | {"status": "timeout", "machine": "this machine"}
        return row

    csv = tmp_path / "mine.csv"
    for versions in (("v4", "v5"), ("v5", "v4")):  # the timeout first, then last
        csv.unlink(missing_ok=True)
        view = Explorer(grid(), runner=runner, interactive=False, measured_csv=csv)
        view.version.value = versions
        view.add_vocab.value = "20000"
        view.start_measuring()
        view.wait(30)
        table = load_results([csv])
        assert sorted(table["status"]) == ["ok", "ok", "timeout", "timeout"], table
        assert (table.loc[table["status"] == "ok", "merge_s"] == 0.5).all()
        assert set(table["machine"]) == {"this machine"}
