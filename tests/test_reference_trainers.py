"""The designs the course measures itself against (V0, the V1-V5 post's V4 and V5) are exact too:
they learn what V1 learns, so that timing them against the course's versions is fair."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings

from bpe_course import train_bpe
from bpe_course.reference import REFERENCE_TRAINERS
from bpe_course.reference.post_v5 import ReversedBytes
from bpe_course.trainers import get_trainer, v1_naive

from .conftest import EOT
from .test_trainers_agree import SENNRICH, word_counts_strategy

NAMES = list(REFERENCE_TRAINERS)


@pytest.mark.parametrize("name", NAMES)
def test_sennrich_example(name) -> None:
    expected = v1_naive.merge_loop(SENNRICH, 256 + 5)
    assert get_trainer(name).merge_loop(SENNRICH, 256 + 5) == expected
    with pytest.warns(Warning):
        exhausted = v1_naive.merge_loop(SENNRICH, 400)
    with pytest.warns(Warning):
        assert get_trainer(name).merge_loop(SENNRICH, 400) == exhausted


@settings(max_examples=80, deadline=None)
@given(word_counts=word_counts_strategy)
def test_match_v1_on_generated_word_counts(word_counts) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = v1_naive.merge_loop(word_counts, 256 + 60)
        for name in NAMES:
            assert get_trainer(name).merge_loop(word_counts, 256 + 60) == expected, name


def test_ties_on_the_left_token_need_the_eq_fix() -> None:
    # Two pairs with the same count and the same left token: the right token must decide. With
    # __lt__ only, tuples of wrappers compare "not less" both ways and the heap keeps either.
    a1, a2 = ReversedBytes(b"a"), ReversedBytes(b"a")
    assert (a1, ReversedBytes(b"z")) < (a2, ReversedBytes(b"b"))  # z is greater: it comes first
    word_counts = {b"ab": 3, b"az": 3, b"ay": 3}
    assert get_trainer("post_v5").merge_loop(word_counts, 257) == v1_naive.merge_loop(
        word_counts, 257
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", ["post_v4", "post_v5", "post_v5_nogc"])
def test_megabyte_corpus(megabyte_corpus, name) -> None:
    expected = train_bpe(megabyte_corpus, 400, [EOT], version="v5")
    assert train_bpe(megabyte_corpus, 400, [EOT], version=name) == expected


def test_v0_on_a_small_corpus(tmp_path) -> None:
    from .conftest import stdlib_corpus

    path = tmp_path / "small.txt"
    path.write_text(stdlib_corpus(60_000), encoding="utf-8")
    assert train_bpe(path, 320, [EOT], version="v0") == train_bpe(path, 320, [EOT], version="v1")
