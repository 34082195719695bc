"""Sites, the first trainer beyond V5: V5's heap, but each merge touches only the pairs around
its merge sites.

Beyond V5 is not one more rung of the ladder: this module makes five changes at once, and
:mod:`~bpe_course.trainers.fast` and :mod:`~bpe_course.trainers.shards` each build on it. Each
change is named below and in the registry's title; notebook 13's waterfall measures what the
versions bought, pretokenization apart from the merge loop, not each change alone. What stays
V5's: the heap and its pieces (:class:`~bpe_course.trainers.v5_heap.PairKeys`,
:func:`~bpe_course.trainers.v5_heap.build_heap`, :func:`~bpe_course.trainers.v5_heap.pop_best`,
called by :func:`~bpe_course.trainers.v5_heap.best_pairs`).

1. **Merge sites, not whole words.** V5 rewrites a word by building its old and new pair lists and
   diffing them as sets. Here a merge finds its sites with ``str.find`` and updates only the pairs
   touching each site: ``(left, a)`` and ``(b, right)`` lose the word's count, ``(left, new)`` and
   ``(new, right)`` gain it. Work per merge is proportional to the sites, not to the words' lengths.
2. **Words as strings.** A word is a ``str`` whose characters are token ids (``chr(id)``), and a
   pair is a 2-character string. Finding sites (``find``) and rewriting (``replace``, which is
   merge-left-to-right exactly as :func:`~bpe_course.trainers.common.merge_word`) run at C speed;
   no list of ints per word, no tuples per pair.
3. **No per-word sets.** ``site_words`` maps a pair to the word id of every site where it was
   made: a plain list, with a word once per site (so repeats), appended to and never pruned
   (hence not V4's ``pair_to_words``, the exact set of words holding the pair). A pair only ever
   loses count after it is created (every new pair holds the newest token, so an old pair is
   never made again), so a stale entry merely costs one ``find``.
4. **The index built by numpy.** The first pair counts and word lists come from one pass over all
   words as a flat byte array (``bincount`` and a sort) instead of a Python loop per position.
5. **Counting pieces before the pattern** (pretokenization): :mod:`bpe_course.counting.pieces`.

Data: words (str), their counts, ``pair_counts`` (str pair -> count, zero once dead), the lists in
``site_words``, and V5's heap with the same tie-break keys.
Per merge: O(sites) dictionary updates, plus one heap push per new pair and the stale pops.
Limits: one process for the merge loop; the heap keeps V5's lazy deletion.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence

import numpy as np

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

__all__ = ["build_site_index", "merge_loop"]


def _ids(pair: str) -> tuple[int, int]:
    return ord(pair[0]), ord(pair[1])


def build_site_index(
    words: Sequence[bytes], counts: Sequence[int]
) -> tuple[dict[str, int], dict[str, list[int]]]:
    """``pair_counts`` and ``site_words`` of words of single bytes, with numpy. O(W L log).

    Pairs are 2-character strings ``chr(left) + chr(right)``; each word id appears once per pair.
    """
    pair_counts: dict[str, int] = {}
    site_words: dict[str, list[int]] = {}
    if not words:
        return pair_counts, site_words
    lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    flat = np.frombuffer(b"".join(words), dtype=np.uint8).astype(np.int64)
    owner = np.repeat(np.arange(len(words), dtype=np.int64), lengths)
    inside = owner[:-1] == owner[1:]  # a pair never spans two words
    codes = (flat[:-1] * 256 + flat[1:])[inside]
    holders = owner[:-1][inside]
    weights = np.asarray(counts, dtype=np.int64)[holders]
    # float64 sums are exact up to 2**53 occurrences, far beyond any corpus
    totals = np.bincount(codes, weights=weights, minlength=65536)
    unique = np.sort(codes * len(words) + holders)  # one entry per (pair, word) ...
    unique = unique[np.concatenate(([True], unique[1:] != unique[:-1]))]  # ... once
    pair_of, word_of = np.divmod(unique, len(words))
    cuts = np.flatnonzero(np.diff(pair_of)) + 1
    firsts = pair_of[np.concatenate(([0], cuts))]
    for code, ids in zip(firsts.tolist(), np.split(word_of, cuts)):
        pair = chr(code >> 8) + chr(code & 255)
        pair_counts[pair] = int(totals[code])
        site_words[pair] = ids.tolist()
    return pair_counts, site_words


def merge_loop(
    word_counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Sequence[str] = (),
    on_merge: OnMerge | None = None,
) -> tuple[Vocab, Merges]:
    """Learn ``vocab_size - 256 - len(special_tokens)`` merges from ``word_counts``."""
    vocab = initial_vocab(special_tokens)
    merges: Merges = []
    wanted = vocab_size - len(vocab)  # valid: checked by the API
    byte_words = [word for word in word_counts if len(word) > 1]
    counts = [word_counts[word] for word in byte_words]
    # latin-1 maps byte b to chr(b): the bytes become token ids 0-255 at C speed
    words = [word.decode("latin-1") for word in byte_words]
    pair_counts, site_words = build_site_index(byte_words, counts)
    del byte_words
    keys = PairKeys(vocab)
    heap = build_heap(pair_counts, keys, ids=_ids)
    heappush, key_of = heapq.heappush, keys.of
    clock = StageClock(on_merge is not None)

    # 1. Each merge's pair: the top entry that agrees with its live count (V5's pop_best).
    for index, (neg_count, _, best) in best_pairs(heap, pair_counts, wanted, vocab_size, clock):
        new_id = record_merge(vocab, merges, (ord(best[0]), ord(best[1])))
        keys.add_token(vocab[new_id])

        # 2. Merge every site; the new pairs (all holding the new token) are collected apart.
        created, touched = _merge_sites(best, chr(new_id), words, counts, pair_counts, site_words)
        pair_counts[best] = 0

        # 3. Each new pair gets its count, its word list and one heap entry.
        for pair, holders in created.items():
            count = sum(map(counts.__getitem__, holders))
            pair_counts[pair] = count
            site_words[pair] = holders
            heappush(heap, (-count, key_of(ord(pair[0]), ord(pair[1])), pair))
        if on_merge is not None:
            on_merge(MergeEvent(index, new_id, merges[-1], -neg_count, touched, **clock.times()))
    return vocab, merges


def _merge_sites(
    best: str,
    new: str,
    words: list[str],
    counts: list[int],
    pair_counts: dict[str, int],
    site_words: dict[str, list[int]],
) -> tuple[dict[str, list[int]], int]:
    """Merge ``best`` into ``new`` in every word holding it, decrementing the old pairs around each
    site in ``pair_counts``. Returns the new pairs (one word id per site) and the words rewritten.

    At a site ``x a b y``: ``(x, a)`` and ``(b, y)`` lose the count, ``(x, N)`` and ``(N, y)`` are
    made. Two adjacent sites ``a b a b`` share the middle: ``(b, a)`` is lost and ``(N, N)`` made.
    """
    a, b = best[0], best[1]  # a pair is two characters
    created: dict[str, list[int]] = {}
    get = created.get
    find = str.find
    touched = 0
    for word_id in set(site_words.pop(best)):
        word = words[word_id]
        i = find(word, best)
        if i < 0:  # a stale entry: the pair left this word in an earlier merge
            continue
        touched += 1
        count = counts[word_id]
        last = len(word) - 2
        after = -1  # where the previous site ended
        while True:
            j = find(word, best, i + 2)
            if i and i != after:
                left = word[i - 1]
                pair_counts[left + a] -= count
                pair = left + new
                holders = get(pair)
                if holders is None:
                    created[pair] = [word_id]
                else:
                    holders.append(word_id)
            if i < last:
                # the right neighbour is the next site's first token when the sites touch
                pair_counts[b + word[i + 2]] -= count
                pair = new + (new if j == i + 2 else word[i + 2])
                holders = get(pair)
                if holders is None:
                    created[pair] = [word_id]
                else:
                    holders.append(word_id)
            if j < 0:
                break
            after = i + 2
            i = j
        words[word_id] = word.replace(best, new)
    return created, touched
