"""What the exercises of notebooks 05 to 09 are graded on: for each, the package's own code in the
student's signature, the inputs hypothesis generates, the fixed edge cases, and how two results
are compared. Ids are small (0 to 3) so that repeats and overlaps such as ``0 0 0`` are common, and
a merge's new id is always a fresh one, as in training.

Each ``*_cases`` is a plain function returning a strategy: the exercise is pickled to the grader's
child process, and a function made by ``st.composite`` cannot be.
"""

from __future__ import annotations

import copy
import heapq
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from bpe_course.course.grader import short
from bpe_course.pretokenize import END_OF_TEXT, find_chunk_boundaries
from bpe_course.trainers.v4_inverted_index import build_index, rewrite_words
from bpe_course.trainers.v5_heap import PairKeys, pop_best

ids = st.integers(min_value=0, max_value=3)
pairs = st.tuples(ids, ids)
words = st.lists(ids, max_size=12).map(tuple)
new_ids = st.integers(min_value=4, max_value=300)  # fresh: never in a word


def call(function, case: tuple) -> Any:
    """The default outcome: the function's return value on a copy of the input."""
    return function(*copy.deepcopy(case))


def same_value(case: Any, expected: Any, actual: Any) -> str | None:
    if type(actual) is type(expected) and actual == expected:
        return None
    if type(actual) is not type(expected):
        return (
            f"Expected {short(expected)} (a {type(expected).__name__}); yours returned "
            f"{short(actual)} (a {type(actual).__name__})."
        )
    return f"Expected {short(expected)}; yours returned {short(actual)}."


def named(**arguments: Any) -> str:
    return ", ".join(f"{name}={short(value)}" for name, value in arguments.items())


# --- V1: merge_word ------------------------------------------------------------------------------


def merge_word_cases():
    return st.tuples(words, pairs, new_ids)


def merge_word_fixed() -> list:
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


def show_merge_word(case: tuple) -> str:
    word, pair, new_id = case
    return named(word=word, pair=pair, new_id=new_id)


# --- V2: pair_count_changes ----------------------------------------------------------------------


def pair_count_changes_cases():
    return st.tuples(words, pairs, new_ids, st.integers(min_value=1, max_value=1000))


def pair_count_changes_fixed() -> list:
    return [
        ((0, 1, 2), (1, 2), 4, 1),
        ((0, 0, 0), (0, 0), 4, 1),  # (0, 0) occurs twice, but one merge: -2 and +1
        ((0, 0, 0, 0), (0, 0), 4, 3),
        ((0, 1, 0, 1), (0, 1), 4, 5),
        ((0, 1), (1, 0), 4, 2),  # not in the word: nothing changes
        ((0,), (0, 0), 4, 7),
        ((), (0, 0), 4, 1),
    ]


def show_pair_count_changes(case: tuple) -> str:
    word, pair, new_id, count = case
    return named(word=word, pair=pair, new_id=new_id, count=count)


def nonzero_changes(function, case: tuple) -> Any:
    """A change of 0 and a missing entry mean the same; anything but a dict is shown as it is."""
    result = call(function, case)
    if isinstance(result, dict):
        return {pair: delta for pair, delta in result.items() if delta != 0}
    return result


def signed(change: Any) -> str:
    return f"{change:+d}" if isinstance(change, int) else short(change)


def compare_changes(case: Any, expected: dict, actual: Any) -> str | None:
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


# --- V3: chunk_boundaries ------------------------------------------------------------------------

SPLIT_TOKENS = (END_OF_TEXT.encode(), b"<s>", b"|")


@st.composite
def _chunk_boundaries_inputs(draw):
    token = draw(st.sampled_from(SPLIT_TOKENS))
    pieces = st.sampled_from([b"a", token, b"bc", b" ", b"\n", "é".encode()])
    data = b"".join(draw(st.lists(pieces, max_size=20)))
    return data, draw(st.integers(min_value=1, max_value=8)), token


def chunk_boundaries_cases():
    return _chunk_boundaries_inputs()


def chunk_boundaries_reference(data: bytes, desired_chunks: int, split_token: bytes) -> list[int]:
    """The package's :func:`~bpe_course.pretokenize.find_chunk_boundaries`, which reads a file."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.txt"
        path.write_bytes(data)
        return find_chunk_boundaries(path, desired_chunks, split_token)


def chunk_boundaries_fixed() -> list:
    eot = END_OF_TEXT.encode()
    return [
        (b"ab" + eot + b"cd", 2, eot),
        (b"", 4, eot),
        (b"abc", 1, eot),
        (b"abc", 3, eot),  # no token: no cut
        (eot + b"abc", 2, eot),  # a token at 0 is no cut
        (b"ab" + eot + b"cd" + eot + b"ef", 3, eot),
        (b"a" + eot * 3, 8, eot),  # fewer tokens than chunks
        (b"xy<s>z", 10, b"<s>"),  # more chunks than bytes
    ]


def show_chunk_boundaries(case: tuple) -> str:
    data, desired_chunks, split_token = case
    return named(data=data, desired_chunks=desired_chunks, split_token=split_token)


# --- V4: update_index ----------------------------------------------------------------------------


@st.composite
def _update_index_inputs(draw):
    corpus = draw(
        st.lists(st.lists(ids, min_size=2, max_size=8).map(tuple), min_size=1, max_size=6)
    )
    _, pair_to_words = build_index(corpus, [1] * len(corpus))
    pair = draw(st.sampled_from(sorted(pair_to_words)))
    return corpus, pair_to_words, pair, 4


def update_index_cases():
    return _update_index_inputs()


def index_case(corpus: list[tuple[int, ...]], pair: tuple[int, int]) -> tuple:
    _, pair_to_words = build_index(corpus, [1] * len(corpus))
    return corpus, pair_to_words, pair, 4


def update_index_fixed() -> list:
    return [
        index_case([(0, 1, 2)], (1, 2)),
        index_case([(0, 0, 0)], (0, 0)),
        index_case([(0, 1, 0, 1), (1, 0)], (0, 1)),  # word 1 still holds (1, 0)
        index_case([(0, 1, 2, 0, 1)], (1, 2)),  # (0, 1) still occurs, after the merge site
        index_case([(3, 3), (3, 3, 3), (2, 3)], (3, 3)),
    ]


def update_index_reference(
    words: list[tuple[int, ...]],
    pair_to_words: dict[tuple[int, int], set[int]],
    pair: tuple[int, int],
    new_id: int,
) -> None:
    """The package's :func:`~bpe_course.trainers.v4_inverted_index.rewrite_words` (which also
    returns the count changes, for V4's pair counts)."""
    rewrite_words(pair, new_id, words, [1] * len(words), pair_to_words)


