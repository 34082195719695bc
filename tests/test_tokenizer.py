"""The tokenizer: round trips, special tokens, lazy encoding, files, and agreement with Hugging Face
``tokenizers`` and ``tiktoken`` (the references a learner trusts) on held-out text."""

from __future__ import annotations

import json
import tracemalloc
import warnings

import pytest
import tiktoken
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import train_bpe
from bpe_course.corpora.datasets import generated_corpus
from bpe_course.errors import BPEInputError
from bpe_course.exports import (
    hugging_face_json,
    save_hugging_face,
    save_tiktoken,
    tiktoken_encoding,
    tiktoken_ranks,
)
from bpe_course.formats import TokenizerFileError, load_gpt2
from bpe_course.pretokenize import GPT2_PATTERN
from bpe_course.tokenizer import REPAIR, Tokenizer
from bpe_course.trainers import TRAINERS

from .conftest import EOT, stdlib_corpus

DOUBLE = EOT + EOT
SPECIALS = [EOT, DOUBLE, "<pad>"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Tokenizer:
    path = tmp_path_factory.mktemp("tok") / "train.txt"
    path.write_text(stdlib_corpus(300_000), encoding="utf-8")
    vocab, merges = train_bpe(path, 1500, SPECIALS)
    return Tokenizer(vocab, merges, SPECIALS)


@pytest.fixture(scope="module")
def stories(tmp_path_factory) -> tuple[Tokenizer, str]:
    """Trained on 1 MB of generated stories; held-out text from another seed."""
    import os

    os.environ["BPE_COURSE_DATA"] = str(tmp_path_factory.mktemp("data"))
    try:
        vocab, merges = train_bpe(generated_corpus("1MB"), 2000, [EOT])
        held_out = generated_corpus("400KB", seed=1).read_text(encoding="utf-8")
    finally:
        del os.environ["BPE_COURSE_DATA"]
    odd = "Ünïcödé, 中文, emoji 😀🎉, tabs\t\tand   spaces, numbers 3.14159 <|endoftext|><|endoftext|>"
    return Tokenizer(vocab, merges, [EOT]), held_out + odd


texts = st.lists(
    st.one_of(
        st.text(max_size=30),
        st.sampled_from(SPECIALS + ["<|endof", "text|>", "<", "  ", "\n\n", " 's", "😀"]),
        st.text(alphabet=" \t\n\r\x0b\x0c\u00a0\u3000", max_size=8),
    ),
    max_size=12,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_decode_inverts_encode(trained: Tokenizer, text: str) -> None:
    assert trained.decode(trained.encode(text)) == text


@settings(max_examples=200, deadline=None)
@given(text=texts, cuts=st.lists(st.integers(0, 400), max_size=8))
def test_encode_iterable_equals_encode_however_the_text_is_cut(
    trained: Tokenizer, text: str, cuts: list[int]
) -> None:
    points = sorted({c % (len(text) + 1) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)])]
    assert list(trained.encode_iterable(pieces)) == trained.encode(text)


def test_special_tokens_are_never_split_and_longest_wins(trained: Tokenizer) -> None:
    eot, double = trained.encode(EOT), trained.encode(DOUBLE)
    assert len(eot) == 1 and len(double) == 1 and eot != double
    assert trained.encode(EOT * 3) == double + eot
    assert trained.encode("a<pad>b") == trained.encode("a") + trained.encode(
        "<pad>"
    ) + trained.encode("b")
    assert trained.decode(trained.encode("<|endof" + "text|>")) == EOT


def test_decode_replaces_invalid_utf8(trained: Tokenizer) -> None:
    first_byte_of_e_acute = "é".encode()[0]  # a lone lead byte is not UTF-8
    assert trained.decode([first_byte_of_e_acute, ord("a")]) == "\ufffda"
    with pytest.raises(ValueError, match="id 999999 is not in the vocabulary"):
        trained.decode([1, 999999])


@settings(max_examples=100, deadline=None)
@given(
    before=texts,
    surrogate=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
    after=texts,
    cuts=st.lists(st.integers(0, 400), max_size=4),
)
def test_a_surrogate_is_one_clear_error_with_its_index(
    trained: Tokenizer, before: str, surrogate: str, after: str, cuts: list[int]
) -> None:
    """UTF-8 cannot encode U+D800..U+DFFF: never a bare UnicodeEncodeError, always the index and
    the repair, from ``encode`` and from ``encode_iterable`` however the text is cut."""
    text = before + surrogate + after
    index = f"at index {len(before)},"
    with pytest.raises(BPEInputError, match=index) as raised:
        trained.encode(text)
    assert f"U+{ord(surrogate):04X}" in str(raised.value) and REPAIR in str(raised.value)
    points = sorted({c % (len(text) + 1) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)])]
    with pytest.raises(BPEInputError, match=index):
        list(trained.encode_iterable(pieces))
    repaired = apply_repair(text)
    assert trained.decode(trained.encode(repaired)) == repaired


