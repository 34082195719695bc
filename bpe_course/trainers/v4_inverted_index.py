"""V4, inverted index: V3, but each pair knows the words that hold it, so no merge scans all words.

Change from V3: ``pair_to_words``, a map from each pair to the ids of the words holding it (the
``where_to_update`` of Hugging Face's trainer). A merge visits only those words and keeps the
index up to date as it rewrites them.
Data: words by id (tuples of token ids) with their counts, ``pair_counts``, ``pair_to_words``.
Per merge: O(P) to find the best pair (:func:`~bpe_course.trainers.common.most_frequent_pair`:
``max`` over the P counts in C, then a Python-level pass over all P pairs to collect those tied at
the top count), O(A l) to rewrite the A words holding it (l: their lengths). A word of length l
can be rewritten at most l - 1 times, at O(l) each, so the rewriting over all merges costs at most
O(sum of l squared) over the distinct words, whatever the number of merges (notebook 08 checks it
against a count). The search for the
best pair costs the sum of P over the merges, and P does not stay small: merges add new pairs and
remove old ones (notebook 08 counts P merge by merge). That sum is what remains.
Memory: the index holds at most one entry per pair position, O(sum of l).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bpe_course.trainers.common import (
    MergeEvent,
    Merges,
    OnMerge,
    Pair,
    ScanStats,
    StageClock,
    Vocab,
    add_word_change,
    apply_deltas,
    initial_vocab,
    merge_word,
    most_frequent_pair,
    record_merge,
    warn_exhausted,
    words_as_ids,
)


def build_index(
    words: Sequence[tuple[int, ...]], counts: Sequence[int]
) -> tuple[dict[Pair, int], dict[Pair, set[int]]]:
    """``pair_counts`` and ``pair_to_words`` in one pass over the words. O(W L)."""
    pair_counts: dict[Pair, int] = {}
    pair_to_words: dict[Pair, set[int]] = {}
    get = pair_counts.get
    for word_id, (word, count) in enumerate(zip(words, counts)):
        for pair in zip(word, word[1:]):
            pair_counts[pair] = get(pair, 0) + count
            holders = pair_to_words.get(pair)
            if holders is None:
                pair_to_words[pair] = {word_id}
            else:
                holders.add(word_id)
    return pair_counts, pair_to_words


def rewrite_words(
    best: Pair,
    new_id: int,
    words: list[tuple[int, ...]],
    counts: Sequence[int],
    pair_to_words: dict[Pair, set[int]],
) -> tuple[dict[Pair, int], int]:
    """Merge ``best`` into ``new_id`` in every word holding it, changing ``words`` and
    ``pair_to_words`` in place; return the changes to the pair counts and how many words changed.

    ``words[i]`` is word i, which occurs ``counts[i]`` times; ``pair_to_words[p]`` is the set of
    the i whose word holds the pair p (at least once). Find the words to rewrite in
    ``pair_to_words[best]``, not by scanning all words. Afterwards every pair must map to exactly
    the words that hold it (an empty set, or no entry, for none); a pair can still occur elsewhere
    in a word after the merge. The changes are ``{pair: change}`` (a change of 0 may be left in).
    Shared by every trainer built on the index (V5, fast max): they differ only in how they find
    the max.

    >>> words, counts = [(0, 1, 2), (1, 2)], [1, 3]
    >>> index = {(0, 1): {0}, (1, 2): {0, 1}}
    >>> rewrite_words((1, 2), 4, words, counts, index)
    ({(0, 1): -1, (1, 2): -4, (0, 4): 1}, 2)
    >>> words, {p: ids for p, ids in index.items() if ids}
    ([(0, 4), (4,)], {(0, 4): {0}})
    """
    ### BEGIN SOLUTION
    deltas: dict[Pair, int] = {}
    holders = pair_to_words.pop(best)  # the words to rewrite; the entry is not re-created
    for word_id in holders:
        old = words[word_id]
        new = merge_word(old, best, new_id)
        words[word_id] = new
        old_pairs, new_pairs = list(zip(old, old[1:])), list(zip(new, new[1:]))
        add_word_change(deltas, old_pairs, new_pairs, counts[word_id])
        old_set, new_set = set(old_pairs), set(new_pairs)
        old_set.discard(best)
        for pair in old_set - new_set:
            pair_to_words[pair].discard(word_id)
        for pair in new_set - old_set:
            if pair in pair_to_words:
                pair_to_words[pair].add(word_id)
            else:
                pair_to_words[pair] = {word_id}
    return deltas, len(holders)
    ### END SOLUTION


def merge_loop(
    word_counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Sequence[str] = (),
    on_merge: OnMerge | None = None,
    *,
    scan_stats: bool = False,
) -> tuple[Vocab, Merges]:
    """Learn ``vocab_size - 256 - len(special_tokens)`` merges from ``word_counts``.

    ``scan_stats``: each :class:`~bpe_course.trainers.common.MergeEvent` also carries a
    :class:`~bpe_course.trainers.common.ScanStats` (notebook 08 fits the stages' times on it).
    """
    vocab = initial_vocab(special_tokens)
    merges: Merges = []
    wanted = vocab_size - len(vocab)  # valid: checked by the API
    words, counts = words_as_ids(word_counts)
    pair_counts, pair_to_words = build_index(words, counts)
    clock = StageClock(on_merge is not None)
    for index in range(wanted):
        if not pair_counts:
            warn_exhausted(index, wanted, vocab_size)
            break
        clock.finding()
        best = most_frequent_pair(pair_counts, vocab)  # stage 1: scan the P counts
        clock.found()
        scan = count_scan(pair_counts, best, pair_to_words[best], words) if scan_stats else None
        clock.rewriting()  # the count above is for the callback: not part of the merge
        best_count = pair_counts[best]
        new_id = record_merge(vocab, merges, best)
        deltas, touched = rewrite_words(best, new_id, words, counts, pair_to_words)  # stage 2
        apply_deltas(pair_counts, deltas)
        if on_merge is not None:
            times = clock.times()
            on_merge(MergeEvent(index, new_id, merges[-1], best_count, touched, scan=scan, **times))
    return vocab, merges


def count_scan(
    pair_counts: Mapping[Pair, int],
    best: Pair,
    holders: set[int],
    words: Sequence[tuple[int, ...]],
) -> ScanStats:
    """What a merge's stages will handle: the counts scanned, the pairs tied at the top count
    (the best pair's), and the tokens of the words holding the best pair. O(P + A)."""
    top = pair_counts[best]
    tied = sum(1 for count in pair_counts.values() if count == top)
    return ScanStats(len(pair_counts), tied, sum(len(words[i]) for i in holders))
