"""The V1-V5 post's V5, reproduced: the post's V4 plus a heap, built as the post builds it.

Not the course's V5 (``trainers/v5_heap.py``). Read side by side, the two differ in six ways, and
each is an option of :class:`Design`, so notebook 11 can turn the post's V5 into the course's one
change at a time (the ladder of :mod:`bpe_course.reference.ladder`) and time every step:

- ``entries``: the post's heap entries hold a pair of wrapper objects (``ReversedBytes``) compared
  by a Python method, so every comparison in the heap calls back into Python; the course's hold one
  ``bytes`` key, compared in C (:func:`~bpe_course.trainers.common.heap_pair_key`);
- ``collector``: those wrappers are class instances, which CPython's garbage collector tracks, and
  so are the tuples that hold them: with a million entries every full collection walks them all
  (the course's entries hold only ints and bytes, which the collector stops tracking);
- ``keys``: the post builds an entry's key at every push; the course builds it once per pair;
- ``push``: the post pushes every pair of every rewritten word, at the count it has at that moment;
  the course pushes, once per merge, only the pairs whose count rose (the pairs holding the new
  token: no other pair's count can rise in a merge);
- ``compaction``: the post keeps a set of valid pairs, skips popped pairs not in it, and rebuilds
  the heap when it holds more than 3 entries per valid pair (the set only shrinks by the merged
  pair, so it counts dead pairs too); the course compares the heap with the live pairs, no set;
  ``compaction_factor`` is the threshold (``inf``: never);
- ``rewrite``: the post's word update (all of a word's pairs out of the counts and the index, the
  merged word's pairs back in; words as lists in a dict, ``defaultdict`` counts) against the
  course's V4 ``rewrite_words`` (one set of count changes per word; words as tuples).

One fix, so that it is exact: the post's wrapper defines ``__lt__`` only. A tuple compares its
items with ``==`` first, which for such a wrapper is identity, so two equal left tokens in
different wrappers compare as "not less" both ways and the right token is never looked at: ties
are broken wrongly. Defining ``__eq__`` on the bytes is the one-line fix (notebook 09 shows the
trap). As in :mod:`~bpe_course.reference.post_v4`, the ids end the key.
"""

from __future__ import annotations

import gc
import heapq
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bpe_course.reference import post_v4
from bpe_course.trainers import v4_inverted_index as course_v4
from bpe_course.trainers.common import (
    HeapStats,
    MergeEvent,
    Merges,
    OnMerge,
    Pair,
    Vocab,
    apply_deltas,
    heap_pair_key,
    initial_vocab,
    record_merge,
    reversed_id_key,
    reversed_token_key,
    warn_exhausted,
    words_as_ids,
)

COMPACTION_FACTOR = 3

_CHOICES = {
    "entries": ("wrapper", "bytes"),
    "keys": ("per_push", "cached"),
    "push": ("every", "grown"),
    "compaction": ("valid", "live"),
    "rewrite": ("post", "course"),
}


@dataclass(frozen=True)
class Design:
    """How a V5 is built; the defaults are the post's V5 as published (see the module docstring)."""

    entries: str = "wrapper"
    collector: bool = True
    keys: str = "per_push"
    push: str = "every"
    compaction: str = "valid"
    compaction_factor: float = COMPACTION_FACTOR
    rewrite: str = "post"

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, not {getattr(self, name)!r}")
        if not self.compaction_factor >= 1:
            raise ValueError(f"compaction_factor must be at least 1, not {self.compaction_factor}")


PUBLISHED = Design()


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


class HeapKeys:
    """An entry's tie-break key, made as the design says: wrappers or bytes, per push or cached."""

    def __init__(self, design: Design, vocab: Vocab) -> None:
        self.vocab = vocab
        self.wrappers = design.entries == "wrapper"
        self.token_keys = [reversed_token_key(vocab[i]) for i in range(len(vocab))]
        self.id_keys = [reversed_id_key(i) for i in range(len(vocab))]
        self.cache: dict[Pair, object] | None = {} if design.keys == "cached" else None

    def add_token(self, token: bytes) -> None:
        if not self.wrappers:
            self.id_keys.append(reversed_id_key(len(self.token_keys)))
            self.token_keys.append(reversed_token_key(token))

    def make(self, pair: Pair) -> object:
        left, right = pair
        if self.wrappers:
            vocab = self.vocab
            return (ReversedBytes(vocab[left]), ReversedBytes(vocab[right]), -left, -right)
        return heap_pair_key(
            self.token_keys[left], self.token_keys[right], self.id_keys[left], self.id_keys[right]
        )

    def function(self) -> Callable[[Pair], object]:
        """``pair -> key``; with a cache, each pair's key is made once."""
        if self.cache is None:
            return self.make
        cache, make = self.cache, self.make

        def cached(pair: Pair) -> object:
            key = cache.get(pair)
            if key is None:
                key = cache[pair] = make(pair)
            return key

        return cached


