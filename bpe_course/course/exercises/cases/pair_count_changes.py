"""Exercise of notebook 06 (V2): how the pair counts change when one word is rewritten."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from bpe_course.course.exercises.cases import merge_inputs, named
from bpe_course.course.exercises.exercise import call, short
from bpe_course.trainers.v2_incremental import pair_count_changes

NOTEBOOK = "06_v2_incremental"
SUMMARY = "how the pair counts change when one word is rewritten (V2)"
SOLUTION = pair_count_changes  # the package's own: V2's idea on one word
PROMPT = (
    "V2's idea for one word: how the corpus's pair counts change when one word, which occurs "
    "`count` times, is rewritten by a merge. The notebook finds the first merge's changes by "
    "recounting every word; find the rule that gives them from the one word alone."
)
HINT = (
    "Merge the word (with your `merge_word` or the package's) and list its adjacent pairs before "
    "and after. Which counts must go down, which up, and by how much? Try it on the notebook's "
    "`a a a`."
)
# Every rule the stub's docstring states (tests/test_exercises.py breaks each alone).
RULES = {
    "times count": "each change is multiplied by count: the word occurs count times",
    "each occurrence": "a pair held twice in a word counts twice",
    "after minus before": (
        "a pair's change is its occurrences after the merge minus those before (losses and gains)"
    ),
    "merged as merge_word": "overlaps merge left to right: (1, 1, 1) on (1, 1) gives (9, 1)",
    "a dict": "it returns a dict {pair: change} (a change of 0 may be left out)",
}


def cases():
    counts = st.integers(min_value=1, max_value=1000)
    return st.tuples(merge_inputs(), counts).map(lambda drawn: (*drawn[0], drawn[1]))


def fixed_cases() -> list:
    return [
        ((0, 1, 2), (1, 2), 4, 1),
        ((0, 0, 0), (0, 0), 4, 1),  # (0, 0) occurs twice, but one merge: -2 and +1
        ((0, 0, 0, 0), (0, 0), 4, 3),
        ((0, 1, 0, 1), (0, 1), 4, 5),
        ((0, 1), (1, 0), 4, 2),  # not in the word: nothing changes
        ((0,), (0, 0), 4, 7),
        ((), (0, 0), 4, 1),
        ((1, 12), (1, 1), 300, 2),  # ids, not text
    ]


def show_case(case: tuple) -> str:
    word, pair, new_id, count = case
    return named(word=word, pair=pair, new_id=new_id, count=count)


def outcome(function, case: tuple) -> Any:
    """A change of 0 and a missing entry mean the same; anything but a dict is shown as it is."""
    result = call(function, case)
    if isinstance(result, dict):
        return {pair: delta for pair, delta in result.items() if delta != 0}
    return result


def signed(change: Any) -> str:
    return f"{change:+d}" if isinstance(change, int) else short(change)


def compare(case: Any, expected: dict, actual: Any) -> str | None:
    if not isinstance(actual, dict):
        return f"Expected a dict, {short(expected)}; yours returned {short(actual)}."
    if actual == expected:
        return None
    wrong = [
        f"{pair}: expected {signed(expected.get(pair, 0))}, yours {signed(actual.get(pair, 0))}"
        for pair in sorted(set(expected) | set(actual), key=repr)
        if expected.get(pair, 0) != actual.get(pair, 0)
    ]
    return f"Expected {short(expected)}; yours returned {short(actual)} ({'; '.join(wrong[:3])})."
