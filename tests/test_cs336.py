"""CS336 assignment 1: the course answers its adapters, and grades a student's trainer on the checks
its tests make (exact merges, vocabulary as sets, special tokens never merged)."""

from __future__ import annotations

import inspect
import random
import textwrap

import pytest

from bpe_course import BPEInputError, Tokenizer, train_bpe
from bpe_course.course.exercises.cases.train_bpe import Corpus, compare, merges_problem
from bpe_course.course.exercises.check import check
from bpe_course.cs336 import get_tokenizer, run_train_bpe

from .conftest import EOT, stdlib_corpus

# --- The adapters ---------------------------------------------------------------------------------


def test_the_signatures_are_those_of_cs336_adapters() -> None:
    # From CS336 assignment 1's tests/adapters.py: the names, order, kinds and default it uses.
    train = inspect.signature(run_train_bpe).parameters
    assert list(train) == ["input_path", "vocab_size", "special_tokens", "kwargs"]
    assert train["kwargs"].kind is inspect.Parameter.VAR_KEYWORD
    tokenizer = inspect.signature(get_tokenizer).parameters
    assert list(tokenizer) == ["vocab", "merges", "special_tokens"]
    assert tokenizer["special_tokens"].default is None


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text(stdlib_corpus(60_000), encoding="utf-8")
    return path


def test_run_train_bpe_is_the_course_trainer(corpus) -> None:
    # CS336's tests call it with keywords only.
    vocab, merges = run_train_bpe(input_path=corpus, vocab_size=300, special_tokens=[EOT])
    assert (vocab, merges) == train_bpe(corpus, 300, [EOT])
    assert len(vocab) == 300 and EOT.encode() in vocab.values()
    assert run_train_bpe(corpus, 300, [EOT], version="v1") == (vocab, merges)


def test_run_train_bpe_refuses_an_unknown_option_clearly(corpus) -> None:
    with pytest.raises(BPEInputError, match=r"unknown option\(s\) num_threads; it takes version"):
        run_train_bpe(corpus, 300, [EOT], num_threads=4)


def test_get_tokenizer_takes_any_layout_and_keeps_special_tokens_whole(corpus) -> None:
    vocab, merges = run_train_bpe(corpus, 300, [])
    # As CS336's test helper does with GPT-2's files: the special token appended after the rest,
    # and the ids shuffled (the layout is free).
    order = list(vocab)
    random.Random(0).shuffle(order)
    shuffled = {new: vocab[old] for new, old in enumerate(order)}
    shuffled[len(shuffled)] = EOT.encode()
    tokenizer = get_tokenizer(shuffled, merges, [EOT])
    assert isinstance(tokenizer, Tokenizer)
    text = f"the cat sat{EOT}on a mat"
    ids = tokenizer.encode(text)
    assert tokenizer.decode(ids) == text
    assert ids.count(len(shuffled) - 1) == 1  # the special token: one id
    reference = Tokenizer(vocab, merges, [EOT])  # the same tokens as in the course's own layout
    assert [shuffled[i] for i in ids] == [reference.vocab[i] for i in reference.encode(text)]


# --- The capstone's checks, as CS336's tests make them --------------------------------------------


def trained(text: str, vocab_size: int, special_tokens: list[str], tmp_path):
    path = tmp_path / "t.txt"
    path.write_text(text, encoding="utf-8")
    return train_bpe(path, vocab_size, special_tokens)


def test_the_vocabulary_layout_is_free(tmp_path) -> None:
    case = (Corpus("low lower newest widest " * 5), 270, [EOT])
    vocab, merges = trained(case[0].text, 270, [EOT], tmp_path)
    ids = list(vocab)
    random.Random(1).shuffle(ids)
    relaid = dict(zip(ids, vocab.values()))
    assert compare(case, (vocab, merges), (relaid, merges)) is None


def test_a_merged_special_token_is_named(tmp_path) -> None:
    text = f"ab{EOT}ab{EOT}ab"
    case = (Corpus(text), 258, [EOT])
    expected = trained(text, 258, [EOT], tmp_path)
    vocab, merges = dict(expected[0]), list(expected[1])
    vocab[257] = b"b<|"  # as if "b" and "<|" had been merged across the special token
    problem = compare(case, expected, (vocab, merges))
    assert problem.startswith("A special token was merged: your vocabulary holds b'b<|'.")


