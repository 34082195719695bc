"""The notebook timer behind TEACHING.md's minutes: on a tiny generated notebook, every code cell gets
one row with its own index and first line, the quick switch reaches the kernel, a failing cell is
named, and the reading time counts the markdown's words only."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pandas as pd
import pytest

from bpe_course.course.publish import guide
from bpe_course.course.runner import timing


def _notebook(folder: Path, cells: list) -> Path:
    path = folder / "tiny.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    return path


def _tiny(folder: Path) -> Path:
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    return _notebook(
        folder,
        [
            md("# Six words <b>of</b> [prose](https://example.org/a/b/c) here now"),
            code(
                "\n# the switch, as the kernel sees it\nimport os\nquick = os.environ['BPE_COURSE_QUICK']"
            ),
            md("<details><summary>Two more</summary></details>"),
            code("assert quick == '0', quick"),
        ],
    )


def test_one_row_per_code_cell_with_its_index_and_first_line(tmp_path: Path) -> None:
    cells = timing.time_notebook(_tiny(tmp_path), quick=False)
    assert cells["cell"].tolist() == [1, 3]
    assert cells["first_line"].tolist() == [
        "# the switch, as the kernel sees it",
        "assert quick == '0', quick",
    ]
    assert (cells["seconds"] >= 0).all()


def test_quick_mode_reaches_the_kernel_and_a_failing_cell_is_named(tmp_path: Path) -> None:
    # quick=True sets the switch to 1, so the second code cell's assertion fails.
    with pytest.raises(RuntimeError, match=r"tiny\.ipynb failed in cell 3: AssertionError"):
        timing.time_notebook(_tiny(tmp_path), quick=True)


def test_reading_time_counts_words_not_markup_or_link_targets(tmp_path: Path) -> None:
    assert timing.markdown_words(_tiny(tmp_path)) == 8


def test_main_writes_one_line_per_notebook_and_per_cell(tmp_path: Path, capsys) -> None:
    path = _tiny(tmp_path)
    minutes, cells = tmp_path / "minutes.csv", tmp_path / "cells.csv"
    out = tmp_path / "executed"
    argv = [
        str(path),
        "--full",
        "--csv",
        str(minutes),
        "--cells-csv",
        str(cells),
        "--out",
        str(out),
    ]
    assert timing.main(argv) == 0
    row = pd.read_csv(minutes).iloc[0]
    assert (row["notebook"], row["cells"], row["markdown_words"], row["mode"]) == (
        "tiny",
        2,
        8,
        "full",
    )
    assert row["reading_min"] == round(8 / timing.WORDS_PER_MINUTE, 1)
    assert "cores" in row["machine"]
    assert pd.read_csv(cells)["cell"].tolist() == [1, 3]
    assert "assert quick" in capsys.readouterr().out
    executed = nbformat.read(out / "tiny.ipynb", as_version=4)
    assert [c.get("execution_count") for c in executed.cells] == [None, 1, None, 2]


def test_the_guides_table_has_a_line_per_notebook_and_the_totals(tmp_path: Path, capsys) -> None:
    rows = [
        {
            "notebook": "01_a",
            "cells": 3,
            "live_s": 1.25,
            "slowest_cell": 2,
            "slowest_s": 1.0,
            "reading_min": 4.0,
        },
        {
            "notebook": "02_b",
            "cells": 5,
            "live_s": 10.0,
            "slowest_cell": 7,
            "slowest_s": 9.0,
            "reading_min": 2.5,
        },
    ]
    path = tmp_path / "minutes.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    assert timing.main(["--table", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == "| `01_a` | 3 | 1.2 | 2: 1.0 | 4.0 |"
    assert lines[-1] == "| all 2 | 8 | 11.2 | | 6.5 |"


def test_the_guides_minutes_table_is_the_stored_csv_rendered() -> None:
    # TEACHING.md's table: the stored timing, with reading minutes counted in the notebooks now.
    root = Path(__file__).resolve().parents[1]
    minutes = pd.read_csv(root / "notebooks" / "results" / "notebook_minutes.csv")
    current = guide.minutes()
    assert timing.markdown_table(current) in (root / "TEACHING.md").read_text(encoding="utf-8")
    assert current.drop(columns=["markdown_words", "reading_min"]).equals(
        minutes.drop(columns=["markdown_words", "reading_min"])
    )
    for row in current.itertuples():
        words = timing.markdown_words(root / "notebooks" / f"{row.notebook}.ipynb")
        assert row.reading_min == round(words / timing.WORDS_PER_MINUTE, 1)
    notebooks = sorted(p.stem for p in (root / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert minutes["notebook"].tolist() == notebooks


def test_a_less_than_sign_in_prose_is_not_taken_for_a_tag(tmp_path: Path) -> None:
    import nbformat

    path = tmp_path / "lt.ipynb"
    text = "when 0 < x the loop runs, and x > 1 after <b>one</b> step"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)]), path)
    assert timing.markdown_words(path) == 12  # the old pattern ate "x the loop runs, and x"
