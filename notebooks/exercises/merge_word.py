"""Exercise of notebook 05: merge every occurrence of a pair in one word, left to right (V1).

Every trainer of the course rewrites words with this one function.

Write the function below, save, then grade it: ``check("merge_word")`` in the notebook, or
``bpe-course check merge_word`` in a terminal. (Made by ``python -m
bpe_course.course.exercises.stubs`` from the course's own solution, with the solution taken
out.)
"""

from __future__ import annotations

from collections.abc import Sequence

from bpe_course.trainers.common import Token


def merge_word(
    word: Sequence[Token], pair: tuple[Token, Token], new_id: Token
) -> tuple[Token, ...]:
    """``word`` with every occurrence of ``pair`` replaced by the single id ``new_id``.

    Scan left to right; occurrences do not overlap: after a merge the scan goes on after the
    two ids it merged. So ``(2, 2, 2)`` on the pair ``(2, 2)`` gives ``(9, 2)``, not ``(2, 9)``.

    >>> merge_word((1, 2, 2, 2, 3), (2, 2), 9)
    (1, 9, 2, 3)
    """
    raise NotImplementedError("write merge_word")
