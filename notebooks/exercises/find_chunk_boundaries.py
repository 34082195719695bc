"""Exercise of notebook 07: byte offsets that cut a corpus file just before a special token (V3).

V3's cut: where to split a corpus file so that each chunk can be counted alone. Read the file
whole if you like (the package's version reads it in blocks): only the offsets count.

Write the function below, save, then grade it: ``check("find_chunk_boundaries")`` in the
notebook, or ``bpe-course check find_chunk_boundaries`` in a terminal. (Made by ``python -m
bpe_course.course.exercises.stubs`` from the course's own solution, with the solution taken
out.)
"""

from __future__ import annotations

from pathlib import Path


def find_chunk_boundaries(path: Path, desired_chunks: int, split_token: bytes | None) -> list[int]:
    """Byte offsets that cut the file ``path`` into at most ``desired_chunks`` chunks, each cut
    just before an occurrence of ``split_token`` (the first byte of a special token, never inside
    a UTF-8 character), so that each chunk can be counted alone.

    The rule, exactly:
    - the list starts with 0 and ends with the file's size; with ``desired_chunks <= 1``, an empty
      file or no ``split_token`` (None) there is nothing in between (so an empty file gives
      ``[0, 0]``; CS336's starter code returns ``[0]`` there, and the grader accepts both);
    - for i = 1, ..., desired_chunks - 1: guess ``i * size // desired_chunks`` (but not before
      the last boundary), and move forward to the first occurrence of ``split_token`` that starts
      at or after the guess;
    - if there is none, stop: no more cuts. A cut equal to the last boundary is not added again.
    So a file with no token, or with fewer tokens than chunks, gets fewer chunks.

    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "corpus.txt"
    ...     _ = path.write_bytes(b"ab<s>cd<s>ef")
    ...     find_chunk_boundaries(path, 3, b"<s>"), find_chunk_boundaries(path, 9, b"|")
    ([0, 7, 12], [0, 12])
    """
    raise NotImplementedError("write find_chunk_boundaries")
