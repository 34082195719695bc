"""The teacher's guide (TEACHING.md) says only what the stored results and the code say.

Its figures live in generated regions, written from ``notebooks/results/`` by
``python -m bpe_course.course.publish.guide`` (``make guide``): the first test writes them again in
memory and fails while any differs from the file, so a table measured again, or a change to what
a region computes, cannot leave the guide behind. The prose around the regions may not state a
measured figure (the detector of ``tests/test_prose_numbers.py``). The commands, files, make
targets and notebook sections the guide names must exist.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

from bpe_course.cli import build_parser
from bpe_course.course.publish import guide
from tests.test_prose_numbers import MEASUREMENT, SOURCE, VAGUE, prose, sentences

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "TEACHING.md").read_text(encoding="utf-8")
# The grader's messages, quoted as it prints them: its time limits are settings, not measurements.
GRADER = "## The exercises: what the grader catches"


def test_every_generated_region_is_what_the_stored_results_give_now() -> None:
    stale = guide.stale_regions(TEXT)
    assert not stale, (
        f"TEACHING.md's regions {stale} differ from the stored results: run `make guide` "
        "(python -m bpe_course.course.publish.guide) and commit TEACHING.md"
    )


def test_the_guide_holds_every_region_and_only_known_ones() -> None:
    names = [m.group("name") for m in guide.REGION.finditer(TEXT)]
    assert sorted(names) == sorted(guide.REGIONS)
    with pytest.raises(ValueError, match="missing"):
        guide.render(guide.REGION.sub("", TEXT, count=1))
    with pytest.raises(ValueError, match="unknown"):
        guide.render(TEXT + "\n<!-- generated: nowhere -->\n<!-- end generated -->\n")


def test_check_reports_a_stale_region_and_writing_repairs_it(tmp_path: Path) -> None:
    copy = tmp_path / "TEACHING.md"
    copy.write_text(TEXT.replace("| `01_start_here` |", "| `01_start_here` (typed) |"), "utf-8")
    assert guide.main(["--check", "--path", str(copy)]) == 1
    assert guide.main(["--path", str(copy)]) == 0
    assert copy.read_text(encoding="utf-8") == TEXT
    assert guide.main(["--check", "--path", str(copy)]) == 0


def _prose_outside_regions(text: str) -> str:
    text = guide.REGION.sub("", text)
    text = text[: text.index(GRADER)]
    # Plans, not measurements: the length of the sessions a course is cut into.
    return re.sub(r"sessions of \d+ minutes", "sessions", text)


def test_no_measured_figure_is_typed_outside_the_regions() -> None:
    typed = [
        sentence.strip()
        for sentence in sentences(prose(_prose_outside_regions(TEXT)))
        if not SOURCE.search(sentence) and (MEASUREMENT.search(sentence) or VAGUE.search(sentence))
    ]
    assert not typed, (
        "a measured figure typed into TEACHING.md outside a generated region (generate it in "
        "bpe_course/course/publish/guide.py, or name the cell that prints it):\n" + "\n".join(typed)
    )


# Any figure of some precision: a decimal, a thousands separator, a ratio, a share, three digits.
FIGURE = re.compile(r"(?<![\w.])(\d+\.\d+|\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?x|\d+%|\d{3,})(?!\w)")
# Not measurements: corpus sizes, the Python version, the cluster's address, the estimate's cores.
NOT_MEASURED = re.compile(r"\d+(?:\.\d+)? ?[KMG]B\b|Python \d+\.\d+|127\.0\.0\.1|\d+-core\b")


def test_no_precise_figure_is_typed_outside_the_regions() -> None:
    # Stricter than the detector above, which looks for units: a count ("2,141 distinct ones") or
    # a bare ratio in the prose would be a figure nobody regenerates.
    text = NOT_MEASURED.sub(" ", prose(_prose_outside_regions(TEXT)))
    typed = [s.strip() for s in sentences(text) if FIGURE.search(s)]
    assert not typed, "a figure typed into TEACHING.md outside a generated region:\n" + "\n".join(
        typed
    )


def _subcommands(parser: argparse.ArgumentParser) -> set[str]:
    return {
        name
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for name in action.choices
    }


def test_the_commands_it_names_exist() -> None:
    modules = set(re.findall(r"python -m ([\w.]+)", TEXT))
    assert modules, "the guide names no python -m command"
    for module in modules:
        assert importlib.util.find_spec(module) is not None, f"python -m {module}: no such module"
    commands = _subcommands(build_parser())
    for command in set(re.findall(r"bpe-course ([a-z]+)", TEXT)):
        assert command in commands, f"bpe-course {command}: no such command"
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in set(re.findall(r"`make (\w+)", TEXT)):
        assert re.search(rf"^{target}:", makefile, re.M), f"make {target}: no such target"


def test_the_files_it_names_exist() -> None:
    results = ROOT / "notebooks" / "results"
    for name in set(re.findall(r"`([\w.*]+\.csv)`", TEXT)):
        assert list(results.glob(name)), f"{name}: not in notebooks/results/"
    for path in set(re.findall(r"`((?:notebooks|tests|bpe_course)/[\w./*\[\]-]+)`", TEXT)):
        assert list(ROOT.glob(path)), f"{path}: no such file"


def _headings(number: str) -> list[str]:
    path = next((ROOT / "notebooks").glob(f"{number}_*.ipynb"))
    notebook = nbformat.read(path, as_version=4)
    return [
        line.lstrip("#").strip()
        for cell in notebook.cells
        if cell.cell_type == "markdown"
        for line in cell.source.splitlines()
        if line.startswith("#")
    ]


def test_the_notebook_sections_it_names_exist() -> None:
    named = re.findall(r"\b(0[1-9]|1[0-4])(?:'s)?,? (?:up to )?\*([^*]+)\*", TEXT)
    assert len(named) > 20
    for number, section in named:
        assert any(h.startswith(section) for h in _headings(number)), (
            f"notebook {number} has no section *{section}*"
        )
