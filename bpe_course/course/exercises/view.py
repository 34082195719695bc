"""The package as the grader's child sees it while one exercise is graded: only the modules that
exercise allows, with the course's own answers to it withheld.

Every exercise's answer is a function of the package, so a student's file could import it (or
reach it through ``importlib``, ``sys.modules``, ``gc.get_objects()``, the registry of trainers,
its ``__code__``...) and return its result, and every answer would agree. No check inside the
graded process can stop that for good: the student's code runs there too, and can undo it. So the
answers are not there at all. The child imports the package from a folder written for the
grading (behind bubblewrap, mounted read-only over the package itself; see
:mod:`bpe_course.course.exercises.isolation`), which holds:

- the modules the exercise's file may import: those its stub imports, those the course's own
  answer imports, and those of the earlier exercises' solutions (the capstone puts those pieces
  together), with every module of the package they import in turn;
- the few the child itself runs (:mod:`~bpe_course.course.exercises.sandbox`,
  :mod:`~bpe_course.course.exercises.loading`, :mod:`~bpe_course.course.exercises.exercise`);
- in each of these, the exercise's answers (its solution, and for the capstone every trainer's
  merge loop) with their bodies replaced by ``raise Withheld(name)``: a call says whose function
  it was, and the parent reports "not done: calls the course's own ...";
- a package's ``__init__`` that none of them imports by name, cut to its docstring and a
  ``__getattr__`` that names what is withheld (``bpe_course.TRAINERS``, ``bpe_course.train_bpe``);
  the package's own ``__init__`` also puts a finder first on ``sys.meta_path`` that names, for
  any other module of the package, the modules the exercise may import.

The grader's own inputs, its comparison and the course's answers stay in the parent, which never
runs the student's code.
"""

from __future__ import annotations

import ast
import inspect
import re
import shutil
import textwrap
from collections.abc import Iterable
from pathlib import Path

from bpe_course.course.exercises.catalog import EXERCISES
from bpe_course.course.exercises.exercise import Exercise
from bpe_course.course.exercises.stubs import stub_imports

PACKAGE_NAME = "bpe_course"
PACKAGE = Path(__file__).resolve().parents[2]
# What the child runs, whatever the exercise: these import nothing else of the package.
CHILD_MODULES = (
    "bpe_course.course",
    "bpe_course.course.exercises",
    "bpe_course.course.exercises.exercise",
    "bpe_course.course.exercises.loading",
    "bpe_course.course.exercises.sandbox",
)


def module_file(name: str) -> Path | None:
    """The file of the package's module ``name`` (a package's ``__init__.py``), if there is one."""
    parts = name.split(".")
    if parts[0] != PACKAGE_NAME:
        return None
    base = PACKAGE.joinpath(*parts[1:])
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def is_package(name: str) -> bool:
    path = module_file(name)
    return path is not None and path.name == "__init__.py"


def imports_in(source: str, module: str) -> set[str]:
    """The modules of the package that ``source`` (the module ``module``) imports, at any depth,
    except under ``if TYPE_CHECKING:``. ``from P import name``: ``P.name`` when it is a module,
    else ``P`` itself (its ``__init__`` defines the name)."""
    found: set[str] = set()
    package = module if is_package(module) else module.rpartition(".")[0]
    skipped = {
        id(child)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for statement in node.body
        for child in ast.walk(statement)
    }
    for node in ast.walk(ast.parse(source)):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if module_file(f"{base}.{alias.name}") else base)
    return {name for name in found if name.split(".")[0] == PACKAGE_NAME and module_file(name)}


def closure(roots: Iterable[str]) -> set[str]:
    """``roots`` and every module of the package they import, in turn."""
    seen: set[str] = set()
    todo = [name for name in roots if module_file(name)]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        path = module_file(name)
        assert path is not None
        todo.extend(imports_in(path.read_text(encoding="utf-8"), name) - seen)
    return seen


def named_in(text: str) -> set[str]:
    """The package's modules that ``text`` names (``bpe_course.pretokenize.GPT2_PATTERN``: the
    module ``bpe_course.pretokenize``)."""
    found = set()
    for dotted in re.findall(rf"\b{PACKAGE_NAME}(?:\.\w+)+", text):
        parts = dotted.split(".")
        modules = [".".join(parts[:i]) for i in range(len(parts), 1, -1)]
        found.update(next(([m] for m in modules if module_file(m)), []))
    return found


