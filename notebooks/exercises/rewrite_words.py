"""Exercise of notebook 08: rewrite the words holding a pair and keep pair_to_words current (V4).

V4's idea: rewrite the words holding a pair, found through the index, and keep the index
current. It is the function the trainer above calls, `rewrite_words`, as the trace by hand used
it.

Write the function below, save, then grade it: ``check("rewrite_words")`` in the notebook, or
``bpe-course check rewrite_words`` in a terminal. (Made by ``python -m
bpe_course.course.exercises.stubs`` from the course's own solution, with the solution taken
out.)
"""

from __future__ import annotations

from collections.abc import Sequence

from bpe_course.trainers.common import merge_word  # noqa: F401 (the course's solution uses it)
from bpe_course.trainers.v4_inverted_index import Pair


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
    raise NotImplementedError("write rewrite_words")
