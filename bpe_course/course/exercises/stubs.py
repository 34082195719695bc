"""The students' stubs, made from the solutions: ``notebooks/exercises/NAME.py`` is the package's
own function (or, for the capstone, the shape its case module gives) with each region from
``### BEGIN SOLUTION`` to ``### END SOLUTION`` replaced by ``raise NotImplementedError``, under
its exercise's prompt and the imports its signature needs.

    python -m bpe_course.course.exercises.stubs          # rewrite the stubs (make stubs)
    python -m bpe_course.course.exercises.stubs --check  # name the stale ones, exit 1 (tests do)

A stub a student has written in is never lost: before it is rewritten, it is copied beside itself
(``NAME.py.yours``, or ``NAME.py.yours2``...) with a warning. Only a stub whose function still only
raises ``NotImplementedError`` is rewritten without a copy.

The marks, and the stub indented as the mark that opens it, are nbgrader's. nbgrader itself is not
used: it stubs notebook cells that carry its own metadata and keeps a database of assignments,
where a stub here is one function in a ``.py`` file, made in the few lines below.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import sys
import textwrap
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType

from bpe_course.course.exercises.catalog import EXERCISES, get_exercise
from bpe_course.course.exercises.exercise import Exercise
from bpe_course.course.exercises.hiding import BEGIN, replace_regions
from bpe_course.errors import BPEInputError
from bpe_course.paths import notebooks_dir

OFFERED = "  # noqa: F401 (the course's solution uses it)"


def function_stub(exercise: Exercise) -> str:
    """The stub's function: its signature and docstring, the solution taken out."""
    source = textwrap.dedent(inspect.getsource(exercise.answer_function))
    if BEGIN not in source:
        raise BPEInputError(f"{exercise.name}: its solution marks no {BEGIN} region")
    return replace_regions(source, f'raise NotImplementedError("write {exercise.name}")')


def names_in(source: str) -> set[str]:
    return {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}


def is_standard(value: object) -> bool:
    """A module of Python's standard library (``heapq``): a stub may offer it."""
    return isinstance(value, ModuleType) and value.__name__.split(".")[0] in sys.stdlib_module_names


def import_line(name: str, value: object, home: str) -> tuple[str, str, str]:
    """``(module, kind, name)``: how the stub imports one global of the solution's module."""
    if isinstance(value, ModuleType):
        return value.__name__, "import", name
    module = getattr(value, "__module__", None)
    if module and getattr(sys.modules.get(module), name, None) is value:
        return module, "from", name
    return home, "from", name  # an alias such as Pair: from the module that uses it


def stub_imports(exercise: Exercise) -> list[str]:
    """What the stub imports: the names its signature reads, and the standard modules and the
    earlier exercises' functions that the solution calls (offered, not required: ``noqa``)."""
    function = exercise.answer_function
    full = names_in(textwrap.dedent(inspect.getsource(function)))
    kept = names_in(function_stub(exercise))
    solutions = [e.solution_function for e in EXERCISES.values()]
    chosen = []
    for name in globals_read(function, full):
        value = function.__globals__[name]
        if name not in kept and not (is_standard(value) or any(value is s for s in solutions)):
            continue  # the package's helpers are part of the answer, not of the question
        chosen.append(name)
    return global_imports(function, chosen, offered=set(chosen) - kept)


def globals_read(function: Callable, names: set[str]) -> list[str]:
    """Which of ``names`` are globals of ``function``'s module (not the function itself)."""
    return sorted((names - {function.__name__}) & set(function.__globals__))


def global_imports(
    function: Callable, names: Iterable[str], offered: set[str] = frozenset()
) -> list[str]:
    """Import lines for ``names``, globals of ``function``'s module; a line whose names are all
    ``offered`` (not needed by what the file runs) carries ``noqa``."""
    lines: dict[tuple[str, str], tuple[set[str], bool]] = {}
    for name in names:
        module, kind, imported = import_line(name, function.__globals__[name], function.__module__)
        imported_names, noqa = lines.get((module, kind), (set(), True))
        lines[module, kind] = (imported_names | {imported}, noqa and name in offered)
    return sorted_imports(lines)


