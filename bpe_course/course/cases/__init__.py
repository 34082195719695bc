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

Shared here: ids mostly small, so that repeats and overlaps such as ``0 0 0`` are common, but
also across the real range (multi-digit, up to a few thousand, and ids whose digits begin with
another's, as ``1`` and ``12``), so that a solution working on the ids' text fails; and a merge's
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
TEXT_LIKE = [1, 11, 12, 21, 111, 112, 256, 257, 1000, 2561]  # "1 1" is inside "1 12", "11 1"...
wide_ids = st.one_of(ids, st.sampled_from(TEXT_LIKE), st.integers(min_value=0, max_value=5000))
wide_words = st.lists(wide_ids, max_size=12).map(tuple)
WIDE_NEW_ID = 5001  # fresh above every wide id, as a merge's is (above every id before it)


@st.composite
def _merge(draw, wide: bool):
    word = draw(wide_words if wide else words)
    any_ids = wide_ids if wide else ids
    # The pair is mostly two ids of the word (often one that occurs), else any two ids.
    inside = st.tuples(st.sampled_from(word), st.sampled_from(word)) if word else pairs
    pair = draw(st.one_of(inside, st.tuples(any_ids, any_ids)))
    fresh = st.sampled_from([WIDE_NEW_ID, 6000, 30000]) if wide else new_ids
    return word, pair, draw(fresh)


def merge_inputs():
    """``(word, pair, new_id)``: small ids (overlaps) or ids across the real range."""
    return st.one_of(_merge(False), _merge(True))


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
