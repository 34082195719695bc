"""V1, naive: recount every pair and rewrite every word, on every merge.

Data: the distinct words as tuples of token ids, with their counts.
Per merge: count all pairs over all words (O(W L)), take the most frequent (O(P)), rewrite every
word (O(W L)). In all O(m W L): every merge pays for all W words (notebook 05 times it, and
notebook 11's grid beside the other versions). It is the reference: every faster version must
return exactly what this one returns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bpe_course.trainers.common import (
    MergeEvent,
    Merges,
    OnMerge,
    Vocab,
    count_pairs,
    initial_vocab,
    merge_word,
    most_frequent_pair,
    record_merge,
    warn_exhausted,
    words_as_ids,
)


def merge_loop(
    word_counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Sequence[str] = (),
    on_merge: OnMerge | None = None,
) -> tuple[Vocab, Merges]:
    """Learn ``vocab_size - 256 - len(special_tokens)`` merges from ``word_counts``: the loop
    below on the distinct words, each weighted by its count."""
    words, counts = words_as_ids(word_counts)
    return merge_weighted(words, counts, vocab_size, special_tokens, on_merge)


def merge_weighted(
    words: list[tuple[int, ...]],
    counts: Sequence[int],
    vocab_size: int,
    special_tokens: Sequence[str] = (),
    on_merge: OnMerge | None = None,
) -> tuple[Vocab, Merges]:
    """V1's loop on sequences of token ids, each weighted by its count (the reference V0 gives it
    every occurrence of every word, each weighted 1)."""
    vocab = initial_vocab(special_tokens)
    merges: Merges = []
    wanted = vocab_size - len(vocab)  # valid: checked by the API
    for index in range(wanted):
        pair_counts = count_pairs(words, counts)  # from scratch, every time
        if not pair_counts:
            warn_exhausted(index, wanted, vocab_size, stacklevel=4)  # the caller of merge_loop
            break
        best = most_frequent_pair(pair_counts, vocab)
        new_id = record_merge(vocab, merges, best)
        words = [merge_word(word, best, new_id) for word in words]  # every word, every time
        if on_merge is not None:
            event = MergeEvent(index, new_id, merges[-1], pair_counts[best], len(words))
            on_merge(event)
    return vocab, merges
