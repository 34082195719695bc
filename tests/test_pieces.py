"""Counting space-delimited pieces first gives exactly the pattern's pretoken counts, on any text."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bpe_course.counting import count_words, pieces, plan
from bpe_course.counting.pieces import PieceCounter, count_pretokens
from bpe_course.counting.plan import piece_cuts
from bpe_course.pretokenize import count_words_in_text

from .conftest import EOT, by_pattern, stdlib_corpus


def by_pieces(path, special_tokens, workers=1, **options) -> dict[bytes, int]:
    """A file's word counts, counted by pieces (as the trainers beyond V5 count)."""
    return count_words(path, special_tokens, workers, counter="pieces", **options)


SPECIALS = [EOT, EOT + EOT, "[SEP]", "\n<s>", "»"]


# Whitespace of every kind the pattern knows, in runs, next to words, digits and contractions.
SPACES = [
    " ",
    "  ",
    "   ",
    "\n",
    "\n\n",
    "\t",
    "\r\n",
    "\u00a0",
    "\u3000",
    "\u2009",
    "\x0b",
    "\x1c",
]
WORDS = ["a", "the", "I", "'s", "'ll", "don't", "42", "1,000", "!!", "...", "é", "你好", "😀"]
fragment = st.one_of(
    st.sampled_from(SPACES),
    st.sampled_from(WORDS),
    st.sampled_from(SPECIALS),
    st.text(min_size=1, max_size=6),  # any Unicode, surrogates aside
)
texts = st.lists(fragment, max_size=40).map("".join)


@settings(max_examples=600, deadline=None)
@given(text=texts)
@example(text="")
@example(text=" ")
@example(text="x\n \ny")
@example(text="x\n <|endoftext|>")
@example(text=" \u00a0 a")
@example(text="a \n b  \t c   d")
def test_pieces_count_like_the_pattern(text: str) -> None:
    assert +count_pretokens(text, SPECIALS) == by_pattern(text, SPECIALS)


@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_pieces_without_special_tokens(text: str) -> None:
    assert +count_pretokens(text) == by_pattern(text)


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(texts, min_size=1, max_size=5))
def test_pieces_of_many_texts_add_up(parts: list[str]) -> None:
    counter = PieceCounter([EOT])
    for part in parts:
        counter.add(part.encode("utf-8"))
    expected = sum((by_pattern(part, [EOT]) for part in parts), Counter())
    got = Counter({word.decode("utf-8"): n for word, n in counter.word_counts().items()})
    assert +got == expected


def test_unsafe_space_keeps_a_whitespace_run_whole() -> None:
    # The space between two newlines is not a cut: the pattern makes "\n " one pretoken.
    assert count_pretokens("x\n \ny") == Counter(["x", "\n ", "\n", "y"])
    # A space before a special token ends its part: the run before it is one pretoken.
    assert count_pretokens("x\n " + EOT + "y", [EOT]) == Counter(["x", "\n ", "y"])


def test_a_special_token_with_spaces_and_newlines_is_counted_by_pieces(tmp_path) -> None:
    # The counter writes a NUL in place of each special token before it splits at spaces and
    # newlines, so a token that holds them is never cut inside a text.
    special = ["<end of text>", "\n<s> \n"]
    text = "one story<end of text>two  stories\n<s> \n three\n\n<end of text> "
    assert +count_pretokens(text, special) == by_pattern(text, special)


def test_a_file_with_a_spaced_special_token_is_not_cut_inside_it(tmp_path, monkeypatch) -> None:
    # The chunks of a file are cut at a space after a letter or digit, which a token like this
    # holds: such a file is counted with the plain pattern, on any number of chunks.
    monkeypatch.setattr(plan, "PIECE_CHUNK_BYTES", 64)
    token = "<end of text>"
    text = ("one story" + token + "two  stories\n" + token) * 40
    path = tmp_path / "spaced.txt"
    path.write_text(text, encoding="utf-8")
    for workers in (1, 2):
        assert by_pieces(path, [token], workers) == count_words_in_text(text, [token])


