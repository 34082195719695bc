"""The command line: `train` writes GPT-2 files; a user's mistake is one line on stderr, exit 2."""

from __future__ import annotations

import json

from bpe_course.__main__ import main
from bpe_course.formats import bytes_to_unicode


def test_train_writes_gpt2_files(tmp_path, capsys) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("the cat sat<|endoftext|>the cat ran\n" * 50, encoding="utf-8")
    out = tmp_path / "tok"
    code = main(
        [
            "train",
            str(corpus),
            "--vocab-size",
            "265",
            "--special-token",
            "<|endoftext|>",
            "-o",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "8 merges with v5" in printed and str(out / "merges.txt") in printed
    vocab = json.loads((out / "vocab.json").read_text(encoding="utf-8"))
    assert len(vocab) == 265 and vocab["<|endoftext|>"] == 256 and vocab["Ġ"] == 32
    merges = (out / "merges.txt").read_text(encoding="utf-8").splitlines()
    assert merges[0] == "#version: 0.2" and len(merges) == 9


def test_user_error_is_one_line(tmp_path, capsys) -> None:
    code = main(["train", str(tmp_path / "missing.txt"), "--vocab-size", "300"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("bpe-course: error: corpus file not found")


def test_bytes_to_unicode_is_a_bijection() -> None:
    table = bytes_to_unicode()
    assert sorted(table) == list(range(256)) and len(set(table.values())) == 256
    assert all(c.isprintable() and not c.isspace() for c in table.values())


def test_exhausted_corpus_warns_on_stderr(tmp_path, capsys) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("ab ab ab", encoding="utf-8")
    assert main(["train", str(corpus), "--vocab-size", "300"]) == 0
    captured = capsys.readouterr()
    assert "bpe-course: warning: stopped after 2 of 44 merges" in captured.err
