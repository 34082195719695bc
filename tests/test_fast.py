"""The fast trainer's two paths, numpy for many sites and plain Python for few, each equal to V1.

The registry's tests run ``fast`` as it is; here each path is forced on every merge, so both see
the ties, the runs ``a a a`` and the touching sites ``a b a b`` that hypothesis makes.
"""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course.trainers import fast, v1_naive

runs_and_repeats = st.dictionaries(
    st.lists(st.sampled_from(b"aab"), min_size=2, max_size=9).map(bytes),
    st.integers(min_value=1, max_value=9),
    min_size=1,
    max_size=25,
)
any_bytes = st.dictionaries(
    st.binary(min_size=1, max_size=10), st.integers(min_value=1, max_value=50), max_size=30
)


@pytest.mark.parametrize("small", [0, 10**9], ids=["numpy always", "python always"])
@settings(max_examples=120, deadline=None)
@given(word_counts=st.one_of(runs_and_repeats, any_bytes), merges=st.integers(1, 60))
def test_each_path_matches_v1(small: int, word_counts, merges: int) -> None:
    _agrees_with_v1_with("SMALL", small, word_counts, merges)


def _agrees_with_v1_with(setting: str, value: int, word_counts, merges: int) -> None:
    """fast with one module setting changed (``SMALL``, ``_BLOCK``) learns V1's merges. Set by
    hand, not by monkeypatch: hypothesis runs many examples in one test call."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = v1_naive.merge_loop(word_counts, 257 + merges, ["<|endoftext|>"])
        original = getattr(fast, setting)
        setattr(fast, setting, value)
        try:
            assert fast.merge_loop(word_counts, 257 + merges, ["<|endoftext|>"]) == expected
        finally:
            setattr(fast, setting, original)


@pytest.mark.parametrize("chunk", [1, 7, 1 << 24])
@settings(max_examples=60, deadline=None)
@given(word_counts=st.one_of(runs_and_repeats, any_bytes), merges=st.integers(1, 40))
def test_pairs_counted_in_chunks_match_v1(chunk: int, word_counts, merges: int) -> None:
    # the pairs of bytes counted a few positions at a time (a large corpus's words take many
    # chunks): each pair's positions joined in order, whatever the chunk
    _agrees_with_v1_with("_BLOCK", chunk, word_counts, merges)


def test_counts_past_32_bits_keep_64_bit_weights() -> None:
    word_counts = {b"abc": 2**31 + 5, b"abd": 3, b"bc": 2**31}
    expected = v1_naive.merge_loop(word_counts, 256 + 3)
    assert fast.merge_loop(word_counts, 256 + 3) == expected
    flat = fast.FlatWords(list(word_counts), list(word_counts.values()), 300)
    assert flat.weight_np.dtype.itemsize == 8
    assert fast.FlatWords([b"ab"], [7], 300).weight_np.dtype.itemsize == 4
    # 32-bit counts whose sums pass 2**31 on the numpy path: (x, N) sums thirty words' counts
    word_counts = {bytes([x]) + b"ab" + bytes([y]): 2**30 for x in b"xyz" for y in range(30)}
    assert fast.FlatWords([b"ab"], [2**30], 300).weight_np.dtype.itemsize == 4
    assert fast.merge_loop(word_counts, 256 + 6) == v1_naive.merge_loop(word_counts, 256 + 6)


def test_many_runs_take_the_numpy_path() -> None:
    # Hundreds of distinct words of runs: (a, a) has far more candidates than SMALL, and the
    # runs overlap (a a a keeps its first two), so _every_other decides the sites.
    word_counts = {b"a" * n + b"b" + bytes([c]): n for n in range(2, 12) for c in range(60, 100)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = v1_naive.merge_loop(word_counts, 256 + 40)
        events = []
        assert fast.merge_loop(word_counts, 256 + 40, on_merge=events.append) == expected
    assert events[0].pair == (b"a", b"a") and events[0].words_touched == len(word_counts)


def test_the_collector_is_off_while_the_loop_runs_and_back_on_after() -> None:
    import gc

    seen = []
    assert gc.isenabled()
    fast.merge_loop({b"abab": 3, b"ab": 2}, 258, on_merge=lambda event: seen.append(gc.isenabled()))
    assert seen == [False, False] and gc.isenabled()
    gc.disable()  # a caller that turned it off keeps it off
    try:
        fast.merge_loop({b"abab": 3}, 257)
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("small", [0, 10**9], ids=["numpy always", "python always"])
def test_a_pair_made_at_one_site_is_kept_as_its_position(small: int) -> None:
    # (x, N) made once is an int; made twice, an array or a slice: both merge as V1 does
    word_counts = {b"xab": 3, b"yab": 2, b"yabz": 1, b"abab": 4}
    original = fast.SMALL
    fast.SMALL = small
    try:
        flat = fast.FlatWords(list(word_counts), list(word_counts.values()), 300)
        pair_counts = flat.pair_counts()
        a, b = ord("a"), ord("b")
        made, _ = flat.merge(a * 300 + b, a, b, 256, pair_counts)
        assert isinstance(flat.site_positions[ord("x") * 300 + 256], int)
        assert not isinstance(flat.site_positions[ord("y") * 300 + 256], int)
        assert made[ord("x") * 300 + 256] == 3 and made[ord("y") * 300 + 256] == 3
        expected = v1_naive.merge_loop(word_counts, 256 + 5)  # five merges: every pair's
        assert fast.merge_loop(word_counts, 256 + 5) == expected
    finally:
        fast.SMALL = original
