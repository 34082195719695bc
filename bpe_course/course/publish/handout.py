"""The student handout and the answer key, written from the one set of notebooks; and the
student edition of the executed notebooks, from which the site and the slides are built.

Answers are marked in the notebooks, and nowhere else, by cell metadata (nbgrader's conventions
where it has one, so a teacher who uses nbgrader finds them):

- a cell tagged ``solution`` is an answer as a whole (the course's own code printed after an
  exercise, a pointer to it, the folded solutions after a notebook's exercises, a cell that checks
  those solutions): the student edition leaves it out, with its outputs;
- in any cell, the lines from one holding ``BEGIN SOLUTION`` to one holding ``END SOLUTION``
  (nbgrader's ``### BEGIN SOLUTION`` / ``### END SOLUTION``): replaced by nbgrader's stubs,
  ``# YOUR CODE HERE`` and ``raise NotImplementedError()`` in code, ``YOUR ANSWER HERE`` in text.

The tag, never a phrase, decides what is left out. As a second line of defence, the student
edition is refused if a cell it keeps looks like an answer (``show_solution(``, ``--solution``,
folded solutions, "for teachers"); ``tests/test_leaks.py`` fails on such a cell in the notebooks.

The student handout carries a wheel of the package (``wheels/``), built here by pip (``pip wheel
--no-deps``; pip is in every environment, where the ``build`` package is not), and a README whose
install lines the tests follow as they stand. The wheel leaves out the modules that answer another
course's assignment whole (``TEACHERS_MODULES``: ``bpe_course.cs336``, CS336's adapters): in its
place a module whose import fails with one line saying where the module is (the teacher's edition,
the repository).

Our own few lines rather than nbgrader's ``ClearSolutions``: nbgrader installs beside JupyterLab 4
but brings notebook 7 and a database stack (SQLAlchemy, alembic) to every reader, and its
preprocessor refuses regions in cells without its own per-cell metadata.
"""

from __future__ import annotations

import importlib.metadata
import inspect
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import nbformat

from bpe_course import __version__
from bpe_course.course.exercises.catalog import EXERCISES, get_exercise
from bpe_course.course.exercises.exercise import shown
from bpe_course.course.exercises.hiding import replace_regions
from bpe_course.course.exercises.stubs import global_imports, globals_read, names_in
from bpe_course.errors import BPEInputError
from bpe_course.paths import HANDOUT_MARKER, REPO_ROOT, notebooks_dir

SOLUTION_TAG = "solution"
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
TEXT_STUB = "YOUR ANSWER HERE"
# The notebooks' timing tables are the teacher's guide's (and name every cell, answers too).
TEACHERS_RESULTS = ("notebook_minutes.csv", "notebook_cells.csv")
# The package's modules the student's wheel leaves out: finished answers to another course's
# assignment (CS336's `run_train_bpe` and `get_tokenizer` adapters). The repository, the teacher's
# edition, keeps them; the wheel has in their place a module that says so on import.
TEACHERS_MODULES = ("cs336",)
LEFT_OUT_MODULE = '''"""Left out of the student edition of the course: see the message below."""

raise ImportError(
    "bpe_course.{name} is in the teacher's edition of the course only (the repository), not in "
    "the student edition's wheel"
)
'''
# What an answer looks like; a kept cell that holds one is refused (it lacks its tag).
UNMARKED = re.compile(
    r"<summary>Solution|[Ff]or teachers|--solution\b|show_solution\(|print\([\"']Solution"
)


def is_solution(cell: nbformat.NotebookNode) -> bool:
    """The cell is an answer as a whole (tagged ``solution``)."""
    return SOLUTION_TAG in cell.metadata.get("tags", [])


def student_cell(
    cell: nbformat.NotebookNode, where: str, keep_outputs: bool = False
) -> nbformat.NotebookNode | None:
    """The cell as the student edition has it (``None``: left out); its outputs cleared unless
    ``keep_outputs`` (then cleared only where a solution region was replaced: they are its)."""
    if is_solution(cell):
        return None
    cell = nbformat.from_dict(cell)  # a copy
    stub = CODE_STUB if cell.cell_type == "code" else TEXT_STUB
    source = replace_regions(cell.source, stub)
    replaced, cell.source = source != cell.source, source
    if UNMARKED.search(cell.source):
        raise BPEInputError(f"{where}: an answer outside the marks (tag the cell {SOLUTION_TAG!r})")
    return clear_outputs(cell) if replaced or not keep_outputs else cell


def clear_outputs(cell: nbformat.NotebookNode) -> nbformat.NotebookNode:
    if cell.cell_type == "code":
        cell.outputs, cell.execution_count = [], None
    return cell


def student_notebook(
    notebook: nbformat.NotebookNode, name: str, keep_outputs: bool = False
) -> nbformat.NotebookNode:
    """The notebook without its answers (see the module's docstring), outputs cleared unless
    ``keep_outputs`` (an executed notebook published as the student edition: site, slides)."""
    student = nbformat.from_dict(notebook)
    cells = (
        student_cell(cell, f"{name} cell {cell.get('id', i)}", keep_outputs)
        for i, cell in enumerate(notebook.cells)
    )
    student.cells = [cell for cell in cells if cell is not None]
    return student