@pytest.mark.parametrize("token", ["<\0>", ""])
def test_a_special_token_empty_or_with_a_nul_falls_back_to_the_pattern(tmp_path, token) -> None:
    with pytest.raises(ValueError, match="empty or holds a NUL"):
        PieceCounter([token])
    path = tmp_path / "nul.txt"
    text = "one story<\0>two  stories<\0> é"
    path.write_text(text, encoding="utf-8")
    assert by_pieces(path, [token]) == count_words_in_text(text, [token])


def test_a_text_with_a_nul_of_its_own_counts_like_the_pattern() -> None:
    text = "a\0b  c\0\0 d<|endoftext|>\0 e"
    assert +count_pretokens(text, [EOT]) == by_pattern(text, [EOT])


# --- Files: cuts, workers, spawn --------------------------------------------------------------------


@pytest.fixture(scope="module")
def mixed_file(tmp_path_factory):
    rng = random.Random(11)
    fragments = [
        "naïve café",
        "你好世界",
        "😀 emoji",
        "don't stop",
        "  spaces\n\n",
        "42 1234",
        "\n \n",
    ]
    docs = [" ".join(rng.choice(fragments) for _ in range(rng.randint(1, 30))) for _ in range(3000)]
    text = EOT.join(docs) + "   tail\t "
    path = tmp_path_factory.mktemp("pieces") / "mixed.txt"
    path.write_bytes(text.encode("utf-8"))
    return path


def test_cuts_follow_an_ascii_letter_or_digit(mixed_file, monkeypatch) -> None:
    monkeypatch.setattr(plan, "_SCAN_BLOCK", 7)  # matches straddle the reads
    data = mixed_file.read_bytes()
    cuts = piece_cuts(mixed_file, 40)
    assert cuts[0] == 0 and cuts[-1] == len(data) and cuts == sorted(set(cuts)) and len(cuts) > 20
    for cut in cuts[1:-1]:
        assert data[cut : cut + 1] == b" " and data[cut - 1 : cut].isalnum()


@pytest.mark.parametrize("workers", [1, 2, 5])
def test_file_counts_equal_the_pattern(mixed_file, monkeypatch, workers: int) -> None:
    monkeypatch.setattr(plan, "PIECE_CHUNK_BYTES", 20_000)  # many chunks
    expected = count_words_in_text(mixed_file.read_text(encoding="utf-8"), [EOT])
    assert by_pieces(mixed_file, [EOT], workers=workers, min_bytes_per_worker=1) == expected


def test_file_counts_under_spawn_with_progress(mixed_file, monkeypatch) -> None:
    monkeypatch.setattr(plan, "PIECE_CHUNK_BYTES", 50_000)
    seen: list[int] = []
    got = by_pieces(
        mixed_file,
        [EOT],
        workers=2,
        min_bytes_per_worker=1,
        start_method="spawn",
        on_counted=seen.append,
    )
    assert got == count_words_in_text(mixed_file.read_text(encoding="utf-8"), [EOT])
    assert sum(seen) == mixed_file.stat().st_size  # every chunk reported once


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=texts, chunk=st.integers(min_value=1, max_value=40))
def test_any_chunking_is_exact(tmp_path, monkeypatch, text: str, chunk: int) -> None:
    monkeypatch.setattr(plan, "PIECE_CHUNK_BYTES", chunk)
    path = tmp_path / "any.txt"
    path.write_bytes(text.encode("utf-8"))
    assert by_pieces(path, SPECIALS) == count_words_in_text(text, SPECIALS)


@pytest.mark.parametrize("workers", [1, 2])
def test_counts_stay_exact_when_pieces_are_flushed_to_pretokens(
    mixed_file, monkeypatch, workers: int
) -> None:
    monkeypatch.setattr(plan, "PIECE_CHUNK_BYTES", 20_000)
    monkeypatch.setattr(pieces, "MAX_PIECES", 50)  # a flush after nearly every chunk
    flushes: list[int] = []
    word_counts = pieces.PieceCounter.word_counts
    monkeypatch.setattr(
        pieces.PieceCounter, "word_counts", lambda self: flushes.append(1) or word_counts(self)
    )
    expected = count_words_in_text(mixed_file.read_text(encoding="utf-8"), [EOT])
    got = by_pieces(mixed_file, [EOT], workers=workers, min_bytes_per_worker=1)
    assert got == expected
    if workers == 1:  # the patch is seen in this process only
        assert len(flushes) > 3


