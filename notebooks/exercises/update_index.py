"""Exercise of notebook 08 (V4): keep the inverted index current through one merge.

Write the function below, save, then grade it: ``check("update_index")`` in the notebook, or
``bpe-course check update_index`` in a terminal.
"""

from bpe_course.trainers.common import merge_word  # noqa: F401 (or yours, from merge_word.py)


def update_index(
    words: list[tuple[int, ...]],
    pair_to_words: dict[tuple[int, int], set[int]],
    pair: tuple[int, int],
    new_id: int,
) -> None:
    """Merge ``pair`` into ``new_id`` in every word holding it, changing ``words`` and
    ``pair_to_words`` in place.

    ``words[i]`` is word i; ``pair_to_words[p]`` is the set of the i whose word holds the pair p
    (at least once). Find the words to rewrite in ``pair_to_words[pair]``, not by scanning all
    words. Afterwards every pair must map to exactly the words that hold it (an empty set, or no
    entry, for none). A pair can still occur elsewhere in a word after the merge.

    >>> words = [(0, 1, 2), (1, 2)]
    >>> index = {(0, 1): {0}, (1, 2): {0, 1}}
    >>> update_index(words, index, (1, 2), 4)
    >>> words, {p: ids for p, ids in index.items() if ids}
    ([(0, 4), (4,)], {(0, 4): {0}})
    """
    raise NotImplementedError("write update_index")
