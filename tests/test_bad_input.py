"""Bad input: one clear error naming the problem, raised before any work; nothing written."""

from __future__ import annotations

import os
import re

import pytest

from bpe_course import BPEInputError, VocabularyExhaustedWarning, train_bpe
from bpe_course.trainers import ALL_TRAINERS, TRAINERS, v5_heap

from .conftest import EOT


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "ok.txt"
    path.write_text("once upon a time" + EOT + "the end", encoding="utf-8")
    return path


def raises(match: str):
    return pytest.raises(BPEInputError, match=match)


def test_missing_file(tmp_path) -> None:
    with raises(r"corpus file not found: .*nope\.txt"):
        train_bpe(tmp_path / "nope.txt", 300)


def test_directory_without_files(tmp_path) -> None:
    # A directory is a corpus of many files (bpe_course.counting.sources); an empty one is a mistake.
    with raises("is a directory with no files to train on"):
        train_bpe(tmp_path, 300)


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any file")
def test_unreadable(corpus) -> None:
    corpus.chmod(0)
    with raises("cannot read"):
        train_bpe(corpus, 300)


@pytest.mark.parametrize("version", ["v1", "v5"])
def test_invalid_utf8_names_the_offset(tmp_path, version) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"caf" + b"\xe9 au lait" + EOT.encode() + b"more")
    with raises(r"not valid UTF-8: byte 0xe9 at byte offset 3 .*Re-encode"):
        train_bpe(path, 300, [EOT], version=version)


def test_invalid_utf8_offset_in_a_later_chunk(tmp_path) -> None:
    from bpe_course.counting import count_words

    good = ("a fine story" + EOT).encode() * 1000
    path = tmp_path / "late.txt"
    path.write_bytes(good + b"oops \xff")
    with raises(f"at byte offset {len(good) + 5} "):
        count_words(path, [EOT], workers=2, min_bytes_per_worker=1)


def test_empty_file(tmp_path) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    with raises("holds no text to train on"):
        train_bpe(path, 300)


def test_only_special_tokens(tmp_path) -> None:
    path = tmp_path / "specials.txt"
    path.write_text(EOT * 3, encoding="utf-8")
    with raises("holds no text to train on"):
        train_bpe(path, 300, [EOT])


@pytest.mark.parametrize(
    ("vocab_size", "specials", "message"),
    [
        (255, [], r"vocab_size=255 is too small: .* take 256 ids. Use vocab_size >= 256"),
        (256, [EOT], r"vocab_size=256 is too small: .*1 special token\(s\) .* >= 257"),
        (-5, [], "vocab_size=-5 is too small"),
        (300.0, [], "vocab_size must be an integer, not 300.0"),
        ("300", [], "vocab_size must be an integer, not '300'"),
        (True, [], "vocab_size must be an integer, not True"),
        (300, [EOT, EOT], r"special tokens must be distinct; repeated: \['<\|endoftext\|>'\]"),
        (300, [""], "special tokens must not be empty strings"),
        (300, EOT, "special_tokens must be a list of strings, not a single str"),
        (300, [b"<|x|>"], "special token b'<|x|>' is not a string"),
    ],
)
def test_bad_arguments(corpus, vocab_size, specials, message) -> None:
    with raises(message):
        train_bpe(corpus, vocab_size, specials)


def test_arguments_checked_before_the_file(tmp_path) -> None:
    # A bad vocab_size is reported even though the file is also missing: the cheap checks first.
    with raises("too small"):
        train_bpe(tmp_path / "nope.txt", 10)


def test_unknown_version(corpus) -> None:
    known = re.escape(", ".join(ALL_TRAINERS))  # every name the registry knows, in its order
    with raises(f"unknown version 'v9'; choose one of: {known}$"):
        train_bpe(corpus, 300, version="v9")


def test_bad_workers(corpus) -> None:
    with raises("workers must be a positive integer or None, not 0"):
        train_bpe(corpus, 300, workers=0)


def test_bad_compaction_factor() -> None:
    with pytest.raises(ValueError, match="compaction_factor must be at least 1"):
        v5_heap.merge_loop({b"ab": 1}, 300, compaction_factor=0.5)


@pytest.mark.parametrize("version", [v for v, t in TRAINERS.items() if t.track == "ladder"])
def test_vocab_too_large_warns_and_stops(corpus, version) -> None:
    with pytest.warns(VocabularyExhaustedWarning, match=r"stopped after \d+ of 9743 merges"):
        vocab, merges = train_bpe(corpus, 10_000, [EOT], version=version)
    assert len(vocab) == 257 + len(merges) < 10_000


def test_training_writes_nothing(tmp_path, corpus, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    train_bpe(corpus, 270, [EOT])
    assert sorted(p.name for p in tmp_path.iterdir()) == before
