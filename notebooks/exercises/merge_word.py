"""Exercise of notebook 05 (V1): merge one pair inside one word.

Write the function below, save, then grade it: ``check("merge_word")`` in the notebook, or
``bpe-course check merge_word`` in a terminal.
"""


def merge_word(word: tuple[int, ...], pair: tuple[int, int], new_id: int) -> tuple[int, ...]:
    """``word`` with every occurrence of ``pair`` replaced by the single id ``new_id``.

    Scan left to right; occurrences do not overlap: after a merge the scan goes on after the
    two ids it merged. So ``(2, 2, 2)`` on the pair ``(2, 2)`` gives ``(9, 2)``, not ``(2, 9)``.

    >>> merge_word((1, 2, 2, 2, 3), (2, 2), 9)
    (1, 9, 2, 3)
    """
    raise NotImplementedError("write merge_word")