def test_real_text_without_special_tokens(tmp_path, monkeypatch) -> None:
    # Python sources: indentation is whitespace runs of every length, the hard case.
    monkeypatch.setattr(plan, "PIECE_CHUNK_BYTES", 30_000)
    text = stdlib_corpus(300_000).replace(EOT, "\n")
    path = tmp_path / "code.txt"
    path.write_text(text, encoding="utf-8")
    got = by_pieces(path, [], workers=2, min_bytes_per_worker=1)
    assert got == count_words_in_text(text, [])


def test_invalid_utf8_is_one_clear_error(tmp_path) -> None:
    from bpe_course.errors import BPEInputError

    path = tmp_path / "bad.txt"
    path.write_bytes(b"fine text " * 10 + b"\xff oops")
    with pytest.raises(BPEInputError, match="not valid UTF-8: byte 0xff at byte offset 100"):
        by_pieces(path, [EOT])


@pytest.mark.parametrize("special", ["END", "7", ",", "ab.", "x", "<|x|>", "'s"])
def test_special_tokens_inside_ascii_pieces(special: str) -> None:
    # ASCII pieces are joined and split by the stdlib pattern on bytes: a special token inside
    # one (or at its edge) must still be split out first.
    text = f"one END, 7 ab. x{special} {special}, {special}y <|x|>s Ben's words."
    assert +count_pretokens(text, [special]) == by_pattern(text, [special])


# Words of punctuation, letters or digits and contractions: ASCII pieces alone, then ASCII and
# Unicode pieces side by side (newlines and tabs inside words, wide spaces between, repeats).
ASCII_WORD = r"[\"'(.,!?<|]{0,2}([A-Za-z]{0,4}|[0-9]{0,3})('s|'ll|'t|'re|'x)?[\"'.,!?|>)]{0,2}"
MIXED_WORD = (
    r"[\"'(.,!?<|\n]{0,2}([A-Za-z]{0,4}|[0-9]{0,3}|é)('s|'ll|'t|'re|'x)?[\"'.,!?|>)\n\t]{0,2}"
)


@pytest.mark.parametrize(
    "word, separators, special_tokens, copies",
    [
        (ASCII_WORD, [" "], [EOT], 1),
        (MIXED_WORD, [" ", "  ", " \n ", "\u00a0 "], [EOT, "|>"], 3),
    ],
    ids=["ascii", "ascii-and-unicode"],
)
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_word_pieces_split_like_the_pattern(
    data, word: str, separators: list[str], special_tokens: list[str], copies: int
) -> None:
    words = data.draw(st.lists(st.from_regex(word, fullmatch=True), max_size=30), label="words")
    separator = data.draw(st.sampled_from(separators), label="separator")
    text = separator.join(words * copies)
    assert +count_pretokens(text, special_tokens) == by_pattern(text, special_tokens)


# --- Texts with few spaces go to the plain pattern -------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(
            st.sampled_from(["漢字", "かな", "。", "\n", " ", "ab", "x1", EOT, "\u3000"]),
            max_size=80,
        ),
        min_size=1,
        max_size=4,
    )
)
def test_texts_with_few_spaces_and_texts_with_many_add_up_exactly(texts: list[list[str]]) -> None:
    # Some texts go to the plain pattern (fewer than one space in 32 bytes), others to pieces,
    # into one counter: the sum is the pattern's over each text.
    counter = PieceCounter([EOT])
    expected: Counter[str] = Counter()
    for parts in texts:
        text = "".join(parts)
        counter.add(text.encode("utf-8"))
        expected += by_pattern(text, [EOT])
    got = Counter({word.decode("utf-8"): n for word, n in counter.word_counts().items()})
    assert +got == expected


def texts_sent_to_the_pattern(monkeypatch) -> list[bytes]:
    """The texts a PieceCounter hands to the plain pattern, recorded as they are counted."""
    calls: list[bytes] = []
    add_by_pattern = PieceCounter._add_by_pattern
    monkeypatch.setattr(
        PieceCounter,
        "_add_by_pattern",
        lambda self, data: calls.append(data) or add_by_pattern(self, data),
    )
    return calls


