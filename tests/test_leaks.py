"""No answer reaches a student. Every artefact of the student edition (the handout's notebooks,
stubs and README, the site's pages, the slides) is searched for every answer's distinctive lines,
and every notebook cell that looks like an answer is tagged ``solution`` (the tag, never a phrase,
is what the student edition, the site and the slides leave out).

An answer's distinctive lines come from the one source of each exercise's answer (the package's
function the catalogue names, between its ``BEGIN SOLUTION`` / ``END SOLUTION`` marks): the lines
longer than ``MIN_CHARS`` once stripped, but those the stub or the prompt also has, import lines
(names, not answers) and lines the package's other code also has (the course shows that code:
V1's loop also calls ``record_merge``); and from each cell the notebooks tag ``solution`` (folded
solutions, checks of them), but the lines an untagged cell also has.

``leaks(folder)`` is the search; run on any build, it names each file and answer line it finds:
``python -c "from tests.test_leaks import leaks; print(*leaks('build/site'), sep='\\n')"``.
"""

from __future__ import annotations

import html
import html.parser
import inspect
import json
import zipfile
from functools import cache
from pathlib import Path

import nbformat
import pytest
from IPython.core.formatters import DisplayFormatter

from bpe_course.course.exercises.catalog import EXERCISES, get_exercise
from bpe_course.course.exercises.hiding import BEGIN, END
from bpe_course.course.exercises.prompts import exercise_text, show_solution
from bpe_course.course.exercises.stubs import stub_source
from bpe_course.course.publish.handout import SOLUTION_TAG, UNMARKED, is_solution, write_handout
from bpe_course.course.runner.execute import course_notebooks
from bpe_course.paths import REPO_ROOT

MIN_CHARS = 25
NOTEBOOKS = course_notebooks()
# What a student artefact never needs searching: the package's wheel (the package holds the
# course's solutions: the grader compares with them, `show_solution` prints them) and pictures.
NOT_TEXT = {".whl", ".png", ".svg", ".jpg", ".gif", ".woff", ".woff2", ".ttf", ".ico", ".gz"}


def long_lines(text: str) -> set[str]:
    lines = (line.strip() for line in text.splitlines())
    return {line for line in lines if len(line) > MIN_CHARS and not line.startswith("#")}


def region_lines(source: str) -> list[str]:
    """The lines between the ``BEGIN SOLUTION`` and ``END SOLUTION`` marks of ``source``."""
    out, inside = [], False
    for line in source.splitlines():
        if BEGIN in line:
            inside = True
        elif END in line:
            inside = False
        elif inside:
            out.append(line)
    return out


@cache
def exercise_answers() -> dict[str, frozenset[str]]:
    """Each exercise's answer, as its distinctive lines (see the module's docstring)."""
    package = "\n".join(
        path.read_text(encoding="utf-8")
        for path in sorted((REPO_ROOT / "bpe_course").rglob("*.py"))
    )
    found = {}
    for name in EXERCISES:
        exercise = get_exercise(name)
        source = inspect.getsource(exercise.answer_function)
        elsewhere = package
        for writes_it in (source, *map(inspect.getsource, exercise.written_out_by)):
            elsewhere = elsewhere.replace(writes_it, "")
        asked = long_lines(stub_source(name)) | long_lines(exercise_text(name))
        found[f"the answer of {name}"] = frozenset(
            line
            for line in long_lines("\n".join(region_lines(source))) - asked
            if not line.startswith(("from ", "import ")) and line not in elsewhere
        )
    return found


@cache
def cell_answers() -> dict[str, frozenset[str]]:
    """Each cell tagged ``solution`` in the notebooks, as its distinctive lines."""
    cells = [(p.stem, c) for p in NOTEBOOKS for c in nbformat.read(p, as_version=4).cells]
    shared = set().union(*(long_lines(c.source) for _, c in cells if not is_solution(c)))
    return {
        f"{stem} cell {cell.id}": frozenset(long_lines(cell.source) - shared)
        for stem, cell in cells
        if is_solution(cell)
    }


