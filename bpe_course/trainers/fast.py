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
   reference cycles, so the collector's walks over the objects it keeps alive (the heap's
   entries; the site positions too when this was measured, as lists, now arrays it never walks)
   never free anything; they cost a share of the loop all the same (measured with the collector
   on and off in turn: ``notebooks/results/measurements.md``).

Python keeps ``pair_counts`` (an int code per pair, ``left * vocab_size + right``) and V5's heap
(its ``PairKeys``, ``build_heap``, ``pop_best`` by ``best_pairs``), with the same tie-break
keys. A pair is only ever made by the merge of its newest token, so after that its count only
falls: a heap entry can only be stale downwards, and ``site_positions`` never needs pruning (a
stale position is skipped when its pair is merged).
Per merge: O(candidate positions), in numpy or Python; O(distinct changed pairs) in Python.
Memory: four integers per byte of the distinct words (not of the corpus), 32-bit where they fit,
and at most three positions per byte in ``site_positions``: bounded by the distinct words' bytes,
however long the longest word is.
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
from collections.abc import Iterator, Mapping, Sequence
from typing import TypeVar, cast

import numpy as np

from bpe_course.collector import collector_paused
from bpe_course.pool import release_free_memory
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


SMALL = 48  # below this many candidate positions a merge is cheaper in plain Python than numpy

# Positions indexed, or sites merged, per block: the index's passes and a large merge's steps hold
# a few arrays of this many entries beside the words, never one per byte of the words.
_BLOCK = 1 << 18

# The positions of a pair's sites, as compact arrays (4 or 8 bytes a position, never a Python int
# each): a numpy slice (the pairs of bytes, and the pairs a large merge makes, sliced from one
# array) or an ``array.array`` (the pairs a small merge makes, appended to); a pair made at one
# site only (most of the pairs made, where the distinct words are many) is that position, an int:
# no array object. A small merge's own sites are a list.
Positions = np.ndarray | array | list[int]
Stored = Positions | int
_Sliced = TypeVar("_Sliced", np.ndarray, range)