def test_a_text_with_few_spaces_is_counted_with_the_plain_pattern(monkeypatch) -> None:
    calls = texts_sent_to_the_pattern(monkeypatch)
    counter = PieceCounter([EOT])
    cjk = ("漢字かな" * 20 + "。\n") * 50
    counter.add(cjk.encode("utf-8"))
    counter.add(("the cat sat on the mat. " * 200).encode("utf-8"))
    assert calls == [cjk.encode("utf-8")]  # the English text was counted as pieces
    got = Counter({word.decode("utf-8"): n for word, n in counter.word_counts().items()})
    assert +got == by_pattern(cjk, [EOT]) + by_pattern("the cat sat on the mat. " * 200, [EOT])


# --- Texts whose pieces would cost more than they save go to the plain pattern --------------------


def _words(letters: str, count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(letters) for _ in range(rng.randint(2, 7))) for _ in range(count)]


CYRILLIC = "абвгдежзийклмнопрстуфхцчшщъыьэюя"
KANJI = "漢字仮名日本語中文书写汉语词典"


def test_distinct_pieces_of_other_scripts_go_to_the_pattern(monkeypatch) -> None:
    calls = texts_sent_to_the_pattern(monkeypatch)
    distinct = " ".join(_words(CYRILLIC, 30_000, 0))  # words that (almost) never repeat
    long = " ".join(w * 5 for w in _words(KANJI, 8_000, 1))  # pieces of 30 to 105 bytes
    repeated = " ".join(_words(CYRILLIC, 300, 2) * 100)  # the same 300 words again and again
    english = "the cat sat on the mat. " * 2_000
    texts = [distinct, long, repeated, english, f"{english}\n{distinct}"]
    counter = PieceCounter([EOT])
    for text in texts:
        counter.add(text.encode("utf-8"))
    assert calls == [text.encode("utf-8") for text in (distinct, long, texts[-1])]
    got = Counter({word.decode("utf-8"): n for word, n in counter.word_counts().items()})
    assert +got == sum((by_pattern(text, [EOT]) for text in texts), Counter())


def test_the_shares_estimate_what_they_say() -> None:
    from bpe_course.counting.piece_table import non_ascii_shares, piece_ends, separator_positions

    def shares(text: str) -> tuple[float, float]:
        data = text.encode("utf-8")
        starts = separator_positions(data, pieces._SEPARATORS)
        return non_ascii_shares(data, starts, piece_ends(starts, len(data)))

    long, distinct = shares(" ".join(_words(CYRILLIC, 40_000, 3)))
    assert long == 0.0 and 0.8 < distinct < 1.0  # the spaces are ASCII pieces' bytes
    long, distinct = shares(" ".join(w * 5 for w in _words(KANJI, 10_000, 4)))
    assert long > 0.95 and distinct == 0.0  # the distinct share is of pieces up to 16 bytes
    long, distinct = shares(" ".join(_words(CYRILLIC, 200, 5) * 200))
    assert long == 0.0 and distinct < 0.05
    assert shares("the cat sat on the mat " * 1000) == (0.0, 0.0)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    parts=st.lists(texts, min_size=1, max_size=5),
    share=st.sampled_from([-1.0, 0.2, 0.5, 9.0]),
    sample=st.sampled_from([16, 64, 1 << 19]),
)
def test_any_choice_counts_like_the_pattern(
    monkeypatch, parts: list[str], share: float, sample: int
) -> None:
    # the threshold and the sample moved, so texts go either way, into one counter (each
    # example sets both: the fixture is shared between examples)
    monkeypatch.setattr(pieces, "_SHARE", share)
    monkeypatch.setattr(pieces, "_SAMPLE_BYTES", sample)
    counter = PieceCounter(SPECIALS)
    for part in parts:
        counter.add(part.encode("utf-8"))
    expected = sum((by_pattern(part, SPECIALS) for part in parts), Counter())
    got = Counter({word.decode("utf-8"): n for word, n in counter.word_counts().items()})
    assert +got == expected
