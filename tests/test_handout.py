"""The student handout and the answer key (``bpe-course handout``): no answer reaches the student
edition, the answer key holds every one, and the student edition runs with the package installed
from a wheel alone, its exercises unsolved."""

from __future__ import annotations

import ast
import inspect
import json
import os
import re
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import nbformat
import pytest

from bpe_course.cli import main
from bpe_course.course.exercises.catalog import EXERCISES
from bpe_course.course.exercises.hiding import HIDDEN, hidden_source, replace_regions
from bpe_course.course.exercises.prompts import show_source_before
from bpe_course.course.publish.handout import (
    SOLUTION_TAG,
    TEACHERS_MODULES,
    WHEEL,
    student_notebook,
    write_handout,
)
from bpe_course.course.runner.execute import course_notebooks
from bpe_course.errors import BPEInputError
from bpe_course.paths import HANDOUT_MARKER, REPO_ROOT, notebooks_dir

NOTEBOOKS = course_notebooks()
# Notebooks 05-10 hold the exercises.
EXERCISE_NOTEBOOKS = {exercise.notebook: name for name, exercise in EXERCISES.items()}


@pytest.fixture(scope="module")
def student(tmp_path_factory) -> Path:
    return write_handout(tmp_path_factory.mktemp("handout") / "student")


@pytest.fixture(scope="module")
def teacher(tmp_path_factory) -> Path:
    return write_handout(tmp_path_factory.mktemp("handout") / "both", teacher=True)


def distinctive(text: str) -> set[str]:
    """The lines of ``text`` long enough to be its own (not ``return x``, ``</details>``)."""
    lines = (line.strip() for line in text.splitlines())
    return {line for line in lines if len(line) >= 24 and not line.startswith("#")}


PACKAGE = "\n".join(
    path.read_text(encoding="utf-8") for path in sorted((REPO_ROOT / "bpe_course").rglob("*.py"))
)


def solution_lines(function) -> set[str]:
    """The lines of a solution's body (its signature and docstring repeat the task) that the
    package holds nowhere else: what only the answer says (not ``start = time.perf_counter()``)."""
    source = inspect.getsource(function)
    tree = ast.parse(textwrap.dedent(source)).body[0]
    body = tree.body[1:] if isinstance(tree.body[0], ast.Expr) else tree.body
    lines = textwrap.dedent(source).splitlines()[body[0].lineno - 1 :]
    elsewhere = PACKAGE.replace(source, "")
    return {
        line
        for line in distinctive("\n".join(lines))
        if line not in elsewhere and not line.startswith(("from ", "import "))  # names, not answers
    }


def answers() -> dict[str, set[str]]:
    """Every answer's distinctive lines: each exercise's solution function, and each cell of the
    repository's notebooks tagged ``solution`` (``tests/test_leaks.py`` searches every student
    artefact for them)."""
    found = {
        f"solution of {name}": solution_lines(e.answer_function) for name, e in EXERCISES.items()
    }
    for path in NOTEBOOKS:
        for cell in nbformat.read(path, as_version=4).cells:
            if SOLUTION_TAG in cell.metadata.get("tags", []):
                found[f"{path.stem} cell {cell.id}"] = distinctive(cell.source)
    return found


def texts(folder: Path) -> dict[Path, str]:
    """Every file of an edition as text; a notebook as its cells' sources and outputs."""
    out = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix != ".whl"):
        if path.suffix == ".ipynb":
            cells = nbformat.read(path, as_version=4).cells
            out[path] = "\n".join(c.source + json.dumps(c.get("outputs", [])) for c in cells)
        else:
            out[path] = path.read_text(encoding="utf-8")
    return out


def test_every_exercise_and_notebook_has_answers_to_look_for() -> None:
    found = answers()
    assert all(found.values()), [name for name, lines in found.items() if not lines]
    for stem in EXERCISE_NOTEBOOKS:  # the course's code after the exercise, the folded answers
        assert any(key.startswith(f"{stem} cell") and key.endswith("-solution") for key in found)
        assert any(key.startswith(f"{stem} cell") and key.endswith("-answers") for key in found)


