"""The V1-V5 post's V5, reproduced: the post's V4 plus a heap, built as the post builds it.

Not the course's V5 (``trainers/v5_heap.py``). What this design does, and the course's V5 does
not, which is why notebook 11 measures both:

- heap entries hold a wrapper object per token (``ReversedBytes``), compared by a Python method:
  every comparison in the heap calls back into Python;
- those wrappers are class instances, which CPython's garbage collector tracks, and so are the
  tuples that hold them: with a million entries, every full collection walks them all (the
  course's V5 keys are ``bytes``, which the collector never tracks);
- every pair of every rewritten word is pushed, changed or not (the course's V5 pushes a pair
  only when its count rises), with a set of valid pairs, and compaction at 3x.

One fix, so that it is exact: the post's wrapper defines ``__lt__`` only. A tuple compares its
items with ``==`` first, which for such a wrapper is identity, so two equal left tokens in
different wrappers compare as "not less" both ways and the right token is never looked at: ties
are broken wrongly. Defining ``__eq__`` on the bytes is the one-line fix (notebook 09 shows the
trap). As in :mod:`~bpe_course.reference.post_v4`, the ids end the key.
"""

from __future__ import annotations

import gc
import heapq
from collections.abc import Mapping, Sequence

from bpe_course.reference.post_v4 import build_index, rewrite_word
from bpe_course.trainers.common import (
    HeapStats,
    MergeEvent,
    Merges,
    OnMerge,
    Vocab,
    check_training_arguments,
    initial_vocab,
    record_merge,
    warn_exhausted,
)

COMPACTION_FACTOR = 3


class ReversedBytes:
    """Bytes whose order is reversed, so that a min-heap pops the greatest first."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __lt__(self, other: ReversedBytes) -> bool:
        return self.data > other.data

    def __eq__(self, other: object) -> bool:  # the fix: without it, ties go wrong
        return isinstance(other, ReversedBytes) and self.data == other.data

    __hash__ = None  # type: ignore[assignment]  (mutable-looking wrapper: never a dict key)


def merge_loop(
    word_counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Sequence[str] = (),
    on_merge: OnMerge | None = None,
) -> tuple[Vocab, Merges]:
    """Learn ``vocab_size - 256 - len(special_tokens)`` merges, as the post's V5 does."""
    wanted = check_training_arguments(vocab_size, special_tokens)
    vocab, merges = initial_vocab(special_tokens), []
    words, counts, pair_counts, pair_to_words = build_index(word_counts)

    def entry(pair: tuple[int, int]) -> tuple:
        left, right = pair
        key = (ReversedBytes(vocab[left]), ReversedBytes(vocab[right]), -left, -right)
        return (-pair_counts[pair], key, pair)

    heap = [entry(pair) for pair in pair_counts]
    heapq.heapify(heap)
    valid_pairs = set(pair_counts)
    pushes = stale_pops = compactions = 0
    for index in range(wanted):
        best = None
        while heap:
            negative_count, _, pair = heapq.heappop(heap)
            if pair not in valid_pairs:
                stale_pops += 1
                continue
            current = pair_counts.get(pair, 0)
            if current != -negative_count:
                stale_pops += 1
                if current > 0:
                    heapq.heappush(heap, entry(pair))
                    pushes += 1
                continue
            best = pair
            break
        if best is None:
            warn_exhausted(index, wanted, vocab_size)
            break
        new_id = record_merge(vocab, merges, best)
        affected = list(pair_to_words.get(best, ()))
        for word_id in affected:
            merged = rewrite_word(
                word_id, best, new_id, words, counts[word_id], pair_counts, pair_to_words
            )
            for i in range(len(merged) - 1):
                pair = (merged[i], merged[i + 1])
                heapq.heappush(heap, entry(pair))
                valid_pairs.add(pair)
                pushes += 1
        pair_to_words.pop(best, None)
        valid_pairs.discard(best)
        if len(heap) > COMPACTION_FACTOR * len(valid_pairs):
            valid_pairs = {pair for pair, count in pair_counts.items() if count > 0}
            heap = [entry(pair) for pair in valid_pairs]
            heapq.heapify(heap)
            compactions += 1
        if on_merge is not None:
            stats = HeapStats(len(heap), len(pair_counts), pushes, stale_pops, compactions)
            on_merge(MergeEvent(index, new_id, merges[-1], -negative_count, len(affected), stats))
    return vocab, merges


def merge_loop_gc_off(
    word_counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Sequence[str] = (),
    on_merge: OnMerge | None = None,
) -> tuple[Vocab, Merges]:
    """The same loop with the garbage collector off while it runs: the control that isolates
    what the collector's walks over the heap's tracked entries cost."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return merge_loop(word_counts, vocab_size, special_tokens, on_merge)
    finally:
        if collecting:
            gc.enable()