def edition(notebook: nbformat.NotebookNode, name: str, teacher: bool) -> nbformat.NotebookNode:
    """An executed notebook as published: whole for the teacher, else the student edition with
    the outputs of the cells it keeps (``bpe-course site`` and ``slides``; ``--teacher``)."""
    return notebook if teacher else student_notebook(notebook, name, keep_outputs=True)


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


WHEEL = f"bpe_course-{__version__}-py3-none-any.whl"

STUDENT_README = f"""\
# Training byte-level BPE tokenizers: the student edition

The notebooks of the course `bpe_course`, without their answers, with the exercises' stubs, the
stored benchmark results they read, and the course's package in `wheels/`. You need Python 3.10
or newer. In a terminal, in this folder:

## Install

```bash
python3 -m venv .venv
source .venv/bin/activate
pip install wheels/{WHEEL}
python -m bpe_course.check_install
```

On Windows the first two lines are `py -m venv .venv` and `.venv\\Scripts\\activate`.

Only `pip install` may use the network: the package itself is the file in `wheels/`, and pip
takes its dependencies (JupyterLab, matplotlib, pandas, ipywidgets and a few more) from the
package index your pip uses, or from its cache if they are there; with neither, it stops and says
which one it could not find. Nothing else downloads: the course's corpus is generated on your
machine, and the notebooks run offline (notebook 01 shows how to fetch TinyStories, if you want
it). The last line checks the install: it trains a small
tokenizer and lists what the notebooks need; it ends with `the course is ready` or says what is
missing.

## Start

```bash
jupyter lab                       # with .venv active, in this folder; open 01_start_here.ipynb
```

Notebooks 05 to 10 each ask you to write one function in `exercises/NAME.py`. Grade it in the
notebook (`check("NAME")`) or in a terminal in this folder (`bpe-course check NAME`). The
notebooks run in quick mode (small corpora) unless `BPE_COURSE_QUICK=0` is set.

- `exercises/`: your stubs, one file per exercise;
- `results/`: benchmark results measured for the course, read by the later notebooks;
- `wheels/`: the course's package, installed above;
- `data/`, `figures/`, `build/`: made here as you run the notebooks.
"""

TEACHER_README = """\
# Training byte-level BPE tokenizers: the answer key

The full notebooks, with the folded solutions and the course's own code after each exercise,
and in `exercises/` the solution of each stub (each passes `bpe-course check NAME`). It runs as
the student edition does (install as `../student/README.md` says). Hand out `../student/` only.
"""


def build_wheel(folder: Path) -> Path:
    """The student's wheel of the package in ``folder``, built by pip from a copy of the
    checkout's sources, ``TEACHERS_MODULES`` replaced by ``LEFT_OUT_MODULE`` (the checkout stays
    clean of build/ and egg-info). Offline where the build backend the
    project names is already installed (the test extra has it: ``make course`` installs it);
    otherwise pip fetches it from the package index into a build environment of its own."""
    if not (REPO_ROOT / "pyproject.toml").is_file():
        raise BPEInputError(
            f"the handout's wheel is built from a checkout of the course: no pyproject.toml in "
            f"{REPO_ROOT}"
        )
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "source"
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        # the package, and the Jupyter config files pyproject.toml installs in etc/jupyter
        for folder_name in ("bpe_course", "jupyter-config"):
            shutil.copytree(REPO_ROOT / folder_name, source / folder_name, ignore=ignore)
        for name in TEACHERS_MODULES:
            module = source / "bpe_course" / f"{name}.py"
            module.write_text(LEFT_OUT_MODULE.format(name=name), encoding="utf-8")
        for name in ("pyproject.toml", "README.md", "LICENSE"):
            shutil.copy(REPO_ROOT / name, source / name)
        command = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", "wheel"]
        isolation = ["--no-build-isolation"] if _has_backend() else []
        done = subprocess.run(
            [*command, "--no-deps", *isolation, "-w", str(folder), str(source)],
            capture_output=True,
            text=True,
            check=False,
        )
    wheel = folder / WHEEL
    if done.returncode != 0 or not wheel.is_file():
        raise RuntimeError(f"pip could not build the wheel:\n{done.stdout}{done.stderr[-3000:]}")
    return wheel


def _has_backend() -> bool:
    """setuptools 77 or newer is installed here (pyproject.toml's build-system: the SPDX licence
    string needs 77)."""
    try:
        major = int(importlib.metadata.version("setuptools").split(".")[0])
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return False
    return major >= 77


def write_edition(folder: Path, source: Path, teacher: bool) -> None:
    """One edition in ``folder``: the notebooks, exercises, results, a README and the marker;
    the student's, the package's wheel too."""
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
    teachers_only = shutil.ignore_patterns(*TEACHERS_RESULTS)
    shutil.copytree(
        source / "results", folder / "results", ignore=None if teacher else teachers_only
    )
    if not teacher:
        (folder / "wheels").mkdir()
        build_wheel(folder / "wheels")


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
