"""Counting a file's words: chunk boundaries, the split token, parallel = serial, no pool for a
small file (the whole corpus path is in test_sources.py, Dask's in test_cluster.py)."""

from __future__ import annotations

import gzip
import random
from collections import Counter

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_course import safe_cuts
from bpe_course.counting import count_words, plan
from bpe_course.counting.counters import choose_counter, pieces_count_exactly
from bpe_course.counting.plan import find_chunk_boundaries, pick_split_token
from bpe_course.errors import BPEInputError
from bpe_course.pretokenize import CL100K_PATTERN, count_words_in_text

from .conftest import EOT, stdlib_corpus


def test_split_token_choice() -> None:
    assert pick_split_token([]) is None
    assert pick_split_token(["[SEP]", EOT]) == EOT
    assert pick_split_token([EOT, EOT + EOT]) == EOT  # the longer one starts with the shorter: safe
    assert pick_split_token([EOT, "x<|endoftext|>"]) is None  # contains it after a prefix
    assert pick_split_token([EOT, "ab<|"]) is None  # ends inside it
    for itself in ("\n\n", "aa", "abab", "<|<|"):  # a token that overlaps itself
        assert pick_split_token([itself]) is None
    assert pick_split_token(["ab", "abab"]) == "ab"  # copies of it: a cut inside leaves copies


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.fixture(scope="module")
def mixed_corpus(tmp_path_factory):
    # Many short documents of several scripts, so chunks fall between multi-byte characters.
    rng = random.Random(7)
    pieces = ["naïve café", "你好世界", "😀 emoji 🇫🇷", "don't stop", "  spaces\n\n", "42 1234"]
    docs = [" ".join(rng.choice(pieces) for _ in range(rng.randint(1, 30))) for _ in range(3000)]
    text = EOT.join(docs) + EOT + EOT + "tail without end"
    return write(tmp_path_factory.mktemp("mixed"), "mixed.txt", text)


@pytest.mark.parametrize("workers", [1, 2, 7])
def test_parallel_counts_equal_serial(mixed_corpus, workers: int) -> None:
    expected = count_words_in_text(mixed_corpus.read_text(encoding="utf-8"), [EOT, EOT + EOT])
    got = count_words(mixed_corpus, [EOT, EOT + EOT], workers=workers, min_bytes_per_worker=1)
    assert got == expected


def test_parallel_under_spawn(mixed_corpus) -> None:
    expected = count_words_in_text(mixed_corpus.read_text(encoding="utf-8"), [EOT])
    got = count_words(mixed_corpus, [EOT], workers=2, min_bytes_per_worker=1, start_method="spawn")
    assert got == expected


@pytest.mark.parametrize("workers", [1, 2, 7])
def test_file_without_special_token(tmp_path, workers: int) -> None:
    text = stdlib_corpus(200_000).replace(EOT, " ")
    path = write(tmp_path, "plain.txt", text)
    got = count_words(path, [EOT], workers=workers, min_bytes_per_worker=1)
    assert got == count_words_in_text(text, [EOT])


def test_fewer_tokens_than_workers(tmp_path) -> None:
    text = "first story" + EOT + "second story, the last one"
    path = write(tmp_path, "two.txt", text)
    assert count_words(path, [EOT], workers=7, min_bytes_per_worker=1) == count_words_in_text(
        text, [EOT]
    )


def test_boundaries_sit_on_the_split_token(mixed_corpus) -> None:
    data = mixed_corpus.read_bytes()
    boundaries = find_chunk_boundaries(mixed_corpus, 16, EOT.encode())
    assert boundaries[0] == 0 and boundaries[-1] == len(data)
    assert boundaries == sorted(set(boundaries)) and len(boundaries) > 8
    for b in boundaries[1:-1]:
        assert data[b:].startswith(EOT.encode())
        data[:b].decode("utf-8")  # never inside a character


def test_token_straddling_a_read_block(tmp_path, monkeypatch) -> None:
    # Reads of 4 bytes + 12 of overlap from the first guess (byte 18): the 13-byte token at byte 30
    # is cut by the reads at 18, 22 and 26 and only whole in the read at 30.
    monkeypatch.setattr(plan, "_SCAN_BLOCK", 4)
    text = "x" * 30 + EOT + "y" * 30
    path = write(tmp_path, "straddle.txt", text)
    assert find_chunk_boundaries(path, 4, EOT.encode()) == [0, 30, len(text)]


