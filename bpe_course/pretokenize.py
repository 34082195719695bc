"""Pretokenization of one text: GPT-2's pattern, special tokens split out, pretokens counted.

Every trainer starts here. The steps, in order:

1. Split the text at special tokens (longest first, so ``<|endoftext|><|endoftext|>`` wins over
   ``<|endoftext|>``). Special tokens are never counted and no merge ever crosses one.
2. Split each part with the GPT-2 pattern into pretokens ("words").
3. Count equal words once: the merge loops work on ``{word: count}``, never on the raw stream.

Counting runs at C speed (``Counter`` over ``findall``); only the distinct words are encoded to
UTF-8, which is where most of a naive per-match loop's time goes.

This module holds the pattern and every pattern derived from it (the ASCII form the pieces
counter runs, the safe cuts of :mod:`bpe_course.safe_cuts`; tests tie each to it alternative by
alternative). Files, chunks and processes are :mod:`bpe_course.counting`'s.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterator, Sequence

import regex

from bpe_course.errors import BPEInputError
from bpe_course.safe_cuts import split_long

# The pretokenizer of GPT-2 (Radford et al., 2019): contractions, optional space + letters,
# optional space + digits, optional space + other symbols, then whitespace runs.
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
GPT2_REGEX = regex.compile(GPT2_PATTERN)
# The same six alternatives, named, so a match can say which one took it (``match.lastgroup``).
GPT2_ALTERNATIVES = {
    "contraction": r"'(?:[sdmt]|ll|ve|re)",
    "letters": r" ?\p{L}+",
    "digits": r" ?\p{N}+",
    "other": r" ?[^\s\p{L}\p{N}]+",
    "whitespace_run": r"\s+(?!\S)",
    "whitespace_left": r"\s+",
}
assert "|".join(GPT2_ALTERNATIVES.values()) == GPT2_PATTERN  # one pattern, written twice
GPT2_NAMED = regex.compile("|".join(f"(?P<{k}>{v})" for k, v in GPT2_ALTERNATIVES.items()))


def ascii_form(alternative: str) -> str:
    r"""An alternative of the pattern as the stdlib ``re`` reads it on ASCII bytes, with the same
    matches on every ASCII text: the only ASCII letters are A-Z and a-z, the only ASCII digits
    0-9, and ``\s`` is the same six characters in both (a test checks the three classes
    character by character, and each alternative against its ASCII form).

    >>> ascii_form(r" ?[^\s\p{L}\p{N}]+")
    ' ?[^\\sA-Za-z0-9]+'
    """
    classes = {"L": "A-Za-z", "N": "0-9"}

    def ascii_class(match: re.Match[str]) -> str:
        if match.group().startswith("["):  # inside a class: the ranges alone
            return re.sub(r"\\p\{([LN])\}", lambda m: classes[m.group(1)], match.group())
        return f"[{classes[match.group(1)]}]"

    return re.sub(r"\[[^\]]*\]|\\p\{([LN])\}", ascii_class, alternative)


# GPT-2's pattern for ASCII bytes (:mod:`bpe_course.counting.pieces` runs it with the stdlib ``re``,
# several times faster than ``regex`` on decoded text).
GPT2_ASCII_ALTERNATIVES = {name: ascii_form(alt) for name, alt in GPT2_ALTERNATIVES.items()}
GPT2_ASCII_PATTERN = "|".join(GPT2_ASCII_ALTERNATIVES.values())


def which_alternative(text: str, named: regex.Pattern = GPT2_NAMED) -> list[tuple[str, str]]:
    """Each pretoken of ``text`` with the name of the alternative that matched it (of GPT-2's
    pattern, or of ``named``: :data:`CL100K_NAMED` for GPT-4's).

    >>> which_alternative("I'll pay 3")
    [('I', 'letters'), ("'ll", 'contraction'), (' pay', 'letters'), (' 3', 'digits')]
    >>> which_alternative(" 2024", CL100K_NAMED)
    [(' ', 'whitespace_left'), ('202', 'digits'), ('4', 'digits')]
    """
    return [(match.group(), match.lastgroup) for match in named.finditer(text)]


# GPT-4's pretokenizer (cl100k_base, as tiktoken writes it), for comparison only (notebook 12); the
# course trains with GPT-2's. Letters may take one leading character that is not a letter, digit or
# newline (a space, a tab, a bracket), digits go in runs of one to three with no space, contractions
# ignore case, and a run of whitespace ending in a newline stays one pretoken.
CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|"""
    r"""\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
# Its eight alternatives, named as GPT-2's are where they play the same part, so the playground can
# colour GPT-4's pretokens by alternative with a legend, as it does GPT-2's.
CL100K_ALTERNATIVES = {
    "contraction": r"'(?i:[sdmt]|ll|ve|re)",
    "letters": r"[^\r\n\p{L}\p{N}]?+\p{L}++",
    "digits": r"\p{N}{1,3}+",
    "other": r" ?[^\s\p{L}\p{N}]++[\r\n]*+",
    "whitespace_end": r"\s++$",
    "newline": r"\s*[\r\n]",
    "whitespace_run": r"\s+(?!\S)",
    "whitespace_left": r"\s",
}
assert "|".join(CL100K_ALTERNATIVES.values()) == CL100K_PATTERN  # one pattern, written twice
CL100K_NAMED = regex.compile("|".join(f"(?P<{k}>{v})" for k, v in CL100K_ALTERNATIVES.items()))

# The document separator of TinyStories and of GPT-2; chunks are cut at it when it is a special token.
END_OF_TEXT = "<|endoftext|>"


def check_special_tokens(special_tokens: Sequence[str] | None) -> list[str]:
    """``special_tokens`` as a list (None: none), or one clear error: one string alone (it would
    be read as one-character tokens, and every ``<`` would become one), a token that is not a
    string, empty (it would match between every two characters), holds a lone surrogate (UTF-8
    cannot encode it, so it could never be matched) or is given twice. Training and the
    tokenizer check their special tokens here."""
    if isinstance(special_tokens, (str, bytes)):
        raise BPEInputError(
            f"special_tokens must be a list of strings, not a single {type(special_tokens).__name__}"
            f" ({special_tokens!r}); write [{special_tokens!r}]"
        )
    tokens = list(special_tokens or [])
    for token in tokens:
        if not isinstance(token, str):
            raise BPEInputError(f"special token {token!r} is not a string")
        if token == "":
            raise BPEInputError("special tokens must not be empty strings")
        surrogate = next((c for c in token if "\ud800" <= c <= "\udfff"), None)
        if surrogate is not None:
            raise BPEInputError(
                f"special token {token!r} holds a lone surrogate (U+{ord(surrogate):04X}), "
                "which UTF-8 cannot encode"
            )
    duplicates = sorted({t for t in tokens if tokens.count(t) > 1})
    if duplicates:
        raise BPEInputError(f"special tokens must be distinct; repeated: {duplicates}")
    return tokens


def special_token_regex(special_tokens: Sequence[str]) -> regex.Pattern | None:
    """A pattern matching any special token, longest first, with one capturing group.

    Escaping matters: unescaped, the ``|`` inside ``<|endoftext|>`` would be read as alternation.
    """
    if not special_tokens:
        return None
    ordered = sorted(special_tokens, key=len, reverse=True)
    return regex.compile("(" + "|".join(regex.escape(token) for token in ordered) + ")")


def split_on_special_tokens(text: str, special_tokens: Sequence[str]) -> list[str]:
    """Split ``text`` at special tokens, keeping them: odd indexes hold the special tokens.

    >>> split_on_special_tokens("a<|endoftext|>b", ["<|endoftext|>"])
    ['a', '<|endoftext|>', 'b']
    """
    pattern = special_token_regex(special_tokens)
    return [text] if pattern is None else pattern.split(text)


def pretokenize(text: str) -> list[str]:
    """GPT-2 pretokens of a text that holds no special token.

    >>> pretokenize("Hello, world! It's 2024.")
    ['Hello', ',', ' world', '!', ' It', "'s", ' 2024', '.']
    """
    return GPT2_REGEX.findall(text)


def count_words_in_text(text: str, special_tokens: Sequence[str] = ()) -> dict[bytes, int]:
    """Word counts of one text: special tokens split out, pretokens counted, then encoded.

    >>> count_words_in_text("the cat<|endoftext|>the dog", ["<|endoftext|>"])
    {b'the': 2, b' cat': 1, b' dog': 1}
    """
    return {word.encode("utf-8"): n for word, n in count_pretokens(text, special_tokens).items()}


def count_pretokens(
    text: str, special_tokens: Sequence[str] = (), pattern: str = GPT2_PATTERN
) -> Counter[str]:
    """The pretoken counts of one text, as strings: special tokens split out (never counted),
    then the matches of ``pattern`` (GPT-2's unless another is given) counted.

    With GPT-2's pattern a long part is split at safe cuts first, so its pretokens are never all
    held as strings at once; the safe cuts are derived from GPT-2's pattern, so another pattern
    splits each part whole.

    >>> count_pretokens("the cat<|endoftext|>the", ["<|endoftext|>"])
    Counter({'the': 2, ' cat': 1})
    """
    counts: Counter[str] = Counter()
    update_pretokens(counts, text, special_tokens, pattern)
    return counts


def update_pretokens(
    counts: Counter[str], text: str, special_tokens: Sequence[str] = (), pattern: str = GPT2_PATTERN
) -> None:
    """Add the pretoken counts of one text into ``counts``, as :func:`count_pretokens` counts
    them. A counter that takes many texts adds each into its one ``Counter`` here: each list of
    matches is counted in C, where adding a second ``Counter`` into it is a loop in Python.
    """
    findall = compiled(pattern).findall
    parts = split_long if pattern == GPT2_PATTERN else _whole
    # Odd parts are the special tokens themselves: skipped, never counted.
    for piece in split_on_special_tokens(text, special_tokens)[::2]:
        for part in parts(piece):
            counts.update(findall(part))


@functools.lru_cache(maxsize=8)
def compiled(pattern: str) -> regex.Pattern[str]:
    """``pattern`` compiled once per process (GPT-2's is :data:`GPT2_REGEX`)."""
    return GPT2_REGEX if pattern == GPT2_PATTERN else regex.compile(pattern)


def _whole(text: str) -> Iterator[str]:
    yield text