def answers() -> dict[str, frozenset[str]]:
    return {**exercise_answers(), **cell_answers()}


class _Text(html.parser.HTMLParser):
    """An HTML page's text as a reader sees it (code highlighted into spans joins up again)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs) -> None:
        self.skip += tag in ("script", "style")

    def handle_endtag(self, tag) -> None:
        self.skip -= tag in ("script", "style") and self.skip > 0

    def handle_data(self, data) -> None:
        if not self.skip:
            self.parts.append(data)


def artefact_text(path: Path) -> str:
    """What a student reads in ``path``: a notebook's sources and outputs, a page's text."""
    raw = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".ipynb":
        cells = nbformat.reads(raw, as_version=4).cells
        return "\n".join(c.source + "\n" + outputs_text(c.get("outputs", [])) for c in cells)
    if path.suffix in (".html", ".htm"):
        parser = _Text()
        parser.feed(raw)
        return "".join(parser.parts) + "\n" + html.unescape(raw)  # the page's text, and its source
    return raw


def outputs_text(outputs) -> str:
    parts = []
    for output in outputs:
        parts.append("".join(output.get("text", "")))
        for value in output.get("data", {}).values():
            parts.append(value if isinstance(value, str) else json.dumps(value))
    return "\n".join(parts)


def leaks(folder: str | Path) -> list[str]:
    """Every answer line found in a file under ``folder``, as ``file: answer: line``."""
    folder = Path(folder)
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if path.suffix.lower() in NOT_TEXT:
            continue
        text = artefact_text(path)
        for answer, lines in answers().items():
            found += [f"{path.relative_to(folder)}: {answer}: {ln!r}" for ln in lines if ln in text]
    return found


def looks_like_an_answer(cell: nbformat.NotebookNode) -> str | None:
    """Why ``cell`` looks like an answer (it calls ``show_solution``, folds solutions, prints
    "Solution", says "for teachers", or holds an exercise's answer lines), or ``None``."""
    if match := UNMARKED.search(cell.source):
        return f"it holds {match.group(0)!r}"
    for answer, lines in exercise_answers().items():
        if held := sorted(line for line in lines if line in cell.source):
            return f"it holds {answer}: {held[0]!r}"
    return None


def as_if_executed(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook with what its answer cells print: ``show_solution``'s own display (made
    here, as the kernel makes it), and, for the other cells tagged ``solution``, their source as
    a stand-in for what they print. Built offline in a second, where executing takes minutes."""
    formatter = DisplayFormatter()
    for cell in notebook.cells:
        if cell.cell_type != "code" or not is_solution(cell):
            continue
        if "show_solution(" in cell.source:
            call = cell.source[cell.source.index("show_solution(") :]
            shown = eval(call, {"show_solution": _quiet_show_solution})  # noqa: S307 (our cells)
            outputs = [
                nbformat.v4.new_output("display_data", data=formatter.format(s)[0]) for s in shown
            ]
        else:
            outputs = [nbformat.v4.new_output("stream", name="stdout", text=cell.source)]
        cell.outputs = outputs
    return notebook


def _quiet_show_solution(exercise: str, *also: str) -> list:
    """What ``show_solution`` displays, as a list (one folded Markdown: the answer and ``also``)."""
    return [show_solution(exercise, *also)]


# --- the answers to look for, and the cells that look like answers ---------------------------


def test_every_exercise_and_every_solution_cell_has_lines_to_look_for() -> None:
    empty = [name for name, lines in answers().items() if not lines]
    assert not empty, empty
    assert len(exercise_answers()) == len(EXERCISES)


def test_every_cell_that_looks_like_an_answer_is_tagged_solution() -> None:
    untagged = [
        f"{path.stem} cell {cell.id}: {why}"
        for path in NOTEBOOKS
        for cell in nbformat.read(path, as_version=4).cells
        if not is_solution(cell) and (why := looks_like_an_answer(cell))
    ]
    assert not untagged, f"tag these cells {SOLUTION_TAG!r}:\n" + "\n".join(untagged)


@pytest.mark.parametrize(
    "source",
    [
        'from bpe_course.exercises import show_solution\nshow_solution("merge_word")',
        "<details><summary>Solutions</summary>\n1. 42\n</details>",
        "# Checks of the solutions above (for teachers)\nassert answer() == 3",
        'print("Solution 2:", 17)',
        "!bpe-course check merge_word --solution",
    ],
)
def test_a_cell_that_looks_like_an_answer_is_found(source) -> None:
    assert looks_like_an_answer(nbformat.v4.new_code_cell(source))


def test_a_cell_that_defines_an_exercise_with_its_answer_is_found() -> None:
    source = inspect.getsource(get_exercise("merge_word").answer_function)
    assert "holds the answer of merge_word" in looks_like_an_answer(
        nbformat.v4.new_code_cell(source)
    )
    stub = nbformat.v4.new_code_cell(stub_source("merge_word"))
    assert looks_like_an_answer(stub) is None  # the stub asks, it does not answer


# --- every student artefact ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def student(tmp_path_factory) -> Path:
    return write_handout(tmp_path_factory.mktemp("leaks") / "student")


def test_the_student_handout_holds_no_answer(student) -> None:
    found = leaks(student)
    assert not found, "\n".join(found)
    wheels = list((student / "wheels").glob("*.whl"))
    assert wheels  # the one file not searched: the package
    # but the package without CS336's adapters answered (the teacher's edition keeps them)
    with zipfile.ZipFile(wheels[0]) as archive:
        adapters = archive.read("bpe_course/cs336.py").decode("utf-8")
    assert "def run_train_bpe" not in adapters and "def get_tokenizer" not in adapters


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> Path:
    """The teacher's notebooks with their answer cells' outputs (``as_if_executed``)."""
    folder = tmp_path_factory.mktemp("executed")
    for path in NOTEBOOKS:
        notebook = as_if_executed(nbformat.read(path, as_version=4))
        nbformat.write(notebook, folder / path.name)
    return folder


def test_the_stand_in_outputs_hold_the_answers(executed) -> None:
    # the search finds them in the teacher's notebooks: the student builds' silence means something
    text = "\n".join(artefact_text(path) for path in executed.glob("*.ipynb"))
    missing = [name for name, lines in answers().items() if not any(ln in text for ln in lines)]
    assert not missing, missing


def fake_reveal(folder: Path) -> Path:
    """reveal.js's files, empty: the decks' HTML is what is searched."""
    from bpe_course.course.publish.deck import REVEAL_FILES

    for name in REVEAL_FILES:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("")
    return folder


def test_the_teachers_deck_holds_the_answers_the_students_does_not(executed, tmp_path) -> None:
    from bpe_course.course.publish.deck import export_deck

    for teacher in (True, False):
        out = tmp_path / ("teacher" if teacher else "student")
        out.mkdir()
        export_deck(executed / "05_v1_naive.ipynb", out, tmp_path, teacher=teacher)
        found = leaks(out)
        assert bool(found) is teacher, found


@pytest.mark.slow
def test_the_slides_hold_no_answer(executed, tmp_path) -> None:
    from bpe_course.course.publish.deck import build_slides

    out = tmp_path / "slides"
    build_slides(executed, out, fake_reveal(tmp_path / "reveal"), figures=tmp_path / "none")
    found = leaks(out)
    assert not found, "\n".join(found)


@pytest.mark.slow
def test_the_site_holds_no_answer(executed, tmp_path) -> None:
    pytest.importorskip("myst_nb", reason="the site needs the site extra")
    from bpe_course.course.publish.site import build_site

    out = tmp_path / "site"
    build_site(executed, out, figures=tmp_path / "none")
    found = leaks(out)
    assert not found, "\n".join(found)
