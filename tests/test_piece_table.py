"""The numpy piece table counts exactly as a ``Counter`` of the same pieces does, on any bytes."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bpe_course.counting import piece_table
from bpe_course.counting.piece_table import PieceTable, piece_ends, separator_positions

# Pieces of every length class (empty, 1-8, 9-16, longer), bytes of every value (NUL included),
# runs of spaces, and pieces that differ only past byte 8 or in their last byte.
fragment = st.one_of(
    st.sampled_from([b" ", b"  ", b"abcdefgh", b"abcdefghi", b"abcdefghij", b"x" * 16, b"x" * 17]),
    st.sampled_from([b"\xc3\xa9", b"\n", b"\0", b"\xff", b"12345678", b"123456789"]),
    st.binary(min_size=1, max_size=20),
)
texts = st.lists(fragment, max_size=30).map(b"".join)
separator_sets = st.sampled_from([b" ", b" \n", b" \n\0", b"\0"])


def add_pieces(table: PieceTable, data: bytes, separators: bytes = b" ") -> np.ndarray:
    """Count every piece of ``data`` that starts at a separator; return where they start."""
    starts = separator_positions(data, separators)
    table.count(data, starts, piece_ends(starts, len(data)))
    return starts


def pieces_of(data: bytes, separators: bytes) -> tuple[list[bytes], int]:
    """The pieces the table should count (each separator and what follows it up to the next),
    and where the first starts: written out with ``re``, the slow way."""
    chars = re.escape(separators)
    starts = [m.start() for m in re.finditer(b"[" + chars + b"]", data)]
    pieces = [data[a:b] for a, b in zip(starts, [*starts[1:], len(data)])]
    return pieces, starts[0] if starts else len(data)


def counted(parts: list[bytes], separators: bytes, table: PieceTable) -> Counter[bytes]:
    expected: Counter[bytes] = Counter()
    for data in parts:
        pieces, first = pieces_of(data, separators)
        starts = add_pieces(table, data, separators)
        assert (starts[0] if len(starts) else len(data)) == first
        expected.update(pieces)
    return expected


def table_counts(table: PieceTable, batch: int = 7) -> Counter[bytes]:
    got: Counter[bytes] = Counter()
    for part in table.items(batch):
        assert len(part) <= batch
        for piece, count in part:
            assert piece not in got, "a piece came twice"
            got[piece] = count
    return got


@settings(max_examples=400, deadline=None)
@given(parts=st.lists(texts, min_size=1, max_size=6), separators=separator_sets)
@example(parts=[b""], separators=b" ")
@example(parts=[b"a\0b c", b"a c"], separators=b" ")
@example(parts=[b"a\0b c\0\0 \n", b"a c"], separators=b" \n\0")
@example(parts=[b" abcdefg abcdefg abcdefgX", b" abcdefgX abcdefg"], separators=b" ")
def test_counts_like_a_counter(parts: list[bytes], separators: bytes) -> None:
    table = PieceTable()
    expected = counted(parts, separators, table)
    assert table_counts(table) == +expected


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(texts, min_size=1, max_size=4), data=st.data())
def test_some_pieces_counted(parts: list[bytes], data) -> None:
    # PieceCounter counts all pieces but those it glues into stretches: any subset, by position
    table, expected = PieceTable(), Counter()
    for text in parts:
        starts = separator_positions(text, b" \n\0")
        ends = piece_ends(starts, len(text))
        keep = np.array(
            data.draw(st.lists(st.booleans(), min_size=len(starts), max_size=len(starts))),
            dtype=bool,
        )
        table.count(text, starts[keep], ends[keep])
        expected.update(text[a:b] for a, b in zip(starts[keep].tolist(), ends[keep].tolist()))
    assert table_counts(table) == +expected


@settings(max_examples=100, deadline=None)
@given(parts=st.lists(texts, min_size=2, max_size=8))
def test_summing_every_few_rows_changes_nothing(parts: list[bytes]) -> None:
    table = PieceTable()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(piece_table, "_SUM_EVERY", 3)  # a sum after nearly every text
        expected = counted(parts, b" \n\0", table)
    assert table_counts(table) == +expected


def test_two_keys_that_share_a_mix_are_told_apart(monkeypatch) -> None:
    # With a mix of 0 every 9-16 byte piece with the same second half shares a mix: the exact
    # sort by both halves must take over.
    monkeypatch.setattr(piece_table, "_MIX", np.uint64(0))
    data = b" aaaaaaaXY bbbbbbbXY aaaaaaaXY cccccccXY bbbbbbbXY aaaaaaaZ"
    table = PieceTable()
    expected = counted([data, data], b" ", table)
    assert table_counts(table) == expected


def test_length_matches_the_tables_between_sums() -> None:
    # count_task asks after every chunk, so the table keeps the count instead of walking its
    # unsummed tables: it must agree with them
    table = PieceTable()
    for _ in range(2000):
        add_pieces(table, b" a b")
    assert len(table._short) > 1000  # not summed yet
    assert len(table) == sum(len(keys) for keys, _ in table._short)


def test_length_is_an_upper_bound_then_exact() -> None:
    table = PieceTable()
    add_pieces(table, b" a b a b c")
    add_pieces(table, b" a b")
    assert len(table) >= 3
    assert sorted(table_counts(table).items()) == [(b" a", 3), (b" b", 3), (b" c", 1)]
    assert len(table) == 3


@pytest.mark.parametrize("shape", ["stories", "wide"])
def test_a_generated_corpus_counts_like_a_counter(shape: str) -> None:
    from itertools import islice

    from bpe_course.corpora.generate import corpus_blocks

    text = b"".join(islice(corpus_blocks(shape, seed=3), 4)).replace(b"<|endoftext|>", b"\0")
    table = PieceTable()
    parts = [text[start : start + 50_000] for start in range(0, len(text), 50_000)]
    expected = counted(parts, b" \n\0", table)
    assert table_counts(table, batch=10_000) == +expected