def apply_repair(text: str) -> str:
    """The repair the message names (kept in step with it by the assertion below)."""
    assert REPAIR == 'text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")'
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def test_a_split_surrogate_pair_is_named_and_the_repair_rejoins_it(trained: Tokenizer) -> None:
    # UTF-16 code units taken one by one (JavaScript's string indexes, say) give such pairs.
    text = "a smile: " + chr(0xD83D) + chr(0xDE00)
    with pytest.raises(BPEInputError, match=r"pair stored as two code points \(U\+D83D U\+DE00\)"):
        trained.encode(text)
    assert apply_repair(text) == "a smile: \N{GRINNING FACE}"
    lone = json.loads('"half a smile: \\ud83d"')  # JSON keeps an unpaired escape as it is
    with pytest.raises(BPEInputError, match=r"lone surrogate \(U\+D83D"):
        trained.encode(lone)
    assert apply_repair(lone) == "half a smile: \ufffd"
    with pytest.raises(BPEInputError, match="special token"):
        Tokenizer(trained.vocab, trained.merges, ["<\ud800>"])


@pytest.mark.slow
def test_encode_iterable_memory_does_not_grow_with_the_input(trained: Tokenizer) -> None:
    line = "The quick brown fox jumps over the lazy dog, again and again.\n"

    def peak_bytes(lines: int) -> int:
        list(trained.encode_iterable([line]))  # warm the cache outside the measurement
        tracemalloc.start()
        count = sum(1 for _ in trained.encode_iterable(line for _ in range(lines)))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert count > lines
        return peak

    small, large = peak_bytes(2_000), peak_bytes(40_000)  # 128 KB vs 2.6 MB of text
    assert large < 2 * small + 20_000, (small, large)


def test_save_load_round_trip(trained: Tokenizer, tmp_path) -> None:
    trained.save(tmp_path)
    loaded = Tokenizer.from_files(tmp_path / "vocab.json", tmp_path / "merges.txt", SPECIALS)
    assert loaded.vocab == trained.vocab and loaded.merges == trained.merges
    sample = stdlib_corpus(50_000)[:20_000] + DOUBLE + " über 😀"
    assert loaded.encode(sample) == trained.encode(sample)


def _files(tmp_path, vocab: dict | str, merges: str):
    vocab_path, merges_path = tmp_path / "vocab.json", tmp_path / "merges.txt"
    text = vocab if isinstance(vocab, str) else json.dumps(vocab, ensure_ascii=False, indent=0)
    vocab_path.write_text(text, encoding="utf-8")
    merges_path.write_text(merges, encoding="utf-8")
    return vocab_path, merges_path


def _byte_vocab() -> dict[str, int]:
    from bpe_course.formats import bytes_to_unicode

    return {char: b for b, char in bytes_to_unicode().items()}


@pytest.mark.parametrize(
    ("vocab", "merges", "message"),
    [
        ('{"a": 1,\n "b": }', "#version: 0.2\n", r"vocab.json, line 2: not valid JSON"),
        ("[1, 2]", "", r"vocab.json: must hold one JSON object"),
        (
            {**_byte_vocab(), "ab": "x"},
            "",
            r"line \d+: the id of 'ab' must be a non-negative integer",
        ),
        ({**_byte_vocab(), "ab": 97}, "", r"line \d+: id 97 is given to two tokens"),
        ({**_byte_vocab(), "a b": 300}, "", r"'a b' holds ' ', which is not in GPT-2's"),
        (
            {**_byte_vocab(), "ab": 256},
            "#version: 0.2\nab\n",
            r"merges.txt, line 2: a merge is two",
        ),
        ({**_byte_vocab(), "ab": 256}, "a b\nb c\n", r"merges.txt, line 2: 'bc' is not in the"),
        (_byte_vocab(), "#version: 0.2\nx y\n", r"merges.txt, line 2: 'xy' is not in the"),
    ],
)
def test_malformed_files_name_the_file_and_line(tmp_path, vocab, merges, message) -> None:
    with pytest.raises(TokenizerFileError, match=message):
        load_gpt2(*_files(tmp_path, vocab, merges))


def test_missing_file_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(TokenizerFileError, match="vocab.json: file not found"):
        Tokenizer.from_files(tmp_path / "vocab.json", tmp_path / "merges.txt")