class FlatWords:
    """The distinct words as one array of token ids with links, and where each pair occurs.

    ``tok[i]`` is the token at position ``i`` (-1 once merged away); ``nxt``/``prv`` link the live
    positions of a word; position ``n`` is a sentinel (token -1) that word ends link to;
    ``weight[i]`` is the count of the word holding ``i``, and ``starts`` each word's first
    position. Each array is an ``array.array`` (fast to index from Python) and a numpy view of the
    same memory (fast on many positions at once), of 32-bit integers wherever the positions, the
    token ids and the counts fit (64-bit otherwise): 16 bytes per byte of the distinct words.
    ``site_positions[pair]`` holds the left positions where the pair was made, as a compact array
    (one position as an int); it is never pruned (a pair only ever loses occurrences), so
    candidates are checked when used. It holds at most three positions per byte of the words:
    one per pair of bytes, and two per site merged (the pairs made on either side), and each
    merge removes a position for good.
    """

    def __init__(self, words: Sequence[bytes], counts: Sequence[int], vocab_size: int) -> None:
        self.base = vocab_size  # pair code = left * base + right
        lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
        n = self.n = int(lengths.sum())
        # 32 bits where they hold every position (the sentinel n) and every pair's neighbour key
        # (a token id plus base, in _merge_many); the counts likewise
        self.typecode = "i" if max(n + 1, 2 * vocab_size) < 2**31 else "q"
        count_type = "i" if max(counts, default=0) < 2**31 else "q"
        self.starts = np.cumsum(lengths) - lengths  # each word's first position (one per word)
        ends = self.starts + lengths - 1
        # Each array filled in place: no temporary the size of the words but the joined bytes.
        self.tok, tok = _zeros(self.typecode, n + 1)
        tok[:n] = np.frombuffer(b"".join(words), dtype=np.uint8)
        tok[n] = -1
        self.nxt, nxt = _zeros(self.typecode, n + 1)
        nxt.fill(1)
        np.cumsum(nxt, dtype=nxt.dtype, out=nxt)  # 1, 2, ..., n + 1
        self.prv, prv = _zeros(self.typecode, n + 1)
        np.subtract(nxt, 2, out=prv)  # -1, 0, ..., n - 1
        nxt[ends] = n
        prv[self.starts] = n
        # each word's count over its positions: the differences at the starts, summed up
        self.weight, weight = _zeros(count_type, n + 1)
        nonempty = lengths > 0  # an empty word has no position (its start is the next word's)
        weight[self.starts[nonempty]] = np.diff(np.asarray(counts, np.int64)[nonempty], prepend=0)
        np.cumsum(weight[:n], dtype=weight.dtype, out=weight[:n])
        self.tok_np, self.nxt_np, self.prv_np, self.weight_np = tok, nxt, prv, weight
        # a pair's left positions: a numpy slice for the pairs of bytes (one sorted array holds
        # them all) and for the pairs a large merge makes, an array.array for a small merge's
        self.site_positions: dict[int, Stored] = {}

    def pair_counts(self) -> dict[int, int]:
        """Every adjacent pair's count, weighted by its word's count; fills ``site_positions``.

        The left positions of all pairs of bytes, grouped by pair and in order within a pair, in
        one array that each pair's entry slices: a counting sort, a block of positions at a time
        (the first pass counts each pair's sites, the second writes each block's after the
        earlier blocks'), so nothing beside the result is the size of the words."""
        totals = np.zeros(65536, dtype=np.float64)
        sizes = np.zeros(65536, dtype=np.int64)
        for left, codes in self._byte_pairs():
            totals += np.bincount(codes, weights=self.weight_np[left], minlength=65536)
            sizes += np.bincount(codes, minlength=65536)
        offsets = np.cumsum(sizes) - sizes  # where each pair's positions start
        positions = np.empty(int(sizes.sum()), dtype=self.tok_np.dtype)
        for left, codes in self._byte_pairs():
            order = np.argsort(codes, kind="stable")  # a radix sort: by pair, in order
            ordered = codes[order]
            per_pair = np.bincount(codes, minlength=65536)
            first = np.cumsum(per_pair) - per_pair  # where each pair starts in ``ordered``
            rank = np.arange(len(ordered)) - first[ordered]  # rank of a site in its pair's
            positions[offsets[ordered] + rank] = left[order]
            offsets += per_pair
        found = np.flatnonzero(totals)
        ends = offsets[found].tolist()  # after both passes, each pair's end
        starts = (offsets - sizes)[found].tolist()
        pairs = ((found // 256) * self.base + found % 256).tolist()
        for pair, start, end in zip(pairs, starts, ends):
            self.site_positions[pair] = positions[start:end]  # a view: no copy, no Python ints
        return dict(zip(pairs, totals[found].astype(np.int64).tolist()))

    def _byte_pairs(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Block by block, the left positions of the pairs (every position but a word's last)
        and each pair's code over bytes, ``left * 256 + right`` (< 65536)."""
        tok, nxt, n = self.tok_np, self.nxt_np, self.n
        for start in range(0, n, _BLOCK):
            left = np.flatnonzero(nxt[start : min(start + _BLOCK, n)] != n) + start
            yield left, (tok[left] * 256 + tok[nxt[left]]).astype(np.uint16)

    def merge(
        self, pair: int, a: int, b: int, new: int, pair_counts: dict[int, int]
    ) -> tuple[dict[int, int], Positions]:
        """Merge every occurrence of ``pair = (a, b)`` into ``new``: lower the counts of the pairs
        lost in ``pair_counts``; return the pairs made with their counts, and the sites."""
        candidates = self.site_positions.pop(pair)
        if isinstance(candidates, int):
            return self._merge_few([candidates], a, b, new, pair_counts)
        if len(candidates) < SMALL:
            if isinstance(candidates, np.ndarray):
                candidates = candidates.tolist()
            return self._merge_few(candidates, a, b, new, pair_counts)
        if isinstance(candidates, array):
            candidates = np.frombuffer(candidates, dtype=self.tok_np.dtype)
        return self._merge_many(np.asarray(candidates), a, b, new, pair_counts)

    def _merge_few(
        self, candidates: array | list[int], a: int, b: int, new: int, pair_counts: dict[int, int]
    ) -> tuple[dict[int, int], list[int]]:
        tok, nxt, prv, weight = self.tok, self.nxt, self.prv, self.weight
        n, base, typecode = self.n, self.base, self.typecode
        sites: list[int] = []
        taken = -1
        for p in candidates:  # in order, so a a a takes its first two, as merge_word does
            if tok[p] == a and p != taken and tok[nxt[p]] == b:
                sites.append(p)
                taken = nxt[p]
        made: dict[int, int] = {}
        # only pairs made here are added to, each holding the new token: its first position an
        # int, from the second a new array (never a slice)
        site_positions = cast("dict[int, array | int]", self.site_positions)
        last = len(sites) - 1
        after = -1  # the right token of the previous site
        for k, p in enumerate(sites):
            right, count = nxt[p], weight[p]
            x, y = prv[p], nxt[right]
            if x != after and x != n:  # (x, a) -> (x, N), unless the previous site took x
                pair_counts[tok[x] * base + a] -= count
                code = tok[x] * base + new
                if code in made:
                    made[code] += count
                    _append(site_positions, code, x, typecode)
                else:
                    made[code] = count
                    site_positions[code] = x
            if k < last and y == sites[k + 1]:  # a b a b: the middle (b, a) -> (N, N)
                pair_counts[b * base + a] -= count
                code = new * base + new
            elif y != n:
                pair_counts[b * base + tok[y]] -= count
                code = new * base + tok[y]
            else:
                after = right
                continue
            if code in made:
                made[code] += count
                _append(site_positions, code, p, typecode)
            else:
                made[code] = count
                site_positions[code] = p
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
        # A block of candidates, then of sites, at a time: the temporaries (a dozen arrays per
        # site) stay a few MB however many sites a merge has (on one long word, millions).
        sites = np.concatenate([c[(tok[c] == a) & (tok[nxt[c]] == b)] for c in _blocks(candidates)])
        if a == b and len(sites) > 1:
            sites = _every_other(sites, nxt)
        blocks = [self._changes(sites, block, base) for block in _blocks(range(len(sites)))]
        made: dict[int, int] = {}
        site_positions = self.site_positions
        for code, total, positions in _combined(blocks):
            if code < base:  # (x, a) lost, (x, N) made
                pair_counts[code * base + a] -= total
                code = code * base + new
            elif code < 2 * base:  # (b, y) lost, (N, y) made
                pair_counts[b * base + code - base] -= total
                code = new * base + code - base
            else:  # the middle of a b a b: (b, a) lost, (N, N) made
                pair_counts[b * base + a] -= total
                code = new * base + new
            made[code] = total
            site_positions[code] = positions
        # rewrite, a block at a time (a block reads only links no other block writes): the new
        # token at each site, its right token unlinked
        for block in _blocks(sites):
            right = nxt[block]
            tok[block] = new
            tok[right] = -1
            right_of = nxt[right]
            nxt[block] = right_of
            prv[right_of] = block  # word ends write the sentinel's prv: never read
        return made, sites

    def _changes(
        self, sites: np.ndarray, block: range, base: int
    ) -> tuple[list[int], list[int], np.ndarray, list[int]]:
        """The changes that the sites in ``block`` (a range of indexes into ``sites``) make, by
        neighbour: keys (``x`` for ``(x, a) -> (x, N)``, ``base + y`` for ``(b, y) -> (N, y)``,
        ``2 * base`` for the middles of ``a b a b``), their total weights, and each key's
        positions, in order, as slices ``ends[k - 1]:ends[k]`` of one array."""
        tok, nxt, prv = self.tok_np, self.nxt_np, self.prv_np
        if len(block) == 0:
            return [], [], sites[:0], []
        # one site more on each side (if any), to see whether the block's first and last touch
        lo, hi = max(block.start - 1, 0), min(block.stop + 1, len(sites))
        around = sites[lo:hi]
        inner = slice(block.start - lo, block.stop - lo)
        right = nxt[around]
        left_of, right_of = prv[around], nxt[right]
        x, y = tok[left_of], tok[right_of]
        # sites k and k + 1 touch (a b a b) when k's right token is k + 1's left neighbour
        touch = np.append(right[:-1] == left_of[1:], False)
        left_side, right_side = x >= 0, y >= 0
        left_side[1:] &= ~touch[:-1]
        right_side &= ~touch
        left_side, right_side, touch = left_side[inner], right_side[inner], touch[inner]
        mine, left_of, weight = around[inner], left_of[inner], self.weight_np[around[inner]]
        # One stable sort groups all: (x, a) -> (x, N) by x, (b, y) -> (N, y) by y (offset by
        # base, past every token id), the middles last; each group's positions still in order.
        keys = np.concatenate(
            (x[inner][left_side], y[inner][right_side] + base, np.full(touch.sum(), 2 * base))
        ).astype(mine.dtype)
        if len(keys) == 0:  # every site is a whole word
            return [], [], mine[:0], []
        order = np.argsort(keys, kind="stable")
        ordered = keys[order]
        starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
        weights = np.concatenate((weight[left_side], weight[right_side], weight[touch]))[order]
        totals = np.add.reduceat(weights, starts, dtype=np.int64).tolist()
        positions = np.concatenate((left_of[left_side], mine[right_side], mine[touch]))[order]
        return ordered[starts].tolist(), totals, positions, [*starts[1:].tolist(), len(positions)]

    def positions(self, pair: int) -> list[int]:
        """The left positions stored for ``pair`` (stale ones included), as a list, whichever
        form holds them (one int, an array, a numpy view): for showing and checking them."""
        held = self.site_positions.get(pair, [])
        return [held] if isinstance(held, int) else [int(p) for p in held]

    def words_with(self, sites: Positions) -> int:
        """How many distinct words hold ``sites`` (each word's by its first position)."""
        return len(np.unique(np.searchsorted(self.starts, sites, side="right")))


def _append(
    site_positions: dict[int, array | int], code: int, position: int, typecode: str
) -> None:
    """Add ``position`` to the positions of the pair ``code`` (an int until its second)."""
    held = site_positions[code]
    if isinstance(held, int):
        site_positions[code] = array(typecode, (held, position))
    else:
        held.append(position)


def _zeros(typecode: str, size: int) -> tuple[array, np.ndarray]:
    """An ``array.array`` of ``size`` zeros and a numpy view of the same memory: one copy, two
    fast ways in (Python indexes the array, numpy works on many positions at once)."""
    plain = array(typecode, [0]) * size
    return plain, np.frombuffer(plain, dtype=np.dtype(typecode))


def _blocks(items: _Sliced) -> list[_Sliced]:
    """``items`` (an array or a range) in consecutive slices of ``_BLOCK`` items (at least one,
    empty if ``items`` is)."""
    return [items[start : start + _BLOCK] for start in range(0, max(len(items), 1), _BLOCK)]


def _combined(
    blocks: list[tuple[list[int], list[int], np.ndarray, list[int]]],
) -> Iterator[tuple[int, int, np.ndarray | int]]:
    """Each key's total and positions over the blocks of :meth:`FlatWords._changes`: one
    block's positions are sliced (no copy); several blocks' are joined, in block order, every
    key's into a new array (so no block's array is kept alive by a slice); a key's one position
    is an int."""
    if len(blocks) == 1:
        keys, totals, positions, ends = blocks[0]
        start = 0
        for key, total, end in zip(keys, totals, ends):
            yield key, total, positions[start:end] if end - start > 1 else int(positions[start])
            start = end
        return
    sums: dict[int, int] = {}
    parts: dict[int, list[np.ndarray]] = {}
    for keys, totals, positions, ends in blocks:
        start = 0
        for key, total, end in zip(keys, totals, ends):
            if key in sums:
                sums[key] += total
                parts[key].append(positions[start:end])
            else:
                sums[key] = total
                parts[key] = [positions[start:end]]
            start = end
    for key, total in sums.items():
        joined = parts[key]
        if len(joined) == 1 and len(joined[0]) == 1:
            yield key, total, int(joined[0][0])
        else:
            yield key, total, np.concatenate(joined)


def _every_other(sites: np.ndarray, nxt: np.ndarray) -> np.ndarray:
    """In runs ``a a a ...`` the candidates overlap: keep the 1st, 3rd, ... of each run."""
    chained = nxt[sites[:-1]] == sites[1:]
    if not chained.any():
        return sites
    index = np.arange(len(sites), dtype=sites.dtype)
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
        # the words live on in the flat arrays: a caller that passed its counts without keeping
        # them frees them here, and the pages go back to the system before the loop grows
        del words, word_counts
        release_free_memory()
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
