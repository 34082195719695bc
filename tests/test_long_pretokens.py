"""Long pretokens: text without spaces (a run of one character, two alternating, CJK) makes words
thousands of bytes long. Every version trains them exactly as V1, every counter counts them as the
plain pattern, and fast's memory follows the bytes of its words, not the length of the longest.
"""

from __future__ import annotations

import random
import tracemalloc
import warnings

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_course import TRAINERS, train_bpe
from bpe_course.counting import count_words
from bpe_course.pretokenize import GPT2_PATTERN
from bpe_course.trainers import fast, v1_naive

from .conftest import EOT

# Characters of one, two, three and four UTF-8 bytes, letters, digits and symbols: a run of each
# is one pretoken (\p{L}+, \p{N}+, [^\s\p{L}\p{N}]+), and CJK letters glue into one as well.
CJK = "漢字かなカナ語文書的一是了"
RUN_CHARS = ["a", "7", "!", "é", "字", "😀"]

one_run = st.builds(lambda c, k: c * k, st.sampled_from(RUN_CHARS), st.integers(30, 700))
alternating = st.builds(
    lambda c, d, k: (c + d) * k, st.sampled_from(RUN_CHARS), st.sampled_from(RUN_CHARS),
    st.integers(15, 350),
)  # fmt: skip
cjk_like = st.text(alphabet=CJK, min_size=30, max_size=400)
long_word = st.one_of(one_run, alternating, cjk_like)
long_word_counts = st.dictionaries(
    st.one_of(long_word, st.sampled_from(["the", " cat", "字字", "aa"])).map(str.encode),
    st.integers(min_value=1, max_value=5),
    min_size=1,
    max_size=5,
)


def quiet_v1(word_counts, vocab_size, special_tokens=()):
    with warnings.catch_warnings():  # fewer merges than asked: a warning, the same in each
        warnings.simplefilter("ignore")
        return v1_naive.merge_loop(word_counts, vocab_size, special_tokens)


@settings(max_examples=40, deadline=None)
@given(word_counts=long_word_counts, merges=st.integers(1, 40))
def test_every_version_matches_v1_on_long_words(word_counts, merges) -> None:
    expected = quiet_v1(word_counts, 257 + merges, [EOT])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for version in TRAINERS:
            got = TRAINERS[version].merge_loop(word_counts, 257 + merges, [EOT])
            assert got == expected, version


@pytest.mark.parametrize("small", [0, 10**9], ids=["numpy always", "python always"])
@settings(max_examples=40, deadline=None)
@given(word_counts=long_word_counts, merges=st.integers(1, 60), block=st.integers(1, 50))
def test_fast_in_small_blocks_matches_v1(small: int, word_counts, merges: int, block: int) -> None:
    # fast indexes the pairs of bytes a block of positions at a time: blocks of a few positions
    # put block edges inside words, across runs and inside multi-byte characters
    expected = quiet_v1(word_counts, 257 + merges, [EOT])
    original = fast.SMALL, fast._BLOCK
    fast.SMALL, fast._BLOCK = small, block
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert fast.merge_loop(word_counts, 257 + merges, [EOT]) == expected
    finally:
        fast.SMALL, fast._BLOCK = original


# --- Whole texts: long pretokens beside special tokens that overlap each other and themselves ---

SPECIALS = [EOT, "aa", "字字字", "!a", "<|endoftext|>a"]
text_piece = st.one_of(
    long_word,
    st.sampled_from(SPECIALS),
    st.sampled_from([" the", "\n", "  ", " 字", "a!", "\n\n"]),
)
long_text = st.lists(text_piece, min_size=1, max_size=12).map("".join)


def plain_pattern_counts(text: str, special_tokens: list[str]) -> dict[bytes, int]:
    """The reference: split at the special tokens (longest first, leftmost), GPT-2's pattern
    over each part whole, matches counted."""
    specials = sorted(special_tokens, key=len, reverse=True)
    parts = regex.split("|".join(map(regex.escape, specials)), text)
    counts: dict[bytes, int] = {}
    for part in parts:
        for word in regex.findall(GPT2_PATTERN, part):
            counts[word.encode()] = counts.get(word.encode(), 0) + 1
    return counts


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=long_text)
def test_long_pretokens_with_overlapping_special_tokens(tmp_path, text) -> None:
    path = tmp_path / "corpus.txt"
    path.write_text(text, encoding="utf-8")
    expected_counts = plain_pattern_counts(text, SPECIALS)
    for counter in ("pattern", "pieces"):
        for workers in (1, 2):
            got = count_words(path, SPECIALS, workers, counter=counter, min_bytes_per_worker=1)
            assert got == expected_counts, (counter, workers)
    if not expected_counts:
        return  # only special tokens: an error, tested elsewhere
    vocab_size = 256 + len(SPECIALS) + 25
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = train_bpe(path, vocab_size, SPECIALS, version="v1")
        for version in TRAINERS:
            assert train_bpe(path, vocab_size, SPECIALS, version=version) == expected, version


# --- fast's memory on one long word ------------------------------------------------------------


def cjk_word(size: int, seed: int = 0) -> bytes:
    """About ``size`` bytes of CJK letters, no space: one pretoken (a few hundred characters
    drawn by a skewed law, as real text repeats some characters far more than others)."""
    rng = random.Random(seed)
    alphabet = [chr(0x4E00 + i) for i in range(400)] + [chr(0x3041 + i) for i in range(80)]
    weights = [1 / (rank + 1) for rank in range(len(alphabet))]
    return "".join(rng.choices(alphabet, weights, k=size // 3)).encode()


def test_fast_memory_follows_the_bytes_of_one_long_word() -> None:
    # Traced peak of the whole merge loop per byte of the word. The old layout (five 64-bit
    # integers per byte, site positions as lists of Python ints) needed about 80 bytes per byte
    # to build the arrays alone, and over 100 in the loop; now 16 in the arrays, and a generous
    # margin over what the loop adds (the positions of the sites it makes, its temporaries).
    word = cjk_word(2_000_000)
    tracemalloc.start()
    try:
        fast.merge_loop({word: 1, b"the": 3}, 600)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak / len(word) < 45, f"{peak / len(word):.1f} bytes per byte of the word"