def merge_loop(
    word_counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Sequence[str] = (),
    on_merge: OnMerge | None = None,
    design: Design = PUBLISHED,
) -> tuple[Vocab, Merges]:
    """Learn ``vocab_size - 256 - len(special_tokens)`` merges, with the V5 ``design`` describes
    (by default the post's V5 as published)."""
    collecting = gc.isenabled()
    if not design.collector:
        gc.disable()
    try:
        return _heap_loop(word_counts, vocab_size, special_tokens, on_merge, design)
    finally:
        if collecting and not design.collector:
            gc.enable()


def _heap_loop(
    word_counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Sequence[str],
    on_merge: OnMerge | None,
    design: Design,
) -> tuple[Vocab, Merges]:
    vocab, merges = initial_vocab(special_tokens), []
    wanted = vocab_size - len(vocab)  # valid: checked by the API
    post_rewrite = design.rewrite == "post"
    if post_rewrite:
        words, counts, pair_counts, pair_to_words = post_v4.build_index(word_counts)
    else:
        words, counts = words_as_ids(word_counts)
        pair_counts, pair_to_words = course_v4.build_index(words, counts)
    keys = HeapKeys(design, vocab)
    key = keys.function()
    heappush, heappop = heapq.heappush, heapq.heappop
    heap = [(-count, key(pair), pair) for pair, count in pair_counts.items()]
    heapq.heapify(heap)
    valid_pairs = set(pair_counts) if design.compaction == "valid" else None
    push_every = design.push == "every"
    pushes = stale_pops = compactions = 0
    for index in range(wanted):
        # 1. Pop until an entry agrees with its pair's live count (lazy deletion).
        best = None
        while heap:
            negative_count, _, pair = heappop(heap)
            if valid_pairs is not None and pair not in valid_pairs:
                stale_pops += 1
                continue
            current = pair_counts.get(pair, 0)
            if current != -negative_count:
                stale_pops += 1
                if current > 0:
                    heappush(heap, (-current, key(pair), pair))
                    pushes += 1
                continue
            best = pair
            break
        if best is None:
            warn_exhausted(index, wanted, vocab_size)
            break
        new_id = record_merge(vocab, merges, best)
        keys.add_token(vocab[new_id])

        # 2. Rewrite the words holding the pair; push entries as the design says.
        rewritten: list[list[int]] | list[tuple[int, ...]] = []
        if post_rewrite:
            affected = list(pair_to_words.get(best, ()))
            for word_id in affected:
                merged = post_v4.rewrite_word(
                    word_id, best, new_id, words, counts[word_id], pair_counts, pair_to_words
                )
                if push_every:  # at the count the pair has now, mid-merge, as the post does
                    for pair in zip(merged, merged[1:]):
                        heappush(heap, (-pair_counts[pair], key(pair), pair))
                        pushes += 1
                        if valid_pairs is not None:
                            valid_pairs.add(pair)
                else:
                    rewritten.append(merged)
            pair_to_words.pop(best, None)
            touched = len(affected)
        else:
            affected = list(pair_to_words[best])
            deltas, touched = course_v4.rewrite_words(best, new_id, words, counts, pair_to_words)
            apply_deltas(pair_counts, deltas)
            rewritten = [words[word_id] for word_id in affected]
        if rewritten:
            # After the whole merge: every pair of every rewritten word ("every"), or only the
            # pairs whose count rose, each once ("grown": the pairs that hold the new token).
            if push_every:
                changed = {pair for word in rewritten for pair in zip(word, word[1:])}
            else:
                changed = {
                    pair for word in rewritten for pair in zip(word, word[1:]) if new_id in pair
                }
            for pair in changed:
                heappush(heap, (-pair_counts[pair], key(pair), pair))
                if valid_pairs is not None:
                    valid_pairs.add(pair)
            pushes += len(changed)

        # 3. Compact when stale entries dominate.
        if valid_pairs is not None:
            valid_pairs.discard(best)
            if len(heap) > design.compaction_factor * len(valid_pairs):
                valid_pairs = {pair for pair, count in pair_counts.items() if count > 0}
                heap = [(-pair_counts[pair], key(pair), pair) for pair in valid_pairs]
                heapq.heapify(heap)
                compactions += 1
        elif len(heap) > design.compaction_factor * len(pair_counts):
            heap = [(-count, key(pair), pair) for pair, count in pair_counts.items()]
            heapq.heapify(heap)
            compactions += 1

        if on_merge is not None:
            stats = HeapStats(len(heap), len(pair_counts), pushes, stale_pops, compactions)
            on_merge(MergeEvent(index, new_id, merges[-1], -negative_count, touched, stats))
    return vocab, merges


def merge_loop_gc_off(
    word_counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Sequence[str] = (),
    on_merge: OnMerge | None = None,
) -> tuple[Vocab, Merges]:
    """The post's V5 with the garbage collector off while it runs: the control that isolates
    what the collector's walks over the heap's tracked entries cost."""
    return merge_loop(word_counts, vocab_size, special_tokens, on_merge, Design(collector=False))
