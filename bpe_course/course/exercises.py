"""The exercises: each trainer's one idea, written by the student and graded against the package.

Each notebook from 05 to 10 asks for one function; its stub is ``notebooks/exercises/NAME.py``
(raising ``NotImplementedError`` until written). ``check("NAME")`` in a notebook, or
``bpe-course check NAME`` on the command line, grades it (see :mod:`bpe_course.course.grader`):

>>> from bpe_course.exercises import check
>>> check("merge_word")  # doctest: +SKIP
merge_word: passed. Your function agreed with bpe_course.trainers.common.merge_word on ...
>>> check("merge_word", my_merge_word)  # a function defined in the notebook  # doctest: +SKIP
>>> check_all()  # the six exercises: status, time, what next  # doctest: +SKIP

The solutions are the package's own code, named in each exercise's ``solution``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import replace
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
from bpe_course.course.grader import grade_file, grade_function, grade_solution
from bpe_course.course.grading import Exercise, Report
from bpe_course.course.progress import Progress
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
        hint=cases.HINT,
        case_seconds=getattr(cases, "case_seconds", None),
        big_cases=getattr(cases, "big_cases", None),
        speed=getattr(cases, "speed", None),
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
    """Where the student writes exercise ``name``: ``exercises/NAME.py`` beside the notebooks
    (the course's ``notebooks/``, a handout's top, or the folder of the notebook open in Jupyter,
    which starts its kernel there); the first that exists, else the course's."""
    candidates = [notebooks_dir() / "exercises"]
    opened = os.environ.get("JPY_SESSION_NAME")  # the notebook's path, set by Jupyter's server
    if opened:
        candidates.append(Path(opened).expanduser().parent / "exercises")
    here = Path.cwd()
    candidates += [here / "exercises", here / "notebooks" / "exercises"]
    for folder in candidates:
        if (folder / f"{name}.py").is_file():
            return folder / f"{name}.py"
    return candidates[0] / f"{name}.py"


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


def listing() -> list[str]:
    """One line per exercise, name first, in the course's order."""
    width = max(map(len, EXERCISES))
    return [f"{e.name:<{width}}  {e.notebook:<22}  {e.summary}" for e in EXERCISES.values()]
