"""The one tie-break rule, and the heap's bytes key that must encode exactly the same order."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_course import TRAINERS
from bpe_course.trainers.common import (
    heap_pair_key,
    initial_vocab,
    most_frequent_pair,
    reversed_id_key,
    reversed_token_key,
    tie_break_key,
)


def vocab_with(*tokens: bytes) -> dict[int, bytes]:
    vocab = initial_vocab()
    for token in tokens:
        vocab[len(vocab)] = token
    return vocab


def test_equal_counts_greatest_bytes_win() -> None:
    vocab = initial_vocab()
    a, b, z = ord("a"), ord("b"), ord("z")
    assert most_frequent_pair({(a, z): 5, (b, a): 5, (a, b): 5}, vocab) == (b, a)
    assert most_frequent_pair({(a, z): 5, (b, a): 4}, vocab) == (a, z)  # count first


def test_prefix_is_smaller() -> None:
    # b"ab" > b"a" (a proper prefix sorts first), so (ab, c) beats (a, c) at equal counts ...
    vocab = vocab_with(b"ab")
    a, c, ab = ord("a"), ord("c"), 256
    assert most_frequent_pair({(a, c): 3, (ab, c): 3}, vocab) == (ab, c)
    # ... and the left part decides before the right one: (ab, a) beats (a, z).
    assert most_frequent_pair({(a, ord("z")): 3, (ab, a): 3}, vocab) == (ab, a)


def test_same_bytes_different_ids_greater_ids_win() -> None:
    # ab+c and a+bc both spell b"abc": the ids make the order total.
    vocab = vocab_with(b"abc", b"abc")
    assert most_frequent_pair({(256, 32): 2, (257, 32): 2}, vocab) == (257, 32)


@pytest.mark.parametrize("version", list(TRAINERS))
def test_trainers_break_prefix_ties_alike(version: str) -> None:
    # After "ab" is merged (count 4 beats everything), (ab, x) and (a, x)... both occur 3 times:
    # the second merge must be (ab, x) because b"ab" > b"a".
    word_counts = {b"abx": 3, b"ax": 3, b"ab": 1}
    _, merges = TRAINERS[version].merge_loop(word_counts, 258)
    assert merges == [(b"a", b"b"), (b"ab", b"x")]


def pair_order_key(pair: tuple[bytes, bytes, int, int]) -> bytes:
    left, right, left_id, right_id = pair
    return heap_pair_key(
        reversed_token_key(left),
        reversed_token_key(right),
        reversed_id_key(left_id),
        reversed_id_key(right_id),
    )


token = st.binary(min_size=1, max_size=6)  # includes b"\x00" and b"\xff", prefixes of each other
pair = st.tuples(token, token, st.integers(0, 100_000), st.integers(0, 100_000))


@given(pair, pair)
def test_heap_key_order_is_the_reverse_of_the_tie_break(p: tuple, q: tuple) -> None:
    # tie_break_key(p) > tie_break_key(q)  <=>  heap key of p < heap key of q
    assert (p > q) == (pair_order_key(p) < pair_order_key(q))
    assert (p == q) == (pair_order_key(p) == pair_order_key(q))


@given(st.lists(pair, min_size=1, max_size=20, unique=True))
def test_heap_minimum_is_the_tie_break_maximum(pairs: list) -> None:
    assert min(pairs, key=pair_order_key) == max(pairs)


def test_tie_break_key_is_the_tuple_order() -> None:
    vocab = vocab_with(b"ab")
    assert tie_break_key((256, 99), vocab) == (b"ab", b"c", 256, 99)


def test_ties_on_zero_and_high_bytes() -> None:
    # b"\x00" after a token is the case a naive reversed encoding gets wrong.
    word_counts = {b"a\x00b": 2, b"ab": 2, b"\xff\x00": 2, b"\xff": 1}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = TRAINERS["v1"].merge_loop(word_counts, 270)
        for version in TRAINERS:
            assert TRAINERS[version].merge_loop(word_counts, 270) == expected
