"""Which cells of each notebook are slides: the course's slide choices as data, and the function
that writes them into the notebooks' cell metadata.

The same metadata drives both ways of presenting: live in JupyterLab with RISE (the ``slides``
extra installs ``jupyterlab-rise``) and the static decks of ``make slides`` (``deck``). Each deck
is the notebook's goals, its key idea, the trace by hand, its key figures and its summary; long
code is skipped, long prose goes to the speaker notes (press ``s`` in a deck).

The table is keyed by cell id (ids survive edits to a cell's source; other branches edit the
same notebooks). A cell the table does not name is skipped. After merging changes to the
notebooks, re-apply it: ``python -m bpe_course.course.publish.slides`` (only cell metadata changes);
``tests/test_slides.py`` fails while the notebooks and the table disagree.

Slide types are RISE's and nbconvert's: ``slide`` starts a slide, ``subslide`` a slide below it
(reveal.js's vertical stack), ``-`` continues the current one, ``fragment`` appears on the next
click, ``notes`` is the speaker's, ``skip`` is left out.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from bpe_course.course.runner.execute import course_notebooks

SLIDE_TYPES = ("slide", "subslide", "fragment", "-", "skip", "notes")
DEFAULT = "skip"

# fmt: off
SLIDES: dict[str, dict[str, str]] = {
    "01_start_here": {
        "0": "slide", "1": "slide", "2": "-", "3": "slide", "4": "subslide", "5": "slide",
        "6": "subslide", "7": "subslide", "8": "subslide", "9": "subslide", "10": "-",
        "11": "slide",
    },
    "02_unicode_and_utf8": {
        "0": "slide", "1": "slide", "2": "-", "3": "subslide", "4": "-", "5": "subslide",
        "7": "subslide", "8": "notes", "9": "-", "10": "subslide", "11": "-", "12": "slide",
        "14": "-", "15": "subslide", "16": "-", "17": "subslide", "19": "notes", "20": "-",
        "21": "subslide", "22": "-", "23": "slide", "24": "-", "25": "subslide", "26": "-",
        "27": "subslide", "28": "subslide", "29": "slide",
    },
    "03_sennrich_bpe": {
        "0": "slide", "1": "slide", "2": "-", "3": "slide", "4": "-", "5": "slide",
        "7": "subslide", "8": "subslide", "9": "subslide", "10": "-", "11": "subslide",
        "14": "notes", "15": "subslide", "16": "slide",
    },
    "04_byte_level_bpe": {
        "0": "slide", "1": "slide", "2": "-", "3": "subslide", "5": "notes", "7": "subslide",
        "8": "-", "9": "slide", "10": "-", "11": "subslide", "12": "-", "13": "slide",
        "15": "notes", "17": "subslide", "19": "notes", "21": "subslide", "22": "notes",
    },
    "05_v1_naive": {
        "0": "slide", "2": "subslide", "3": "-", "4": "subslide", "5": "slide", "6": "-",
        "7": "subslide", "8": "-", "9": "slide", "9-exercise": "-", "10": "-", "11-solution": "slide",
        "13": "subslide", "14": "notes", "16": "subslide", "17": "slide",
    },
    "06_v2_incremental": {
        "0": "slide", "2": "slide", "3": "-", "4": "subslide", "5": "-", "6": "slide",
        "6-exercise": "subslide", "7": "-", "9": "slide", "11": "slide", "13": "subslide", "14": "subslide",
        "16": "slide",
    },
    "07_v3_parallel": {
        "0": "slide", "2": "slide", "3": "subslide", "4": "-", "5": "slide", "5-exercise": "-",
        "6": "-", "7-solution": "subslide", "8": "subslide", "9": "slide", "10": "-", "11": "slide",
        "12": "subslide", "13": "-", "15": "subslide", "15-read": "notes", "16": "notes",
    },
    "08_v4_inverted_index": {
        "0": "slide", "2": "slide", "3": "-", "4": "slide", "4-exercise": "-", "5": "-",
        "7": "slide", "9": "slide", "10": "-", "11": "subslide", "13": "subslide", "14": "subslide", "16": "notes",
        "17": "subslide", "18": "notes", "19": "slide",
    },
    "09_v5_heap": {
        "0": "slide", "2": "notes", "3": "slide", "4": "-", "5": "subslide", "6": "subslide",
        "7": "slide", "7-exercise": "-", "8": "-", "9-solution": "slide", "10": "slide",
        "12": "subslide", "13": "subslide", "14": "subslide", "15": "slide", "17": "subslide",
        "18": "slide", "23": "-", "24": "subslide", "25": "-", "26": "subslide", "27": "-",
        "28": "notes",
    },
    "10_fast_max": {
        "0": "slide", "1": "subslide", "2": "subslide", "3": "subslide", "4": "slide",
        "5": "subslide", "6": "subslide", "7": "subslide", "8": "slide", "8-exercise": "-",
        "9": "-", "11": "slide",
    },
    "11_crossover": {
        "0": "slide", "5": "slide", "14": "subslide", "7": "subslide", "8": "slide",
        "c11-12": "subslide", "c11-13": "notes", "c11-15": "subslide", "c11-16": "notes",
        "c11-17": "subslide", "c11-reconcile": "slide", "c11-reconcile-code": "subslide",
        "c11-19": "slide", "c11-20": "subslide", "c11-24": "slide", "c11-versions": "slide",
        "16": "subslide", "c11-32": "subslide", "18": "notes", "24": "slide",
    },
    "12_using_the_tokenizer": {
        "0": "slide", "1": "-", "2": "-", "3": "slide", "4": "-", "5": "subslide", "6": "-",
        "7": "subslide", "9": "subslide", "10": "subslide", "11": "subslide", "12": "-",
        "13": "subslide", "14": "slide", "15": "subslide", "16": "slide", "17": "-", "18": "slide",
        "20": "subslide", "21": "-", "22": "slide", "24": "slide", "26": "notes", "27": "subslide",
        "28": "notes", "30": "slide",
        # a whole corpus to ids (the file encoder)
        "d53da700": "slide", "dac4e8a2": "subslide",
    },
    "13_beyond_v5": {
        "0": "slide", "2": "slide", "4": "subslide", "5": "-", "6": "slide", "8": "slide",
        "10": "-", "11": "slide", "12": "subslide", "14": "slide", "15": "subslide", "16": "slide",
        "17": "-", "18": "slide", "19": "-", "20": "slide", "21": "subslide", "22": "slide",
        "24": "-", "27": "slide", "28": "-", "29": "slide", "30": "-",
        "owt-scale": "notes", "owt-scale-run": "subslide", "owt-scale-see": "notes",
        # the merge workers (section 6b)
        "shards-idea": "slide", "shards-figure": "subslide", "shards-model-code": "subslide",
    },
    "14_beyond_one_machine": {
        "0": "slide", "1": "slide", "2": "-", "3": "notes", "5": "slide", "7": "subslide",
        "9": "slide", "11": "-", "12": "subslide", "13": "-", "14": "notes", "16": "subslide",
        "18": "slide", "21": "subslide", "22": "notes", "24": "subslide", "26": "notes",
    },
}
# fmt: on


# A cell of folded solutions (``ID-answers``, tagged ``solution``) follows the cell ``ID`` whose
# exercises it answers: it goes where that cell goes (on its slide, in its notes, or skipped).
ANSWERS_SUFFIX = "-answers"


def slide_type(notebook_stem: str, cell_id: str) -> str:
    """The slide type the table gives a cell (``skip`` where it names none)."""
    table = SLIDES.get(notebook_stem, {})
    if cell_id not in table and cell_id.endswith(ANSWERS_SUFFIX):
        owner = table.get(cell_id.removesuffix(ANSWERS_SUFFIX), DEFAULT)
        return owner if owner in ("skip", "notes") else "-"
    return table.get(cell_id, DEFAULT)


def slide_count(notebook_stem: str, cell_ids: list[str] | None = None) -> int:
    """How many slides the notebook's deck has (each ``slide`` and ``subslide`` starts one); with
    ``cell_ids``, the deck of those cells only (the student edition's, without the answers)."""
    ids = SLIDES.get(notebook_stem, {}) if cell_ids is None else cell_ids
    return sum(slide_type(notebook_stem, i) in ("slide", "subslide") for i in ids)


def apply_slides(path: Path) -> bool:
    """Write the table's slide types into one notebook's cell metadata; return True if it changed.

    Only ``metadata.slideshow`` of each cell is touched: sources, outputs and ids stay as they are,
    so the notebook's JSON differs only where a slide type changed.
    """
    notebook = nbformat.read(path, as_version=4)
    changed = False
    for cell in notebook.cells:
        wanted = {"slide_type": slide_type(path.stem, cell.get("id", ""))}
        if cell.metadata.get("slideshow") != wanted:
            cell.metadata["slideshow"] = wanted
            changed = True
    if changed:
        nbformat.write(notebook, path)
    return changed


def apply_all(folder: Path | None = None) -> list[Path]:
    """Apply the table to every course notebook; return the ones that changed."""
    return [path for path in course_notebooks(folder) if apply_slides(path)]


if __name__ == "__main__":
    for changed in apply_all():
        print(f"slide metadata updated: {changed.name}")
