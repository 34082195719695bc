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
            f"; {name} is now {new}, in the package's own signature (see exercises/{new}.py)"
            if new
            else ""
        )
        raise BPEInputError(
            f"no exercise {name!r}{renamed}; choose one of: {', '.join(EXERCISES)}"
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


def listing() -> list[str]:
    """One line per exercise, name first, in the course's order."""
    width = max(map(len, EXERCISES))
    return [f"{e.name:<{width}}  {e.notebook:<22}  {e.summary}" for e in EXERCISES.values()]
