"""The student handout and the answer key, written from the one set of notebooks.

Answers are marked in the notebooks, and nowhere else, in three ways (nbgrader's where it has one,
so a teacher who uses nbgrader finds its conventions):

- a cell tagged ``solution`` is an answer as a whole (the course's own code printed after an
  exercise, a pointer to it, ``--solution``): the student edition leaves it out;
- a markdown cell tagged ``folded-solutions`` ends its exercises with a folded
  ``<details><summary>Solutions (for teachers)</summary> ... </details>`` block: the student
  edition keeps the cell without the block;
- in any cell, the lines from one holding ``BEGIN SOLUTION`` to one holding ``END SOLUTION``
  (nbgrader's ``### BEGIN SOLUTION`` / ``### END SOLUTION``): replaced by nbgrader's stubs,
  ``# YOUR CODE HERE`` and ``raise NotImplementedError()`` in code, ``YOUR ANSWER HERE`` in text.

The student edition is refused if an answer is left unmarked (a ``Solutions (for teachers)``
block, ``--solution`` or ``show_solution(`` outside the marks), or if a mark marks nothing.

Our own few lines rather than nbgrader's ``ClearSolutions``: nbgrader installs beside JupyterLab 4
but brings notebook 7 and a database stack (SQLAlchemy, alembic) to every reader, and its
preprocessor refuses regions in cells without its own per-cell metadata.
"""

from __future__ import annotations

import inspect
import os
import re
import shutil
import tempfile
import textwrap
from pathlib import Path

import nbformat

from bpe_course.course.exercises.catalog import EXERCISES, get_exercise
from bpe_course.course.exercises.exercise import shown
from bpe_course.course.exercises.hiding import replace_regions
from bpe_course.course.exercises.stubs import global_imports, globals_read, names_in
from bpe_course.errors import BPEInputError
from bpe_course.paths import HANDOUT_MARKER, notebooks_dir

SOLUTION_TAG = "solution"
FOLDED_TAG = "folded-solutions"
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
TEXT_STUB = "YOUR ANSWER HERE"
FOLDED = re.compile(
    r"\s*<details><summary>Solutions \(for teachers\)</summary>.*?</details>[ \t]*", re.S
)
UNMARKED = re.compile(r"Solutions \(for teachers\)|--solution\b|show_solution\(")


def student_cell(cell: nbformat.NotebookNode, where: str) -> nbformat.NotebookNode | None:
    """The cell as the student edition has it (``None``: left out), outputs cleared."""
    tags = cell.metadata.get("tags", [])
    if SOLUTION_TAG in tags:
        return None
    cell = nbformat.from_dict(cell)  # a copy
    stub = CODE_STUB if cell.cell_type == "code" else TEXT_STUB
    cell.source = replace_regions(cell.source, stub)
    if FOLDED_TAG in tags:
        cell.source, found = FOLDED.subn("", cell.source)
        if not found:
            raise BPEInputError(f"{where}: tagged {FOLDED_TAG} but holds no folded solutions")
        cell.metadata["tags"] = [t for t in tags if t != FOLDED_TAG]
        if not cell.metadata["tags"]:
            del cell.metadata["tags"]
    if UNMARKED.search(cell.source):
        raise BPEInputError(f"{where}: an answer outside the marks (tag the cell {SOLUTION_TAG!r})")
    return clear_outputs(cell)


def clear_outputs(cell: nbformat.NotebookNode) -> nbformat.NotebookNode:
    if cell.cell_type == "code":
        cell.outputs, cell.execution_count = [], None
    return cell


