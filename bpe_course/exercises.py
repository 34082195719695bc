"""``from bpe_course.exercises import check``: the notebooks' short name for the exercises and
their grader, which live in :mod:`bpe_course.course.exercises` (the course's floor)."""

from bpe_course.course.exercises import (
    EXERCISES,
    check,
    check_all,
    exercise_file,
    get_exercise,
    show_solution,
    show_source_before,
)
from bpe_course.course.grading import Report

__all__ = [
    "EXERCISES",
    "Report",
    "check",
    "check_all",
    "exercise_file",
    "get_exercise",
    "show_solution",
    "show_source_before",
]
