"""Each exercise's one home: one module per exercise, named after the function it asks for, from
which the stub, the notebook's prompt, the hint, the grader and the answer key all read. Each defines:

- ``NOTEBOOK``, ``SUMMARY``, ``PROMPT``, ``HINT``: where it is taught, one line for ``--list``, what
  the notebook asks (Markdown, shown by ``show_exercise``), and the hint (folded in the notebook,
  ``--hint`` in a terminal);
- ``SOLUTION``: the package's own function, which the trainer calls, in the signature the student
  writes; its body is marked ``### BEGIN SOLUTION`` / ``### END SOLUTION`` (nbgrader's marks), and
  the stub is its source with those regions taken out (:mod:`bpe_course.course.exercises.stubs`);
- ``cases()``: a hypothesis strategy of inputs (a plain function: the exercise is pickled to the
  grader's child process, and a function made by ``st.composite`` cannot be);
- ``fixed_cases()``: edge cases, the first one small (the first call the grader makes);
- ``show_case``: an input as a report names it;
- optionally ``outcome`` (what a call did; default: its return value), ``compare`` (what differs;
  default: equal values of the same type), ``show_result`` (an expected result in a report),
  ``STUB`` (a function whose source the stub is made from instead of the solution's: the
  capstone's, in CS336's shape), and the other fields of
  :class:`~bpe_course.course.exercises.exercise.Exercise`, in capitals when constants.

Shared here: ids mostly small, so that repeats and overlaps such as ``0 0 0`` are common, but
also across the real range (multi-digit, up to a few thousand, and ids whose digits begin with
another's, as ``1`` and ``12``), so that a solution working on the ids' text fails; and a merge's
new id that is always a fresh one, as in training.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from bpe_course.course.exercises.exercise import call, same_value, short

__all__ = ["call", "merge_inputs", "named", "same_value"]

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


def named(**arguments: Any) -> str:
    """``word=(0, 1), pair=(0, 1)``: an input as the student's function receives it."""
    return ", ".join(f"{name}={short(value)}" for name, value in arguments.items())
