"""V2, incremental: V1, but the pair counts are built once and then only updated.

Change from V1: a merge changes the counts only of pairs inside the words that hold the merged
pair, so those words' old pairs are subtracted and their new pairs added; every other count stays.
Data: V1's words and counts, plus ``pair_counts`` kept across merges.
Per merge: still a scan of all W words to find the ones holding the pair (a fast C-level membership
test for most of them), O(P) to find the best pair, O(A L) to rewrite the A words that change.
Same O(m W L) bound as V1 in the worst case; much smaller constant factors.

:func:`pair_count_changes` is the idea on one word (notebook 06's exercise asks for it); the
loop does the same for every changed word, into one shared ``deltas``, written out rather than
called: a call would merge each changed word a second time (measured in turn with the inline
loop: ``notebooks/results/measurements.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bpe_course.trainers.common import (
    MergeEvent,
    Merges,
    OnMerge,
    Pair,
    StageClock,
    Vocab,
    add_word_change,
    apply_deltas,
    count_pairs,
    initial_vocab,
    merge_word,
    most_frequent_pair,
    record_merge,
    warn_exhausted,
    words_as_ids,
)


def pair_count_changes(
    word: tuple[int, ...], pair: Pair, new_id: int, count: int
) -> dict[Pair, int]:
    """How the corpus's pair counts change when ``word``, which occurs ``count`` times, has
    ``pair`` merged into ``new_id``.

    Returns ``{pair: change}`` for the pairs whose count changes (a change of 0 may be left out).
    Careful with overlaps: ``(1, 1, 1)`` holds the pair ``(1, 1)`` twice, but merging it gives
    ``(9, 1)``.

    >>> pair_count_changes((5, 1, 2, 3), (1, 2), 9, 10)
    {(5, 1): -10, (1, 2): -10, (2, 3): -10, (5, 9): 10, (9, 3): 10}
    >>> pair_count_changes((1, 1, 1), (1, 1), 9, 5)  # 1 1 1 -> 9 1
    {(1, 1): -10, (9, 1): 5}
    """
    ### BEGIN SOLUTION
    # Overlaps need no special case: every old pair is subtracted, every new pair added, and the
    # pairs away from the merge cancel out.
    new = merge_word(word, pair, new_id)
    deltas: dict[Pair, int] = {}
    add_word_change(deltas, list(zip(word, word[1:])), list(zip(new, new[1:])), count)
    return {changed: delta for changed, delta in deltas.items() if delta}
    ### END SOLUTION


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
    words, counts = words_as_ids(word_counts)
    pair_counts = count_pairs(words, counts)  # once
    clock = StageClock(on_merge is not None)
    for index in range(wanted):
        if not pair_counts:
            warn_exhausted(index, wanted, vocab_size)
            break
        clock.finding()
        best = most_frequent_pair(pair_counts, vocab)
        clock.found()
        best_count = pair_counts[best]
        new_id = record_merge(vocab, merges, best)
        deltas: dict[Pair, int] = {}
        touched = 0
        left, right = best
        for i, word in enumerate(words):  # the scan V4 removes
            if left in word and right in word:  # cheap filter; merge_word confirms adjacency
                new = merge_word(word, best, new_id)
                if len(new) != len(word):
                    ### BEGIN SOLUTION
                    old_pairs, new_pairs = list(zip(word, word[1:])), list(zip(new, new[1:]))
                    add_word_change(deltas, old_pairs, new_pairs, counts[i])
                    ### END SOLUTION
                    words[i] = new
                    touched += 1
        apply_deltas(pair_counts, deltas)
        if on_merge is not None:
            times = clock.times()
            on_merge(MergeEvent(index, new_id, merges[-1], best_count, touched, **times))
    return vocab, merges
