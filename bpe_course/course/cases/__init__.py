"""What each exercise is graded on, one module per exercise, each defining:

- ``NOTEBOOK``, ``SUMMARY``, ``SOLUTION``: where it is taught, one line for ``--list``, and where
  the package's own code (the solution) lives;
- ``reference``: that code, in the student's signature;
- ``cases()``: a hypothesis strategy of inputs (a plain function: the exercise is pickled to the
  grader's child process, and a function made by ``st.composite`` cannot be);
- ``fixed_cases()``: edge cases, the first one small (the first call the grader makes);
- ``show_case``: an input as a report names it;
- optionally ``outcome`` (what a call did; default: its return value), ``compare`` (what differs;
  default: equal values of the same type) and ``show_result`` (an expected result in a report).

Shared here: small ids, so that repeats and overlaps such as ``0 0 0`` are common, and a merge's
new id that is always a fresh one, as in training.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

from bpe_course.course.grading import short

ids = st.integers(min_value=0, max_value=3)
pairs = st.tuples(ids, ids)
words = st.lists(ids, max_size=12).map(tuple)
new_ids = st.integers(min_value=4, max_value=300)  # fresh: never in a word


def call(function, case: tuple) -> Any:
    """The default outcome: the function's return value on a copy of the input."""
    return function(*copy.deepcopy(case))


def same_value(case: Any, expected: Any, actual: Any) -> str | None:
    """The default comparison: equal, and of the same type (a list is not the tuple asked for)."""
    if type(actual) is type(expected) and actual == expected:
        return None
    if type(actual) is not type(expected):
        return (
            f"Expected {short(expected)} (a {type(expected).__name__}); yours returned "
            f"{short(actual)} (a {type(actual).__name__})."
        )
    return f"Expected {short(expected)}; yours returned {short(actual)}."


def named(**arguments: Any) -> str:
    """``word=(0, 1), pair=(0, 1)``: an input as the student's function receives it."""
    return ", ".join(f"{name}={short(value)}" for name, value in arguments.items())
