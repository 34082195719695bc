"""The slide choices (``bpe_course.course.publish.slides``) are what the notebooks carry, every
deck is a sensible length, and the decks and the site load nothing from outside (unit tests, no
browser)."""

from __future__ import annotations

import shutil

import nbformat
import pytest

from bpe_course.course.publish.deck import (
    CODE_LINES,
    KEY_FIGURES,
    prepare_deck,
    walkthrough_notebook,
)
from bpe_course.course.publish.slides import (
    SLIDE_TYPES,
    SLIDES,
    apply_slides,
    slide_count,
    slide_type,
)
from bpe_course.course.runner.execute import course_notebooks

NOTEBOOKS = course_notebooks()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_metadata_equals_the_table(path) -> None:
    notebook = nbformat.read(path, as_version=4)
    differ = [
        (cell.id, cell.metadata.get("slideshow"), slide_type(path.stem, cell.id))
        for cell in notebook.cells
        if cell.metadata.get("slideshow") != {"slide_type": slide_type(path.stem, cell.id)}
    ]
    assert not differ, (
        f"{path.name}: slide metadata differs from bpe_course/course/publish/slides.py (cell, has, "
        f"table): {differ}; run `python -m bpe_course.course.publish.slides` to apply the table"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_table_names_cells_that_exist(path) -> None:
    ids = {cell.id for cell in nbformat.read(path, as_version=4).cells}
    table = SLIDES[path.stem]
    assert set(table) <= ids, f"{path.name}: no cells {sorted(set(table) - ids)}"
    assert set(table.values()) <= set(SLIDE_TYPES)


def test_every_notebook_is_in_the_table_with_9_to_20_slides() -> None:
    """The table's slides; a deck adds the continuations of cells taller than a slide (fit.py)."""
    assert set(SLIDES) == {path.stem for path in NOTEBOOKS}
    counts = {stem: slide_count(stem) for stem in SLIDES}
    assert all(9 <= count <= 20 for count in counts.values()), counts


def test_applying_the_table_changes_only_slide_metadata(tmp_path) -> None:
    source = NOTEBOOKS[2]
    copy = tmp_path / source.name
    shutil.copy(source, copy)
    before = nbformat.read(copy, as_version=4)
    for cell in before.cells:
        cell.metadata.pop("slideshow", None)
    nbformat.write(before, copy)
    assert apply_slides(copy) is True
    after = nbformat.read(copy, as_version=4)
    assert [c.id for c in after.cells] == [c.id for c in before.cells]
    assert [c.source for c in after.cells] == [c.source for c in before.cells]
    assert [c.metadata["slideshow"]["slide_type"] for c in after.cells] == [
        slide_type(source.stem, c.id) for c in after.cells
    ]
    assert apply_slides(copy) is False  # idempotent: a second run writes nothing


def test_a_deck_hides_long_code_and_keeps_short_code() -> None:
    notebook = nbformat.v4.new_notebook()
    short = nbformat.v4.new_code_cell("x = 1")
    source = "\n".join(f"y{i} = {i}" for i in range(CODE_LINES + 1))
    long = nbformat.v4.new_code_cell(source, outputs=[nbformat.v4.new_output("stream", text="1")])
    unrun = nbformat.v4.new_code_cell(source)  # no output to show instead
    short.id, long.id, unrun.id = "0", "1", "2"
    notebook.cells = [short, long, unrun]
    prepare_deck(notebook, "01_start_here")
    assert "transient" not in short.metadata and "transient" not in unrun.metadata
    assert long.metadata["transient"] == {"remove_source": True}
    assert short.metadata["slideshow"] == {"slide_type": "slide"}  # the table's cell "0"


def test_the_walkthrough_has_10_to_15_key_figures(tmp_path) -> None:
    assert 10 <= len(KEY_FIGURES) <= 15
    assert len({name for name, _, _ in KEY_FIGURES}) == len(KEY_FIGURES)
    (tmp_path / KEY_FIGURES[0][0]).write_bytes(b"png")
    deck = walkthrough_notebook(tmp_path)
    assert len(deck.cells) == 2  # the title and the one figure present
    assert f"figures/{KEY_FIGURES[0][0]}" in deck.cells[1].source


def test_a_deck_loads_nothing_from_outside() -> None:
    """nbconvert's own reveal template takes jQuery, RequireJS, Mermaid, MathJax and reveal.js
    from CDNs; the course's template must take none."""
    pytest.importorskip("nbconvert")
    from bpe_course.course.publish.deck import _exporter

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell("# A title"), nbformat.v4.new_code_cell("1")]
    for cell in notebook.cells:
        cell.metadata["slideshow"] = {"slide_type": "slide"}
    body, _ = _exporter().from_notebook_node(notebook)
    for attribute in ("src=", "href="):
        for quote in ('"', "'"):
            assert f"{attribute}{quote}http" not in body and f"{attribute}{quote}//" not in body
    assert 'src="reveal.js/dist/reveal.js"' in body


