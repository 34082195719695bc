"""The V1-V5 post's V4, reproduced: an inverted index, built with the post's data structures.

Not the course's V4 (``trainers/v4_inverted_index.py``): the same idea, built the way the V1-V5
post builds it, so the course can measure what the post measured and say where the differences
come from. What this design does, and the course's V4 does not:

- the best pair comes from ``max`` with a Python key function called on every pair, every merge
  (the course's V4 finds the top count with ``max`` in C, collects the tied pairs in one
  Python-level pass, and calls the key only for those);
- each affected word has every one of its pairs subtracted from the counts and from the index,
  then the merged word's pairs added back (the course's V4 records the changes of a word once);
- words are lists in a dict, counts and index are ``defaultdict``s.

The first two are options of :class:`Design` (``find`` and ``rewrite``), so notebook 11 can turn
the post's V4 into the course's one change at a time (:mod:`bpe_course.reference.ladder`).

One change from the post, a guard: the key ends with the token ids. The post's key stops at the
bytes, which leaves two different pairs tied only where two ids spell the same bytes; no training
run of the course's tests has made two such ids (notebook 12's exercise 3 asks when they can
occur), and where there are none the ids decide no tie. They keep the key exact whatever the
merges.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bpe_course.trainers import v4_inverted_index as course_v4
from bpe_course.trainers.common import (
    MergeEvent,
    Merges,
    OnMerge,
    Vocab,
    apply_deltas,
    initial_vocab,
    most_frequent_pair,
    record_merge,
    warn_exhausted,
    words_as_ids,
)


@dataclass(frozen=True)
class Design:
    """How a V4 is built; the defaults are the post's V4, with the ids ending the key (a guard,
    not a fix: see the module docstring).

    ``find``: ``"key"``, ``max`` with a Python key function on every pair (the post's), or
    ``"top_count"``, the top count found by ``max`` in C, the tied pairs collected in a Python-level
    pass, and the key only for those (the course's
    :func:`~bpe_course.trainers.common.most_frequent_pair`). ``rewrite``: ``"post"``, the post's
    word update (:func:`rewrite_word`), or ``"course"``, the course's V4 ``rewrite_words``.
    """

    find: str = "key"
    rewrite: str = "post"

    def __post_init__(self) -> None:
        if self.find not in ("key", "top_count"):
            raise ValueError(f"find must be 'key' or 'top_count', not {self.find!r}")
        if self.rewrite not in ("post", "course"):
            raise ValueError(f"rewrite must be 'post' or 'course', not {self.rewrite!r}")


PUBLISHED = Design()


def build_index(
    word_counts: Mapping[bytes, int],
) -> tuple[dict[int, list[int]], dict[int, int], defaultdict, defaultdict]:
    """Words as lists by id, their counts, the pair counts and the pair -> word ids index."""
    words = {word_id: list(word) for word_id, word in enumerate(word_counts)}
    counts = {word_id: count for word_id, count in enumerate(word_counts.values())}
    pair_counts: defaultdict = defaultdict(int)
    pair_to_words: defaultdict = defaultdict(set)
    for word_id, tokens in words.items():
        count = counts[word_id]
        for i in range(len(tokens) - 1):
            pair = (tokens[i], tokens[i + 1])
            pair_counts[pair] += count
            pair_to_words[pair].add(word_id)
    return words, counts, pair_counts, pair_to_words


def rewrite_word(
    word_id: int,
    best: tuple[int, int],
    new_id: int,
    words: dict[int, list[int]],
    count: int,
    pair_counts: defaultdict,
    pair_to_words: defaultdict,
) -> list[int]:
    """Take all of a word's pairs out of the counts and the index, merge, put the new ones in."""
    tokens = words[word_id]
    for i in range(len(tokens) - 1):
        pair = (tokens[i], tokens[i + 1])
        pair_counts[pair] -= count
        if pair_counts[pair] <= 0:
            del pair_counts[pair]
        pair_to_words[pair].discard(word_id)
    merged, i = [], 0
    while i < len(tokens):
        if i < len(tokens) - 1 and tokens[i] == best[0] and tokens[i + 1] == best[1]:
            merged.append(new_id)
            i += 2
        else:
            merged.append(tokens[i])
            i += 1
    words[word_id] = merged
    for i in range(len(merged) - 1):
        pair = (merged[i], merged[i + 1])
        pair_counts[pair] += count
        pair_to_words[pair].add(word_id)
    return merged


def merge_loop(
    word_counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Sequence[str] = (),
    on_merge: OnMerge | None = None,
    design: Design = PUBLISHED,
) -> tuple[Vocab, Merges]:
    """Learn ``vocab_size - 256 - len(special_tokens)`` merges, with the V4 ``design`` describes
    (by default the post's V4, made exact)."""
    vocab, merges = initial_vocab(special_tokens), []
    wanted = vocab_size - len(vocab)  # valid: checked by the API
    post_rewrite = design.rewrite == "post"
    if post_rewrite:
        words, counts, pair_counts, pair_to_words = build_index(word_counts)
    else:
        words, counts = words_as_ids(word_counts)
        pair_counts, pair_to_words = course_v4.build_index(words, counts)
    for index in range(wanted):
        if not pair_counts:
            warn_exhausted(index, wanted, vocab_size)
            break
        if design.find == "key":
            best = max(
                pair_counts,
                key=lambda p: (pair_counts[p], vocab[p[0]], vocab[p[1]], p[0], p[1]),
            )
        else:
            best = most_frequent_pair(pair_counts, vocab)
        best_count = pair_counts[best]
        new_id = record_merge(vocab, merges, best)
        if post_rewrite:
            affected = list(pair_to_words.get(best, ()))
            for word_id in affected:
                rewrite_word(
                    word_id, best, new_id, words, counts[word_id], pair_counts, pair_to_words
                )
            pair_to_words.pop(best, None)
            touched = len(affected)
        else:
            deltas, touched = course_v4.rewrite_words(best, new_id, words, counts, pair_to_words)
            apply_deltas(pair_counts, deltas)
        if on_merge is not None:
            on_merge(MergeEvent(index, new_id, merges[-1], best_count, touched))
    return vocab, merges
