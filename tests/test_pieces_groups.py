"""The pieces path's shortcuts are exact: pieces joined by count, the stdlib pattern on ASCII bytes,
the unsafe spaces found by patterns, on made-up text and on text of real shapes."""

from __future__ import annotations

import re
import sys
from collections import Counter

import pytest
import regex
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bpe_course.counting import pieces
from bpe_course.counting.piece_table import separator_positions
from bpe_course.counting.pieces import PieceCounter, count_pretokens

from .conftest import EOT, by_pattern, stdlib_corpus

SPECIALS = [EOT, "[SEP]", "\n<s>", "»", "\u00a0<x>"]


def repeated_counts(texts: list[str], special_tokens=()) -> Counter[str]:
    """Counts through one PieceCounter, as a worker adds its chunks."""
    counter = PieceCounter(special_tokens)
    for text in texts:
        counter.add(text.encode("utf-8"))
    return Counter({word.decode("utf-8"): n for word, n in counter.word_counts().items()})


@pytest.mark.parametrize(
    "name, pattern, ascii_pattern",
    [
        ("whitespace", r"\s", rb"\s"),
        ("letters", r"\p{L}", rb"[A-Za-z]"),
        ("digits", r"\p{N}", rb"[0-9]"),
    ],
)
def test_ascii_classes_agree_with_the_pattern(
    name: str, pattern: str, ascii_pattern: bytes
) -> None:
    wanted = [i for i in range(128) if regex.fullmatch(pattern, chr(i))]
    assert [i for i in range(128) if re.fullmatch(ascii_pattern, bytes((i,)))] == wanted, name


def test_the_wide_spaces_are_all_of_the_patterns_whitespace() -> None:
    space = regex.compile(r"\s")
    wide = [chr(i) for i in range(128, sys.maxunicode + 1) if space.fullmatch(chr(i))]
    assert "".join(wide) == pieces._WIDE_SPACES


# Words that split in many ways: Unicode letters and digits of other scripts, marks, contractions
# (and near misses), numbers with separators, every kind of whitespace, and special tokens.
WORDS = [
    "the", "The", "I'm", "don't", "we've", "they'll", "it'S", "'re", "'", "''", "o'clock",
    "1,000.50", "1990s", "(1746–1769)", "\"Hello,", "world!\"", "--Shak.", "{Abuse}", "[Obs.]",
    "naïve", "Ärger", "東京", "٣٤", "Ⅻ", "x²", "😀", "e\u0301", "\u200b", "a_b", "@#$",
]  # fmt: skip
SPACES = [" ", "  ", "   ", "\n", "\n\n", " \n", "\t", "\r\n", "\u00a0", "\u3000", "\u2009", "\x0b",
          "\x1c", "\x85", "\u2028"]  # fmt: skip
fragment = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(SPACES),
    st.sampled_from(SPECIALS),
    st.text(st.characters(codec="utf-8"), min_size=1, max_size=4),
)
texts = st.lists(fragment, max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(texts, min_size=1, max_size=4), copies=st.integers(1, 9))
@example(parts=["a\n b\n a\n"], copies=3)
@example(parts=["x \u3000 \u3000 y"], copies=5)
@example(parts=[" [SEP] \n<s> x"], copies=6)
def test_repeated_pieces_count_like_the_pattern(parts: list[str], copies: int) -> None:
    # copies put the same pieces in groups of higher counts, past _REPEAT_AT_MOST
    texts_in = parts * copies
    expected = sum((by_pattern(text, SPECIALS) for text in texts_in), Counter())
    assert +repeated_counts(texts_in, SPECIALS) == expected


@pytest.mark.parametrize("repeat_at_most", [0, 1, 1000])
def test_both_ways_of_scaling_agree(monkeypatch, repeat_at_most: int) -> None:
    monkeypatch.setattr(pieces, "_REPEAT_AT_MOST", repeat_at_most)
    text = "the cat, the dog's ball; 42 cats.\n \n" * 7 + " naïve café\u00a0 the end "
    assert +repeated_counts([text, text[5:]], [EOT]) == by_pattern(text, [EOT]) + by_pattern(
        text[5:], [EOT]
    )


def test_a_piece_ending_in_whitespace_is_never_joined() -> None:
    # "x\n" (before a cut: a space, then a letter) and "\nc" come one after the other in the
    # group of count 1: joined, " x\n \nc" would make "\n " one pretoken.
    text = "b a x\n b \nc"
    assert +count_pretokens(text) == by_pattern(text)


def test_a_piece_ending_in_whitespace_before_a_special_token() -> None:
    # "\n" + " " + special: the space is no cut, and the piece "x\n" must not join the group of
    # pieces that end in letters (a join would put a space after "\n").
    text = f"a x\n {EOT}b x\n\u00a0 [SEP]y x\n"
    expected = sum((by_pattern(text, SPECIALS) for _ in range(3)), Counter())
    assert +repeated_counts([text] * 3, SPECIALS) == expected


