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
    course_stub,
    exercise_file,
    get_exercise,
    shown_path,
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
    merge_word)``, in a notebook), the file defining it, or the folder holding that file as
    ``NAME.py`` (default: ``exercises/NAME.py`` beside the notebook or in the current folder, else
    the course's stub: :func:`~bpe_course.course.exercises.catalog.exercise_file`);
    ``solution=True`` grades the package's own. ``timeout``: seconds one call may take;
    ``hint=True`` adds the exercise's hint when it does not pass.

    Returns a :class:`Report` (``report.passed``); a notebook shows it as one paragraph, which
    names the file graded.
    """
    exercise = get_exercise(name)
    if timeout is not None and not timeout > 0:
        raise BPEInputError(f"timeout must be a positive number of seconds, not {timeout!r}")
    if solution:
        report = grade_solution(exercise, timeout)
    elif callable(what):
        report = grade_function(exercise, what, timeout)
    else:
        if what is None or Path(what).is_dir():
            path = exercise_file(name, what)
            if not path.is_file():  # a student's folder without this exercise yet
                return Report(name, "not done", not_yet_text(name, path))
        else:
            path = Path(what)
        report = grade_file(exercise, path, shown_path(path), timeout)
    if hint and not report.passed:
        report = replace(report, hint=exercise.hint)
    return report


def not_yet_text(name: str, path: Path) -> str:
    stub = course_stub(name)
    where = (
        f"copy the course's stub, {shown_path(stub)}, there"
        if stub.is_file() and stub.resolve() != path.resolve()
        else "`python -m bpe_course.course.exercises.stubs` writes the course's stubs"
    )
    return f"{name}: not done yet: no file {shown_path(path)}. To write it, {where}."


def check_all(
    folder: str | os.PathLike[str] | None = None, *, timeout: float | None = None
) -> Progress:
    """Every exercise graded, in the course's order: a table with the files graded and what to
    do next. ``folder``: where the files are (``NAME.py`` each); default: each found as
    :func:`check` finds it."""
    if folder is not None and not Path(folder).is_dir():
        raise BPEInputError(f"no folder {folder}")
    reports = tuple(check(name, folder, timeout=timeout) for name in EXERCISES)
    files = (shown_path(exercise_file(name, folder)) for name in EXERCISES)
    return Progress(reports, tuple(files))


# --- What is graded, checked before any process starts --------------------------------------------


def grade_file(exercise: Exercise, path: Path, shown: str, call_seconds: float | None) -> Report:
    """Grade the function ``exercise.name`` in the file ``path`` (``shown`` names it in reports)."""
    problem = file_problem(exercise.name, path, shown)
    if problem is not None:
        return Report(exercise.name, "failed", problem)
    report = grade(exercise, StudentFile(str(path), exercise.name, shown), call_seconds)
    defined = functions_in(path)
    parameters = defined.get(exercise.name)
    wanted = positional(exercise.answer_function)[0]
    misnamed = [n for n, p in defined.items() if parameters is None and p[0] == wanted]
    if misnamed:  # the exercise's parameters under another name: a slip of the name
        note = f"Note: it defines {misnamed[0]}({', '.join(wanted)}): name it {exercise.name}."
    else:  # no function of the exercise's name: is one of the file's another exercise's?
        note = signature_note(exercise, parameters, list(defined) if parameters is None else [])
    report = with_note(report, note)
    report = with_note(report, renamed_note(exercise.name, path))
    return with_file(report, shown)


def with_file(report: Report, shown: str) -> Report:
    """Which file was graded, said once in every report on a file (a student's own
    ``exercises/`` or the course's stub: the two are easy to mix up)."""
    if shown in report.text:
        return report
    return replace(report, text=f"{report.text} Graded: {shown}.")


def grade_function(exercise: Exercise, function: Callable, call_seconds: float | None) -> Report:
    """Grade a function object (a notebook's): sent to the child by value (cloudpickle)."""
    shown = f"your function {getattr(function, '__name__', 'object')}"
    report = grade(exercise, GivenFunction(function, shown), call_seconds)
    named = getattr(function, "__name__", None)
    return with_note(report, signature_note(exercise, positional(function), [named]))


def with_note(report: Report, note: str | None) -> Report:
    """A sentence added to a report that did not pass."""
    if note is None or report.passed:
        return report
    return replace(report, text=f"{report.text} {note}")


# A function's positional parameters as the grader calls them: (names, how many have defaults,
# whether it takes *args).
Positional = tuple[list[str], int, bool]


def functions_in(path: Path) -> dict[str, Positional]:
    """The positional parameters of each function the file defines at its top level."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return {}
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            arguments = node.args
            names = [a.arg for a in [*arguments.posonlyargs, *arguments.args]]
            found[node.name] = (names, len(arguments.defaults), arguments.vararg is not None)
    return found


def positional(function: Callable) -> Positional | None:
    """``function``'s positional parameters, as :func:`functions_in` reads a file's."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    named = [p for p in parameters if p.kind in kinds]
    defaults = sum(p.default is not p.empty for p in named)
    return [p.name for p in named], defaults, any(p.kind == p.VAR_POSITIONAL for p in parameters)


def looks_like(exercise: Exercise, parameters: Positional | None, names: list) -> str | None:
    """Another exercise this function seems to be: by its name, or by its parameters' names."""
    others = [e for e in EXERCISES.values() if e.name != exercise.name]
    for other in others:
        if other.name in names:
            return other.name
    if parameters is not None:
        for other in others:
            if parameters[0] == positional(other.answer_function)[0]:
                return other.name
    return None


def signature_note(
    exercise: Exercise, parameters: Positional | None, called: list | None = None
) -> str | None:
    """When the function is another exercise's (by its name, or by one of ``called``, the names
    it goes by, or by its parameters), say that first; when the grader's call (the exercise's arguments, by position) does not fit the student's
    parameters, or fits them in another order (a stub from before the exercise changed, or a
    slip), say so."""
    wanted = positional(exercise.answer_function)[0]
    other = looks_like(exercise, parameters, [n for n in called or [] if n != exercise.name])
    if other is not None and (parameters is None or parameters[0] != wanted):
        return (
            f"Note: this looks like {other}, not {exercise.name}: grade it with "
            f"check({other!r}, ...) (`bpe-course check {other}`); {exercise.name} takes "
            f"({', '.join(wanted)})."
        )
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
    """Work done before the exercise was renamed: the file graded is the old exercise's, or an
    old exercise's file is beside it. Names the old file and the new one, each by its path."""
    olds = [o for o, new in RENAMED_EXERCISES.items() if new == name]
    if path.stem in olds:
        old, stub = path.stem, path.parent / f"{name}.py"
        where = (
            shown_path(stub)
            if stub.is_file()
            else f"{shown_path(stub)} (its stub is made by `make stubs`)"
        )
    else:
        beside = [o for o in olds if (path.parent / f"{o}.py").is_file()]
        if not beside:
            return None
        old, where = beside[0], shown_path(path)
    return (
        f"Note: {shown_path(path.parent / f'{old}.py')} is the exercise {old}, from before it "
        f"became {name} (the package's own function, in its signature): move your work into "
        f"{where}."
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
