"""What ``check`` grades, checked before any process starts: a student's file (missing, unreadable
or not valid Python is one line here), a function object, or the course's own solution. The
grading itself is :func:`bpe_course.course.grading.grade`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bpe_course.course.grading import Exercise, Report, grade
from bpe_course.course.loading import CourseSolution, GivenFunction, StudentFile


def grade_file(exercise: Exercise, path: Path, shown: str, call_seconds: float | None) -> Report:
    """Grade the function ``exercise.name`` in the file ``path`` (``shown`` names it in reports)."""
    problem = file_problem(exercise.name, path, shown)
    if problem is not None:
        return Report(exercise.name, "failed", problem)
    return grade(exercise, StudentFile(str(path), exercise.name, shown), call_seconds)


def grade_function(exercise: Exercise, function: Callable, call_seconds: float | None) -> Report:
    """Grade a function object (a notebook's): the child is a fork, holding the same function."""
    shown = f"your function {getattr(function, '__name__', 'object')}"
    return grade(exercise, GivenFunction(function, shown), call_seconds, fork=True)


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
