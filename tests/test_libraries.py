"""Hugging Face tokenizers and rustbpe as benchmark versions: same input, merges that differ from
ours only where counts tie; and a reader's own trainer timed by ``bench --trainer``."""

from __future__ import annotations

import textwrap
import warnings
from collections import Counter

import pandas as pd
import pytest

from bpe_course.bench.grids import Grid
from bpe_course.bench.harness import run_grid
from bpe_course.bench.libraries import (
    documents,
    merge_agreement,
    merges_from_ranks,
    train_hf,
    train_rustbpe,
)
from bpe_course.cli import main
from bpe_course.counting import count_words
from bpe_course.trainers import v1_naive
from bpe_course.trainers.common import count_pairs, merge_word, words_as_ids

from .conftest import EOT, stdlib_corpus

VOCAB = 256 + 1 + 120


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("libraries") / "corpus.txt"
    path.write_text(stdlib_corpus(120_000), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def ours(corpus):
    word_counts = count_words(corpus, [EOT])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return word_counts, v1_naive.merge_loop(word_counts, VOCAB, [EOT])[1]


def min_ids_merges(word_counts, n_merges: int) -> list[tuple[bytes, bytes]]:
    """V1 with rustbpe's tie-break (the smaller pair of ids wins); its ids are ours less the special
    token, the same order. Only here, to show the tie-break is the one difference."""
    words, counts = words_as_ids(word_counts)
    vocab = {i: bytes([i]) for i in range(256)}
    merges = []
    for _ in range(n_merges):
        pair_counts = count_pairs(words, counts)
        if not pair_counts:
            break
        best = max(pair_counts, key=lambda p: (pair_counts[p], -p[0], -p[1]))
        vocab[len(vocab)] = vocab[best[0]] + vocab[best[1]]
        merges.append((vocab[best[0]], vocab[best[1]]))
        words = [merge_word(word, best, len(vocab) - 1) for word in words]
    return merges


def pair_count_after(word_counts, merges, pair: tuple[bytes, bytes]) -> int:
    """How often ``pair`` occurs once ``merges`` are applied to every word."""
    ids = {bytes([i]): i for i in range(256)}
    words, counts = words_as_ids(word_counts)
    for left, right in merges:
        new = ids[left + right] = len(ids)
        words = [merge_word(w, (ids[left], ids[right]), new) for w in words]
    return count_pairs(words, counts).get((ids[pair[0]], ids[pair[1]]), 0)


def test_rustbpe_is_v1_with_the_smaller_ids_tie_break(corpus, ours) -> None:
    pytest.importorskip("rustbpe", reason="rustbpe is not installed (pip install -e '.[bench]')")
    word_counts, _ = ours
    theirs = train_rustbpe(str(corpus), VOCAB, [EOT])
    assert theirs == min_ids_merges(word_counts, VOCAB - 257)


def test_hugging_face_differs_from_ours_only_at_a_tie(corpus, ours) -> None:
    word_counts, our_merges = ours
    theirs = train_hf(str(corpus), VOCAB, [EOT])
    agreement = merge_agreement(our_merges, theirs)
    assert agreement.merges == VOCAB - 257
    if agreement.equal:
        return
    k = agreement.same_prefix  # both merged the same k pairs, then chose differently
    done = our_merges[:k]
    assert pair_count_after(word_counts, done, our_merges[k]) == pair_count_after(
        word_counts, done, theirs[k]
    ), agreement.first_difference


def test_merge_agreement_counts() -> None:
    a, b, c, d = (b"a", b"b"), (b"c", b"d"), (b"e", b"f"), (b"g", b"h")
    assert merge_agreement([a, b, c], [a, b, c]).equal
    swapped = merge_agreement([a, b, c], [a, c, b])
    assert (swapped.same_prefix, swapped.same_set, swapped.set_fraction) == (1, 3, 1.0)
    assert swapped.first_difference == "merge 2: ours (b'c', b'd'), theirs (b'e', b'f')"
    other = merge_agreement([a, b, c], [a, b, d])
    assert (other.same_prefix, other.same_set) == (2, 2)
    assert merge_agreement([a, b], [a]).first_difference == "ours has 2 merges, theirs 1"


def test_merges_from_ranks_undo_the_ranks() -> None:
    merges = [(b"a", b"b"), (b"ab", b"c"), (b"b", b"c"), (b"a", b"bc")]
    ranks = {bytes([i]): i for i in range(256)}
    for left, right in merges:
        ranks.setdefault(left + right, len(ranks))
    # "abc" is made once, by ab + c; "a" + "bc" makes the same bytes and gets no rank of its own
    assert merges_from_ranks(ranks) == [(b"a", b"b"), (b"ab", b"c"), (b"b", b"c")]


def test_documents_stream_between_separators(tmp_path, monkeypatch) -> None:
    from bpe_course.bench import libraries

    monkeypatch.setattr(libraries, "_BLOCK_CHARS", 5)  # separators straddle the reads
    path = tmp_path / "docs.txt"
    path.write_text(f"one story{EOT}two{EOT}{EOT}three é", encoding="utf-8")
    assert list(documents(path)) == ["one story", "two", "three é"]


# --- In the harness ------------------------------------------------------------------------------


def test_libraries_run_in_the_harness(tmp_path, data_folder) -> None:
    pytest.importorskip("rustbpe", reason="rustbpe is not installed (pip install -e '.[bench]')")
    grid = Grid(("fast", "hf", "rustbpe"), ("30KB",), (300,), repeats=1, timeout_s=120)
    table = run_grid(grid, tmp_path / "libs.csv", workers=2, progress=False)
    assert list(table["status"]) == ["ok"] * 3 and (table["merges"] == 300 - 257).all()
    outside = table[table["version"] != "fast"]
    assert outside["same_set"].between(1, 300 - 257).all()
    stored = pd.read_csv(tmp_path / "libs.csv")
    assert len(stored) == 3 and stored["same_prefix"].isna().tolist() == [True, False, False]


MODULE = """
from bpe_course import train_bpe as course


def train_bpe(input_path, vocab_size, special_tokens):
    return course(input_path, vocab_size, special_tokens, version="v4")


def swapped(input_path, vocab_size, special_tokens):
    vocab, merges = course(input_path, vocab_size, special_tokens, version="v4")
    return vocab, merges[:2] + [merges[3], merges[2]] + merges[4:]
"""


def test_bring_your_own_trainer(tmp_path, data_folder, monkeypatch, capsys) -> None:
    (tmp_path / "reader_bpe.py").write_text(textwrap.dedent(MODULE))
    monkeypatch.chdir(tmp_path)
    csv = tmp_path / "mine.csv"
    args = ["bench", "--sizes", "30KB", "--vocab-sizes", "300", "--versions", "v4", "v5"]
    args += ["--trainer", "reader_bpe:train_bpe", "--trainer", "reader_bpe:swapped"]
    assert main([*args, "--csv", str(csv)]) == 0
    out = capsys.readouterr().out
    assert "reader_bpe:train_bpe on stories 0.03MB, vocab 300: merges equal to the course's" in out
    assert "reader_bpe:swapped on stories 0.03MB, vocab 300: 2 first merges equal, 43 of 43 " in out
    assert "first difference at merge 3: ours" in out
    table = pd.read_csv(csv)
    assert set(table["version"]) == {"v4", "v5", "reader_bpe:train_bpe", "reader_bpe:swapped"}
    assert (table["status"] == "ok").all()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_colon", "unknown version 'no_colon'"),
        ("missing_module:f", "cannot import 'missing_module'"),
        ("json:no_such_function", "json has no function 'no_such_function'"),
    ],
)
def test_bad_trainer_is_one_line(tmp_path, data_folder, capsys, spec: str, message: str) -> None:
    args = ["bench", "--sizes", "30KB", "--vocab-sizes", "300", "--versions", "v4"]
    assert main([*args, "--trainer", spec, "--csv", str(tmp_path / "x.csv")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_counter_of_documents_equals_ours(corpus) -> None:
    # The libraries see the same text we count: the documents, special tokens left out.
    text = corpus.read_text(encoding="utf-8")
    assert "".join(documents(corpus)) == "".join(part for part in text.split(EOT))
    assert Counter(documents(corpus)) == Counter(p for p in text.split(EOT) if p)