def index_outcome(function, case: tuple) -> tuple:
    """The words and the index after the call; an empty set is the same as no entry."""
    corpus, pair_to_words, pair, new_id = copy.deepcopy(case)
    function(corpus, pair_to_words, pair, new_id)
    if not isinstance(pair_to_words, dict):
        return corpus, pair_to_words
    index = {p: sorted(ids) for p, ids in sorted(pair_to_words.items(), key=repr) if ids}
    return corpus, index


def compare_index(case: Any, expected: tuple, actual: tuple) -> str | None:
    (words_wanted, index_wanted), (words_got, index_got) = expected, actual
    if words_got != words_wanted:
        return f"The words afterwards: expected {short(words_wanted)}; yours {short(words_got)}."
    if index_got == index_wanted:
        return None
    if not isinstance(index_got, dict):
        return f"pair_to_words must stay a dict; yours became {short(index_got)}."
    wrong = [
        f"pair_to_words[{pair}] expected {set(index_wanted.get(pair, ())) or 'no entry'}, "
        f"yours {set(index_got.get(pair, ())) or 'no entry'}"
        for pair in sorted(set(index_wanted) | set(index_got), key=repr)
        if index_wanted.get(pair) != index_got.get(pair)
    ]
    return f"The words are right, but {'; '.join(wrong[:3])}."


def show_index_result(result: tuple) -> str:
    corpus, index = result
    index = {pair: set(ids) for pair, ids in index.items()}
    return f"words {short(corpus)} and pair_to_words {short(index)}"


def show_update_index(case: tuple) -> str:
    corpus, _, pair, new_id = case
    return named(words=corpus, pair=pair, new_id=new_id) + " (pair_to_words built from the words)"


# --- V5: pop_best --------------------------------------------------------------------------------

TINY_VOCAB = {i: bytes([ord("a") + i]) for i in range(4)}


def heap_of(entries: list[tuple[int, tuple[int, int]]]) -> list:
    """A heap of V5's entries ``(-count, key, pair)`` from ``(count, pair)``; keys as V5 makes them."""
    keys = PairKeys(TINY_VOCAB)
    heap = [(-count, keys[pair], pair) for count, pair in entries]
    heapq.heapify(heap)
    return heap


@st.composite
def _pop_best_inputs(draw):
    counts = st.integers(min_value=1, max_value=9)
    pair_counts = draw(st.dictionaries(pairs, counts, max_size=5))
    # As in V5: every live pair has an entry at least as high as its count; others are stale.
    entries = [(c + draw(st.integers(0, 3)), p) for p, c in sorted(pair_counts.items())]
    entries += draw(st.lists(st.tuples(counts, pairs), max_size=5))
    return heap_of(entries), pair_counts


def pop_best_cases():
    return _pop_best_inputs()


def pop_best_fixed() -> list:
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


def pop_best_reference(
    heap: list[tuple[int, bytes, tuple[int, int]]], pair_counts: dict[tuple[int, int], int]
) -> tuple[int, int] | None:
    """The package's :func:`~bpe_course.trainers.v5_heap.pop_best` (which returns the whole entry
    and counts stale pops, for V5's statistics)."""
    entry, _, _ = pop_best(heap, pair_counts)
    return None if entry is None else entry[2]


def is_heap(heap: list) -> bool:
    return all(not heap[i] < heap[(i - 1) // 2] for i in range(1, len(heap)))


def pop_best_outcome(function, case: tuple) -> tuple:
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


def compare_pop(case: Any, expected: tuple, actual: tuple) -> str | None:
    best, entries, _, counts = expected
    best_got, entries_got, ordered, counts_got = actual
    if best_got != best:
        return f"Expected it to return {best}; yours returned {short(best_got)}."
    if counts_got != counts:
        return f"pair_counts must not change; yours changed it to {short(counts_got)}."
    if entries_got != entries:
        return (
            f"It returned {best}, but the heap afterwards should hold (count, pair) "
            f"{entries_text(entries)}; yours holds {entries_text(entries_got)}."
        )
    if not ordered:
        return "The entries are right, but the list is no longer a heap: push with heapq.heappush."
    return None


def show_pop_result(result: tuple) -> str:
    best, entries, _, _ = result
    return f"it to return {best}, leaving (count, pair) {entries_text(entries)} in the heap"


def show_pop_best(case: tuple) -> str:
    heap, pair_counts = case
    return f"a heap holding (count, pair) {entries_text(sorted(heap))}, pair_counts={short(pair_counts)}"