def test_the_student_edition_holds_no_answer(student) -> None:
    files = texts(student)
    leaks = [
        f"{path.relative_to(student)} holds {answer}: {line!r}"
        for answer, lines in answers().items()
        for path, text in files.items()
        for line in lines
        if line in text
    ]
    assert not leaks, "\n".join(leaks)


def test_the_answer_key_holds_every_answer(teacher) -> None:
    key = "\n".join(texts(teacher / "answer_key").values())
    missing = [
        f"{answer}: {line!r}"
        for answer, lines in answers().items()
        for line in lines
        if line not in key
    ]
    assert not missing, "\n".join(missing)


def test_the_answer_keys_stubs_pass_the_grader(teacher) -> None:
    # a ground helper, one with its imports, and the capstone, which answers with the exercises
    # put together (the package's own trainer is refused as an answer)
    for name in ("merge_word", "rewrite_words", "train_bpe"):
        path = teacher / "answer_key" / "exercises" / f"{name}.py"
        assert main(["check", name, "--file", str(path)]) == 0


def test_the_student_edition_is_the_course_without_its_answers(student) -> None:
    source = notebooks_dir()
    assert sorted(p.name for p in student.glob("*.ipynb")) == [p.name for p in NOTEBOOKS]
    for stub in (source / "exercises").glob("*.py"):
        assert (student / "exercises" / stub.name).read_bytes() == stub.read_bytes()
    # every stored result, but the guide's timing tables (they list every cell, answers too)
    teachers = {"notebook_minutes.csv", "notebook_cells.csv"}
    results = sorted(p.name for p in (source / "results").iterdir() if p.name not in teachers)
    assert sorted(p.name for p in (student / "results").iterdir()) == results
    assert (student / HANDOUT_MARKER).is_file() and (student / "README.md").is_file()
    assert [p.name for p in (student / "wheels").iterdir()] == [WHEEL]
    for path in student.glob("*.ipynb"):
        original = nbformat.read(source / path.name, as_version=4).cells
        cells = nbformat.read(path, as_version=4).cells
        kept = [c.id for c in original if SOLUTION_TAG not in c.metadata.get("tags", [])]
        assert [c.id for c in cells] == kept, path.name  # only the answers left out, in order
        assert not any(c.get("outputs") or c.get("execution_count") for c in cells)
        assert not any(c.metadata.get("tags") for c in cells), path.name


def wheel_module(wheel: Path, name: str) -> str | None:
    """The source of ``bpe_course.NAME`` in ``wheel`` (``None``: not in it)."""
    with zipfile.ZipFile(wheel) as archive:
        try:
            return archive.read(f"bpe_course/{name}.py").decode("utf-8")
        except KeyError:
            return None


def test_the_student_wheel_leaves_out_cs336s_adapters(student, tmp_path) -> None:
    # A finished answer to CS336's run_train_bpe and get_tokenizer: the teacher's edition only.
    assert "cs336" in TEACHERS_MODULES
    for name in TEACHERS_MODULES:
        ours = (REPO_ROOT / "bpe_course" / f"{name}.py").read_text(encoding="utf-8")
        shipped = wheel_module(student / "wheels" / WHEEL, name)
        assert shipped is not None and shipped != ours
        assert not re.search(r"^\s*(def|class|from|import) ", shipped, re.M), shipped
        # importing it fails in one line that says where it is
        (tmp_path / "bpe_course").mkdir(exist_ok=True)
        (tmp_path / "bpe_course" / "__init__.py").write_text("")
        (tmp_path / "bpe_course" / f"{name}.py").write_text(shipped, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-c", f"import bpe_course.{name}"],
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(tmp_path)},
            capture_output=True,
            text=True,
            check=False,
        )
        last = done.stderr.strip().splitlines()[-1]
        assert done.returncode != 0 and last.startswith("ImportError: "), done.stderr
        assert f"bpe_course.{name} is in the teacher's edition" in last, last
    # and nothing the student edition runs imports them
    for path in [*student.glob("*.ipynb"), *(student / "exercises").glob("*.py")]:
        assert "cs336 import" not in path.read_text(encoding="utf-8"), path.name
        assert "bpe_course.cs336" not in path.read_text(encoding="utf-8"), path.name


