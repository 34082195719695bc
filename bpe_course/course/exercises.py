"""The exercises: each trainer's one idea, written by the student and graded against the package.

Each notebook from 05 to 09 asks for one function; its stub is ``notebooks/exercises/NAME.py``
(raising ``NotImplementedError`` until written). ``check("NAME")`` in a notebook, or
``bpe-course check NAME`` on the command line, grades it (see :mod:`bpe_course.course.grader`):

>>> from bpe_course.exercises import check
>>> check("merge_word")  # doctest: +SKIP
merge_word: passed. Your function agreed with bpe_course.trainers.common.merge_word on ...

The solutions are the package's own code, named in each exercise's ``solution``.
"""

from __future__ import annotations

import os
from pathlib import Path

from bpe_course.api import train_bpe
from bpe_course.course import capstone
from bpe_course.course import exercise_cases as cases
from bpe_course.course.grader import Exercise, Report, grade
from bpe_course.errors import BPEInputError
from bpe_course.paths import notebooks_dir
from bpe_course.trainers.common import merge_word
from bpe_course.trainers.v2_incremental import pair_count_changes

EXERCISES: dict[str, Exercise] = {
    exercise.name: exercise
    for exercise in [
        Exercise(
            name="merge_word",
            notebook="05_v1_naive",
            summary="merge every occurrence of a pair in one word, left to right (V1)",
            solution="bpe_course.trainers.common.merge_word",
            reference=merge_word,
            cases=cases.merge_word_cases,
            fixed_cases=cases.merge_word_fixed,
            show_case=cases.show_merge_word,
            outcome=cases.call,
            compare=cases.same_value,
        ),
        Exercise(
            name="pair_count_changes",
            notebook="06_v2_incremental",
            summary="how the pair counts change when one word is rewritten (V2)",
            solution="bpe_course.trainers.v2_incremental.pair_count_changes",
            reference=pair_count_changes,
            cases=cases.pair_count_changes_cases,
            fixed_cases=cases.pair_count_changes_fixed,
            show_case=cases.show_pair_count_changes,
            outcome=cases.nonzero_changes,
            compare=cases.compare_changes,
        ),
        Exercise(
            name="chunk_boundaries",
            notebook="07_v3_parallel",
            summary="byte offsets that cut a corpus just before a special token (V3)",
            solution="bpe_course.pretokenize.find_chunk_boundaries",
            reference=cases.chunk_boundaries_reference,
            cases=cases.chunk_boundaries_cases,
            fixed_cases=cases.chunk_boundaries_fixed,
            show_case=cases.show_chunk_boundaries,
            outcome=cases.call,
            compare=cases.same_value,
        ),
        Exercise(
            name="update_index",
            notebook="08_v4_inverted_index",
            summary="rewrite the words holding a pair and keep pair_to_words current (V4)",
            solution="bpe_course.trainers.v4_inverted_index.rewrite_words",
            reference=cases.update_index_reference,
            cases=cases.update_index_cases,
            fixed_cases=cases.update_index_fixed,
            show_case=cases.show_update_index,
            outcome=cases.index_outcome,
            compare=cases.compare_index,
            show_result=cases.show_index_result,
        ),
        Exercise(
            name="pop_best",
            notebook="09_v5_heap",
            summary="pop the best pair from a lazily updated heap (V5)",
            solution="bpe_course.trainers.v5_heap.pop_best",
            reference=cases.pop_best_reference,
            cases=cases.pop_best_cases,
            fixed_cases=cases.pop_best_fixed,
            show_case=cases.show_pop_best,
            outcome=cases.pop_best_outcome,
            compare=cases.compare_pop,
            show_result=cases.show_pop_result,
        ),
        Exercise(
            name="train_bpe",
            notebook="09_v5_heap",
            summary="capstone: a whole trainer, train_bpe(input_path, vocab_size, special_tokens)",
            solution="bpe_course.train_bpe",
            reference=train_bpe,
            cases=capstone.training_cases,
            fixed_cases=capstone.training_fixed,
            show_case=capstone.show_training,
            outcome=capstone.train_outcome,
            compare=capstone.compare_training,
            show_result=capstone.show_trained,
            examples=25,
            call_seconds=120.0,
            total_seconds=600.0,
        ),
    ]
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
