"""V0, the pretoken stream: V1 without counting equal words once, as minbpe trains.

Every occurrence of every pretoken is its own sequence of token ids, so a pair's count is the
number of times it occurs in the whole text, and a merge rewrites every occurrence: O(m N L) for
N pretokens in the text, where V1 pays O(m W L) for W distinct ones. N/W is how much counting
equal words once buys, the first optimisation the post "From Hours to Seconds: Optimising BPE
Tokeniser Training" lists. The loop gets word
counts like every other (so that only the merge loop differs) and expands them back into the
stream, then runs V1's loop (:func:`~bpe_course.trainers.v1_naive.merge_weighted`) on it.
Exact, and slow on purpose: use it on a small corpus.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bpe_course.trainers.common import Merges, OnMerge, Vocab, words_as_ids
from bpe_course.trainers.v1_naive import merge_weighted


def merge_loop(
    word_counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Sequence[str] = (),
    on_merge: OnMerge | None = None,
) -> tuple[Vocab, Merges]:
    """Learn ``vocab_size - 256 - len(special_tokens)`` merges from the pretoken stream: V1's
    loop on every occurrence of every word, each weighted 1."""
    words, counts = words_as_ids(word_counts)
    stream = [word for word, count in zip(words, counts) for _ in range(count)]  # N sequences
    return merge_weighted(stream, [1] * len(stream), vocab_size, special_tokens, on_merge)
