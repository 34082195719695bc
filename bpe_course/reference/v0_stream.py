"""V0, the pretoken stream: V1 without counting equal words once, as minbpe trains.

Every occurrence of every pretoken is its own sequence of token ids, so a pair's count is the
number of times it occurs in the whole text, and a merge rewrites every occurrence: O(m N L) for
N pretokens in the text, where V1 pays O(m W L) for W distinct ones. N/W is how much counting
equal words once buys, the first and largest win of the ``001_*`` post's list. The loop gets word
counts like every other (so that only the merge loop differs) and expands them back into the
stream. Exact, and slow on purpose: use it on a small corpus.
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
    """Learn ``vocab_size - 256 - len(special_tokens)`` merges from the pretoken stream."""
    vocab, merges = initial_vocab(special_tokens), []
    wanted = vocab_size - len(vocab)  # valid: checked by the API
    words, counts = words_as_ids(word_counts)
    stream = [word for word, count in zip(words, counts) for _ in range(count)]  # N sequences
    ones = [1] * len(stream)
    for index in range(wanted):
        pair_counts = count_pairs(stream, ones)
        if not pair_counts:
            warn_exhausted(index, wanted, vocab_size)
            break
        best = most_frequent_pair(pair_counts, vocab)
        new_id = record_merge(vocab, merges, best)
        stream = [merge_word(word, best, new_id) for word in stream]
        if on_merge is not None:
            on_merge(MergeEvent(index, new_id, merges[-1], pair_counts[best], len(stream)))
    return vocab, merges
