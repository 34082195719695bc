"""``check``: grade one exercise the student wrote, from a notebook or ``bpe-course check``.

>>> from bpe_course.exercises import check
>>> check("merge_word")  # doctest: +SKIP
merge_word: passed. Your function agreed with bpe_course.trainers.common.merge_word on ...
>>> check("merge_word", my_merge_word)  # a function defined in the notebook  # doctest: +SKIP
>>> check_all()  # the six exercises: status, time, what next  # doctest: +SKIP

What it grades is checked here first, before any process starts: a student's file (missing,
unreadable or not valid Python is one line), a function object, or the course's own solution; a
report that did not pass also notes a signature that does not take the grader's call, or work left
under an exercise's old name. The run itself, in a sandboxed child, is
:func:`bpe_course.course.exercises.judge.grade`.
"""

from __future__ import annotations

import ast
import inspect
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from bpe_course.course.exercises.catalog import (
    EXERCISES,
    RENAMED_EXERCISES,
    exercise_file,
    get_exercise,
)
from bpe_course.course.exercises.exercise import Exercise, Report
from bpe_course.course.exercises.judge import grade
from bpe_course.course.exercises.loading import CourseSolution, GivenFunction, StudentFile
from bpe_course.course.exercises.progress import Progress
from bpe_course.errors import BPEInputError


def check(
    name: str,
    what: str | os.PathLike[str] | Callable | None = None,
    *,
    solution: bool = False,
    timeout: float | None = None,
    hint: bool = False,
) -> Report:
    """Grade exercise ``name``: ``what`` is your function itself (``check("merge_word",
    merge_word)``, in a notebook) or the file defining it (default: the stub beside the
    notebooks); ``solution=True`` grades the package's own. ``timeout``: seconds one call may
    take; ``hint=True`` adds the exercise's hint when it does not pass.

    Returns a :class:`Report` (``report.passed``); a notebook shows it as one paragraph.
    """
    exercise = get_exercise(name)
    if timeout is not None and not timeout > 0:
        raise BPEInputError(f"timeout must be a positive number of seconds, not {timeout!r}")
    if solution:
        report = grade_solution(exercise, timeout)
    elif callable(what):
        report = grade_function(exercise, what, timeout)
    else:
        path = Path(what) if what is not None else exercise_file(name)
        report = grade_file(exercise, path, shown_path(path), timeout)
    if hint and not report.passed:
        report = replace(report, hint=exercise.hint)
    return report


def check_all(*, timeout: float | None = None) -> Progress:
    """Every exercise's stub graded, in the course's order: a table with what to do next."""
    return Progress(tuple(check(name, timeout=timeout) for name in EXERCISES))


def shown_path(path: Path) -> str:
    """The path as a report shows it: relative to the current folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


# --- What is graded, checked before any process starts --------------------------------------------


def grade_file(exercise: Exercise, path: Path, shown: str, call_seconds: float | None) -> Report:
    """Grade the function ``exercise.name`` in the file ``path`` (``shown`` names it in reports)."""
    problem = file_problem(exercise.name, path, shown)
    if problem is not None:
        return Report(exercise.name, "failed", problem)
    report = grade(exercise, StudentFile(str(path), exercise.name, shown), call_seconds)
    report = with_note(report, signature_note(exercise, parameters_in(path, exercise.name)))
    return with_note(report, renamed_note(exercise.name, path))


def grade_function(exercise: Exercise, function: Callable, call_seconds: float | None) -> Report:
    """Grade a function object (a notebook's): sent to the child by value (cloudpickle)."""
    shown = f"your function {getattr(function, '__name__', 'object')}"
    report = grade(exercise, GivenFunction(function, shown), call_seconds)
    return with_note(report, signature_note(exercise, positional(function)))


def with_note(report: Report, note: str | None) -> Report:
    """A sentence added to a report that did not pass."""
    if note is None or report.passed:
        return report
    return replace(report, text=f"{report.text} {note}")


# A function's positional parameters as the grader calls them: (names, how many have defaults,
# whether it takes *args).
Positional = tuple[list[str], int, bool]


def parameters_in(path: Path, name: str) -> Positional | None:
    """The positional parameters of the function ``name`` the file defines (None: none found)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            arguments = node.args
            names = [a.arg for a in [*arguments.posonlyargs, *arguments.args]]
            return names, len(arguments.defaults), arguments.vararg is not None
    return None


def positional(function: Callable) -> Positional | None:
    """``function``'s positional parameters, as :func:`parameters_in` reads a file's."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    named = [p for p in parameters if p.kind in kinds]
    defaults = sum(p.default is not p.empty for p in named)
    return [p.name for p in named], defaults, any(p.kind == p.VAR_POSITIONAL for p in parameters)


def signature_note(exercise: Exercise, parameters: Positional | None) -> str | None:
    """When the grader's call (the exercise's arguments, by position) does not fit the student's
    parameters, or fits them in another order (a stub from before the exercise changed, or a
    slip), say so."""
    wanted = positional(exercise.answer_function)[0]
    if parameters is None:
        return None
    names, defaults, varargs = parameters
    fits = (len(names) >= len(wanted) or varargs) and len(names) - defaults <= len(wanted)
    first = names[: len(wanted)]
    if fits and (first == wanted or sorted(first) != sorted(wanted)):
        return None  # it takes the call; other names in the same places are the student's to choose
    return (
        f"Note: your {exercise.name} takes ({', '.join(names)}); the exercise calls it with "
        f"({', '.join(wanted)}), in that order: a stub made before the exercise changed? The "
        f"current stub is made by `python -m bpe_course.course.exercises.stubs` (`make stubs`)."
    )


def renamed_note(name: str, path: Path) -> str | None:
    """An old exercise's file beside the stub: work done before the exercise was renamed."""
    old = [
        o
        for o, new in RENAMED_EXERCISES.items()
        if new == name and (path.parent / f"{o}.py").is_file()
    ]
    if not old:
        return None
    return (
        f"Note: {path.parent / (old[0] + '.py')} is the exercise {old[0]}, from before it became "
        f"{name} (the package's own function, in its signature): move your work into {path.name}."
    )


def grade_solution(exercise: Exercise, call_seconds: float | None) -> Report:
    return grade(
        exercise, CourseSolution(exercise.solution_function, exercise.solution), call_seconds
    )


def file_problem(name: str, path: Path, shown: str) -> str | None:
    """One line if the file is missing, unreadable or not valid Python; else None."""
    if not path.is_file():
        return (
            f"{name}: no file {shown}. The stub is notebooks/exercises/{name}.py in the course; "
            f"write your function there, or name your file or function: check({name!r}, "
            f"'my_file.py') or check({name!r}, my_function) in a notebook, --file in a terminal."
        )
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        return f"{name}: cannot read {shown}: {err}"
    try:
        compile(source, str(path), "exec")
    except SyntaxError as err:
        code = f" (`{err.text.strip()}`)" if err.text and err.text.strip() else ""
        return f"{name}: {shown}, line {err.lineno}: SyntaxError: {err.msg}{code}"
    return None