def student_notebook(notebook: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """The notebook without its answers (see the module's docstring), outputs cleared."""
    student = nbformat.from_dict(notebook)
    cells = (
        student_cell(cell, f"{name} cell {cell.get('id', i)}")
        for i, cell in enumerate(notebook.cells)
    )
    student.cells = [cell for cell in cells if cell is not None]
    return student


def answer_imports(solution) -> list[str]:
    """Import lines for every global the solution's source names (its annotations too)."""
    source = textwrap.dedent(inspect.getsource(solution))
    return global_imports(solution, globals_read(solution, names_in(source)))


def answer_file(name: str) -> str:
    """The answer key of exercise ``name`` as a Python file: the course's own solution, with
    the imports it needs, defining ``name`` in the stub's signature (it passes the grader)."""
    exercise = get_exercise(name)
    solution = exercise.answer_function
    return "".join(
        [
            f'"""Answer key of the exercise {name} (notebook {exercise.notebook}): the course\'s '
            f"own\nsolution, {shown(solution)}, as it stands in the "
            "package.\n\n"
            f"`bpe-course check {name} --file THIS_FILE` grades it: it passes.\n"
            '"""\n\nfrom __future__ import annotations\n\n',
            "".join(line + "\n" for line in answer_imports(solution)),
            "\n\n" + inspect.getsource(solution),
        ]
    )


STUDENT_README = """\
# Training byte-level BPE tokenizers: the student edition

The notebooks of the course `bpe_course`, without their answers, with the exercises' stubs and
the stored benchmark results they read. You need Python 3.10 or newer and the package:

```bash
pip install bpe_course            # or the wheel your teacher gives you
jupyter lab                       # in this folder; open 01_start_here.ipynb
```

Notebooks 05 to 10 each ask you to write one function in `exercises/NAME.py`. Grade it in the
notebook (`check("NAME")`) or in a terminal in this folder (`bpe-course check NAME`). The
notebooks run in quick mode (small corpora) unless `BPE_COURSE_QUICK=0` is set.

- `exercises/`: your stubs, one file per exercise;
- `results/`: benchmark results measured for the course, read by the later notebooks;
- `data/`, `figures/`, `build/`: made here as you run the notebooks (the course's own corpus is
  generated on your machine, offline).
"""

TEACHER_README = """\
# Training byte-level BPE tokenizers: the answer key

The full notebooks, with the folded solutions and the course's own code after each exercise,
and in `exercises/` the solution of each stub (each passes `bpe-course check NAME`). It runs as
the student edition does. Hand out `../student/` only.
"""


def write_edition(folder: Path, source: Path, teacher: bool) -> None:
    """One edition in ``folder``: the notebooks, exercises, results, a README and the marker."""
    folder.mkdir(exist_ok=True)
    (folder / HANDOUT_MARKER).write_text("Written by `bpe-course handout`: paths resolve here.\n")
    (folder / "README.md").write_text(TEACHER_README if teacher else STUDENT_README)
    for path in sorted(source.glob("[0-9][0-9]_*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        if teacher:
            notebook.cells = [clear_outputs(cell) for cell in notebook.cells]
        else:
            notebook = student_notebook(notebook, path.stem)
        nbformat.write(notebook, folder / path.name)
    (folder / "exercises").mkdir()
    for name in EXERCISES:
        stub = source / "exercises" / f"{name}.py"
        text = answer_file(name) if teacher else stub.read_text(encoding="utf-8")
        (folder / "exercises" / f"{name}.py").write_text(text, encoding="utf-8")
    # The notebooks' timing tables are the teacher's guide's (and name every cell, answers too).
    teachers_only = shutil.ignore_patterns("notebook_minutes.csv", "notebook_cells.csv")
    shutil.copytree(
        source / "results", folder / "results", ignore=None if teacher else teachers_only
    )


def write_handout(
    folder: str | os.PathLike[str], *, teacher: bool = False, force: bool = False
) -> Path:
    """Write the student edition into ``folder`` (with ``teacher``: ``folder/student/`` and the
    answer key in ``folder/answer_key/``). Built in a temporary sibling, renamed when whole."""
    target = Path(folder).expanduser().resolve()
    source = notebooks_dir()
    if not any(source.glob("[0-9][0-9]_*.ipynb")):
        raise BPEInputError(
            f"no notebooks in {source}: run from a checkout of the course, or set "
            "BPE_COURSE_NOTEBOOKS to its notebooks/ folder"
        )
    if target.exists() and not target.is_dir():
        raise BPEInputError(f"{target} is a file, not a folder")
    if target.exists() and any(target.iterdir()) and not force:
        raise BPEInputError(
            f"{target} is not empty; choose an empty folder, or --force to replace it"
        )
    for kept in (source, Path.cwd().resolve()):
        if kept == target or target in kept.parents:
            raise BPEInputError(f"{target} holds {kept}: it cannot be replaced by a handout")
    target.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    umask = os.umask(0)
    os.umask(umask)
    building.chmod(0o777 & ~umask)  # mkdtemp makes it private; the handout is to be shared
    try:
        if teacher:
            write_edition(building / "student", source, teacher=False)
            write_edition(building / "answer_key", source, teacher=True)
        else:
            write_edition(building, source, teacher=False)
        if target.exists():
            shutil.rmtree(target)
        building.rename(target)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return target
