"""Exercise of notebook 05 (V1): merge every occurrence of a pair in one word, left to right."""

from __future__ import annotations

from bpe_course.course.exercises.cases import merge_inputs, named
from bpe_course.trainers.common import merge_word

NOTEBOOK = "05_v1_naive"
SUMMARY = "merge every occurrence of a pair in one word, left to right (V1)"
SOLUTION = merge_word  # the package's own: every trainer of the course calls it
PROMPT = "Every trainer of the course rewrites words with this one function."
HINT = (
    "Walk an index `i` along the word. If `word[i]` and `word[i + 1]` are the pair, emit "
    "`new_id` and move two ahead; otherwise emit `word[i]` and move one. The last position has no "
    "`word[i + 1]`."
)
# Every rule the stub's docstring states (tests/test_exercises.py breaks each alone).
RULES = {
    "every occurrence": "every occurrence of the pair is replaced, not only the first",
    "the pair, in order": "only the pair itself, in its order: (1, 0) is not the pair (0, 1)",
    "left to right": "the scan goes left to right: (2, 2, 2) on (2, 2) gives (9, 2), not (2, 9)",
    "no overlap": "after a merge the scan goes on after the two ids it merged",
    "the rest kept": "every other id stays, in its order",
    "a tuple": "it returns a tuple",
}


def cases():
    return merge_inputs()


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
        ((1, 12), (1, 1), 300),  # ids, not text: "1 1" is inside "1 12"
        ((11, 1), (1, 1), 300),
        ((2561, 256, 1), (256, 1), 3000),
    ]


def show_case(case: tuple) -> str:
    word, pair, new_id = case
    return named(word=word, pair=pair, new_id=new_id)
