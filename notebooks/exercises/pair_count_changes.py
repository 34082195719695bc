"""Exercise of notebook 06: how the pair counts change when one word is rewritten (V2).

V2's idea for one word: how the corpus's pair counts change when one word, which occurs `count`
times, is rewritten by a merge. The notebook finds the first merge's changes by recounting every
word; find the rule that gives them from the one word alone.

Write the function below, save, then grade it: ``check("pair_count_changes")`` in the notebook,
or ``bpe-course check pair_count_changes`` in a terminal. (Made by ``python -m
bpe_course.course.exercises.stubs`` from the course's own solution, with the solution taken
out.)
"""

from __future__ import annotations

from bpe_course.trainers.common import merge_word  # noqa: F401 (the course's solution uses it)
from bpe_course.trainers.v2_incremental import Pair


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
    raise NotImplementedError("write pair_count_changes")
