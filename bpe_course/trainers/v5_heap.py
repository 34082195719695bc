"""V5, heap: V4, but the best pair comes from a max-heap instead of a scan of all pair counts.

Change from V4: a ``heapq`` of entries ``(-count, key, pair)``, where ``key`` is a ``bytes``
object whose ascending order is the tie-break's descending order (see
:func:`bpe_course.trainers.common.heap_pair_key`), so the heap orders ties by the same rule as
every other version, compared in C, and every entry is a tuple of ints and bytes, which CPython's
garbage collector stops tracking (a wrapper class instance stays tracked for as long as it lives).

Lazy deletion: counts change all the time and ``heapq`` cannot update an entry in place, so old
entries stay. A new entry is pushed only when a pair's count rises. On pop, an entry whose count
differs from the live count is stale: re-pushed with the live count if the pair is alive with a
lower count, else dropped; the first entry popped whose count equals the live count is returned
(notebook 09's exercise 3 asks why that is the best pair).
Compaction: when entries exceed ``compaction_factor`` times the live pairs, the heap is rebuilt
from the live counts, which bounds its memory.
Per merge: O(A L log H) to push the pairs whose count rose, plus the stale pops, each paid once.
The stages of a merge are functions (:func:`pop_best`, :func:`push_changes`), called once per
merge, so the notebook can run them one at a time and print the heap in between.
This is the course's one heap: the trainers beyond V5 (sites, fast, shards) take its
:class:`PairKeys`, :func:`build_heap` and :func:`pop_best` (through :func:`best_pairs`, their
loop without compaction) as they are, with their own pairs (strings, integer codes) in the
entries.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from typing import TypeVar

from bpe_course.trainers.common import (
    HeapStats,
    MergeEvent,
    Merges,
    OnMerge,
    Pair,
    StageClock,
    Vocab,
    heap_pair_key,
    initial_vocab,
    record_merge,
    reversed_id_key,
    reversed_token_key,
    warn_exhausted,
    words_as_ids,
)
from bpe_course.trainers.v4_inverted_index import build_index, rewrite_words

DEFAULT_COMPACTION_FACTOR = 3.0

HeapEntry = tuple[int, bytes, Pair]
P = TypeVar("P", bound=Hashable)  # a pair, however a trainer writes it
# How best_pairs pops: pop_best, or fast's WaitingPairs.pop_best (same arguments, same return)
PopBest = Callable[
    [list[tuple[int, bytes, P]], Mapping[P, int]], tuple[tuple[int, bytes, P] | None, int, int]
]


class PairKeys(dict):
    """``pair -> heap key``, made from per-token keys (one concatenation per pair).

    V5 reads it as a mapping (``keys[pair]``): a pair's key is made the first time the heap needs
    it (when the heap is built, or when :func:`push_changes` pushes the pair because its count
    rose), then read from this cache by every later ``keys[pair]``: each rebuild of the heap
    (compaction) and any later push of the pair after a rise. It is deleted when the pair's count
    reaches 0. A push-back in :func:`pop_best` reuses the key already in the popped entry and does
    not read the cache. The trainers beyond V5 call :meth:`of` instead: no cache to keep or prune.
    """

    def __init__(self, vocab: Vocab) -> None:
        super().__init__()
        self.token_keys = [reversed_token_key(vocab[i]) for i in range(len(vocab))]
        self.id_keys = [reversed_id_key(i) for i in range(len(vocab))]

    def add_token(self, token: bytes) -> None:
        self.id_keys.append(reversed_id_key(len(self.token_keys)))
        self.token_keys.append(reversed_token_key(token))

    def of(self, left: int, right: int) -> bytes:
        """The key of the pair ``(left, right)``, made afresh."""
        token_keys, id_keys = self.token_keys, self.id_keys
        return heap_pair_key(token_keys[left], token_keys[right], id_keys[left], id_keys[right])

    def __missing__(self, pair: Pair) -> bytes:
        key = self[pair] = self.of(*pair)
        return key


def build_heap(
    pair_counts: Mapping[P, int],
    keys: PairKeys,
    ids: Callable[[P], Pair] | None = None,
) -> list[tuple[int, bytes, P]]:
    """One entry per live pair: at the start, and when compacting. O(P).

    ``ids``: how to read a pair's two token ids when pairs are not tuples of ids (the trainers
    beyond V5 write them as strings or integer codes); their keys are then made, not cached.
    """
    if ids is None:
        heap = [(-count, keys[pair], pair) for pair, count in pair_counts.items()]
    else:
        of = keys.of
        heap = [(-count, of(*ids(pair)), pair) for pair, count in pair_counts.items()]
    heapq.heapify(heap)
    return heap


def pop_best(
    heap: list[tuple[int, bytes, P]], pair_counts: Mapping[P, int]
) -> tuple[tuple[int, bytes, P] | None, int, int]:
    """Pop entries ``(-count, key, pair)`` from the min-heap ``heap`` until one is live: that
    entry holds the best pair. Returns it (None if the heap runs out), the stale entries popped,
    and how many of those were pushed back (V5's statistics, :class:`HeapStats`).

    An entry is live when ``count`` equals the pair's count in ``pair_counts`` (a pair not in it
    has count 0). A stale entry is dropped, except when its pair is alive with a lower count: then
    push ``(-live count, key, pair)`` back, where it now belongs. The live entry found is popped
    too. Do not change ``pair_counts``; keep ``heap`` a heap (use ``heapq``).

    Below, ``(2, 3)`` is gone (stale: dropped), ``(0, 1)`` was counted 7 and is now 5 (stale,
    alive lower: pushed back at 5), and ``(1, 2)``'s entry holds its count 6 (live: returned).
    The keys here are placeholders; V5's order equal counts by the pairs' bytes, as the
    tie-break does.

    >>> import heapq
    >>> heap = [(-7, b"k01", (0, 1)), (-6, b"k12", (1, 2)), (-9, b"k23", (2, 3))]
    >>> heapq.heapify(heap)
    >>> pop_best(heap, {(0, 1): 5, (1, 2): 6})
    ((-6, b'k12', (1, 2)), 2, 1)
    >>> heap
    [(-5, b'k01', (0, 1))]
    """
    ### BEGIN SOLUTION
    heappop, heappush, get = heapq.heappop, heapq.heappush, pair_counts.get
    stale = pushed_back = 0
    while heap:
        entry = heappop(heap)
        neg_count, key, pair = entry
        live = get(pair, 0)
        if live == -neg_count:
            return entry, stale, pushed_back
        stale += 1
        if 0 < live < -neg_count:  # fell since pushed: its true place is lower
            heappush(heap, (-live, key, pair))
            pushed_back += 1
    return None, stale, pushed_back
    ### END SOLUTION


def best_pairs(
    heap: list[tuple[int, bytes, P]],
    pair_counts: Mapping[P, int],
    wanted: int,
    vocab_size: int,
    clock: StageClock,
    pop: PopBest[P] = pop_best,
) -> Iterator[tuple[int, tuple[int, bytes, P]]]:
    """Each merge's index and best entry, in turn, by ``pop`` (:func:`pop_best`, or fast's
    ``WaitingPairs.pop_best``), until ``wanted`` merges or no pair is left (then warn). Between
    two of them the caller merges the pair and pushes the pairs it made: the loop of the trainers
    beyond V5, whose heaps need no compaction."""
    for index in range(wanted):
        clock.finding()
        top, _, _ = pop(heap, pair_counts)
        clock.found()
        if top is None:
            warn_exhausted(index, wanted, vocab_size, stacklevel=4)  # past this generator
            return
        yield index, top


def push_changes(
    heap: list[HeapEntry], pair_counts: dict[Pair, int], deltas: Mapping[Pair, int], keys: PairKeys
) -> int:
    """Apply ``deltas`` to ``pair_counts``; a pair whose count rose gets a fresh entry (one that fell
    keeps its old, now stale, entry). Returns the number of entries pushed."""
    heappush, get = heapq.heappush, pair_counts.get
    pushes = 0
    for pair, delta in deltas.items():
        if delta > 0:
            count = pair_counts[pair] = get(pair, 0) + delta
            heappush(heap, (-count, keys[pair], pair))
            pushes += 1
        elif delta < 0:
            count = pair_counts[pair] + delta
            if count:
                pair_counts[pair] = count
            else:
                del pair_counts[pair]
                del keys[pair]
    return pushes


def merge_loop(
    word_counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Sequence[str] = (),
    on_merge: OnMerge | None = None,
    compaction_factor: float = DEFAULT_COMPACTION_FACTOR,
) -> tuple[Vocab, Merges]:
    """Learn ``vocab_size - 256 - len(special_tokens)`` merges from ``word_counts``.

    ``compaction_factor``: rebuild the heap when it holds more than this many entries per live
    pair (``float("inf")`` never compacts).
    """
    if not compaction_factor >= 1:
        raise ValueError(f"compaction_factor must be at least 1, not {compaction_factor!r}")
    vocab = initial_vocab(special_tokens)
    merges: Merges = []
    wanted = vocab_size - len(vocab)  # valid: checked by the API
    words, counts = words_as_ids(word_counts)
    pair_counts, pair_to_words = build_index(words, counts)
    keys = PairKeys(vocab)
    heap = build_heap(pair_counts, keys)
    pushes = stale_pops = compactions = 0
    clock = StageClock(on_merge is not None)

    for index in range(wanted):
        # 1. Pop until an entry agrees with the live count: that pair is the best.
        clock.finding()
        entry, stale, pushed_back = pop_best(heap, pair_counts)
        clock.found()
        stale_pops += stale
        pushes += pushed_back
        if entry is None:
            warn_exhausted(index, wanted, vocab_size)
            break
        neg_count, _, best = entry

        # 2. Record the merge and rewrite the words holding the pair (as V4).
        new_id = record_merge(vocab, merges, best)
        keys.add_token(vocab[new_id])
        deltas, touched = rewrite_words(best, new_id, words, counts, pair_to_words)

        # 3. Apply the count changes; a pair whose count rose gets a fresh entry.
        pushes += push_changes(heap, pair_counts, deltas, keys)

        # 4. Compact when stale entries dominate.
        if len(heap) > compaction_factor * len(pair_counts):
            heap = build_heap(pair_counts, keys)
            compactions += 1

        if on_merge is not None:
            times = clock.times()
            stats = HeapStats(len(heap), len(pair_counts), pushes, stale_pops, compactions)
            on_merge(MergeEvent(index, new_id, merges[-1], -neg_count, touched, stats, **times))
    return vocab, merges