# --- Fitting a deck's slides to 1280 x 800 (fit.py; the browser measures them in
# tests/test_browser_fit.py) -----------------------------------------------------------------------


def _png(width: int, height: int) -> str:
    """A base64 PNG header of that size (all ``fit`` reads of an image)."""
    import base64
    import struct

    header = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + struct.pack(">II", width, height)
    return base64.b64encode(header + b"\x08\x06\x00\x00\x00" * 8).decode()


def test_a_long_markdown_cell_is_cut_at_its_paragraphs() -> None:
    from bpe_course.course.publish.fit import BUDGET, markdown_height, split_markdown

    paragraphs = [f"Paragraph {i}: " + "word " * 60 for i in range(30)]
    parts = split_markdown("## A title\n\n" + "\n\n".join(paragraphs))
    assert len(parts) > 1
    assert all(markdown_height(part) <= BUDGET for part in parts)
    assert "\n\n".join(parts) == "## A title\n\n" + "\n\n".join(paragraphs)  # nothing lost


def test_the_title_slide_ends_after_the_goals_when_the_cell_is_long() -> None:
    from bpe_course.course.publish.fit import split_markdown

    head = "# 99 · A notebook\n\nSources: the references.\n\n**Learning goals**\n- one;\n- two."
    rest = "\n\n".join("More prose. " * 40 for _ in range(8))
    parts = split_markdown(f"{head}\n\n{rest}", first=True)
    assert parts[0] == head
    assert split_markdown(head, first=True) == [head]  # a short first cell stays whole


def test_a_long_printout_shows_its_first_lines_and_says_how_many_more() -> None:
    from bpe_course.course.publish.fit import output_height, shorten

    output = nbformat.v4.new_output("stream", text="".join(f"line {i}\n" for i in range(200)))
    short = shorten(output, 400)
    assert output_height(short) <= 400
    assert short.text.startswith("line 0\nline 1\n")
    shown = short.text.count("line ")
    assert short.text.rstrip().endswith(f"… {200 - shown} more lines in the notebook")
    assert output.text.count("\n") == 200  # the notebook's output is left whole


def test_a_wide_table_loses_its_right_columns_on_the_slide() -> None:
    pd = pytest.importorskip("pandas")
    from bpe_course.course.publish.fit import TABLE_WIDTH, _column_widths, narrowed

    table = pd.DataFrame({f"a_long_column_{i}": [1.5, 2.5] for i in range(20)})
    output = nbformat.v4.new_output("execute_result", data={"text/html": table.to_html()})
    narrow = narrowed(output).data["text/html"]
    assert sum(_column_widths(narrow)) <= TABLE_WIDTH
    assert "a_long_column_0" in narrow and "a_long_column_19" not in narrow
    assert "more columns in the notebook" in narrow


def test_a_cell_of_many_figures_continues_on_slides_below() -> None:
    from bpe_course.course.publish.fit import deck_slide_count, fit_deck

    figure = nbformat.v4.new_output("display_data", data={"image/png": _png(1000, 600)})
    cell = nbformat.v4.new_code_cell("plot()", outputs=[figure, figure, figure])
    title = nbformat.v4.new_markdown_cell("## Figures")
    title.id, cell.id = "t", "c"
    title.metadata["slideshow"] = {"slide_type": "slide"}
    cell.metadata["slideshow"] = {"slide_type": "-"}
    notebook = nbformat.v4.new_notebook(cells=[title, cell])
    fit_deck(notebook)
    kinds = [c.metadata["slideshow"]["slide_type"] for c in notebook.cells]
    assert kinds == ["slide", "subslide", "subslide", "subslide"]
    assert [len(c.outputs) for c in notebook.cells[1:]] == [1, 1, 1]
    assert "transient" not in notebook.cells[1].metadata  # the code above the first figure
    assert all(c.metadata["transient"] == {"remove_source": True} for c in notebook.cells[2:])
    assert deck_slide_count(notebook) == 4


def test_an_almost_empty_slide_below_joins_the_one_above() -> None:
    from bpe_course.course.publish.fit import fit_deck

    cells = [nbformat.v4.new_markdown_cell(text) for text in ("## A slide", "One line.")]
    for number, (cell, kind) in enumerate(zip(cells, ("slide", "subslide"))):
        cell.id = str(number)
        cell.metadata["slideshow"] = {"slide_type": kind}
    notebook = nbformat.v4.new_notebook(cells=cells)
    fit_deck(notebook)
    assert [c.metadata["slideshow"]["slide_type"] for c in notebook.cells] == ["slide", "-"]
