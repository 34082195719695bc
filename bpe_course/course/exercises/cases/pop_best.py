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
REVERSED_VOCAB = {i: bytes([ord("d") - i]) for i in range(4)}  # id 0 is b"d": the greatest
HINT = (
    "An entry is right when its count is the pair's live count (`pair_counts.get(pair, 0)`). "
    "When it is not, ask: is the pair still alive, and if so, where in the heap does it belong "
    "now? What happens if you put it back where it was? The two tallies count what you did to "
    "stale entries."
)
# Every rule the stub's docstring states (tests/test_exercises.py breaks each alone).
RULES = {
    "live": "an entry is live when its count is the pair's count (0 for a pair not in pair_counts)",
    "the entry": "it returns the live entry itself, (-count, key, pair)",
    "None when empty": "None when the heap runs out",
    "gone: dropped": "a stale entry whose pair is gone is dropped",
    "lower: pushed back": (
        "a stale entry whose pair is alive with a lower count is pushed back at that count"
    ),
    "popped": "the live entry found is popped too",
    "pair_counts unchanged": "pair_counts does not change",
    "a heap": "heap stays a heap (push with heapq)",
    "the tallies": "it returns how many stale entries it popped and how many it pushed back",
    "the heap's order": (
        "equal counts come out in the heap's order (its keys: the pairs' bytes), never chosen"
    ),
}


def heap_of(
    entries: list[tuple[int, tuple[int, int]]], vocab: dict[int, bytes] = TINY_VOCAB
) -> list:
    """A heap of V5's entries ``(-count, key, pair)`` from ``(count, pair)``; keys as V5 makes them
    from ``vocab`` (the ids' tokens)."""
    keys = PairKeys(vocab)
    heap = [(-count, keys[pair], pair) for count, pair in entries]
    heapq.heapify(heap)
    return heap


# The ids' tokens of a generated heap: four of these, in any order, so that the heap's order of
# equal counts (by the pairs' bytes) and the order of the pairs' ids often disagree. The first
# four (what a shrink goes to) already disagree: id 0 is b"b", id 1 is b"a".
TOKEN_CHOICES = (b"b", b"a", b"ab", b"c", b"ba", b" t", "é".encode())


@st.composite
def _inputs(draw):
    tokens = draw(st.permutations(TOKEN_CHOICES))
    vocab = dict(enumerate(tokens[:4]))
    counts = st.integers(min_value=1, max_value=9)
    # Live counts from a few values: equal counts (ties) are common.
    pair_counts = draw(st.dictionaries(pairs, st.integers(min_value=1, max_value=3), max_size=5))
    # As in V5: every live pair has an entry at least as high as its count; others are stale.
    entries = [(c + draw(st.integers(0, 3)), p) for p, c in sorted(pair_counts.items())]
    entries += draw(st.lists(st.tuples(counts, pairs), max_size=5))
    return heap_of(entries, vocab), pair_counts


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
        # A tie where the pairs' ids and their bytes disagree: (0, 0) is (b"d", b"d"), the greatest.
        (heap_of([(2, (0, 0)), (2, (1, 1))], REVERSED_VOCAB), {(0, 0): 2, (1, 1): 2}),
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
    shown = [(-e[0], e[2]) if is_entry(e) else keyless(e) for e in entries]
    return short(shown)


class Shown(str):
    """Text that shows as itself inside a repr (an entry, written for the student)."""

    def __repr__(self) -> str:
        return str(self)


def keyless(value: Any) -> Any:
    """``value`` with every heap entry in it written as the report writes one, without its key."""
    if is_entry(value):
        return Shown(f"<{entry_text(value)}>")
    if type(value) in (tuple, list):
        return type(value)(keyless(item) for item in value)
    return value


