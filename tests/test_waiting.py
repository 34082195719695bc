"""Rare pairs wait outside fast's heap (``WaitingPairs``): the same merges as V1, fewer pushes."""

from __future__ import annotations

import heapq
import warnings

from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course.trainers import fast, shards, v1_naive
from bpe_course.trainers.common import initial_vocab
from bpe_course.trainers.v5_heap import PairKeys, build_heap
from bpe_course.trainers.waiting import WaitingPairs

# Counts spread over many powers of two, so the floor drops many times and buckets of every
# size are let in, some of them holding pairs merged away (count 0) or fallen since.
wide_counts = st.dictionaries(
    st.binary(min_size=2, max_size=8),
    st.one_of(st.integers(1, 8), st.integers(1, 5000)),
    min_size=1,
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(word_counts=wide_counts, merges=st.integers(1, 120))
def test_fast_equals_v1_across_floors(word_counts, merges: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # many runs use up every pair: the exhausted warning
        expected = v1_naive.merge_loop(word_counts, 257 + merges, ["<|endoftext|>"])
        assert fast.merge_loop(word_counts, 257 + merges, ["<|endoftext|>"]) == expected


def test_shards_equal_v1_across_floors() -> None:
    word_counts = {
        bytes([97 + i % 7, 98 + i % 5, 99 + i % 3, i]): 1 + (i * 37) % 900 for i in range(200)
    }
    expected = v1_naive.merge_loop(word_counts, 256 + 150)
    assert shards.merge_loop(word_counts, 256 + 150, workers=2) == expected


def _start(pair_counts: dict[int, int], base: int):
    keys = PairKeys(initial_vocab())
    for token in range(256, base):
        keys.add_token(bytes([token % 256, token // 256]))  # any distinct bytes
    heap = build_heap(pair_counts, keys, ids=lambda pair: divmod(pair, base))
    return heap, WaitingPairs(heap, keys, base)


def test_a_pair_below_the_floor_waits_until_the_best_falls_to_it() -> None:
    base = 300
    ab, cd, made = 97 * base + 98, 99 * base + 100, 256 * base + 101
    pair_counts = {ab: 40, cd: 20}
    heap, waiting = _start(pair_counts, base)
    assert waiting.floor == 32
    waiting.push_made(heap, pair_counts, ab, {made: 25})  # below 32: waits, not pushed
    assert made not in {entry[2] for entry in heap}
    top, _, _ = waiting.pop_best(heap, pair_counts)  # best left in the heap: cd at 20 < 32
    assert top[2] == made and -top[0] == 25  # the floor dropped to 16 and let the 25 in
    assert waiting.floor == 16
    assert cd in {entry[2] for entry in heap}  # the heap's best went back, not lost


def test_a_waiting_pair_that_fell_enters_with_its_count_of_now_or_not_at_all() -> None:
    base = 300
    ab, cd, ef, made = 97 * base + 98, 99 * base + 100, 101 * base + 102, 256 * base + 103
    pair_counts = {ab: 64, cd: 9, ef: 3}
    heap, waiting = _start(pair_counts, base)
    waiting.push_made(heap, pair_counts, ab, {made: 40, made + 1: 30})
    pair_counts[made] = 0  # merged away (or every occurrence lost) while it waited
    pair_counts[made + 1] = 5  # fell while it waited
    popped = [waiting.pop_best(heap, pair_counts)[0] for _ in range(3)]
    assert [(entry[2], -entry[0]) for entry in popped] == [(cd, 9), (made + 1, 5), (ef, 3)]
    assert waiting.pop_best(heap, pair_counts)[0] is None


def test_equal_counts_never_straddle_the_floor() -> None:
    # A pair made at exactly the floor goes into the heap, where the tie-break orders it
    # against the heap's other pair of that count.
    base = 300
    ab, cd, made = 97 * base + 98, 99 * base + 100, 98 * base + 97
    pair_counts = {ab: 40, cd: 32}
    heap, waiting = _start(pair_counts, base)
    waiting.push_made(heap, pair_counts, ab, {made: 32})
    assert made in {entry[2] for entry in heap}
    first = waiting.pop_best(heap, pair_counts)[0]
    assert -first[0] == 32 and first[2] == min(
        (cd, made), key=lambda p: waiting.keys.of(*divmod(p, base))
    )


def test_fast_pushes_fewer_entries_than_pairs_made() -> None:
    # The point of waiting: on text with many rare pairs, most pairs made are never pushed.
    word_counts = {
        bytes([97 + i % 20, 97 + (i // 20) % 20, 97 + i % 13]): 1 + i % 3 for i in range(2000)
    }
    word_counts[b"the"] = 10_000
    made, pushes = [], []
    merge, heappush = fast.FlatWords.merge, heapq.heappush

    def counting_merge(self, *args):
        result = merge(self, *args)
        made.append(len(result[0]))
        return result

    def counting_push(heap, entry):
        pushes.append(entry[2])
        heappush(heap, entry)

    fast.FlatWords.merge, heapq.heappush = counting_merge, counting_push
    try:
        expected = v1_naive.merge_loop(word_counts, 256 + 30)
        assert fast.merge_loop(word_counts, 256 + 30) == expected
    finally:
        fast.FlatWords.merge, heapq.heappush = merge, heappush
    assert len(made) == 30 and sum(made) > 100
    assert len(pushes) < 0.5 * sum(made)
