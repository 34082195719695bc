"""Tokenizer files that are lost, mixed up or forged: a save that fails leaves the old pair whole,
a pair not saved together is refused, and every malformed file is refused with its file and line.
Also the tokenizer's API refusing values of the wrong type instead of a bare TypeError."""

from __future__ import annotations

import io
import json
import shutil

import pytest

from bpe_course import train_bpe
from bpe_course.errors import BPEInputError
from bpe_course.formats import (
    MANIFEST,
    TokenizerFileError,
    bytes_to_unicode,
    load_gpt2,
    save_gpt2,
)
from bpe_course.tokenizer import Tokenizer

from .conftest import EOT, FullDisk, stdlib_corpus


@pytest.fixture(scope="module")
def two_tokenizers(tmp_path_factory):
    """A small and a large tokenizer trained on the same text: the large one's merges start with
    the small one's, so an old merges.txt beside a new vocab.json is not obviously wrong."""
    path = tmp_path_factory.mktemp("tok") / "train.txt"
    path.write_text(stdlib_corpus(100_000), encoding="utf-8")
    small = train_bpe(path, 300, [EOT])
    large = train_bpe(path, 700, [EOT])
    assert large[1][:43] == small[1]
    return small, large


def _fail_writes_to(monkeypatch, name: str) -> None:
    """Every write to a file whose name contains ``name`` fails as on a full disk."""
    real_open = io.open

    def fake_open(file, mode="r", *args, **kwargs):
        f = real_open(file, mode, *args, **kwargs)
        return FullDisk(f) if name in str(file) and "w" in mode and "b" in mode else f

    monkeypatch.setattr(io, "open", fake_open)
    monkeypatch.setattr("builtins.open", fake_open)


# --- Item 1: a save that fails half-way --------------------------------------------------------


def test_full_disk_on_merges_leaves_the_old_pair_whole(two_tokenizers, tmp_path, monkeypatch):
    (small_vocab, small_merges), (large_vocab, large_merges) = two_tokenizers
    save_gpt2(small_vocab, small_merges, tmp_path)
    _fail_writes_to(monkeypatch, "merges.txt")
    with pytest.raises(BPEInputError, match="No space left on device"):
        save_gpt2(large_vocab, large_merges, tmp_path)
    monkeypatch.undo()
    vocab, merges = load_gpt2(tmp_path / "vocab.json", tmp_path / "merges.txt", [EOT])
    assert (vocab, merges) == (small_vocab, small_merges)  # the old pair, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["vocab.json", "merges.txt", MANIFEST]
    )  # no partial files left behind


def test_pair_not_saved_together_is_refused(two_tokenizers, tmp_path) -> None:
    # A crash between the two renames: the new vocab.json beside the old merges.txt.
    (small_vocab, small_merges), (large_vocab, large_merges) = two_tokenizers
    save_gpt2(small_vocab, small_merges, tmp_path / "old")
    save_gpt2(large_vocab, large_merges, tmp_path / "new")
    shutil.copy(tmp_path / "new" / "vocab.json", tmp_path / "old" / "vocab.json")
    with pytest.raises(TokenizerFileError, match="were not saved together"):
        load_gpt2(tmp_path / "old" / "vocab.json", tmp_path / "old" / "merges.txt", [EOT])


def test_mismatched_pair_without_manifest_is_refused(two_tokenizers, tmp_path) -> None:
    # Files from elsewhere carry no manifest: a vocab holding tokens no merge makes is refused.
    (small_vocab, small_merges), (large_vocab, large_merges) = two_tokenizers
    save_gpt2(large_vocab, large_merges, tmp_path)
    save_gpt2(small_vocab, small_merges, tmp_path / "small")
    shutil.copy(tmp_path / "small" / "merges.txt", tmp_path / "merges.txt")
    (tmp_path / MANIFEST).unlink()
    with pytest.raises(TokenizerFileError, match=r"vocab.json, line \d+: .* no merge .* makes"):
        load_gpt2(tmp_path / "vocab.json", tmp_path / "merges.txt", [EOT])


