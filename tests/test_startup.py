"""Start-up cost: ``bpe-course train`` imports only what training needs (a whole-process timing
of a small corpus is mostly imports), and a trainer's module only when it trains."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def _imported(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bpe_course", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}


def test_train_imports_neither_pandas_nor_the_network_stack(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat sat on the mat<|endoftext|>the dog sat\n" * 50, encoding="utf-8")
    imported = _imported(
        "train", "--version", "fast", "--vocab-size", "270", "--special-token", "<|endoftext|>",
        str(corpus),
    )  # fmt: skip
    # the listing is whole: fast's own imports are in it (fast itself, loaded by importlib, is
    # not listed: -X importtime times import statements)
    assert {"numpy", "bpe_course.trainers.waiting"} <= imported
    assert not imported & {"pandas", "http.client", "urllib.request", "ssl", "matplotlib"}
    # the registry names the trainers without importing them: only the one asked for loads
    assert not imported & {"bpe_course.trainers.v1_naive", "bpe_course.trainers.shards"}


def test_the_command_line_starts_without_numpy() -> None:
    imported = _imported("train", "--help")
    assert "bpe_course.cli.train" in imported  # the listing is whole
    assert "numpy" not in imported and "bpe_course.trainers.waiting" not in imported


def test_encode_help_starts_without_numpy() -> None:
    imported = _imported("encode", "--help")
    assert "bpe_course.cli.encode" in imported  # the listing is whole
    assert "numpy" not in imported and "bpe_course.encoding" not in imported