def key_tokens(key: bytes) -> tuple[bytes, bytes] | None:
    """The pair's two tokens, read back from its heap key: each byte b is written (0, 255 - b)
    and each token ends with (1, 0) (:func:`bpe_course.trainers.common.reversed_token_key`)."""
    tokens, token = [], bytearray()
    for i in range(0, len(key) - 1, 2):
        if len(tokens) == 2:
            break
        if key[i] == 1:
            tokens.append(bytes(token))
            token = bytearray()
        else:
            token.append(255 - key[i + 1])
    return (tokens[0], tokens[1]) if len(tokens) == 2 else None


def tokens_of(heap: list) -> dict[int, bytes]:
    """The tokens of the ids in the heap's pairs, as its keys hold them."""
    tokens: dict[int, bytes] = {}
    for entry in heap:
        read = key_tokens(entry[1]) if is_entry(entry) else None
        if read is not None and isinstance(entry[2], tuple) and len(entry[2]) == 2:
            tokens.update(zip(entry[2], read))
    return dict(sorted(tokens.items()))


def compare(case: Any, expected: tuple, actual: tuple) -> str | None:
    (entry, stale, pushed_back), entries, _, counts = expected
    returned, entries_got, ordered, counts_got = actual
    if is_entry(returned) or not (isinstance(returned, tuple) and len(returned) == 3):
        return (
            f"pop_best returns (entry, stale, pushed_back): here {returned_text(expected[0])}; "
            f"yours returned {short(keyless(returned))}."
        )
    if returned[0] != entry:
        best, got = pair_of(entry), pair_of(returned[0])
        why = (
            " Your list is no longer a heap afterwards: push with heapq.heappush, and heappop "
            "gives the best entry."
            if not ordered
            else tie_note(case, best, got)
        )
        return (
            f"Expected it to return {entry_text(entry)}; yours returned "
            f"{entry_text(returned[0])}.{why}"
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
            f"It found {entry_text(entry)}, but it popped {stale} stale "
            f"{'entry' if stale == 1 else 'entries'} and pushed back {pushed_back} of them: expected (stale, pushed_back) = {(stale, pushed_back)}; yours "
            f"returned {short(keyless(returned[1:]))}."
        )
    return None


def is_entry(value: Any) -> bool:
    """A heap entry ``(-count, key, pair)``."""
    return (
        isinstance(value, tuple)
        and len(value) == 3
        and isinstance(value[0], int)
        and isinstance(value[1], bytes)
    )


def pair_of(entry: Any) -> Any:
    return entry[2] if is_entry(entry) else entry


def entry_text(entry: Any) -> str:
    """An entry as ``the entry of (0, 1) at count 5`` (its key is long and says nothing)."""
    if is_entry(entry):
        return f"the entry of {short(entry[2])} at count {-entry[0]}"
    return short(keyless(entry))


def returned_text(returned: Any) -> str:
    entry, stale, pushed_back = returned
    return f"({entry_text(entry)}, {stale}, {pushed_back})"


def tie_note(case: tuple, best, got) -> str:
    """Name a tie: two live pairs of one count, which the heap's keys order by the pairs' bytes."""
    counts = case[1]
    if best is None or got not in counts or counts.get(best) != counts.get(got) or got == best:
        return ""
    tokens = tokens_of(case[0])
    spelled = [tuple(tokens.get(i, "?") for i in pair) for pair in (best, got)]
    return (
        f" A tie: {best} and {got} both count {counts[best]}; the heap's keys order them by the "
        f"pairs' bytes, not by their ids: {spelled[0]} first (the greater). heappop gives it "
        "first while the list stays a heap (push with heapq.heappush, never append): take what "
        "it gives, never choose among equal counts."
    )


def show_case(case: tuple) -> str:
    heap, pair_counts = case
    tokens = tokens_of(heap)
    shown = f", the ids' tokens {short(tokens)}" if tokens else ""
    return (
        f"a heap holding (count, pair) {entries_text(sorted(heap))}, pair_counts="
        f"{short(pair_counts)}{shown}"
    )


def show_result(result: tuple) -> str:
    returned, entries, _, _ = result
    return (
        f"it to return {returned_text(returned)}, leaving (count, pair) {entries_text(entries)} "
        "in the heap"
    )
