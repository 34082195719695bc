"""The catalogue of the exercises: one :class:`Exercise` per module of
:mod:`bpe_course.course.exercises.cases` (each exercise's home), in the course's order, and where
each one's stub and solution are.

Each notebook from 05 to 10 asks for one function of the package; its stub is
``notebooks/exercises/NAME.py`` (raising ``NotImplementedError`` until written), graded by
:func:`bpe_course.course.exercises.check.check`.
"""

from __future__ import annotations

import os
from dataclasses import fields
from pathlib import Path
from types import ModuleType

from bpe_course.course.exercises.cases import (
    find_chunk_boundaries,
    merge_word,
    pair_count_changes,
    pop_best,
    rewrite_words,
    train_bpe,
)
from bpe_course.course.exercises.exercise import Exercise
from bpe_course.errors import BPEInputError
from bpe_course.paths import notebooks_dir

# A field's attribute in a case module is its name, or in capitals for a constant (NOTEBOOK, HINT);
# these fields go by another name there. (Not RENAMED_EXERCISES: exercises renamed over time.)
CASE_ATTRIBUTES = {"solution_function": "SOLUTION", "stub_function": "STUB"}


def exercise_of(cases: ModuleType) -> Exercise:
    """The exercise a module of :mod:`bpe_course.course.exercises.cases` describes, named after
    the module; what it does not define takes :class:`Exercise`'s default."""
    given = {}
    for field in fields(Exercise):
        for attribute in (CASE_ATTRIBUTES.get(field.name), field.name, field.name.upper()):
            if attribute and hasattr(cases, attribute):
                given[field.name] = getattr(cases, attribute)
                break
    return Exercise(**{**given, "name": cases.__name__.rsplit(".", 1)[1]})


# In the course's order: the first is merge_word.
EXERCISES: dict[str, Exercise] = {
    exercise.name: exercise
    for exercise in map(
        exercise_of,
        [merge_word, pair_count_changes, find_chunk_boundaries, rewrite_words, pop_best, train_bpe],
    )
}


# Exercises renamed when each became the package's own function (issue 25): a student's file
# under the old name holds work done before, in the old signature.
RENAMED_EXERCISES = {"update_index": "rewrite_words", "chunk_boundaries": "find_chunk_boundaries"}


def get_exercise(name: str) -> Exercise:
    """The exercise called ``name``, or a clear error listing them."""
    try:
        return EXERCISES[name]
    except (KeyError, TypeError):
        new = RENAMED_EXERCISES.get(name) if isinstance(name, str) else None
        renamed = (
            f"; {name} is now {new}, in the package's own signature (its stub: "
            f"{shown_path(exercise_file(new))})"
            if new
            else ""
        )
        raise BPEInputError(
            f"no exercise {name!r}{renamed}; choose one of: {', '.join(EXERCISES)}"
        ) from None


def exercise_folders() -> list[Path]:
    """Where a student's exercise files may be, nearest first: ``exercises/`` beside the notebook
    open in Jupyter (which starts its kernel there), in the current folder (a student's own folder,
    a handout's top, the course's ``notebooks/``), ``notebooks/exercises/`` under the current folder
    (a clone's root), and last the course's own (under an editable install, the repository's)."""
    candidates = []
    opened = os.environ.get("JPY_SESSION_NAME")  # the notebook's path, set by Jupyter's server
    if opened:
        candidates.append(Path(opened).expanduser().parent / "exercises")
    here = Path.cwd()
    candidates += [here / "exercises", here / "notebooks" / "exercises"]
    candidates.append(notebooks_dir() / "exercises")
    return list(dict.fromkeys(candidates))


def exercises_folder() -> Path:
    """The folder whose exercise files are graded: the first of :func:`exercise_folders` that
    holds any exercise's ``NAME.py`` (a student's folder is theirs whole: an exercise missing
    there is not yet written, not graded from the course's stubs), else the course's own."""
    candidates = exercise_folders()
    for folder in candidates:
        if any((folder / f"{name}.py").is_file() for name in EXERCISES):
            return folder
    return candidates[-1]


def exercise_file(name: str, folder: str | os.PathLike[str] | None = None) -> Path:
    """Where the student writes exercise ``name``: ``NAME.py`` in ``folder``, by default
    :func:`exercises_folder`."""
    return Path(folder if folder is not None else exercises_folder()) / f"{name}.py"


def course_stub(name: str) -> Path:
    """The course's own stub of exercise ``name`` (beside the course's notebooks)."""
    return notebooks_dir() / "exercises" / f"{name}.py"


def shown_path(path: Path) -> str:
    """A path as a report shows it: relative to the current folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def listing() -> list[str]:
    """One line per exercise, name first, in the course's order."""
    width = max(map(len, EXERCISES))
    return [f"{e.name:<{width}}  {e.notebook:<22}  {e.summary}" for e in EXERCISES.values()]