def test_a_folder_in_use_is_refused_in_one_line_unless_forced(tmp_path, capsys) -> None:
    folder = tmp_path / "taken"
    folder.mkdir()
    (folder / "mine.txt").write_text("keep")
    assert main(["handout", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not empty" in err and "--force" in err
    assert (folder / "mine.txt").read_text() == "keep"
    assert main(["handout", str(folder), "--force"]) == 0
    assert not (folder / "mine.txt").exists() and (folder / HANDOUT_MARKER).is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["taken"]  # no temporary sibling left


def test_an_unmarked_answer_stops_the_handout() -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("Exercises: 1. What is 6 x 7?"),
        nbformat.v4.new_markdown_cell("<details><summary>Solutions</summary>42</details>"),
    ]
    with pytest.raises(BPEInputError, match="outside the marks"):
        student_notebook(notebook, "unmarked")
    notebook.cells[1].metadata["tags"] = [SOLUTION_TAG]  # the tag, not the phrase, leaves it out
    assert [c.source for c in student_notebook(notebook, "marked").cells] == [
        notebook.cells[0].source
    ]


def test_solution_regions_become_nbgraders_stubs() -> None:
    code = "def f(x):\n    ### BEGIN SOLUTION\n    return x + 1\n    ### END SOLUTION\n"
    assert replace_regions(code, "# YOUR CODE HERE\nraise NotImplementedError()") == (
        "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n"
    )
    with pytest.raises(BPEInputError):
        replace_regions("### BEGIN SOLUTION\nx = 1", "stub")


def test_show_source_hides_a_function_as_one_line() -> None:
    from bpe_course.trainers import v4_inverted_index

    source = inspect.getsource(v4_inverted_index)
    hidden = hidden_source(source, ["rewrite_words"])
    assert f"def rewrite_words(...): ...  # {HIDDEN}" in hidden
    assert "def merge_loop(" in hidden and "def build_index(" in hidden
    assert not solution_lines(v4_inverted_index.rewrite_words) & distinctive(hidden)
    assert hidden_source(source, ["not_there"]) == source
    shown = show_source_before(v4_inverted_index, "rewrite_words").data
    assert HIDDEN in shown and "holders = pair_to_words.pop(best)" not in shown
    assert "SOLUTION" not in shown  # no mark left dangling where the solution was


def test_the_capstones_loop_is_cut_wherever_it_is_shown_before_the_capstone() -> None:
    # V5's and fast max's loops are the pieces of 08 and 09 put together, as the capstone is:
    # notebooks 09 and 10 show their modules with the loop cut to one line saying who asks for it.
    from bpe_course.trainers import fast_max, v4_inverted_index, v5_heap

    v5 = show_source_before(v5_heap, "pop_best").data
    assert "def merge_loop(...): ...  # notebook 10's exercise, train_bpe, asks you to" in v5
    assert "pushes += push_changes(heap, pair_counts, deltas, keys)" not in v5
    assert "def push_changes(" in v5 and f"def pop_best(...): ...  # {HIDDEN}" in v5
    fast = show_source_before(fast_max, "train_bpe").data
    assert f"def merge_loop(...): ...  # {HIDDEN}" in fast and "def move_pairs(" in fast
    # V4's loop scans for the max: its own design, shown whole before its exercise
    assert "def merge_loop(" in show_source_before(v4_inverted_index, "rewrite_words").data


def test_v2s_loop_is_shown_before_its_exercise_without_the_answer_only() -> None:
    # the scan, the merge and the word's update stay (notebook 06 times them); the pair changes
    # the loop writes out, the exercise's answer, are one line naming the exercise
    from bpe_course.trainers import v2_incremental

    shown = show_source_before(v2_incremental.merge_loop, "pair_count_changes").data
    assert "...  # pair_count_changes, the exercise below, written out here" in shown
    assert "new = merge_word(word, best, new_id)" in shown and "words[i] = new" in shown
    assert "add_word_change(" not in shown and "SOLUTION" not in shown


@pytest.mark.parametrize("stem", EXERCISE_NOTEBOOKS)
def test_the_notebooks_show_no_answer_before_their_exercise(stem) -> None:
    cells = nbformat.read(notebooks_dir() / f"{stem}.ipynb", as_version=4).cells
    name = EXERCISE_NOTEBOOKS[stem]
    ask = next(i for i, c in enumerate(cells) if f'check("{name}")' in c.source)
    before = "\n".join(c.source for c in cells[:ask])
    assert not re.search(r"show_source\(|getsource\(|show_solution\(", before)
    assert f'"{name}")' in cells[1].source and "show_source_before(" in cells[1].source


def install_lines(readme: str) -> list[str]:
    """The commands of the README's install block: the fenced block under ``## Install``."""
    section = readme.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"```bash\n(.*?)```", section, re.S)
    assert found, "the README has no ```bash block under ## Install"
    return [line for line in found.group(1).splitlines() if line.strip()]


