"""Exercise of notebook 07 (V3): where to cut a corpus so that each chunk can be counted alone.

Write the function below, save, then grade it: ``check("chunk_boundaries")`` in the notebook, or
``bpe-course check chunk_boundaries`` in a terminal.
"""


def chunk_boundaries(data: bytes, desired_chunks: int, split_token: bytes) -> list[int]:
    """Offsets that cut ``data`` into at most ``desired_chunks`` chunks, each cut just before an
    occurrence of ``split_token``.

    The rule, so that the grader can compare exactly:
    - the list starts with 0 and ends with ``len(data)``; with ``desired_chunks <= 1`` or empty
      data there is nothing in between (so empty data gives ``[0, 0]``; CS336's starter code
      returns ``[0]`` there, and the grader accepts both);
    - for i = 1, ..., desired_chunks - 1: guess ``i * len(data) // desired_chunks`` (but not before
      the last boundary), and move forward to the first occurrence of ``split_token`` that starts
      at or after the guess;
    - if there is none, stop: no more cuts. A cut equal to the last boundary is not added again.

    >>> chunk_boundaries(b"ab<s>cd<s>ef", 3, b"<s>")
    [0, 7, 12]
    >>> chunk_boundaries(b"", 4, b"<s>")
    [0, 0]
    """
    raise NotImplementedError("write chunk_boundaries")