@pytest.mark.parametrize("wide", ["", "\u3000"])
def test_unsafe_separators_in_runs_of_every_length(wide: str) -> None:
    counter = PieceCounter([EOT])
    data = ("a  b   c    d\n \ne \n" + EOT + "  x\n\n\n\ny\t\n z" + wide + " \n").encode()
    text = counter._mark_special(data)
    assert text.count(0) == 1
    starts = separator_positions(text, pieces._SEPARATORS)
    found = starts[counter._unsafe_separators(text, starts)].tolist()
    # each space or newline whose left neighbour is whitespace and whose right one is
    # whitespace, the end or a special token (now a NUL)
    chars = text.decode()
    n = len(chars)
    wanted = [
        len(chars[:i].encode())
        for i in range(1, n)
        if chars[i] in " \n"
        and chars[i - 1].isspace()
        and (i + 1 == n or chars[i + 1].isspace() or chars[i + 1] == "\0")
    ]
    assert found == wanted


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["stories", "wide"])
def test_generated_shapes_count_like_the_pattern(shape: str) -> None:
    from bpe_course.corpora.generate import corpus_blocks

    blocks = corpus_blocks(shape, seed=3)
    text = b"".join(next(blocks) for _ in range(3)).decode("utf-8")
    assert len(text) > 50_000
    # cut anywhere: each chunk is counted as a whole text
    chunks = [text[i : i + 20_000] for i in range(0, len(text), 20_000)]
    expected = sum((by_pattern(chunk, [EOT]) for chunk in chunks), Counter())
    assert +repeated_counts(chunks, [EOT]) == expected


def test_python_sources_count_like_the_pattern() -> None:
    text = stdlib_corpus(400_000)
    chunks = text.split(EOT)
    expected = sum((by_pattern(chunk, [EOT]) for chunk in chunks), Counter())
    assert +repeated_counts(chunks, [EOT]) == expected


def test_groups_split_in_batches(monkeypatch) -> None:
    monkeypatch.setattr(pieces, "_BATCH", 3)
    text = stdlib_corpus(60_000)
    assert +count_pretokens(text, [EOT]) == by_pattern(text, [EOT])


# --- Glued stretches as pieces, pieces ending in whitespace joined ---------------------------------

# Special tokens that overlap themselves ("\n\n", "\t\t") or each other ("<s>" inside "<s><s>",
# "s>\t" across "<s>" and a tab): split leftmost, longest first, as the pattern's split does.
OVERLAPPING = ["\n\n", "<s>", "<s><s>", "s>\t", "\t\t", "»"]
# Whitespace that glues pieces: a space or newline with whitespace on both sides (line breaks of
# Windows, tabs, wide spaces, indentation), and words that end in whitespace of other kinds.
GLUE = [
    "\r\n",
    "\r\n    ",
    "\r\n\r\n",
    "\t \t",
    " \t",
    "\t\n",
    "\u3000 ",
    " \u3000",
    "\n \n",
    "  \n",
    "\x0b",
]
glued = st.lists(
    st.one_of(
        st.sampled_from(GLUE),
        st.sampled_from(WORDS),
        st.sampled_from([" ", "\n"]),
        st.sampled_from(OVERLAPPING),
        st.text(st.characters(codec="utf-8"), min_size=1, max_size=3),
    ),
    max_size=40,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(parts=st.lists(glued, min_size=1, max_size=4), copies=st.integers(1, 7))
@example(parts=["def f():\r\n    return 1\r\n\r\n"], copies=6)
@example(parts=["a\t \tb c\t \td "], copies=2)
@example(parts=["x \n<s><s>\t\t \n\n\n y\u3000 \u3000"], copies=5)
@example(parts=["<s>\t \n", "s>\t\t\n \n"], copies=3)
def test_glued_stretches_and_spaced_pieces_count_like_the_pattern(
    parts: list[str], copies: int
) -> None:
    # copies make the glued stretches and the pieces ending in whitespace repeat, so they are
    # counted in groups of every count (joined with _END), past _REPEAT_AT_MOST
    texts_in = parts * copies
    for special_tokens in (OVERLAPPING, []):
        expected = sum((by_pattern(text, special_tokens) for text in texts_in), Counter())
        assert +repeated_counts(texts_in, special_tokens) == expected


def test_pieces_ending_in_whitespace_are_joined_not_split_alone(monkeypatch) -> None:
    # Windows line breaks before indentation glue a stretch at every line: counted as pieces,
    # equal ones once, those ending in whitespace in one findall per count, none alone.
    splits: list[bytes] = []
    split = PieceCounter._split
    monkeypatch.setattr(
        PieceCounter, "_split", lambda self, text: splits.append(text) or split(self, text)
    )
    text = "".join(f"def f{i % 7}():\r\n    return {i}\r\n\r\n" for i in range(300))
    assert +repeated_counts([text], [EOT]) == by_pattern(text, [EOT])
    assert len(splits) < 20  # the text's start, and a few joins per count


@settings(max_examples=100, deadline=None)
@given(
    end=st.sampled_from(SPACES), before=st.sampled_from(WORDS + SPACES), copies=st.integers(1, 6)
)
def test_the_end_marker_keeps_a_final_whitespace_run_whole(
    end: str, before: str, copies: int
) -> None:
    # a piece ending in each kind of whitespace, in a group with _END after it, next to pieces
    # that end in letters and marks, and the marker's own characters in the text
    text = f"a {before}{end}b !\n! {before}{end}"
    assert +repeated_counts([text] * copies) == Counter(
        {w: n * copies for w, n in by_pattern(text).items()}
    )
