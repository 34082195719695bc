"""The V1-V5 post's V5, reproduced: the post's V4 plus a heap, built as the post builds it.

Not the course's V5 (``trainers/v5_heap.py``). Read side by side, the two differ in six ways of
design, and a seventh way of carrying out the course's push: each is an option of :class:`Design`,
so notebook 11 can turn the post's V5 into the course's one change at a time (the ladder of
:mod:`bpe_course.reference.ladder`) and time every step:

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
- ``push_source``: with the course's push and rewrite, where the pairs whose count rose come from:
  ``"words"`` walks every pair of every rewritten word again after the merge and keeps those that
  hold the new token (the post's loop pushes from the words it rewrote, and the reproduction
  keeps that shape); ``"changes"`` reads them off the count changes ``rewrite_words`` returned, in the pass
  that applies them (as the course's ``push_changes`` does). The same pairs are pushed, so the same
  merges are learned; the second reads each change once instead of each pair of each word again.

What remains between the top rung and ``trainers/v5_heap.py`` is not an option of :class:`Design`
(the ladder's side rung ``changes`` against ``v5`` times it): the course looks a key up in a dict
that makes a missing key itself (:class:`~bpe_course.trainers.v5_heap.PairKeys`) and drops a pair's
key with the pair, where this module calls a function with a dict behind it; and when a callback
listens, the course's loop reads a stage clock (``StageClock``) that this one does not.

One fix, so that it is exact: the post's wrapper defines ``__lt__`` only. A tuple compares its
items with ``==`` first, which for such a wrapper is identity, so two equal left tokens in
different wrappers compare as "not less" both ways and the right token is never looked at: ties
are broken wrongly. Defining ``__eq__`` on the bytes is the one-line fix (notebook 09 shows the
trap). As in :mod:`~bpe_course.reference.post_v4`, the ids end the key: a guard, which
decides no tie in training runs that make no two tokens of the same bytes.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from bpe_course.collector import collector_paused
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
    "push_source": ("words", "changes"),
}


@dataclass(frozen=True)
class Design:
    """How a V5 is built; the defaults are the post's V5, with the fix that makes it exact
    (``__eq__``) and the ids ending the key (a guard): see the module docstring."""

    entries: str = "wrapper"
    collector: bool = True
    keys: str = "per_push"
    push: str = "every"
    compaction: str = "valid"
    compaction_factor: float = COMPACTION_FACTOR
    rewrite: str = "post"
    push_source: str = "words"

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, not {getattr(self, name)!r}")
        if not self.compaction_factor >= 1:
            raise ValueError(f"compaction_factor must be at least 1, not {self.compaction_factor}")
        if self.push_source == "changes" and (self.push, self.rewrite) != ("grown", "course"):
            raise ValueError(
                'push_source="changes" needs push="grown" and rewrite="course" (the count changes '
                "come from the course's rewrite, and only the pairs whose count rose are pushed)"
            )


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
    (by default the post's V5, made exact)."""
    with collector_paused(not design.collector):
        return _heap_loop(word_counts, vocab_size, special_tokens, on_merge, design)


def _heap_loop(
    word_counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Sequence[str],
    on_merge: OnMerge | None,
    design: Design,
) -> tuple[Vocab, Merges]:
    vocab, merges = initial_vocab(special_tokens), []
    wanted = vocab_size - len(vocab)  # valid: checked by the API
    run = _HeapRun(word_counts, vocab, design)
    for index in range(wanted):
        # 1. Pop until an entry agrees with its pair's live count (lazy deletion).
        top = run.pop_best()
        if top is None:
            warn_exhausted(index, wanted, vocab_size)
            break
        negative_count, best = top
        new_id = record_merge(vocab, merges, best)
        run.keys.add_token(vocab[new_id])
        # 2. Rewrite the words holding the pair; push entries as the design says.
        touched = run.merge(best, new_id)
        # 3. Compact when stale entries dominate.
        run.compact(best)
        if on_merge is not None:
            on_merge(MergeEvent(index, new_id, merges[-1], -negative_count, touched, run.stats()))
    return vocab, merges


