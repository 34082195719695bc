"""Exercise of notebook 05 (V1): merge every occurrence of a pair in one word, left to right."""

from __future__ import annotations

from hypothesis import strategies as st

from bpe_course.course.cases import named, new_ids, pairs, words
from bpe_course.trainers.common import merge_word

NOTEBOOK = "05_v1_naive"
SUMMARY = "merge every occurrence of a pair in one word, left to right (V1)"
SOLUTION = "bpe_course.trainers.common.merge_word"
reference = merge_word  # the package's own, in the same signature


def cases():
    return st.tuples(words, pairs, new_ids)


def fixed_cases() -> list:
    return [
        ((0, 1, 2), (1, 2), 4),
        ((), (0, 1), 4),
        ((0,), (0, 0), 4),
        ((0, 0), (0, 0), 4),
        ((0, 0, 0), (0, 0), 4),  # left to right: 4 0, not 0 4
        ((0, 0, 0, 0), (0, 0), 4),
        ((1, 2, 1, 2), (1, 2), 4),
        ((2, 1, 2), (1, 2), 4),
        ((2, 1), (1, 2), 4),  # the reverse pair is not the pair
    ]


def show_case(case: tuple) -> str:
    word, pair, new_id = case
    return named(word=word, pair=pair, new_id=new_id)
