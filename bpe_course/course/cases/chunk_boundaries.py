"""Exercise of notebook 07 (V3): offsets that cut a corpus just before a special token.

The student works on bytes in memory; the package's :func:`find_chunk_boundaries` reads a file in
blocks, so the reference writes the bytes to a file first.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import strategies as st

from bpe_course.course.cases import named
from bpe_course.pretokenize import END_OF_TEXT, find_chunk_boundaries

NOTEBOOK = "07_v3_parallel"
SUMMARY = "byte offsets that cut a corpus just before a special token (V3)"
SOLUTION = "bpe_course.pretokenize.find_chunk_boundaries"
SPLIT_TOKENS = (END_OF_TEXT.encode(), b"<s>", b"|")


@st.composite
def _inputs(draw):
    token = draw(st.sampled_from(SPLIT_TOKENS))
    pieces = st.sampled_from([b"a", token, b"bc", b" ", b"\n", "é".encode()])
    data = b"".join(draw(st.lists(pieces, max_size=20)))
    return data, draw(st.integers(min_value=1, max_value=8)), token


def cases():
    return _inputs()


def reference(data: bytes, desired_chunks: int, split_token: bytes) -> list[int]:
    """The package's :func:`~bpe_course.pretokenize.find_chunk_boundaries`, on a file."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.txt"
        path.write_bytes(data)
        return find_chunk_boundaries(path, desired_chunks, split_token)


def fixed_cases() -> list:
    eot = END_OF_TEXT.encode()
    return [
        (b"ab" + eot + b"cd", 2, eot),
        (b"", 4, eot),
        (b"abc", 1, eot),
        (b"abc", 3, eot),  # no token: no cut
        (eot + b"abc", 2, eot),  # a token at 0 is no cut
        (b"ab" + eot + b"cd" + eot + b"ef", 3, eot),
        (b"a" + eot * 3, 8, eot),  # fewer tokens than chunks
        (b"xy<s>z", 10, b"<s>"),  # more chunks than bytes
    ]


def show_case(case: tuple) -> str:
    data, desired_chunks, split_token = case
    return named(data=data, desired_chunks=desired_chunks, split_token=split_token)