def clean_env() -> dict[str, str]:
    """This process's environment without the course's settings, Python's, and this virtual
    environment (a student's shell); pip's settings stay (where the registries are)."""
    ours = {str(Path(p).resolve()) for p in (sys.prefix, sys.exec_prefix)}
    path = [
        entry
        for entry in os.environ.get("PATH", "").split(os.pathsep)
        if entry and not any(str(Path(entry).resolve()).startswith(o) for o in ours)
    ]
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("BPE_COURSE_", "PYTHON", "VIRTUAL_ENV", "CONDA"))
    }
    env["PATH"] = os.pathsep.join(path)
    return env


RUNNER = """
import sys
from pathlib import Path

import bpe_course
from bpe_course.course.runner.execute import run_notebook
from bpe_course.paths import in_repository

assert Path(bpe_course.__file__).resolve().is_relative_to(Path(sys.prefix).resolve()), bpe_course.__file__
assert not in_repository()
student = Path(sys.argv[1])
for stem in sys.argv[2:]:
    run_notebook(student / f"{stem}.ipynb", student / "executed", timeout=300)
"""


@pytest.mark.slow
@pytest.mark.timeout(1800)  # pip installs JupyterLab, then fourteen notebooks run
def test_the_student_edition_installs_from_its_readme_and_runs_every_notebook(tmp_path) -> None:
    # A fresh handout, outside the checkout; its README's install lines, as a student types them
    # in a shell without this virtual environment (pip finds the dependencies where it is told to:
    # the registries, or its cache).
    student = write_handout(tmp_path / "class" / "student")
    lines = install_lines((student / "README.md").read_text(encoding="utf-8"))
    assert f"pip install wheels/{WHEEL}" in lines, lines
    env = clean_env()
    installed = subprocess.run(
        ["bash", "-e", "-c", "\n".join(lines)],
        cwd=student,
        env=env,
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-4000:]
    assert "the course is ready" in installed.stdout, installed.stdout
    # Every student notebook, in quick mode, by the package installed there.
    python = student / ".venv" / "bin" / "python"
    env.update(BPE_COURSE_QUICK="1", BPE_COURSE_CORPUS="stories")
    stems = [path.stem for path in NOTEBOOKS]
    done = subprocess.run(
        [str(python), "-c", RUNNER, str(student), *stems],
        cwd=tmp_path,  # outside the repository
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-4000:]
    assert list((student / "data").iterdir()), "the corpus was not made inside the handout"
    for stem in stems:
        cells = nbformat.read(student / "executed" / f"{stem}.ipynb", as_version=4).cells
        outputs = json.dumps([c.get("outputs", []) for c in cells])
        assert str(REPO_ROOT) not in outputs, f"{stem} read the repository"
        if stem in EXERCISE_NOTEBOOKS:
            checked = [
                c for c in cells if c.source.endswith(f'check("{EXERCISE_NOTEBOOKS[stem]}")')
            ]
            assert len(checked) == 1 and "not done yet" in json.dumps(checked[0].outputs), stem


def test_the_teaching_guide_shows_the_handouts_install_lines(student) -> None:
    # TEACHING.md quotes them for the teacher: a new version (a new wheel's name) must reach it
    lines = install_lines((student / "README.md").read_text(encoding="utf-8"))
    guide = (REPO_ROOT / "TEACHING.md").read_text(encoding="utf-8")
    block = "\n".join(f"  {line}" for line in lines)
    assert f"  ```bash\n{block}\n  ```" in guide
    assert "pip install bpe_course" not in guide  # no such package on any index
    assert "pip install bpe_course" not in (student / "README.md").read_text(encoding="utf-8")
