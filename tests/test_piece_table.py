"""The numpy piece table counts exactly as ``Counter(data.split(b" "))`` does, on any bytes."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bpe_course import piece_table
from bpe_course.piece_table import PieceTable

# Pieces of every length class (empty, 1-8, 9-16, longer), bytes of every value (NUL included),
# runs of spaces, and pieces that differ only past byte 8 or in their last byte.
fragment = st.one_of(
    st.sampled_from([b" ", b"  ", b"abcdefgh", b"abcdefghi", b"abcdefghij", b"x" * 16, b"x" * 17]),
    st.sampled_from([b"\xc3\xa9", b"\n", b"\0", b"\xff", b"12345678", b"123456789"]),
    st.binary(min_size=1, max_size=20),
)
texts = st.lists(fragment, max_size=30).map(b"".join)


def table_counts(table: PieceTable, batch: int = 7) -> Counter[bytes]:
    got: Counter[bytes] = Counter()
    for part in table.items(batch):
        assert len(part) <= batch
        for piece, count in part:
            assert piece not in got, "a piece came twice"
            got[piece] = count
    return got


@settings(max_examples=400, deadline=None)
@given(parts=st.lists(texts, min_size=1, max_size=6))
@example(parts=[b""])
@example(parts=[b"a\0b c", b"a c"])
@example(parts=[b"abcdefgh abcdefgh abcdefghX", b"abcdefghX abcdefgh"])
def test_counts_like_a_counter(parts: list[bytes]) -> None:
    table, expected = PieceTable(), Counter()
    for data in parts:
        table.add_pieces(data)
        expected.update(data.split(b" "))
    assert table_counts(table) == +expected


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(texts, min_size=1, max_size=4), removed=st.lists(fragment, max_size=5))
def test_adjustments_meet_the_pieces_they_adjust(parts: list[bytes], removed: list[bytes]) -> None:
    table, expected = PieceTable(), Counter()
    for data in parts:
        table.add_pieces(data)
        expected.update(data.split(b" "))
    for piece in removed + [p for data in parts[:1] for p in data.split(b" ")[:2]]:
        table.add(piece, -1)
        expected[piece] -= 1
    assert table_counts(table) == +expected


@settings(max_examples=100, deadline=None)
@given(parts=st.lists(texts, min_size=2, max_size=8))
def test_summing_every_few_rows_changes_nothing(parts: list[bytes]) -> None:
    table, expected = PieceTable(), Counter()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(piece_table, "_SUM_EVERY", 3)  # a sum after nearly every text
        for data in parts:
            table.add_pieces(data)
            expected.update(data.split(b" "))
    assert table_counts(table) == +expected


def test_two_keys_that_share_a_mix_are_told_apart(monkeypatch) -> None:
    # With a mix of 0 every 9-16 byte piece with the same second half shares a mix: the exact
    # sort by both halves must take over.
    monkeypatch.setattr(piece_table, "_MIX", np.uint64(0))
    data = b"aaaaaaaaXY bbbbbbbbXY aaaaaaaaXY ccccccccXY bbbbbbbbXY aaaaaaaaZ"
    table = PieceTable()
    table.add_pieces(data)
    table.add_pieces(data)
    assert table_counts(table) == Counter(data.split(b" ") * 2)


def test_length_is_an_upper_bound_then_exact() -> None:
    table = PieceTable()
    table.add_pieces(b"a b a b c")
    table.add_pieces(b"a b")
    assert len(table) >= 3
    assert sorted(table_counts(table).items()) == [(b"a", 3), (b"b", 3), (b"c", 1)]
    assert len(table) == 3


@pytest.mark.parametrize("shape", ["stories", "wide"])
def test_a_generated_corpus_counts_like_a_counter(shape: str) -> None:
    from itertools import islice

    from bpe_course.corpora.generate import corpus_blocks

    text = b"".join(islice(corpus_blocks(shape, seed=3), 4))
    table = PieceTable()
    for start in range(0, len(text), 50_000):
        table.add_pieces(text[start : start + 50_000])
    expected = Counter()
    for start in range(0, len(text), 50_000):
        expected.update(text[start : start + 50_000].split(b" "))
    assert table_counts(table, batch=10_000) == +expected