def test_small_files_start_no_pool(tmp_path, monkeypatch) -> None:
    import multiprocessing

    def no_pool(*args, **kwargs):
        raise AssertionError("a small file must not start a process pool")

    monkeypatch.setattr(multiprocessing, "get_context", no_pool)
    path = write(tmp_path, "small.txt", ("tiny story" + EOT) * 100)
    assert count_words(path, [EOT], workers=8) == {b"tiny": 100, b" story": 100}


# --- The pattern is an explicit dependency --------------------------------------------------------


def test_pieces_count_only_for_gpt2_and_tokens_they_can_tell_apart() -> None:
    assert pieces_count_exactly([EOT]) and choose_counter("pieces", [EOT]) == "pieces"
    assert not pieces_count_exactly([EOT], CL100K_PATTERN)  # their cuts are GPT-2's
    assert choose_counter("pieces", [EOT], CL100K_PATTERN) == "pattern"
    for token in ["<end of text>", "", "<\0>"]:  # a space, empty, a NUL: the pattern counts
        assert choose_counter("pieces", [token]) == "pattern"
    with pytest.raises(BPEInputError, match="unknown counter 'bytes'"):
        choose_counter("bytes", [])


@pytest.mark.parametrize("counter", ["pattern", "pieces"])
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("name", ["corpus.txt", "corpus.txt.gz"])
def test_another_pattern_counts_exactly_with_either_counter(
    tmp_path, monkeypatch, counter, workers, name
):
    # GPT-4's pattern joins one bracket to the letters after it and cuts digits in threes: a
    # safe cut of GPT-2's (between "(" and "e") would split "d(ef" differently. So with another
    # pattern a file is cut at the special token only, however small the chunks, and a long text
    # (the tail, over PIECE_CHARS characters) is not split at safe cuts either. (The tail's period,
    # 7, is prime to the chunk size, so the cuts would fall on both sides of its brackets.)
    monkeypatch.setattr(plan, "DOCUMENT_CHUNK_BYTES", 50)
    monkeypatch.setattr(plan, "PIECE_CHUNK_BYTES", 50)
    monkeypatch.setattr(safe_cuts, "PIECE_CHARS", 50)
    text = ("x(hello 12345 \n\n  two" + EOT + "(y  \n z 7 ") * 60 + "abcd(ef" * 2_000
    path = tmp_path / name
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    cl100k = regex.compile(CL100K_PATTERN)
    wanted = Counter(t for part in text.split(EOT) for t in cl100k.findall(part))
    got = count_words(
        path, [EOT], workers, counter=counter, pattern=CL100K_PATTERN, min_bytes_per_worker=1
    )
    assert got == {word.encode("utf-8"): n for word, n in wanted.items()}
    assert got != count_words(path, [EOT])  # GPT-2's counts differ: the pattern was used


# --- Special tokens that overlap each other or themselves ----------------------------------------

OVERLAPPING = [
    ["\n\n"],
    ["\n\n\n"],
    ["  "],
    ["aa"],
    [EOT, "\n\n"],
    ["\n\n", EOT],
    ["aa", "a"],
    [EOT, EOT + EOT],
    ["<|a", "a|>", EOT],
]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    parts=st.lists(
        st.sampled_from(["a", "b", " ", "\n", "\t", "é", EOT, "<|", "|>", "x."]), max_size=60
    ),
    specials=st.sampled_from(OVERLAPPING),
    counter=st.sampled_from(["pattern", "pieces"]),
    compressed=st.booleans(),
    chunk=st.integers(1, 12),
)
def test_counts_never_depend_on_where_a_file_is_cut(
    tmp_path_factory, monkeypatch, parts, specials, counter, compressed, chunk
) -> None:
    # Tiny chunks put a cut at every place the planner would ever choose: the counts must be the
    # pattern's over the whole text, for tokens that overlap each other or themselves too.
    text = "".join(parts)
    path = tmp_path_factory.mktemp("cut") / ("t.txt.gz" if compressed else "t.txt")
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if compressed else data)
    monkeypatch.setattr(plan, "DOCUMENT_CHUNK_BYTES", chunk)
    monkeypatch.setattr(plan, "PIECE_CHUNK_BYTES", chunk)
    expected = count_words_in_text(text, specials)
    for workers in (1, 2):
        got = count_words(path, specials, workers, counter=counter, min_bytes_per_worker=1)
        assert got == expected, (workers, text, specials)
