"""Pretokenization: the GPT-2 pattern, special tokens, chunk boundaries, parallel = serial."""

from __future__ import annotations

import random

import pytest

from bpe_course import pretokenize
from bpe_course.pretokenize import (
    count_words,
    count_words_in_text,
    find_chunk_boundaries,
    pick_split_token,
    split_on_special_tokens,
)
from bpe_course.pretokenize import (
    pretokenize as gpt2_split,
)

from .conftest import EOT, stdlib_corpus


def test_gpt2_pattern_parts() -> None:
    assert gpt2_split("I'll say it's 42!!  ok\n\n") == [
        "I",
        "'ll",
        " say",
        " it",
        "'s",
        " 42",
        "!!",
        " ",
        " ok",
        "\n\n",
    ]
    assert gpt2_split("über 你好 😀😀") == ["über", " 你好", " 😀😀"]


def test_special_tokens_longest_first() -> None:
    specials = [EOT, EOT + EOT]
    assert split_on_special_tokens("a" + EOT + EOT + "b" + EOT, specials) == [
        "a",
        EOT + EOT,
        "b",
        EOT,
        "",
    ]


def test_special_token_bar_is_escaped() -> None:
    # Unescaped, "<|endoftext|>" would be the alternation "<" | "endoftext" | ">".
    counts = count_words_in_text("a<b endoftext c>", [EOT])
    assert counts == {b"a": 1, b"<": 1, b"b": 1, b" endoftext": 1, b" c": 1, b">": 1}


def test_special_tokens_are_not_counted() -> None:
    counts = count_words_in_text("the cat" + EOT + "the dog" + EOT, [EOT])
    assert counts == {b"the": 2, b" cat": 1, b" dog": 1}


def test_words_are_deduplicated_utf8_bytes() -> None:
    assert count_words_in_text("é é é") == {"é".encode(): 1, " é".encode(): 2}


def test_split_token_choice() -> None:
    assert pick_split_token([]) is None
    assert pick_split_token(["[SEP]", EOT]) == EOT
    assert pick_split_token([EOT, EOT + EOT]) == EOT  # the longer one starts with the shorter: safe
    assert pick_split_token([EOT, "x<|endoftext|>"]) is None  # contains it after a prefix
    assert pick_split_token([EOT, "ab<|"]) is None  # ends inside it


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
    monkeypatch.setattr(pretokenize, "_SCAN_BLOCK", 4)
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


def test_gpt4_pattern_is_tiktokens_cl100k() -> None:
    """The comparison pattern of notebook 11 is the one tiktoken ships (read from its source: the
    encoding itself would need a download)."""
    import inspect

    tiktoken_ext = pytest.importorskip("tiktoken_ext.openai_public")
    assert pretokenize.CL100K_PATTERN in inspect.getsource(tiktoken_ext)
    cl100k = pretokenize.regex.compile(pretokenize.CL100K_PATTERN)
    assert cl100k.findall("I'M in 2024") == ["I", "'M", " in", " ", "202", "4"]
