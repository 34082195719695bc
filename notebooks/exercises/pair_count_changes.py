"""Exercise of notebook 06 (V2): the pair-count changes of rewriting one word.

Write the function below, save, then grade it: ``check("pair_count_changes")`` in the notebook, or
``bpe-course check pair_count_changes`` in a terminal.
"""

from bpe_course.trainers.common import merge_word  # noqa: F401 (or yours, from merge_word.py)


def pair_count_changes(
    word: tuple[int, ...], pair: tuple[int, int], new_id: int, count: int
) -> dict[tuple[int, int], int]:
    """How the corpus's pair counts change when ``word``, which occurs ``count`` times, has
    ``pair`` merged into ``new_id``.

    Return ``{pair: change}`` for the pairs whose count changes (a pair with a change of 0 may be
    left out). Careful with overlaps: ``(0, 0, 0)`` holds the pair ``(0, 0)`` twice, but merging
    it gives ``(4, 0)``.

    >>> pair_count_changes((5, 1, 2, 3), (1, 2), 9, 10)
    {(5, 1): -10, (1, 2): -10, (2, 3): -10, (5, 9): 10, (9, 3): 10}
    """
    raise NotImplementedError("write pair_count_changes")
