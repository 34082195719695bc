"""``check``: grade one exercise the student wrote, from a notebook or ``bpe-course check``.

>>> from bpe_course.exercises import check
>>> check("merge_word")  # doctest: +SKIP
merge_word: passed. Your function agreed with bpe_course.trainers.common.merge_word on ...
>>> check("merge_word", my_merge_word)  # a function defined in the notebook  # doctest: +SKIP
>>> check_all()  # the six exercises: status, time, what next  # doctest: +SKIP

What it grades is checked in :mod:`bpe_course.course.exercises.grader`, the grading itself is
:mod:`bpe_course.course.exercises.grading`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from bpe_course.course.exercises.catalog import EXERCISES, exercise_file, get_exercise
from bpe_course.course.exercises.grader import grade_file, grade_function, grade_solution
from bpe_course.course.exercises.grading import Report
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
