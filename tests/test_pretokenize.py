"""Pretokenization of one text: the GPT-2 pattern, special tokens, the patterns derived from it."""

from __future__ import annotations

import re

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import pretokenize
from bpe_course.pretokenize import (
    count_words_in_text,
    split_on_special_tokens,
)
from bpe_course.pretokenize import (
    pretokenize as gpt2_split,
)
from bpe_course.safe_cuts import safe_cuts

from .conftest import EOT


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


def test_gpt4_pattern_is_tiktokens_cl100k() -> None:
    """The comparison pattern of notebook 11 is the one tiktoken ships (read from its source: the
    encoding itself would need a download)."""
    import inspect

    tiktoken_ext = pytest.importorskip("tiktoken_ext.openai_public")
    assert pretokenize.CL100K_PATTERN in inspect.getsource(tiktoken_ext)
    cl100k = pretokenize.regex.compile(pretokenize.CL100K_PATTERN)
    assert cl100k.findall("I'M in 2024") == ["I", "'M", " in", " ", "202", "4"]


# --- The patterns derived from GPT-2's, tied to it alternative by alternative ---------------------

# ASCII text of every class the pattern tells apart: letters, digits, the apostrophe and the
# contraction letters, other symbols, and every ASCII whitespace character.
ASCII_TEXT = st.text(alphabet="abstdlmvreAZ09'\"!.,_ \t\n\r\x0b\x0c\x1c", max_size=40)


@settings(max_examples=300, deadline=None)
@given(ASCII_TEXT)
def test_the_ascii_form_matches_as_each_alternative_at_every_position(text: str) -> None:
    data = text.encode("ascii")
    assert list(pretokenize.GPT2_ASCII_ALTERNATIVES) == list(pretokenize.GPT2_ALTERNATIVES)
    for name, alternative in pretokenize.GPT2_ALTERNATIVES.items():
        unicode_form = regex.compile(alternative)
        ascii_form = re.compile(pretokenize.GPT2_ASCII_ALTERNATIVES[name].encode("ascii"))
        for i in range(len(text) + 1):
            got, wanted = ascii_form.match(data, i), unicode_form.match(text, i)
            assert (got and got.span()) == (wanted and wanted.span()), (name, text, i)


def test_the_ascii_pattern_is_its_alternatives_joined() -> None:
    joined = "|".join(pretokenize.GPT2_ASCII_ALTERNATIVES.values())
    assert pretokenize.GPT2_ASCII_PATTERN == joined
    assert r"\p" not in joined  # nothing of the Unicode classes is left for re to misread


# Letters and digits of several scripts, marks, symbols, the apostrophe, whitespace of every kind.
UNICODE_TEXT = st.text(alphabet="abs'tA9٣.,!<|>-кт中\u0301 \n\t\r\u00a0\u3000\u2009", max_size=40)


@settings(max_examples=300, deadline=None)
@given(UNICODE_TEXT)
def test_no_alternative_matches_across_a_safe_cut(text: str) -> None:
    # A cut is safe when no possible match of any alternative covers the characters on both
    # sides of it. Each alternative is a run (``+``), so its longest match from a position holds
    # every shorter one: it is enough that no longest match, from any position, crosses a cut.
    cuts = safe_cuts(text)
    for name, alternative in pretokenize.GPT2_ALTERNATIVES.items():
        compiled = regex.compile(alternative)
        for i in range(len(text)):
            match = compiled.match(text, i)
            if match is not None:
                crossed = [c for c in cuts if match.start() < c < match.end()]
                assert not crossed, (name, text, match.span(), crossed)


@settings(max_examples=300, deadline=None)
@given(UNICODE_TEXT)
def test_a_space_after_an_ascii_letter_or_digit_is_a_safe_cut(text: str) -> None:
    # the pieces' chunk cut (bpe_course.counting.plan.piece_cuts) is one of the safe cuts
    piece_cuts = [i for i in range(1, len(text)) if text[i] == " " and text[i - 1] in ALNUM]
    assert set(piece_cuts) <= set(safe_cuts(text))


ALNUM = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