class _HeapRun:
    """The state of one run of a V5 :class:`Design`: words, counts, index, heap, and what the
    heap did (for :class:`HeapStats`). Each stage of a merge is one method."""

    def __init__(self, word_counts: Mapping[bytes, int], vocab: Vocab, design: Design) -> None:
        self.design = design
        self.post_rewrite = design.rewrite == "post"
        self.push_every = design.push == "every"
        self.push_from_changes = design.push_source == "changes"
        if self.post_rewrite:
            self.words, self.counts, self.pair_counts, self.pair_to_words = post_v4.build_index(
                word_counts
            )
        else:
            self.words, self.counts = words_as_ids(word_counts)
            self.pair_counts, self.pair_to_words = course_v4.build_index(self.words, self.counts)
        self.keys = HeapKeys(design, vocab)
        self.key = self.keys.function()
        self.valid_pairs = set(self.pair_counts) if design.compaction == "valid" else None
        self.heap = self._fresh_heap(self.pair_counts)
        self.pushes = self.stale_pops = self.compactions = 0

    def _fresh_heap(self, pairs: Iterable[Pair]) -> list:
        key, pair_counts = self.key, self.pair_counts
        heap = [(-pair_counts[pair], key(pair), pair) for pair in pairs]
        heapq.heapify(heap)
        return heap

    def pop_best(self) -> tuple[int, Pair] | None:
        """The best pair with its negated count; ``None`` when the heap runs out."""
        heap, pair_counts, valid_pairs, key = (
            self.heap,
            self.pair_counts,
            self.valid_pairs,
            self.key,
        )
        heappush, heappop = heapq.heappush, heapq.heappop
        while heap:
            negative_count, _, pair = heappop(heap)
            if valid_pairs is not None and pair not in valid_pairs:
                self.stale_pops += 1
                continue
            current = pair_counts.get(pair, 0)
            if current != -negative_count:
                self.stale_pops += 1
                if current > 0:
                    heappush(heap, (-current, key(pair), pair))
                    self.pushes += 1
                continue
            return negative_count, pair
        return None

    def merge(self, best: Pair, new_id: int) -> int:
        """Rewrite the words holding ``best``, push entries as the design says; the words touched."""
        if self.post_rewrite:
            rewritten, touched = self._rewrite_as_the_post(best, new_id)
        elif self.push_from_changes:
            deltas, touched = course_v4.rewrite_words(
                best, new_id, self.words, self.counts, self.pair_to_words
            )
            self._push_from_changes(deltas)
            return touched
        else:
            affected = list(self.pair_to_words[best])
            deltas, touched = course_v4.rewrite_words(
                best, new_id, self.words, self.counts, self.pair_to_words
            )
            apply_deltas(self.pair_counts, deltas)
            rewritten = [self.words[word_id] for word_id in affected]
        if rewritten:
            self._push_after_merge(rewritten, new_id)
        return touched

    def _rewrite_as_the_post(self, best: Pair, new_id: int) -> tuple[list[list[int]], int]:
        """The post's word update; with ``push="every"`` each pair is pushed as it is rewritten,
        at the count it has then (mid-merge, as the post does), and nothing is left to push."""
        words, counts, pair_counts, pair_to_words = (
            self.words,
            self.counts,
            self.pair_counts,
            self.pair_to_words,
        )
        heap, key, valid_pairs = self.heap, self.key, self.valid_pairs
        rewritten: list[list[int]] = []
        affected = list(pair_to_words.get(best, ()))
        for word_id in affected:
            merged = post_v4.rewrite_word(
                word_id, best, new_id, words, counts[word_id], pair_counts, pair_to_words
            )
            if self.push_every:
                for pair in zip(merged, merged[1:]):
                    heapq.heappush(heap, (-pair_counts[pair], key(pair), pair))
                    self.pushes += 1
                    if valid_pairs is not None:
                        valid_pairs.add(pair)
            else:
                rewritten.append(merged)
        pair_to_words.pop(best, None)
        return rewritten, len(affected)

    def _push_after_merge(self, rewritten: Sequence[Sequence[int]], new_id: int) -> None:
        """After the whole merge: every pair of every rewritten word ("every"), or only the pairs
        whose count rose, each once ("grown": the pairs that hold the new token)."""
        pairs = (pair for word in rewritten for pair in zip(word, word[1:]))
        changed = set(pairs) if self.push_every else {pair for pair in pairs if new_id in pair}
        heap, key, pair_counts, valid_pairs = (
            self.heap,
            self.key,
            self.pair_counts,
            self.valid_pairs,
        )
        for pair in changed:
            heapq.heappush(heap, (-pair_counts[pair], key(pair), pair))
            if valid_pairs is not None:
                valid_pairs.add(pair)
        self.pushes += len(changed)

    def _push_from_changes(self, deltas: Mapping[Pair, int]) -> None:
        """Apply the count changes; push each pair whose count rose, in the same pass (as the
        course's ``push_changes``: a pair's count rises only when it holds the new token)."""
        heap, key, pair_counts = self.heap, self.key, self.pair_counts
        get, heappush = pair_counts.get, heapq.heappush
        for pair, delta in deltas.items():
            if delta > 0:
                count = pair_counts[pair] = get(pair, 0) + delta
                heappush(heap, (-count, key(pair), pair))
                self.pushes += 1
            elif delta < 0:
                count = pair_counts[pair] + delta
                if count:
                    pair_counts[pair] = count
                else:
                    del pair_counts[pair]

    def compact(self, best: Pair) -> None:
        """Rebuild the heap when it holds more than ``compaction_factor`` entries per pair: per
        valid pair (the post's set, which only loses the merged pair) or per live pair."""
        factor = self.design.compaction_factor
        if self.valid_pairs is not None:
            self.valid_pairs.discard(best)
            if len(self.heap) <= factor * len(self.valid_pairs):
                return
            self.valid_pairs = {pair for pair, count in self.pair_counts.items() if count > 0}
            self.heap = self._fresh_heap(self.valid_pairs)
        elif len(self.heap) > factor * len(self.pair_counts):
            self.heap = self._fresh_heap(self.pair_counts)
        else:
            return
        self.compactions += 1

    def stats(self) -> HeapStats:
        return HeapStats(
            len(self.heap), len(self.pair_counts), self.pushes, self.stale_pops, self.compactions
        )


def merge_loop_gc_off(
    word_counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Sequence[str] = (),
    on_merge: OnMerge | None = None,
) -> tuple[Vocab, Merges]:
    """The post's V5 with the garbage collector off while it runs: the control that isolates
    what the collector's walks over the heap's tracked entries cost."""
    return merge_loop(word_counts, vocab_size, special_tokens, on_merge, Design(collector=False))
