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

    What it returns, exactly (``size`` is the file's size in bytes):
    - the offsets in increasing order, each once: 0, ``size``, and for each i = 1, ...,
      ``desired_chunks - 1`` the offset of the first occurrence of ``split_token`` that starts at
      or after ``i * size // desired_chunks``, where there is one;
    - with ``desired_chunks <= 1``, an empty file or no ``split_token`` (None): ``[0, size]``
      (an empty file: ``[0, 0]``; the grader accepts ``[0]`` too).
    So a file with no token, or with fewer tokens than chunks, gets fewer chunks.

    Not CS336's starter code: ``find_chunk_boundaries`` in
    ``cs336_basics/pretokenization_example.py`` of CS336's assignment repository
    (``stanford-cs336/assignment1-basics``) takes an open file, not a path; it guesses
    ``i * (size // desired_chunks)``, which can lie bytes before ``i * size // desired_chunks``,
    so it can cut at an earlier token than this rule (a port of it fails the grader); and it
    reads its 4,096-byte blocks without overlap, so in a file of more than 4 KB it can miss a
    token that straddles two blocks and cut at a later one.

    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "corpus.txt"
    ...     _ = path.write_bytes(b"ab<s>cd<s>ef")
    ...     find_chunk_boundaries(path, 3, b"<s>"), find_chunk_boundaries(path, 9, b"|")
    ([0, 7, 12], [0, 12])
    """
    raise NotImplementedError("write find_chunk_boundaries")
