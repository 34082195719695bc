"""Fast, beyond V5 after sites: the merge sites of a merge found and rewritten by numpy, all at
once, on one flat array.

Change from :mod:`~bpe_course.trainers.sites` (which changed V5 to update only the pairs around
each merge site, one word at a time in Python): the words become one flat array of token ids, in
which a merge handles all its sites at once. The parts of that change, named:

1. **Flat words.** One array of token ids for all distinct words, with linked lists (``next``,
   ``prev``) to skip the tokens merged away, and ``site_positions[pair]``, the position of every
   site where the pair was made (sites' ``site_words``, as positions).
2. **All sites at once, in numpy.** A merge of ``(a, b)`` keeps the candidate positions that
   still hold ``a`` followed by ``b``, then for all sites together:

   - the pairs lost, ``(x, a)`` and ``(b, y)``, and made, ``(x, N)`` and ``(N, y)``, weighted by
     the words' counts, summed per neighbour token (a lost pair and the pair made in its place
     share ``x``, or ``y``: one stable sort groups both): Python sees each changed pair once;
   - two sites side by side (``a b a b``) share their middle: ``(b, a)`` is lost and ``(N, N)``
     made; for ``a == b`` the runs ``a a a`` keep every other candidate, left to right, as
     ``merge_word``;
   - the array is rewritten in place: ``N`` at each site, the right token unlinked.
3. **Small merges in plain Python.** A merge with fewer than ``SMALL`` candidates (most of them,
   late in training) does the same over an ``array.array`` that shares the numpy array's memory:
   numpy's fixed cost per call would dominate.
4. **Rare pairs wait outside the heap** (:mod:`~bpe_course.trainers.waiting`): a pair made with
   a count below a floor goes into a bucket, and enters the heap only if the best count falls
   to it (most never do).
5. **No cycle collector while the loop runs** (:mod:`~bpe_course.collector`): the loop makes no
   reference cycles, so the collector's walks over the position lists it keeps alive never free
   anything; they cost a share of the loop all the same (measured with the collector on and off
   in turn: ``notebooks/results/measurements.md``).

Python keeps ``pair_counts`` (an int code per pair, ``left * vocab_size + right``) and V5's heap
(its ``PairKeys``, ``build_heap``, ``pop_best`` by ``best_pairs``), with the same tie-break
keys. A pair is only ever made by the merge of its newest token, so after that its count only
falls: a heap entry can only be stale downwards, and ``site_positions`` never needs pruning (a
stale position is skipped when its pair is merged).
Per merge: O(candidate positions), in numpy or Python; O(distinct changed pairs) in Python.
Memory: four integers per byte of the distinct words (not of the corpus), 32-bit where the
positions fit (the counts 64-bit), and one per site a merge made (numpy slices, not Python ints).
Pretokenization counts pieces first (:mod:`bpe_course.counting.pieces`).

What each change paid is measured side by side, version by version (V5, sites, fast), in
``notebooks/results/beyond.csv``; notebook 13 draws the waterfalls, with ranges, and
``notebooks/results/measurements.md`` gives the figures with the commands that make them again.
Counting pieces pays least where the distinct pieces are many (each worker runs the pattern on
all of its own); this module's loop pays most where the first merges touch most of the words,
and least where most merges are small. Changes 4 and 5 were also measured alone.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import cast

import numpy as np

from bpe_course.collector import collector_paused
from bpe_course.trainers.common import (
    MergeEvent,
    Merges,
    OnMerge,
    StageClock,
    Vocab,
    initial_vocab,
    record_merge,
)
from bpe_course.trainers.v5_heap import PairKeys, best_pairs, build_heap
from bpe_course.trainers.waiting import WaitingPairs

__all__ = ["FlatWords", "merge_loop"]


PAIR_CHUNK = 1 << 24  # positions per chunk when the pairs of bytes are first counted
SMALL = 48  # below this many candidate positions a merge is cheaper in plain Python than numpy

# The positions of a pair's sites: a numpy slice (the pairs of bytes, sliced from one sorted array,
# and the pairs a large merge makes, and its sites) or a list (what a small merge makes and finds).
Positions = np.ndarray | list[int]


class FlatWords:
    """The distinct words as one array of token ids with links, and where each pair occurs.

    ``tok[i]`` is the token at position ``i`` (-1 once merged away); ``nxt``/``prv`` link the live
    positions of a word; position ``n`` is a sentinel (token -1) that word ends link to;
    ``weight[i]`` is the count of the word holding position ``i`` (32-bit when every count fits,
    summed in 64 bits), and ``word_ends`` the last
    position of each word (whose word a position is, found by bisection: an array of owners
    would cost one more integer per byte). Each array is an ``array.array`` (fast to index from
    Python) and a numpy view of the same memory (fast on many positions at once); positions and
    tokens are 32-bit integers when the words hold under 2**31 bytes, else 64-bit. ``site_positions[pair]`` lists the left positions where the pair was
    made; it is never pruned (a pair only ever loses occurrences), so candidates are checked when
    used.
    """

    def __init__(self, words: Sequence[bytes], counts: Sequence[int], vocab_size: int) -> None:
        self.base = vocab_size  # pair code = left * base + right
        lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
        n = self.n = int(lengths.sum())
        index = np.int32 if n + 2 < 2**31 else np.int64  # positions, and token ids (< n + 2)
        ends = (np.cumsum(lengths) - 1).astype(index)
        tok = np.empty(n + 1, dtype=index)
        tok[:n] = np.frombuffer(b"".join(words), dtype=np.uint8)
        tok[n] = -1
        self.tok, self.tok_np = _shared(tok)
        del tok
        nxt = np.arange(1, n + 2, dtype=index)
        nxt[ends] = n
        self.nxt, self.nxt_np = _shared(nxt)
        del nxt
        prv = np.arange(-1, n, dtype=index)
        prv[ends[:-1] + 1] = n
        prv[0] = n
        self.prv, self.prv_np = _shared(prv)
        del prv
        counts_np = np.asarray(counts, dtype=np.int64)
        small = len(counts_np) == 0 or int(counts_np.max()) < 2**31  # sums are taken in 64 bits
        weight = np.repeat(counts_np.astype(np.int32 if small else np.int64), lengths)
        self.weight, self.weight_np = _shared(np.append(weight, np.zeros(1, weight.dtype)))
        del weight, counts_np
        self.word_ends, self.word_ends_np = _shared(ends)
        # a pair's left positions: a numpy slice for the pairs of bytes (one sorted array holds
        # them all), a list for the pairs merges make (appended to, in Python)
        self.site_positions: dict[int, Positions] = {}

    def pair_counts(self) -> dict[int, int]:
        """Every adjacent pair's count, weighted by its word's count; fills ``site_positions``.

        The positions are taken ``PAIR_CHUNK`` at a time (the temporary arrays of a sort over
        all of them at once would take several times the words' own arrays); a pair's
        positions, in order, are one chunk's slice, or the slices of all chunks joined."""
        tok, nxt, n = self.tok_np, self.nxt_np, self.n
        totals = np.zeros(65536)
        parts = []  # per chunk: its left positions sorted by pair, where each pair's run ends
        for low in range(0, n, PAIR_CHUNK):
            high = min(n, low + PAIR_CHUNK)
            left = np.flatnonzero(nxt[low:high] != n).astype(tok.dtype)
            left += low
            codes = (tok[left] * 256 + tok[nxt[left]]).astype(np.uint16)  # bytes: < 65536
            totals += np.bincount(codes, weights=self.weight_np[left], minlength=65536)
            order = np.argsort(codes, kind="stable")  # a radix sort: positions by pair, in order
            parts.append((left[order], np.cumsum(np.bincount(codes, minlength=65536))))
            del left, codes, order
        found = np.flatnonzero(totals)
        pairs = ((found // 256) * self.base + found % 256).tolist()
        for part, (positions, ends) in enumerate(parts):
            starts = np.concatenate(([0], ends[:-1]))
            parts[part] = (positions, starts[found].tolist(), ends[found].tolist())
        for k, pair in enumerate(pairs):
            if len(parts) == 1:  # sliced, not made a list: a million Python ints cost 50 ms
                positions, starts, ends = parts[0]
                self.site_positions[pair] = positions[starts[k] : ends[k]]
            else:
                joined = [positions[starts[k] : ends[k]] for positions, starts, ends in parts]
                self.site_positions[pair] = np.concatenate(joined)
        return dict(zip(pairs, totals[found].astype(np.int64).tolist()))

    def merge(
        self, pair: int, a: int, b: int, new: int, pair_counts: dict[int, int]
    ) -> tuple[dict[int, int], Positions]:
        """Merge every occurrence of ``pair = (a, b)`` into ``new``: lower the counts of the pairs
        lost in ``pair_counts``; return the pairs made with their counts, and the sites."""
        candidates = self.site_positions.pop(pair)
        if len(candidates) < SMALL:
            if isinstance(candidates, np.ndarray):
                candidates = candidates.tolist()
            return self._merge_few(candidates, a, b, new, pair_counts)
        return self._merge_many(np.asarray(candidates), a, b, new, pair_counts)

    def _merge_few(
        self, candidates: list[int], a: int, b: int, new: int, pair_counts: dict[int, int]
    ) -> tuple[dict[int, int], list[int]]:
        tok, nxt, prv, weight = self.tok, self.nxt, self.prv, self.weight
        n, base = self.n, self.base
        sites: list[int] = []
        taken = -1
        for p in candidates:  # in order, so a a a takes its first two, as merge_word does
            if tok[p] == a and p != taken and tok[nxt[p]] == b:
                sites.append(p)
                taken = nxt[p]
        made: dict[int, int] = {}
        # only pairs made here are added to, each holding the new token: lists, never a slice
        site_positions = cast("dict[int, list[int]]", self.site_positions)
        last = len(sites) - 1
        after = -1  # the right token of the previous site
        for k, p in enumerate(sites):
            right, count = nxt[p], weight[p]
            x, y = prv[p], nxt[right]
            if x != after and x != n:  # (x, a) -> (x, N), unless the previous site took x
                pair_counts[tok[x] * base + a] -= count
                code = tok[x] * base + new
                made[code] = made.get(code, 0) + count
                site_positions.setdefault(code, []).append(x)
            if k < last and y == sites[k + 1]:  # a b a b: the middle (b, a) -> (N, N)
                pair_counts[b * base + a] -= count
                code = new * base + new
            elif y != n:
                pair_counts[b * base + tok[y]] -= count
                code = new * base + tok[y]
            else:
                after = right
                continue
            made[code] = made.get(code, 0) + count
            site_positions.setdefault(code, []).append(p)
            after = right
        for p in sites:
            right = nxt[p]
            y = nxt[right]
            tok[p], tok[right] = new, -1
            nxt[p], prv[y] = y, p
        return made, sites

    def _merge_many(
        self, candidates: np.ndarray, a: int, b: int, new: int, pair_counts: dict[int, int]
    ) -> tuple[dict[int, int], np.ndarray]:
        tok, nxt, prv, base = self.tok_np, self.nxt_np, self.prv_np, self.base
        sites = candidates[(tok[candidates] == a) & (tok[nxt[candidates]] == b)]
        if a == b and len(sites) > 1:
            sites = _every_other(sites, nxt)
        right = nxt[sites]
        left_of, right_of = prv[sites], nxt[right]
        x, y, weight = tok[left_of], tok[right_of], self.weight_np[sites]
        # sites k and k + 1 touch (a b a b) when k's right token is k + 1's left neighbour
        touch = right[:-1] == left_of[1:]
        left_side, right_side = x >= 0, y >= 0
        left_side[1:] &= ~touch
        right_side[:-1] &= ~touch
        # One stable sort groups both sides: (x, a) -> (x, N) by x, (b, y) -> (N, y) by y
        # (offset by base, past every token id), each group's positions still in order.
        keys = np.concatenate((x[left_side], y[right_side] + base))
        made: dict[int, int] = {}
        site_positions = self.site_positions
        neighbours: list[int]
        totals: list[int]
        ends: list[int]
        positions: list[int]
        if len(keys) == 0:  # every site is a whole word
            neighbours, totals, ends, positions = [], [], [], []
        else:
            order = np.argsort(keys, kind="stable")
            ordered = keys[order]
            starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
            neighbours = ordered[starts].tolist()
            weights = np.concatenate((weight[left_side], weight[right_side]))[order]
            weights = weights.astype(np.int64, copy=False)  # a sum of 32-bit counts: 64 bits
            totals = np.add.reduceat(weights, starts).tolist()
            # one array for all the pairs made, each keeping a slice of it (a Python int per
            # position would cost several times the memory, for pairs that are mostly never merged)
            positions = np.concatenate((left_of[left_side], sites[right_side]))[order]
            ends = [*starts[1:].tolist(), len(positions)]
        start = 0
        for neighbour, total, end in zip(neighbours, totals, ends):
            if neighbour < base:  # (x, a) lost, (x, N) made
                pair_counts[neighbour * base + a] -= total
                code = neighbour * base + new
            else:  # (b, y) lost, (N, y) made
                pair_counts[b * base + neighbour - base] -= total
                code = new * base + neighbour - base
            made[code] = total
            site_positions[code] = positions[start:end]
            start = end
        if touch.any():  # the middle of a b a b: (b, a) lost, (N, N) made
            middle = np.flatnonzero(touch)
            total = int(weight[middle].sum(dtype=np.int64))
            pair_counts[b * base + a] -= total
            made[new * base + new] = total
            site_positions[new * base + new] = sites[middle]
        # rewrite: the new token at each site, its right token unlinked
        tok[sites] = new
        tok[right] = -1
        nxt[sites] = right_of
        prv[right_of] = sites  # word ends write the sentinel's prv: never read
        return made, sites

    def words_with(self, sites: Positions) -> int:
        """How many distinct words hold these positions (for an ``on_merge`` callback)."""
        if len(sites) < SMALL:  # numpy's fixed cost per call would dominate
            ends = self.word_ends
            return len({bisect_left(ends, p) for p in sites})
        return len(np.unique(np.searchsorted(self.word_ends_np, np.asarray(sites))))

    @property
    def owner(self) -> np.ndarray:
        """The word of every position (made on demand, for the notebooks' by-hand views)."""
        return np.searchsorted(self.word_ends_np, np.arange(self.n))


def _shared(values: np.ndarray) -> tuple[array, np.ndarray]:
    """An ``array.array`` and a numpy view of the same memory: one copy, two fast ways in."""
    plain = array("i" if values.dtype == np.int32 else "q")
    plain.frombytes(values.data.cast("B"))  # straight from numpy's memory: no bytes made
    return plain, view(plain)


def view(plain: array) -> np.ndarray:
    """The numpy view of one of :class:`FlatWords`' arrays."""
    return np.frombuffer(plain, dtype=np.int32 if plain.typecode == "i" else np.int64)


def _every_other(sites: np.ndarray, nxt: np.ndarray) -> np.ndarray:
    """In runs ``a a a ...`` the candidates overlap: keep the 1st, 3rd, ... of each run."""
    chained = nxt[sites[:-1]] == sites[1:]
    if not chained.any():
        return sites
    index = np.arange(len(sites))
    starts = np.maximum.accumulate(np.where(np.concatenate(([True], ~chained)), index, 0))
    return sites[(index - starts) % 2 == 0]


def merge_loop(
    word_counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Sequence[str] = (),
    on_merge: OnMerge | None = None,
) -> tuple[Vocab, Merges]:
    """Learn ``vocab_size - 256 - len(special_tokens)`` merges from ``word_counts``."""
    # no reference cycles are made here (change 5 above): the collector is off
    with collector_paused():
        vocab = initial_vocab(special_tokens)
        merges: Merges = []
        wanted = vocab_size - len(vocab)  # valid: checked by the API
        words = [word for word in word_counts if len(word) > 1]  # none: no pair, the heap is empty
        flat = FlatWords(words, [word_counts[w] for w in words], vocab_size)
        del words
        pair_counts = flat.pair_counts()
        keys = PairKeys(vocab)
        base = vocab_size
        heap = build_heap(pair_counts, keys, ids=lambda pair: divmod(pair, base))
        waiting = WaitingPairs(heap, keys, base)
        clock = StageClock(on_merge is not None)

        # 1. Each merge's pair: the top entry that agrees with its live count (V5's pop_best), once
        # the pairs waiting below the floor are let in when the best falls to them.
        pairs = best_pairs(heap, pair_counts, wanted, vocab_size, clock, waiting.pop_best)
        for index, (neg_count, _, best) in pairs:
            a, b = divmod(best, base)
            new_id = record_merge(vocab, merges, (a, b))
            keys.add_token(vocab[new_id])

            # 2. Every site at once: the pairs lost are lowered, the pairs made come back.
            made, sites = flat.merge(best, a, b, new_id, pair_counts)
            waiting.push_made(heap, pair_counts, best, made)
            if on_merge is not None:
                times = clock.times()
                touched = flat.words_with(sites)
                on_merge(MergeEvent(index, new_id, merges[-1], -neg_count, touched, **times))
        # freed while the collector is off: back on, its first pass would walk them all
        del flat, heap, waiting, pair_counts, pairs
    return vocab, merges
