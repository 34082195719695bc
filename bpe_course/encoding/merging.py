"""The merges applied to many pretokens at once, in numpy: the same ids as ``Tokenizer.encode``.

:class:`~bpe_course.tokenizer.Tokenizer` encodes a new pretoken in Python: find the adjacent pair
with the lowest merge rank, merge every occurrence of it from the left, repeat until no pair has
a rank. That loop is most of the time a text with many distinct words spends (a dictionary, the
web). Here every new pretoken of a batch takes the same steps together, one *round* at a time:

1. each position holds its token and the rank of the pair it starts (none at a word's end);
2. each word's lowest rank is found for all words at once (``np.minimum.reduceat``);
3. the pairs of that rank are merged, the left one first where they overlap (``a a a`` merges
   as ``aa a``), and the right halves removed; a word with no rank left is finished and set aside;
4. only the pairs next to a merge changed: only those are looked up again.

A word's steps are exactly the loop's steps, so its ids are the loop's ids; rounds number as
many as the longest word has merges. Pairs are looked up in a :class:`~bpe_course.encoding.table.KeyTable`
by their two ids: the value is the rank and the merged token's id, in one ``int64`` (the rank in
the high half, so comparing values compares ranks).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bpe_course.encoding.table import KeyTable
from bpe_course.tokenizer import Tokenizer

_NONE = np.iinfo(np.int64).max  # the rank of a pair that no merge makes (or of a word's end)
_LOW = np.int64(0xFFFFFFFF)  # the merged id: the low half of a value
_DENSE = 512  # pairs of ids below this are looked up in a plain array (2 MB)


class BatchMerger:
    """A tokenizer's merges, to apply to many pretokens at once (:meth:`encode`)."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        token_ids = tokenizer.token_ids  # bytes -> the id encoding emits (the lowest)
        self.byte_ids = np.array([token_ids[bytes([b])] for b in range(256)], dtype=np.int64)
        lefts: list[int] = []
        rights: list[int] = []
        values: list[int] = []
        seen: set[tuple[int, int]] = set()
        for rank, (a, b) in enumerate(tokenizer.merges):
            pair = (token_ids[a], token_ids[b])
            if pair in seen:  # the first rank of a pair is the one that applies
                continue
            seen.add(pair)
            lefts.append(pair[0])
            rights.append(pair[1])
            values.append((rank << 32) | token_ids[a + b])
        left, right = np.array(lefts, dtype=np.int64), np.array(rights, dtype=np.int64)
        value = np.array(values, dtype=np.int64)
        # pairs of ids below _DENSE (the bytes, the first merges: most pairs of a word's first
        # rounds) in a plain array, indexed by left * _DENSE + right; the others in a hash table
        self.dense = np.full(_DENSE * _DENSE, _NONE, dtype=np.int64)
        small = (left < _DENSE) & (right < _DENSE)
        self.dense[left[small] * _DENSE + right[small]] = value[small]
        self.pairs = KeyTable()
        if (~small).any():
            self.pairs.add(
                left[~small].astype(np.uint64), right[~small].astype(np.uint64), value[~small]
            )

    def _ranks(self, tokens: np.ndarray, at: np.ndarray) -> np.ndarray:
        """The value (rank, merged id) of the pairs starting at positions ``at``; ``_NONE``
        where no merge makes the pair."""
        left, right = tokens[at], tokens[at + 1]
        small = (left < _DENSE) & (right < _DENSE)
        out = np.full(len(at), _NONE, dtype=np.int64)
        out[small] = self.dense[left[small] * _DENSE + right[small]]
        large = np.flatnonzero(~small)
        if len(large):
            found = self.pairs.get(left[large].astype(np.uint64), right[large].astype(np.uint64))
            out[large] = np.where(found < 0, _NONE, found)
        return out

    def encode(self, words: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray]:
        """The ids of every word (a pretoken's UTF-8 bytes), all at once: ``(ids, offsets)``,
        the ids of word ``i`` being ``ids[offsets[i]:offsets[i + 1]]``."""
        lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
        if len(words) == 0 or lengths.min() == 0:
            raise ValueError("every word must hold at least one byte")
        data = np.frombuffer(b"".join(words), dtype=np.uint8)
        tokens = self.byte_ids[data]
        n = len(tokens)
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        first = np.zeros(n + 1, dtype=bool)  # the position starts a word (and one past the end)
        first[starts] = True
        first[n] = True
        ranks = np.full(n, _NONE)
        inside = np.flatnonzero(~first[1:])  # pairs within a word
        ranks[inside] = self._ranks(tokens, inside)
        first = first[:n]
        word_ids = np.arange(len(words))  # of the words still merging, in order
        done_tokens: list[np.ndarray] = []
        done_words: list[np.ndarray] = []
        done_lengths: list[np.ndarray] = []
        while n:
            word_starts = np.flatnonzero(first)
            sizes = np.diff(np.append(word_starts, n))
            lowest = np.minimum.reduceat(ranks, word_starts)
            finished = lowest == _NONE
            finished_positions = None
            if finished.any():
                finished_positions = np.repeat(finished, sizes)
                done_tokens.append(tokens[finished_positions])
                done_words.append(word_ids[finished])
                done_lengths.append(sizes[finished])
                word_ids = word_ids[~finished]
                lowest[finished] = -1  # no rank equals it: nothing merges there
            merged = np.flatnonzero(ranks == np.repeat(lowest, sizes))
            follows = np.diff(merged) == 1
            if follows.any():  # overlapping occurrences (a a a): every other one, from the left
                k = np.arange(len(merged))
                run_start = np.maximum.accumulate(np.where(np.append(False, follows), 0, k))
                merged = merged[(k - run_start) % 2 == 0]
            tokens[merged] = ranks[merged] & _LOW
            keep = np.ones(n, dtype=bool)
            if finished_positions is not None:
                keep[finished_positions] = False
            keep[merged + 1] = False
            new_index = np.cumsum(keep) - 1
            kept = np.flatnonzero(keep)
            tokens, first, ranks = tokens[kept], first[kept], ranks[kept]
            n = len(tokens)
            if not n:
                break
            # only the pairs on either side of a merged token changed
            at = new_index[merged]
            ranks[at] = _NONE  # (stays so where the merged token ends its word)
            changed = np.concatenate((at[at > 0] - 1, at))
            changed = changed[changed + 1 < n]
            changed = changed[~first[changed + 1]]
            ranks[changed] = self._ranks(tokens, changed)
        return _in_word_order(done_tokens, done_words, done_lengths)


def _in_word_order(
    tokens: list[np.ndarray], words: list[np.ndarray], lengths: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """The finished words' ids put back in the words' order: ``(ids, offsets)``."""
    ids = np.concatenate(tokens)
    word = np.concatenate(words)
    length = np.concatenate(lengths)
    start = np.concatenate(([0], np.cumsum(length)[:-1]))
    order = np.argsort(word)
    length = length[order]
    offsets = np.concatenate(([0], np.cumsum(length)))
    source = np.repeat(start[order] - offsets[:-1], length) + np.arange(offsets[-1])
    return ids[source], offsets