def test_saved_pair_loads_and_checks_with_sha256sum(two_tokenizers, tmp_path) -> None:
    import hashlib

    vocab, merges = two_tokenizers[1]
    save_gpt2(vocab, merges, tmp_path)
    assert load_gpt2(tmp_path / "vocab.json", tmp_path / "merges.txt", [EOT]) == (vocab, merges)
    for line in (tmp_path / MANIFEST).read_text().splitlines():  # sha256sum -c reads it
        digest, name = line.split("  ")
        assert hashlib.sha256((tmp_path / name).read_bytes()).hexdigest() == digest


def test_output_folder_that_is_a_file(two_tokenizers, tmp_path) -> None:
    vocab, merges = two_tokenizers[0]
    blocker = tmp_path / "taken"
    blocker.write_text("mine")
    with pytest.raises(BPEInputError, match="is a file, not a folder"):
        save_gpt2(vocab, merges, blocker / "deeper")
    assert blocker.read_text() == "mine"


# --- Item 4: the loader refuses forged and broken files, with the file and line ----------------


def _byte_vocab() -> dict[str, int]:
    return {char: b for b, char in bytes_to_unicode().items()}


def _write(tmp_path, vocab_text: str, merges_text: str):
    (tmp_path / "vocab.json").write_text(vocab_text, encoding="utf-8")
    (tmp_path / "merges.txt").write_text(merges_text, encoding="utf-8")
    return tmp_path / "vocab.json", tmp_path / "merges.txt"


def _vocab_text(extra: str = "") -> str:
    body = json.dumps(_byte_vocab(), ensure_ascii=False, indent=0)
    return body[:-2] + extra + "\n}"


HEADER = "#version: 0.2\n"


@pytest.mark.parametrize(
    ("vocab_text", "merges_text", "message"),
    [
        # the same token twice: JSON parsers keep the last, silently
        (
            _vocab_text(',\n"ab": 256,\n"ab": 257'),
            HEADER + "a b\n",
            r"line 259: 'ab' is listed twice",
        ),
        (
            _vocab_text(',\n"ab": 1' + "0" * 30),
            HEADER + "a b\n",
            r"line 258: the id of 'ab' .* too large",
        ),
        (_vocab_text(',\n"ab": 256'), "", r"merges.txt: empty"),
        (
            _vocab_text(',\n"ab": 256'),
            HEADER + "a b\na b\n",
            r"merges.txt, line 3: .* listed twice",
        ),
        (
            _vocab_text(',\n"ab": 256,\n"abc": 257'),
            HEADER + "ab c\na b\n",
            r"merges.txt, line 2: 'ab' .* no earlier merge",
        ),
        (_vocab_text(',\n"ab": 256,\n"cd": 257'), HEADER + "a b\n", r"line 259: 'cd' .* no merge"),
        (_vocab_text(',\n"ab": -0.0'), HEADER, r"line 258: the id of 'ab' must be"),
        (_vocab_text(',\n"ab": NaN'), HEADER, r"vocab.json: not valid JSON \(NaN"),
    ],
    ids=[
        "duplicate-key",
        "huge-id",
        "empty-merges",
        "merge-twice",
        "reverse-order",
        "token-no-merge-makes",
        "float-id",
        "nan-id",
    ],
)
def test_loader_refuses(tmp_path, vocab_text, merges_text, message) -> None:
    with pytest.raises(TokenizerFileError, match=message):
        load_gpt2(*_write(tmp_path, vocab_text, merges_text))


def test_loader_accepts_a_well_formed_pair(tmp_path) -> None:
    vocab, merges = load_gpt2(
        *_write(tmp_path, _vocab_text(',\n"ab": 256,\n"abc": 257'), HEADER + "a b\nab c\n")
    )
    assert merges == [(b"a", b"b"), (b"ab", b"c")] and vocab[257] == b"abc"