def test_merges_are_compared_exactly_and_the_first_difference_named() -> None:
    wanted = [(b"s", b"t"), (b"e", b"st"), (b"o", b"w")]
    assert merges_problem(wanted, list(wanted)) is None
    assert merges_problem(wanted, [(b"s", b"t"), (b"e", b"s")]) == (
        "Merge number 2 differs: expected (b'e', b'st'), yours (b'e', b's') (the 1 before it agree)."
    )
    assert merges_problem(wanted, wanted[:2]) == ("Expected 3 merges; yours made 2; those 2 agree.")


NAIVE_TRAINER = '''
import regex

PATTERN = regex.compile(
    r"""'(?:[sdmt]|ll|ve|re)| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"""
)
SPLIT_SPECIAL_TOKENS = True
GREATEST_ON_TIES = True


def train_bpe(input_path, vocab_size, special_tokens):
    with open(input_path, encoding="utf-8") as f:
        text = f.read()
    parts = [text]
    if special_tokens and SPLIT_SPECIAL_TOKENS:
        ordered = sorted(special_tokens, key=len, reverse=True)
        parts = regex.split("|".join(regex.escape(t) for t in ordered), text)
    words = {}
    for part in parts:
        for piece in PATTERN.findall(part):
            word = tuple(bytes([b]) for b in piece.encode("utf-8"))
            words[word] = words.get(word, 0) + 1
    vocab = {i: bytes([i]) for i in range(256)}
    for token in special_tokens:
        vocab[len(vocab)] = token.encode("utf-8")
    merges = []
    while len(vocab) < vocab_size:
        counts = {}
        for word, n in words.items():
            for pair in zip(word, word[1:]):
                counts[pair] = counts.get(pair, 0) + n
        if GREATEST_ON_TIES:
            best = max(counts, key=lambda p: (counts[p], p))
        else:
            best = min(counts, key=lambda p: (-counts[p], p))
        merges.append(best)
        vocab[len(vocab)] = best[0] + best[1]
        merged = {}
        for word, n in words.items():
            out, i = [], 0
            while i < len(word):
                if word[i : i + 2] == best:
                    out.append(best[0] + best[1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + n
        words = merged
    return vocab, merges
'''


@pytest.mark.slow
def test_a_naive_trainer_written_apart_from_the_package_passes(tmp_path) -> None:
    path = tmp_path / "train_bpe.py"
    path.write_text(NAIVE_TRAINER, encoding="utf-8")
    report = check("train_bpe", path)
    assert report.passed, report.text


@pytest.mark.parametrize(
    ("change", "wanted"),
    [
        (
            ("SPLIT_SPECIAL_TOKENS = True", "SPLIT_SPECIAL_TOKENS = False"),
            "not right yet, on text='the<|endoftext|>', vocab_size=258, "
            "special_tokens=['<|endoftext|>'] (the smallest failing input hypothesis found). The "
            "first merge differs: expected (b't', b'h'), yours (b'|', b'>').",
        ),
        (
            ("GREATEST_ON_TIES = True", "GREATEST_ON_TIES = False"),
            "not right yet, on text='the', vocab_size=258, special_tokens=['<|endoftext|>'] (the "
            "smallest failing input hypothesis found). The first merge differs: expected "
            "(b't', b'h'), yours (b'h', b'e').",
        ),
    ],
    ids=["special tokens not split out", "ties to the smallest pair"],
)
def test_a_wrong_trainer_fails_on_the_smallest_text(change, wanted, tmp_path) -> None:
    path = tmp_path / "train_bpe.py"
    path.write_text(NAIVE_TRAINER.replace(*change), encoding="utf-8")
    report = check("train_bpe", path)
    # the same counterexample; the report may go on to name a tie or the two pairs' counts
    assert report.text.startswith(f"train_bpe: {wanted}"), report.text


def test_the_capstone_stub_shows_cs336s_signature() -> None:
    from bpe_course.course.exercises.catalog import exercise_file

    source = exercise_file("train_bpe").read_text(encoding="utf-8")
    assert (
        textwrap.dedent(
            """
        def train_bpe(
            input_path: str | os.PathLike, vocab_size: int, special_tokens: list[str]
        ) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
        """
        ).strip()
        in source
    )
