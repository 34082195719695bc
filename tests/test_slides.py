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


def test_every_notebook_is_in_the_table_with_10_to_20_slides() -> None:
    assert set(SLIDES) == {path.stem for path in NOTEBOOKS}
    counts = {stem: slide_count(stem) for stem in SLIDES}
    assert all(10 <= count <= 20 for count in counts.values()), counts


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
