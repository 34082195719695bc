"""The exercises: each trainer's one idea, written by the student and graded against the package.

Each notebook from 05 to 10 asks for one function; its stub is ``notebooks/exercises/NAME.py``
(raising ``NotImplementedError`` until written). ``check("NAME")`` in a notebook, or
``bpe-course check NAME`` on the command line, grades it (see :mod:`bpe_course.course.grader`):

>>> from bpe_course.exercises import check
>>> check("merge_word")  # doctest: +SKIP
merge_word: passed. Your function agreed with bpe_course.trainers.common.merge_word on ...

The solutions are the package's own code, named in each exercise's ``solution``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from bpe_course.course.cases import (
    call,
    chunk_boundaries,
    merge_word,
    pair_count_changes,
    pop_best,
    same_value,
    train_bpe,
    update_index,
)
from bpe_course.course.grader import grade
from bpe_course.course.grading import Exercise, Report
from bpe_course.course.widgets import show_source
from bpe_course.errors import BPEInputError
from bpe_course.paths import notebooks_dir


def exercise_of(cases: ModuleType) -> Exercise:
    """The exercise a module of :mod:`bpe_course.course.cases` describes, named after the module."""
    return Exercise(
        name=cases.__name__.rsplit(".", 1)[1],
        notebook=cases.NOTEBOOK,
        summary=cases.SUMMARY,
        solution=cases.SOLUTION,
        reference=cases.reference,
        cases=cases.cases,
        fixed_cases=cases.fixed_cases,
        show_case=cases.show_case,
        outcome=getattr(cases, "outcome", call),
        compare=getattr(cases, "compare", same_value),
        show_result=getattr(cases, "show_result", None),
        examples=getattr(cases, "EXAMPLES", 300),
        call_seconds=getattr(cases, "CALL_SECONDS", 5.0),
        total_seconds=getattr(cases, "TOTAL_SECONDS", 120.0),
    )


# In the course's order: the first is merge_word.
EXERCISES: dict[str, Exercise] = {
    exercise.name: exercise
    for exercise in map(
        exercise_of,
        [merge_word, pair_count_changes, chunk_boundaries, update_index, pop_best, train_bpe],
    )
}


def get_exercise(name: str) -> Exercise:
    """The exercise called ``name``, or a clear error listing them."""
    try:
        return EXERCISES[name]
    except (KeyError, TypeError):
        raise BPEInputError(
            f"no exercise {name!r}; choose one of: {', '.join(EXERCISES)}"
        ) from None


def exercise_file(name: str) -> Path:
    """Where the student writes exercise ``name``: ``notebooks/exercises/NAME.py``."""
    return notebooks_dir() / "exercises" / f"{name}.py"


def solution_of(name: str) -> Callable:
    """The package's own function that answers exercise ``name`` (its ``SOLUTION``)."""
    module, _, attribute = get_exercise(name).solution.rpartition(".")
    return getattr(importlib.import_module(module), attribute)


def show_source_before(obj, exercise: str) -> object:
    """``obj``'s source as a notebook shows it before ``exercise``: the function the exercise
    asks for (its solution), where that source defines it, printed as one placeholder line."""
    return show_source(obj, hide=[solution_of(exercise).__name__])


def show_solution(exercise: str) -> object:
    """The course's own answer to ``exercise``: for the cell after the exercise, tagged
    ``solution`` (the student handout leaves it out)."""
    return show_source(solution_of(exercise))


def check(
    name: str,
    file: str | os.PathLike[str] | None = None,
    *,
    solution: bool = False,
    timeout: float | None = None,
) -> Report:
    """Grade exercise ``name``: the function of that name in ``file`` (default: its stub's path),
    or with ``solution=True`` the package's own. ``timeout``: seconds one call may take.

    Returns a :class:`Report` (``report.passed``); a notebook shows it as one paragraph.
    """
    exercise = get_exercise(name)
    if timeout is not None and not timeout > 0:
        raise BPEInputError(f"timeout must be a positive number of seconds, not {timeout!r}")
    if solution:
        return grade(exercise, None, exercise.solution, timeout)
    path = Path(file) if file is not None else exercise_file(name)
    return grade(exercise, path, shown_path(path), timeout)


def shown_path(path: Path) -> str:
    """The path as a report shows it: relative to the current folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def listing() -> list[str]:
    """One line per exercise, name first, in the course's order."""
    width = max(map(len, EXERCISES))
    return [f"{e.name:<{width}}  {e.notebook:<22}  {e.summary}" for e in EXERCISES.values()]
