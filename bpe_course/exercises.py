"""``from bpe_course.exercises import check``: what the notebooks and the student use of the
exercises (the student's own files are ``exercises/NAME.py`` beside the notebooks). Each exercise's
home is its module in :mod:`bpe_course.course.exercises.cases`; the catalogue, the check, the
stubs and the notebook's cells are :mod:`bpe_course.course.exercises.catalog`,
:mod:`~bpe_course.course.exercises.check`, :mod:`~bpe_course.course.exercises.stubs` and
:mod:`~bpe_course.course.exercises.prompts`."""

from bpe_course.course.exercises.catalog import EXERCISES, exercise_file, get_exercise
from bpe_course.course.exercises.check import check, check_all
from bpe_course.course.exercises.exercise import Report
from bpe_course.course.exercises.prompts import show_exercise, show_solution, show_source_before

__all__ = [
    "EXERCISES",
    "Report",
    "check",
    "check_all",
    "exercise_file",
    "get_exercise",
    "show_exercise",
    "show_solution",
    "show_source_before",
]