def sorted_imports(lines: dict[tuple[str, str], tuple[set[str], bool]]) -> list[str]:
    """Import lines as ruff's isort orders them: standard library, then the package; in each,
    ``import`` lines before ``from`` lines; names constants, classes, then the rest."""

    def by_type(name: str) -> tuple:
        return (not name.isupper(), not name[:1].isupper(), name)

    def section(module: str) -> int:
        return 0 if module.split(".")[0] in sys.stdlib_module_names else 1

    out: list[str] = []
    for (module, kind), (names, noqa) in sorted(
        lines.items(), key=lambda item: (section(item[0][0]), item[0][1] == "from", item[0][0])
    ):
        if out and section(module) != section(out[-1].split()[1]):
            out.append("")
        if kind == "import":
            line = f"import {module}" if module in names else f"import {module} as {names.pop()}"
        else:
            line = f"from {module} import {', '.join(sorted(names, key=by_type))}"
        out.append(line + (OFFERED if noqa else ""))
    return out


def stub_source(name: str) -> str:
    """The whole stub file of exercise ``name``."""
    exercise = get_exercise(name)
    paragraphs = [
        exercise.prompt.strip(),
        f'Write the function below, save, then grade it: ``check("{name}")`` in the notebook, '
        f"or ``bpe-course check {name}`` in a terminal. (Made by ``python -m "
        "bpe_course.course.exercises.stubs`` from the course's own solution, with the solution "
        "taken out.)",
    ]
    text = "\n\n".join(
        textwrap.fill(p, 96, break_on_hyphens=False, break_long_words=False)
        for p in "\n\n".join(paragraphs).split("\n\n")
    )
    header = (
        f'"""Exercise of notebook {exercise.notebook[:2]}: {exercise.summary}.\n\n{text}\n"""\n\n'
        "from __future__ import annotations\n"
    )
    imports = stub_imports(exercise)
    return (
        header
        + "".join(["\n", *(line + "\n" for line in imports)] if imports else [])
        + ("\n\n" + function_stub(exercise).rstrip("\n") + "\n")
    )


def stale_stubs(folder: Path | None = None) -> list[Path]:
    """The stubs in ``folder`` (default: the course's) that differ from what they are made from."""
    folder = folder or notebooks_dir() / "exercises"
    stale = []
    for name in EXERCISES:
        path = folder / f"{name}.py"
        if not path.is_file() or path.read_text(encoding="utf-8") != stub_source(name):
            stale.append(path)
    return stale


def is_unwritten(path: Path) -> bool:
    """True if the file's function (named after the file) only raises ``NotImplementedError``,
    after its docstring: a stub no one has written in yet, however old."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return False
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == path.stem:
            body = node.body[1:] if ast.get_docstring(node) is not None else node.body
            return (
                len(body) == 1
                and isinstance(body[0], ast.Raise)
                and "NotImplementedError" in names_in(ast.unparse(body[0]))
            )
    return False


def keep_copy(path: Path) -> Path:
    """Copy a student's stub beside itself, under a name no other copy has; returns it."""
    copy, number = path.with_name(path.name + ".yours"), 1
    while copy.exists():
        number += 1
        copy = path.with_name(f"{path.name}.yours{number}")
    copy.write_bytes(path.read_bytes())
    return copy


def write_stubs(folder: Path | None = None) -> list[Path]:
    """Rewrite the stale stubs in ``folder`` (default: the course's); returns them. A stub
    someone wrote in is first copied beside itself, with a warning (see the module's docstring)."""
    stale = stale_stubs(folder)
    for path in stale:
        if path.exists() and not is_unwritten(path):
            copy = keep_copy(path)
            warnings.warn(
                f"{path} was written in: kept as {copy}; the new stub replaces it (copy your "
                "function into it, in the new signature)",
                stacklevel=2,
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(stub_source(path.stem), encoding="utf-8")
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only name the stale stubs")
    args = parser.parse_args(argv)
    if args.check:
        changed = stale_stubs()
        for path in changed:
            written = path.exists() and not is_unwritten(path)
            print(f"stale: {path}" + (" (written in: a rewrite keeps a copy)" if written else ""))
    else:
        changed = write_stubs()
        for path in changed:
            print(f"wrote: {path}")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