def allowed_imports(exercise: Exercise) -> list[str]:
    """The package's modules a student's file for ``exercise`` may import: its stub's imports and
    those its prompt (the stub's docstring) names, its answer's, and the earlier exercises'
    solutions' (in the course's order)."""
    function = exercise.answer_function
    lines = "\n".join(stub_imports(exercise))
    source = textwrap.dedent(inspect.getsource(function))
    names = imports_in(lines, PACKAGE_NAME) | imports_in(source, function.__module__)
    names |= named_in(inspect.getdoc(function) or "")
    for earlier in EXERCISES:
        if earlier == exercise.name:
            break
        names.add(EXERCISES[earlier].solution_function.__module__)
    return sorted(names)


def withheld(exercise: Exercise) -> dict[str, set[str]]:
    """``{module: {function names}}``: the exercise's answers, by where they are defined."""
    found: dict[str, set[str]] = {}
    for function in exercise.answers():
        found.setdefault(function.__module__, set()).add(function.__name__)
    return found


def withhold(source: str, names: set[str], module: str) -> str:
    """``source`` with the body of each top-level function in ``names`` replaced by a raise of
    ``Withheld`` naming it (the signature kept: a default argument bound to it still binds)."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    chosen = [
        node
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names
    ]
    for node in sorted(chosen, key=lambda n: n.lineno, reverse=True):
        first = node.body[0]
        line = lines[first.lineno - 1]
        indent = line[: len(line) - len(line.lstrip())]
        assert node.end_lineno is not None
        lines[first.lineno - 1 : node.end_lineno] = [
            f"{indent}raise _Withheld({module + '.' + node.name!r})\n"
        ]
    if chosen:
        lines.append(f"\n\nfrom {PACKAGE_NAME} import Withheld as _Withheld  # the grader's view\n")
    return "".join(lines)


def cut_init(name: str, source: str, exercise: str, here: Iterable[str], allowed: list[str]) -> str:
    """A package's ``__init__`` that nothing in the view imports a name from: its docstring, and a
    ``__getattr__`` naming the attribute as withheld. The package's own also defines ``Withheld``
    and puts the finder first."""
    tree = ast.parse(source)
    docstring = ast.get_docstring(tree, clean=False) or ""
    head = f'"""{docstring}"""\n\n' if docstring else ""
    if name != PACKAGE_NAME:
        return head + (
            f"from {PACKAGE_NAME} import _withheld_attribute\n\n"
            f"__getattr__ = _withheld_attribute({name!r})\n"
        )
    return head + VIEW_INIT.format(
        exercise=exercise, here=sorted(here), allowed=", ".join(allowed) or "none"
    )


# The package's __init__ in the view: what the child and the student's code see as ``bpe_course``.
VIEW_INIT = '''import sys as _sys

GRADED = {exercise!r}
HERE = frozenset({here!r})
ALLOWED = {allowed!r}  # what a file for it may import from the package (the parent says it)


class Withheld(ImportError):
    """What the course withholds while an exercise is graded: its answers, and the rest of the
    package."""


def _not_here(name):
    return Withheld(f"{{name}} is not available while {{GRADED}} is graded")


class _Finder:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.startswith("bpe_course.") and name not in HERE:
            raise _not_here(name)
        return None


_sys.meta_path.insert(0, _Finder)


def _withheld_attribute(module):
    def __getattr__(name):
        if name.startswith("__") or f"{{module}}.{{name}}" in HERE:
            raise AttributeError(name)  # a submodule here: the import system imports it next
        raise _not_here(f"{{module}}.{{name}}")

    return __getattr__


__getattr__ = _withheld_attribute("bpe_course")
'''


def write_view(exercise: Exercise, destination: Path) -> Path:
    """Write the package as the child sees it while ``exercise`` is graded into
    ``destination/bpe_course``; returns that folder."""
    allowed = allowed_imports(exercise)
    full = closure([*allowed, *CHILD_MODULES])
    here = set(full)
    for name in list(full):  # every package on the way to a module is imported with it
        parts = name.split(".")
        here.update(".".join(parts[:i]) for i in range(1, len(parts)))
    answers = withheld(exercise)
    root = destination / PACKAGE_NAME
    if root.exists():
        shutil.rmtree(root)
    for name in sorted(here):
        path = module_file(name)
        assert path is not None
        target = root.joinpath(*name.split(".")[1:])
        target = target / "__init__.py" if path.name == "__init__.py" else target.with_suffix(".py")
        source = path.read_text(encoding="utf-8")
        if name in full and name != PACKAGE_NAME:  # the package's own __init__ is always the view's
            text = withhold(source, answers.get(name, set()), name)
        else:
            text = cut_init(name, source, exercise.name, here, allowed)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root
