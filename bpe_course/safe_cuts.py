"""Where a text may be cut without changing its GPT-2 pretokens: streaming with no separator token.

A file with ``<|endoftext|>`` between documents is cut at the token. Without one (or with one
that is rare), a file or a long document would be one piece, held whole in memory with every one
of its pretokens as a string at once. This module finds *safe cuts*: positions ``i`` where the
GPT-2 pattern gives the same pretokens for ``text`` as for ``text[:i]`` and ``text[i:]`` apart.

Why a cut is safe. Every character is matched by some alternative of the pattern (letters,
digits, other symbols, whitespace) and no match is empty, so the pretokens tile the text, and
the pattern never looks behind. A cut at ``i`` is therefore safe when no *possible* match of any
alternative, starting anywhere before ``i``, covers both ``text[i-1]`` and ``text[i]``, and the
one lookahead of the pattern, ``(?!\\S)`` at ``i``, answers the same whether ``text[i]`` or the
end of the text follows. That holds when

1. ``text[i-1]`` is not whitespace and ``text[i]`` is: no alternative takes a non-space and then
   whitespace (the optional space of ``" ?\\p{L}+"`` comes first), and a whitespace character is,
   like the end of the text, not ``\\S``;
2. both are not whitespace and of different classes among letters ``\\p{L}``, digits ``\\p{N}``
   and others ``[^\\s\\p{L}\\p{N}]``, and ``text[i-1]`` is not the apostrophe (``'s``, ``'ll``:
   the contractions join an apostrophe to letters). The lookahead plays no part: it follows only
   whitespace, and ``text[i-1]`` is not whitespace.

Whitespace followed by a non-space is never safe (``" cat"`` keeps its space; ``"\\n cat"`` splits
as ``"\\n"``, ``" cat"``). With special tokens, a cut is also refused when an occurrence of a
special token covers it, so the tokens split out the same on both sides. Tests check the claim
with hypothesis: the pretokens with every safe cut made equal those of the whole text.

A text with no safe cut at all (one 300 MB run of letters, or of newlines) is one pretoken: no
exact pretokenizer can hold less than it. Without special tokens, a stretch with no safe cut holds
at most four pretokens (whitespace, its last character, a run of symbols ending in an apostrophe,
a run of letters or of digits): one of them is longer than a quarter of it. The counting uses
that to find a word too long to train on before reading it whole
(:data:`bpe_course.counting.plan.MAX_WORD_BYTES`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import BinaryIO

import regex

SAFE_CUT = regex.compile(
    r"(?<=\S)(?=\s)"  # rule 1: a non-space, then whitespace
    r"|(?<=\p{L})(?=[^\s\p{L}])"  # rule 2: a letter, then a digit or other symbol
    r"|(?<=\p{N})(?=[^\s\p{N}])"  # a digit, then a letter or other symbol
    r"|(?<=[^\s\p{L}\p{N}'])(?=[\p{L}\p{N}])"  # a symbol (not '), then a letter or digit
)
# The same positions found run by run: a maximal run of one class (whitespace, letters, digits,
# other symbols) is matched at C speed, and only the boundaries between runs are looked at in
# Python. SAFE_CUT's lookbehinds are tried at every character, so a long stretch without a cut
# (a line of Chinese letters) was slow to search; the runs take one match per run (see
# cut_positions; measured in notebooks/results/measurements.md).
_RUNS = regex.compile(r"(\s+)|(\p{L}+)|(\p{N}+)|([^\s\p{L}\p{N}]+)")
_SPACE, _LETTER, _DIGIT = 1, 2, 3  # the runs' group numbers (4: other symbols)
# In-memory pieces longer than this many characters are pretokenized in parts, so one findall
# never holds more than about this many characters' pretokens as strings.
PIECE_CHARS = 1 << 20
_SCAN_BLOCK = 1 << 16


def safe_cuts(text: str, special_tokens: Sequence[str] = ()) -> list[int]:
    """Every safe cut of ``text`` (see the module docstring), in order.

    >>> safe_cuts("it's 42!")
    [2, 4, 7]
    """
    return [i for i in _candidates(text, 0, special_tokens)]


def cut_positions(text: str, pos: int = 0) -> Iterator[int]:
    """The positions ``SAFE_CUT.finditer(text, pos)`` matches at, in order, found run by run.

    A cut lies between two characters of different classes (whitespace, letter, digit, other),
    so only where one maximal run of a class ends and the next begins; there, it is a cut unless
    the first is whitespace (whitespace, then a non-space) or an apostrophe before a letter or a
    digit (the contractions): exactly SAFE_CUT's four rules. A test checks the two agree.
    """
    previous = None
    if 0 < pos < len(text):  # the boundary at pos itself, seen from the character before it
        before = _RUNS.match(text, pos - 1, pos)
        if before is not None:
            previous = (before.lastindex, text[pos - 1])
    for run in _RUNS.finditer(text, pos):
        kind = run.lastindex
        if previous is not None and previous[0] != kind and _cut_after(*previous, kind):
            yield run.start()
        previous = (kind, text[run.end() - 1])


def _cut_after(kind: int, last: str, next_kind: int) -> bool:
    """Whether the boundary after a run of ``kind`` ending in ``last``, before a run of
    ``next_kind`` (another class), is a safe cut."""
    if kind == _SPACE:
        return False
    return not (last == "'" and next_kind in (_LETTER, _DIGIT))


def _candidates(text: str, pos: int, special_tokens: Sequence[str]) -> Iterator[int]:
    for i in cut_positions(text, pos):
        if not any(_covers(text, token, i) for token in special_tokens):
            yield i


def _covers(text: str, token: str, i: int) -> bool:
    """Whether an occurrence of ``token`` starts before ``i`` and ends after it."""
    return text.find(token, max(0, i - len(token) + 1), i + len(token) - 1) != -1


def split_long(text: str, limit: int | None = None) -> Iterator[str]:
    """``text`` in parts of about ``limit`` characters (default ``PIECE_CHARS``), cut at safe
    cuts (no special tokens in it: the caller splits them out first); a part runs on to the next
    safe cut."""
    limit = PIECE_CHARS if limit is None else limit
    start, n = 0, len(text)
    while n - start > limit:
        cut = next(cut_positions(text, start + limit), None)
        if cut is None:
            break
        yield text[start:cut]
        start = cut
    yield text[start:] if start else text


def next_safe_cut(
    f: BinaryIO, start: int, special_tokens: Sequence[str] = (), stop: int | None = None
) -> int | None:
    """The byte offset of the first safe cut of the (UTF-8) file ``f`` at or after ``start``, or
    None if there is none before ``stop`` (default: the end of the file).

    Read in blocks: a cut is taken only where the block shows the characters around it and any
    special token that could cover it; the blocks overlap by that much.
    """
    margin = max((len(token) for token in special_tokens), default=1)
    position = start
    while stop is None or position < stop:
        f.seek(position)
        block = f.read(_SCAN_BLOCK)
        text, skipped = whole_characters(block)
        if len(text) <= 2 * margin:
            return None  # the end of the file: nothing left worth cutting
        for i in _candidates(text, margin, special_tokens):
            if i > len(text) - margin:
                break
            offset = position + skipped + len(text[:i].encode("utf-8", "surrogateescape"))
            return offset if stop is None or offset < stop else None
        # no cut: step on, keeping the last characters so a cut between blocks is seen
        tail = text[len(text) - 2 * margin :].encode("utf-8", "surrogateescape")
        position += skipped + len(text.encode("utf-8", "surrogateescape")) - len(tail)
    return None


def whole_characters(block: bytes) -> tuple[str, int]:
    """The characters of ``block`` that lie in it whole, and how many bytes at its start were
    the tail of a character begun before it. Invalid bytes become lone surrogates (symbols, for
    the rules): such a file fails later, with the offset of its first bad byte."""
    skipped = 0
    while skipped < min(3, len(block)) and 0x80 <= block[skipped] < 0xC0:
        skipped += 1
    end = len(block)
    back = end - 1
    while back > max(skipped, end - 4) and 0x80 <= block[back] < 0xC0:
        back -= 1
    if back >= skipped and block[back] >= 0xC0:  # a lead byte: is its character complete?
        size = 2 if block[back] < 0xE0 else 3 if block[back] < 0xF0 else 4
        if back + size > end:
            end = back
    return block[skipped:end].decode("utf-8", "surrogateescape"), skipped
