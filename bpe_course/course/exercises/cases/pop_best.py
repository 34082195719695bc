"""Exercise of notebook 09 (V5): pop the best pair from a lazily updated heap.

Graded on what it returns (the entry found, the stale entries popped, how many were pushed back),
on what the heap holds afterwards (as a sorted list: the order of a
heap's list depends on how it got there, its contents do not), and on ``pair_counts`` untouched.
"""

from __future__ import annotations

import copy
import heapq
from typing import Any

from hypothesis import strategies as st

from bpe_course.course.exercises.cases import pairs
from bpe_course.course.exercises.exercise import short
from bpe_course.trainers.v5_heap import PairKeys, pop_best

NOTEBOOK = "09_v5_heap"
SUMMARY = "pop the best pair from a lazily updated heap (V5)"
SOLUTION = pop_best  # the package's own: V5's step 1
PROMPT = "V5's step 1: pop the best pair from a lazily updated heap."
TINY_VOCAB = {i: bytes([ord("a") + i]) for i in range(4)}
HINT = (
    "An entry is right when its count is the pair's live count (`pair_counts.get(pair, 0)`). "
    "When it is not, ask: is the pair still alive, and if so, where in the heap does it belong "
    "now? What happens if you put it back where it was? The two tallies count what you did to "
    "stale entries."
)


def heap_of(entries: list[tuple[int, tuple[int, int]]]) -> list:
    """A heap of V5's entries ``(-count, key, pair)`` from ``(count, pair)``; keys as V5 makes them."""
    keys = PairKeys(TINY_VOCAB)
    heap = [(-count, keys[pair], pair) for count, pair in entries]
    heapq.heapify(heap)
    return heap


@st.composite
def _inputs(draw):
    counts = st.integers(min_value=1, max_value=9)
    pair_counts = draw(st.dictionaries(pairs, counts, max_size=5))
    # As in V5: every live pair has an entry at least as high as its count; others are stale.
    entries = [(c + draw(st.integers(0, 3)), p) for p, c in sorted(pair_counts.items())]
    entries += draw(st.lists(st.tuples(counts, pairs), max_size=5))
    return heap_of(entries), pair_counts


def cases():
    return _inputs()


def fixed_cases() -> list:
    return [
        (heap_of([(9, (0, 1))]), {(0, 1): 9}),
        (heap_of([]), {}),  # nothing left: None
        (heap_of([(9, (0, 1)), (5, (0, 1))]), {(0, 1): 5}),
        (heap_of([(8, (1, 1)), (6, (0, 1))]), {(0, 1): 6}),  # (1, 1) is gone: drop it
        (
            heap_of([(8, (1, 1)), (3, (1, 1)), (6, (0, 1))]),
            {(1, 1): 7, (0, 1): 6},
        ),  # push back at 7
        (heap_of([(4, (2, 2)), (2, (3, 3))]), {}),  # all stale: None, and an empty heap
        (heap_of([(5, (0, 2)), (5, (0, 3)), (5, (3, 0))]), {(0, 2): 5, (0, 3): 5, (3, 0): 5}),
    ]


def is_heap(heap: list) -> bool:
    return all(not heap[i] < heap[(i - 1) // 2] for i in range(1, len(heap)))


def outcome(function, case: tuple) -> tuple:
    heap, pair_counts = copy.deepcopy(case)
    best = function(heap, pair_counts)
    try:
        entries, ordered = sorted(heap), is_heap(heap)
    except TypeError:  # entries that cannot be compared: shown as they are
        entries, ordered = list(heap), False
    return best, entries, ordered, pair_counts


def entries_text(entries: list) -> str:
    """Heap entries as ``(count, pair)``, in pop order (their keys are long and say nothing)."""
    shown = [(-e[0], e[2]) if isinstance(e, tuple) and len(e) == 3 else e for e in entries]
    return short(shown)


def compare(case: Any, expected: tuple, actual: tuple) -> str | None:
    (entry, stale, pushed_back), entries, _, counts = expected
    returned, entries_got, ordered, counts_got = actual
    if not (isinstance(returned, tuple) and len(returned) == 3):
        return (
            f"pop_best returns (entry, stale, pushed_back): here {returned_text(expected[0])}; "
            f"yours returned {short(returned)}."
        )
    if returned[0] != entry:
        best, got = pair_of(entry), pair_of(returned[0])
        return (
            f"Expected it to return {entry_text(entry)}; yours returned "
            f"{entry_text(returned[0])}.{tie_note(case, best, got)} {keys_text(case)}"
        )
    if counts_got != counts:
        return f"pair_counts must not change; yours changed it to {short(counts_got)}."
    if entries_got != entries:
        return (
            f"It returned {entry_text(entry)}, but the heap afterwards should hold (count, pair) "
            f"{entries_text(entries)}; yours holds {entries_text(entries_got)}."
        )
    if not ordered:
        return "The entries are right, but the list is no longer a heap: push with heapq.heappush."
    if returned[1:] != (stale, pushed_back):
        return (
            f"It found {entry_text(entry)}, but it popped {stale} stale entries and pushed back "
            f"{pushed_back} of them: expected (stale, pushed_back) = {(stale, pushed_back)}; yours "
            f"returned {short(returned[1:])}."
        )
    return None


def is_entry(value: Any) -> bool:
    return isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], int)


def pair_of(entry: Any) -> Any:
    return entry[2] if is_entry(entry) else entry


def entry_text(entry: Any) -> str:
    """An entry as ``the entry of (0, 1) at count 5`` (its key is long and says nothing)."""
    if is_entry(entry):
        return f"the entry of {short(entry[2])} at count {-entry[0]}"
    return short(entry)


def returned_text(returned: Any) -> str:
    entry, stale, pushed_back = returned
    return f"({entry_text(entry)}, {stale}, {pushed_back})"


def tie_note(case: tuple, best, got) -> str:
    """Name a tie: two live pairs of one count, ordered by their keys, not by the pairs."""
    counts = case[1]
    if best is None or got not in counts or counts.get(best) != counts.get(got) or got == best:
        return ""
    return (
        f" A tie: {best} and {got} both count {counts[best]}; the heap's keys order them "
        f"({best} comes first), so take what heappop gives, never choose among equal counts."
    )


def keys_text(case: tuple) -> str:
    """The starting heap with its keys, as heappop meets them."""
    entries = sorted(case[0])
    return f"The heap's entries (-count, key, pair), smallest first: {short(entries, 600)}."


def show_case(case: tuple) -> str:
    heap, pair_counts = case
    return f"a heap holding (count, pair) {entries_text(sorted(heap))}, pair_counts={short(pair_counts)}"


def show_result(result: tuple) -> str:
    returned, entries, _, _ = result
    return (
        f"it to return {returned_text(returned)}, leaving (count, pair) {entries_text(entries)} "
        "in the heap"
    )