# --- Item 12: the tokenizer's API refuses the wrong types --------------------------------------


@pytest.fixture(scope="module")
def tokenizer(two_tokenizers) -> Tokenizer:
    vocab, merges = two_tokenizers[0]
    return Tokenizer(vocab, merges, [EOT])


@pytest.mark.parametrize(
    ("ids", "message"),
    [
        (None, "decode takes a list of integer ids, not NoneType"),
        ([104.0, 105.0], r"id 104.0 \(float\) is not an integer"),
        ([104, True], r"id True \(bool\) is not an integer"),
        ("hi", "decode takes a list of integer ids, not str"),
        (b"hi", "decode takes a list of integer ids, not bytes"),  # was decoded as [104, 105]
    ],
)
def test_decode_refuses_what_is_not_ids(tokenizer, ids, message) -> None:
    with pytest.raises(BPEInputError, match=message):
        tokenizer.decode(ids)


def test_decode_accepts_numpy_integers(tokenizer) -> None:
    import numpy as np

    assert tokenizer.decode(np.array([104, 105])) == "hi"
    assert tokenizer.decode(iter([104, 105])) == "hi"


@pytest.mark.parametrize("text", [b"hi", None, 5, ["hi"]])
def test_encode_refuses_what_is_not_text(tokenizer, text) -> None:
    with pytest.raises(BPEInputError, match="encode takes a str"):
        tokenizer.encode(text)


def test_encode_iterable_refuses_bytes_chunks(tokenizer) -> None:
    with pytest.raises(BPEInputError, match="encode_iterable takes strings"):
        list(tokenizer.encode_iterable([b"hi"]))


def test_surrogate_special_token_is_refused_by_training(tmp_path) -> None:
    path = tmp_path / "c.txt"
    path.write_text("hello there", encoding="utf-8")
    with pytest.raises(BPEInputError, match=r"special token .* lone surrogate"):
        train_bpe(path, 300, ["<|\udcff|>"])


def test_one_string_as_special_tokens_is_refused(two_tokenizers, tmp_path) -> None:
    # list("<|endoftext|>") would make every "<" a special token
    vocab, merges = two_tokenizers[0]
    with pytest.raises(BPEInputError, match=r"must be a list of strings, not a single str"):
        Tokenizer(vocab, merges, EOT)
    save_gpt2(vocab, merges, tmp_path)
    with pytest.raises(BPEInputError, match=r"must be a list of strings, not a single str"):
        Tokenizer.from_files(tmp_path / "vocab.json", tmp_path / "merges.txt", EOT)


@pytest.mark.parametrize(
    ("specials", "message"),
    [
        ([""], "must not be empty"),  # it matched between every two bytes: its id everywhere
        (["<|\udcff|>"], "lone surrogate"),
        ([EOT, EOT], "must be distinct"),
    ],
)
def test_the_tokenizer_refuses_the_special_tokens_training_refuses(
    two_tokenizers, tmp_path, specials, message
) -> None:
    vocab, merges = two_tokenizers[0]
    with pytest.raises(BPEInputError, match=message):
        Tokenizer(vocab, merges, specials)
    save_gpt2(vocab, merges, tmp_path)
    with pytest.raises(BPEInputError, match=message):
        Tokenizer.from_files(tmp_path / "vocab.json", tmp_path / "merges.txt", specials)
    path = tmp_path / "c.txt"
    path.write_text("hello there", encoding="utf-8")
    with pytest.raises(BPEInputError, match=message):
        train_bpe(path, 300, specials)


def test_special_tokens_none_means_none(tmp_path) -> None:
    path = tmp_path / "c.txt"
    path.write_text("hello there, hello again", encoding="utf-8")
    vocab, merges = train_bpe(path, 260, None)
    assert (vocab, merges) == train_bpe(path, 260, [])