def test_hugging_face_and_tiktoken_give_our_ids(stories, tmp_path) -> None:
    ours, held_out = stories
    assert len(held_out.encode()) > 300_000 and held_out.count(EOT) > 100
    expected = ours.encode(held_out)

    hf = tokenizers.Tokenizer.from_file(str(save_hugging_face(ours, tmp_path / "tokenizer.json")))
    assert hf.encode(held_out).ids == expected
    assert hf.decode(expected, skip_special_tokens=False) == held_out

    encoding = tiktoken_encoding(ours)
    assert encoding.encode(held_out, allowed_special="all") == expected
    assert encoding.decode(expected) == held_out

    from tiktoken.load import load_tiktoken_bpe

    ranks = load_tiktoken_bpe(str(save_tiktoken(ours, tmp_path / "ours.tiktoken")))
    reloaded = tiktoken.Encoding(
        "reloaded",
        pat_str=encoding._pat_str,
        mergeable_ranks=ranks,
        special_tokens=encoding._special_tokens,
    )
    assert reloaded.encode(held_out, allowed_special="all") == expected


# Two merges that make the same bytes: allowed in a merges list; training made none on the random
# corpora of the test after this one.
HAND_MERGES = [(b"b", b"c"), (b"a", b"b"), (b"ab", b"c"), (b"bc", b"d"), (b"a", b"bc")]


def hand_tokenizer() -> Tokenizer:
    vocab = {i: bytes([i]) for i in range(256)}
    for left, right in HAND_MERGES:
        vocab[len(vocab)] = left + right
    return Tokenizer(vocab, HAND_MERGES)


def test_lowest_id_first_is_not_the_merge_order_when_two_merges_make_the_same_bytes() -> None:
    # Notebook 12's exercise 3: "abc" is ab + c (rank 2) and a + bc (rank 4). In GPT-2's order
    # (bc, d) at rank 3 comes before (a, bc); tiktoken's rule, the joined bytes' lowest rank,
    # takes "abc" at rank 2 first.
    hand = hand_tokenizer()
    assert [hand.vocab[i] for i in hand.encode("abcd")] == [b"a", b"bcd"]
    hf = tokenizers.Tokenizer.from_str(json.dumps(hugging_face_json(hand)))
    assert hf.encode("abcd").ids == hand.encode("abcd")  # Hugging Face keeps the merges
    ranks = {token: i for token, i in hand.token_ids.items()}
    lowest_first = tiktoken.Encoding(
        "hand", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={}
    )
    assert [hand.vocab[i] for i in lowest_first.encode("abcd")] == [b"abc", b"d"]
    with pytest.raises(BPEInputError, match=r"both make b'abc'"):
        tiktoken_ranks(hand)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.text(alphabet="abc", min_size=2, max_size=7).map(str.encode),
        st.integers(1, 6),
        min_size=1,
        max_size=5,
    )
)
def test_training_never_makes_the_same_bytes_twice(word_counts) -> None:
    # On random word counts, training makes no two merges with the same bytes (notebook 12,
    # exercise 3): a check on the corpora tried, not a proof.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a small text runs out of pairs before 30 merges
        vocab, merges = TRAINERS["v1"].merge_loop(word_counts, 256 + 30)
    made = [left + right for left, right in merges]
    assert len(set(made)) == len(made)


@pytest.fixture(scope="module")
def references(stories):
    ours, _ = stories
    hf = tokenizers.Tokenizer.from_str(json.dumps(hugging_face_json(ours)))
    return ours, hf, tiktoken_encoding(ours)


@settings(max_examples=150, deadline=None)
@given(text=texts)
def test_three_libraries_agree_on_any_text(references, text: str) -> None:
    ours, hf, tk = references
    expected = ours.encode(text)
    assert hf.encode(text).ids == expected
    assert tk.encode(text, allowed_special="all") == expected


def test_loading_never_unpickles_or_evaluates() -> None:
    import re
    from pathlib import Path

    import bpe_course

    package = Path(bpe_course.__file__).parent
    # Audited exceptions, none of which loads a file of the user's: the grader's sandbox reads
    # its child's answers with an unpickler that refuses every class (course/exercises/sandbox.py:
    # _DataOnly), and the child unpickles what its own parent sent it (the grader's part and the
    # loader it wrote into the child's folder); notebook 07's cost breakdown pickles its own
    # counts to time what a pool sends back.
    audited = {
        Path("course/exercises/sandbox.py"),
        Path("bench/parallel.py"),
    }
    offenders = [
        f"{path.relative_to(package)}:{number}"
        for path in package.rglob("*.py")
        if path.relative_to(package) not in audited
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if re.search(
            r"^\s*(?:import|from)\s+(?:pickle|marshal|shelve|dill)\b|\b(?:eval|exec)\(", line
        )
    ]
    assert offenders == []
