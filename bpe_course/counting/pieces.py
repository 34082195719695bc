"""Counting pieces before the pattern: pretokenization below the regex floor, with the same counts.

One ``findall`` of the GPT-2 pattern runs at a few MB/s per core, and it is most of the time a
fast trainer spends on a large corpus. But text repeats: cut the UTF-8 bytes into *pieces* and
count equal pieces, then run the pattern once per *distinct* piece and scale its pretokens by the
piece's count (the same idea as counting equal words before merging). A piece is a separator and
the bytes up to the next separator: the separators are the space, the newline, and each special
token, which the counter first replaces by a NUL byte (a text that holds a NUL of its own is
counted by the plain pattern). In one line, for a text without special tokens:
``Counter(re.findall(rb"[ \\n][^ \\n]*", data))``; the counts are kept in numpy
(:mod:`bpe_course.counting.piece_table`), which gives the same counts faster.

Why that is exact. A special token ends one part of the text and starts the next: the pattern
runs on each part apart, so a piece after a NUL is the pattern over what follows the NUL. A space
or a newline at index ``i`` is a *cut* of the pattern (a pretoken ends just before it, and what
comes after does not depend on what came before) when

- the character before it is not whitespace (or there is none): no alternative of the pattern
  takes whitespace after a non-space character, so a whitespace run (and a pretoken) starts at
  ``i``, and the pretokens to the left end in a non-space character, which no lookahead past it
  can change; or
- the character after it is not whitespace and no special token starts there: then ``\\s+(?!\\S)``
  stops one character short of the run's end, so the run before it is one pretoken, the same one
  the pattern gives when that run ends the text; a space then joins the next word, a newline is
  a pretoken of its own (only a space may start a word).

A separator with whitespace on both sides, or before a special token or the end, may not be a
cut (in ``"x\\n \\ny"`` the pattern makes ``"\\n "`` one pretoken). They are looked up in numpy by
the bytes on either side of every separator at once, and each run of pieces they glue together is
one *stretch*: it starts at a separator that is a cut and ends just before one, so it is counted
as one piece (equal stretches once: a Windows line break before indentation makes one on every
line).

Running the pattern once per distinct piece is still one Python call per piece, and text with
many distinct pieces (a dictionary, an encyclopedia, the web: punctuation attached to words,
capitals, numbers) has hundreds of thousands of them. So the distinct pieces with the same count
are *joined* and split by one ``findall`` (in batches), and the pretokens of the whole group
counted ``count`` times at once. Joining is exact by the first rule: every piece that is joined
ends in a character that is not whitespace, so the separator that starts the next one is a cut. A
piece after a special token is joined with a newline in place of its NUL (it must not start with
whitespace: the newline is then a pretoken of its own, taken off again). A piece that ends in
whitespace is joined with a newline and ``!`` after it (by the second rule its last whitespace
run is then the one pretoken it is at the end of a text; the two marks are pretokens of their
own, taken off again, and ``!`` is not whitespace). The few others (a NUL before whitespace, a
non-ASCII character or nothing) are split one by one. A group of ASCII
pieces is split by the stdlib ``re`` on the bytes themselves, with a pattern equal to GPT-2's on
ASCII (the only ASCII letters are A-Z and a-z, the only digits 0-9, and ``\\s`` agrees on all 128
characters: a test checks it), several times faster than ``regex`` on decoded text; the rest take
``regex``.

Pieces do not pay everywhere: a piece that is not ASCII is decoded and split by ``regex`` like
the pattern's text, after a few steps in Python of its own, so where most of a text is such
pieces seen once, or long ones (each a Python object), counting them first only adds work. Such
a text goes to the plain pattern: judged by :func:`pieces_cost_more` from a sample of it (a text
with hardly a space goes there at once). The counts are the pattern's either way.

Every worker runs the pattern on its own distinct pieces, so a piece that two workers hold is
split twice. The design was profiled and measured step by step: the figures, and the commands
that remake them, are in ``notebooks/results/measurements.md``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import chain, filterfalse, repeat

import numpy as np
import regex

from bpe_course.counting.piece_table import (
    PieceTable,
    non_ascii_shares,
    piece_ends,
    separator_positions,
)
from bpe_course.pretokenize import GPT2_ASCII_PATTERN, GPT2_REGEX, update_pretokens

# Distinct pieces a worker keeps before it turns them into pretoken counts (16 to 32 bytes each
# in the table's arrays, about 150 for the few longer than 16 bytes, in a Counter): the bound on a
# worker's memory besides the distinct words.
MAX_PIECES = 4_000_000
_WHITESPACE = regex.compile(r"\s")  # the pattern's own idea of whitespace (not str.isspace)
# The GPT-2 pattern on ASCII bytes, for the stdlib ``re`` (several times faster than ``regex`` on
# str, and no decoding): derived from GPT-2's alternatives (:func:`bpe_course.pretokenize.ascii_form`).
_ASCII_PATTERN = re.compile(GPT2_ASCII_PATTERN.encode("ascii"))
# Whitespace characters the pattern knows (``\s``) beyond ASCII; a test checks the list is whole.
_WIDE_SPACES = "\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
_WIDE_SPACES += "\u2028\u2029\u202f\u205f\u3000"
# Lookup tables by byte: an ASCII whitespace character (or a NUL, where a special token was);
# the first and the last byte of a wide one.
_SPACE_BYTE = np.zeros(256, dtype=bool)
_SPACE_BYTE[list(b" \t\n\r\x0b\x0c")] = True
_SPACE_OR_NUL_BYTE = _SPACE_BYTE.copy()
_SPACE_OR_NUL_BYTE[0] = True
_STARTS_WIDE_SPACE = np.zeros(256, dtype=bool)
_STARTS_WIDE_SPACE[[c.encode("utf-8")[0] for c in _WIDE_SPACES]] = True
_ENDS_WIDE_SPACE = np.zeros(256, dtype=bool)
_ENDS_WIDE_SPACE[[c.encode("utf-8")[-1] for c in _WIDE_SPACES]] = True
# The ASCII whitespace characters that are not separators.
_OTHER_ASCII_SPACES = (b"\t", b"\r", b"\x0b", b"\x0c")
# Last bytes a piece ending in whitespace can have: only such pieces are looked at closer.
_MAY_END_IN_SPACE = (_SPACE_BYTE | _ENDS_WIDE_SPACE).tolist()
# Every whitespace character of the pattern in UTF-8: text ends in whitespace when it ends in
# one of these (a wide space starts with a lead byte, so in UTF-8 it is the whole last character).
_SPACE_ENDINGS = tuple(char.encode("utf-8") for char in " \t\n\r\x0b\x0c" + _WIDE_SPACES)
# A piece starts at a space, at a newline, or where a special token was: the counter writes a
# NUL byte in its place (a text that holds a NUL of its own is counted by the pattern instead).
SEPARATORS = _SEPARATORS = b" \n\0"
# Pieces split at once (joined): at most this many, so their pretokens (as bytes objects, about
# 40 bytes each) take a few MB however many distinct pieces a worker holds.
_BATCH = 50_000
# A text with fewer spaces than one in this many bytes (Chinese, Japanese, minified code) is
# counted with the plain pattern: its pieces are long and seldom repeat, so counting them first
# only adds work.
_LONG_PIECES = 32
# Put after each piece that ends in whitespace, to join it with others: a newline and a
# character that is not whitespace, each a pretoken of its own there (see word_counts).
_END = b"\n!"
_END_TOKENS = (b"\n", b"!")
# A text is counted with the plain pattern where more than this share of its bytes lie in
# pieces that hold a byte that is not ASCII and are longer than 16 bytes, or are distinct and
# up to 16 bytes long (see non_ascii_shares).
_SHARE = 0.75
# They are judged from this many bytes of a text, in this many slices spread through it.
_SAMPLE_BYTES = 1 << 19
_SAMPLES = 8
# Pieces with a count up to this are counted by repeating their pretokens (in C).
_REPEAT_AT_MOST = 4


class PieceCounter:
    """Pretoken counts of many texts, kept as pieces until :meth:`word_counts`.

    Texts come in as UTF-8 bytes, each special token replaced by a NUL byte. A piece is a
    separator (a space, a newline or that NUL) and the bytes up to the next one; splitting at
    those bytes never cuts a multi-byte character, and skips decoding all but the distinct
    pieces. The pretokens are ``sum(count * pattern(piece))`` over ``pieces`` (a piece after a
    NUL without it: a special token ends a part of the text; glued stretches are pieces too)
    plus ``direct`` (the text before the first cut) plus ``by_pattern`` (the texts counted with
    the plain pattern, as strings).
    """

    def __init__(self, special_tokens: Sequence[str] = ()) -> None:
        self.special_bytes = tuple(token.encode("utf-8") for token in special_tokens)
        if any(not token or b"\0" in token for token in self.special_bytes):
            raise ValueError("a special token is empty or holds a NUL: count with the pattern")
        self.special_tokens = tuple(special_tokens)  # for a text that holds a NUL
        self.special_in_bytes = bytes_alternation(self.special_bytes)
        self.pieces = PieceTable()
        self.direct: Counter[bytes] = Counter()  # of each text's start, before its first cut
        self.by_pattern: Counter[str] = Counter()  # of texts counted with the plain pattern
        self._space: dict[bytes, bool] = {}

    def add(self, data: bytes) -> None:
        """Count the pretokens of one UTF-8 text (all of it: a text is never cut inside)."""
        if b"\0" in data:  # its NUL would be taken for a special token: the plain pattern
            self._add_by_pattern(data)
            return
        if len(data) > _LONG_PIECES * (data.count(b" ") + 1):
            self._add_by_pattern(data)  # pieces this long seldom repeat: the plain pattern
            return
        text = self._mark_special(data)
        if not text.isascii() and pieces_cost_more(text):
            self._add_by_pattern(data)
            return
        n = len(text)
        starts = separator_positions(text, _SEPARATORS)
        ends = piece_ends(starts, n)
        first = int(starts[0]) if len(starts) else n
        # A separator that may not be a cut glues the pieces on either side of it; a run of them
        # glues one stretch.
        unsafe = self._unsafe_separators(text, starts)
        if len(unsafe):
            breaks = np.flatnonzero(np.diff(unsafe) != 1) + 1
            firsts = unsafe[np.concatenate(([0], breaks))]
            lasts = unsafe[np.concatenate((breaks - 1, [len(unsafe) - 1]))]
            # A stretch is the pieces a - 1 (if any) to b: it starts at the separator of piece
            # a - 1 (a NUL, where a special token was), or at the text's start. Both its ends
            # are cuts, so it is counted as one piece: its separator starts it, and equal
            # stretches (indentation after a line break, say) are counted once.
            stretch_starts = starts[np.maximum(firsts - 1, 0)]
            stretch_ends = ends[lasts]
            if firsts[0] == 0:  # the stretch began with the text before the first separator
                first = int(stretch_ends[0])
                stretch_starts, stretch_ends = stretch_starts[1:], stretch_ends[1:]
            glued = np.zeros(len(starts) + 1, dtype=np.int64)  # +1 where a stretch starts, -1 after
            np.add.at(glued, np.maximum(firsts - 1, 0), 1)
            np.add.at(glued, lasts + 1, -1)
            counted = np.cumsum(glued[:-1]) == 0
            starts, ends = starts[counted], ends[counted]
            self.pieces.count(text, stretch_starts, stretch_ends)
        self.pieces.count(text, starts, ends)
        self._add_segment(text[:first])

    def _add_by_pattern(self, data: bytes) -> None:
        """Count one text with the plain pattern (as strings, encoded once at the end), into
        the one ``Counter`` of every such text, as ``PatternCounter`` counts."""
        update_pretokens(self.by_pattern, data.decode("utf-8"), self.special_tokens)

    def _mark_special(self, data: bytes) -> bytes:
        """``data`` with a NUL byte for each special token (tokens never hold a NUL)."""
        if self.special_in_bytes is None:
            return data
        if len(self.special_bytes) == 1:  # leftmost, without overlaps, as the pattern splits
            return data.replace(self.special_bytes[0], b"\0")
        return self.special_in_bytes.sub(b"\0", data)

    def _add_segment(self, segment: bytes) -> None:
        """Count the pretokens of a text's start with no special token in it (as UTF-8 bytes:
        ``_split`` decodes any text that is not ASCII, so a byte that is not UTF-8 is found)."""
        self.direct.update(self._split(segment))

    def _is_space(self, char: bytes) -> bool:
        known = self._space.get(char)
        if known is None:
            known = self._space[char] = is_space_char(char)
        return known

    def _unsafe_separators(self, text: bytes, starts: np.ndarray) -> np.ndarray:
        return unsafe_separators(text, starts, self._is_space)

    @property
    def full(self) -> bool:
        """Whether it holds more than ``MAX_PIECES`` distinct pieces: time to turn them into
        word counts and start afresh (memory then follows ``MAX_PIECES``, not the corpus)."""
        return len(self.pieces) > MAX_PIECES

    def word_counts(self) -> dict[bytes, int]:
        """The pretoken counts (UTF-8 bytes): the pattern over the distinct pieces, scaled.

        Pieces with the same count are joined and split by one ``findall`` (the stdlib pattern
        on bytes when they are ASCII), and their pretokens counted ``count`` times at once.
        Joining is exact because every piece that is joined ends in a character that is not
        whitespace, so the space or newline that starts the next one is a cut. A piece that
        ends in whitespace is joined with ``_END`` (a newline and ``!``) after it: the pattern
        stops its last whitespace run one character short of the newline, so the run is the
        one pretoken it is at the end of a text, the newline and the ``!`` are pretokens of
        their own (taken off again), and the ``!`` ends in a character that is not whitespace.
        A piece after a special token is joined with a newline in place of its NUL, which is
        always a pretoken of its own there (the piece must not start with whitespace), and
        taken off again. The others (a NUL before whitespace, a non-ASCII character or
        nothing; a NUL and a piece that ends in whitespace) are split one by one.

        Raises ``UnicodeDecodeError`` if a piece is not UTF-8 (callers say where in the file).
        """
        encoded = {word.encode("utf-8"): count for word, count in self.by_pattern.items()}
        if not self.direct and not len(self.pieces):
            return encoded  # every text was counted with the pattern
        counts: Counter[bytes] = Counter(encoded)
        for batch in self.pieces.items(_BATCH):  # batches: the pretokens of one at a time
            groups, spaced, alone = self._group_by_count(batch)
            for count, group in groups.items():
                self._add_group(counts, group, count)
            for count, group in spaced.items():
                self._add_group(counts, [piece + _END for piece in group], count)
                for token in _END_TOKENS:
                    counts[token] -= len(group) * count
            for piece, count in alone:
                _add_scaled(counts, self._split(piece[1:] if piece[0] == 0 else piece), count)
        for token, count in self.direct.items():
            counts[token] += count
        for token in _END_TOKENS:  # every one may have been put in, by a join or for a NUL
            if counts.get(token) == 0:
                del counts[token]
        return counts

    def _add_group(self, counts: Counter[bytes], group: list[bytes], count: int) -> None:
        text = b"".join(group)
        after_special = text.count(0)  # each becomes a newline: one pretoken "\n" to take off
        if text.isascii():
            _add_scaled(counts, _ASCII_PATTERN.findall(text.replace(b"\0", b"\n")), count)
        else:
            # each filter named before the join: inside it, mypy infers join's Buffer, not bytes
            ascii_parts = filter(bytes.isascii, group)
            ascii_text = b"".join(ascii_parts).replace(b"\0", b"\n")
            _add_scaled(counts, _ASCII_PATTERN.findall(ascii_text), count)
            other_parts = filterfalse(bytes.isascii, group)
            others = b"".join(other_parts).replace(b"\0", b"\n")
            _add_scaled(counts, self._split(others), count)
        if after_special:
            counts[b"\n"] -= after_special * count

    def _group_by_count(
        self, pieces: list[tuple[bytes, int]]
    ) -> tuple[dict[int, list[bytes]], dict[int, list[bytes]], list[tuple[bytes, int]]]:
        """The pieces by count; apart, by count, those ending in whitespace (joined with
        ``_END`` after each); and apart those that may not be joined: after a special token and
        starting with anything but an ASCII character that is not whitespace, or ending in
        whitespace."""
        groups: dict[int, list[bytes]] = {}
        spaced: dict[int, list[bytes]] = {}
        alone: list[tuple[bytes, int]] = []
        may_end_in_space, space_endings = _MAY_END_IN_SPACE, _SPACE_ENDINGS
        for piece, count in pieces:
            if piece[0] == 0 and (
                len(piece) == 1 or piece[1] >= 128 or piece[1] in b"\t\r\x0b\x0c"
            ):
                alone.append((piece, count))
                continue
            if may_end_in_space[piece[-1]] and piece.endswith(space_endings):
                if piece[0] == 0:  # its NUL, a newline in a join, would join the run after it
                    alone.append((piece, count))
                else:
                    spaced.setdefault(count, []).append(piece)
                continue
            group = groups.get(count)
            if group is None:
                groups[count] = [piece]
            else:
                group.append(piece)
        return groups, spaced, alone

    def _split(self, text: bytes) -> list[bytes]:
        """The pretokens of UTF-8 ``text`` (no special token in it): the stdlib pattern on ASCII
        bytes, else the ``regex`` pattern."""
        if text.isascii():
            return _ASCII_PATTERN.findall(text)
        return list(map(str.encode, GPT2_REGEX.findall(text.decode("utf-8"))))


def pieces_cost_more(text: bytes) -> bool:
    """Whether counting ``text`` (a text that is not all ASCII, special tokens marked) by
    pieces would likely cost more than the plain pattern: judged from the shares of
    :func:`~bpe_course.counting.piece_table.non_ascii_shares` over ``_SAMPLES`` slices spread
    through it (the whole text, when short), so that the choice costs a small part of the
    pieces' own passes. A slice cuts at most a piece or a character at each of its ends,
    which only the estimate sees."""
    n = len(text)
    width = _SAMPLE_BYTES // _SAMPLES
    if n > _SAMPLE_BYTES:
        step = n // _SAMPLES
        text = b"".join(text[i * step : i * step + width] for i in range(_SAMPLES))
    starts = separator_positions(text, _SEPARATORS)
    long, distinct = non_ascii_shares(text, starts, piece_ends(starts, len(text)))
    return long + distinct > _SHARE


def unsafe_separators(
    text: bytes, starts: np.ndarray, is_space: Callable[[bytes], bool]
) -> np.ndarray:
    """Which of the separators at ``starts`` (spaces, newlines, NULs) may not be cuts, as
    indexes into ``starts``: spaces and newlines with whitespace before them, and
    whitespace, a special token or the end after them. Looked up in numpy for all at once by
    the bytes on either side; where those bytes may belong to a wide space, the characters
    are checked one by one."""
    n = len(text)
    if n == 0:
        return starts
    buffer = np.frombuffer(text, dtype=np.uint8)
    if text.isascii() and not any(space in text for space in _OTHER_ASCII_SPACES):
        # The only whitespace is the separators: a separator has whitespace before it when
        # it follows another (not a NUL), and whitespace, NUL or the end after it when one
        # follows it or the text ends. (``in`` looks for one byte at memchr's speed.)
        follows = np.flatnonzero(np.diff(starts) == 1) + 1
        follows = follows[(buffer[starts[follows - 1]] != 0) & (buffer[starts[follows]] != 0)]
        followed = np.append(np.diff(starts) == 1, starts[-1:] == n - 1)
        return follows[followed[follows]]
    before, after = buffer[np.maximum(starts - 1, 0)], buffer[np.minimum(starts + 1, n - 1)]
    at_end = starts + 1 == n
    inside = (starts > 0) & (buffer[starts] != 0)  # a space or newline with a byte before
    if text.isascii():
        return np.flatnonzero(inside & _SPACE_BYTE[before] & (at_end | _SPACE_OR_NUL_BYTE[after]))
    # ASCII whitespace on a side is whitespace for certain; a byte that may end (before) or
    # start (after) a wide space is checked as a character, one by one: only those.
    space_before, end_after = _SPACE_BYTE[before], at_end | _SPACE_OR_NUL_BYTE[after]
    maybe = (
        inside & (space_before | _ENDS_WIDE_SPACE[before]) & (end_after | _STARTS_WIDE_SPACE[after])
    )
    sure = maybe & space_before & end_after
    check = maybe & ~sure
    if not check.any():
        return np.flatnonzero(sure)
    candidates = zip(
        np.flatnonzero(check).tolist(),
        starts[check].tolist(),
        space_before[check].tolist(),
        end_after[check].tolist(),
    )
    sure[
        [
            k
            for k, i, space, end in candidates
            if (space or is_space(last_char(text[max(i - 4, 0) : i])))
            and (end or is_space(first_char(text, i + 1)))
        ]
    ] = True
    return np.flatnonzero(sure)


def is_space_char(char: bytes) -> bool:
    """Whether the UTF-8 character ``char`` is whitespace as the pattern's ``\\s`` reads it."""
    return _WHITESPACE.fullmatch(char.decode("utf-8", errors="replace")) is not None


def _add_scaled(counts: Counter[bytes], tokens: list[bytes], count: int) -> None:
    """Add each of ``tokens`` ``count`` times: by repeating the list, counted in C, when the
    count is small; else once per distinct token, multiplied, in Python."""
    if count <= _REPEAT_AT_MOST:
        counts.update(tokens if count == 1 else chain.from_iterable(repeat(tokens, count)))
        return
    get = counts.get
    for token, n in Counter(tokens).items():
        counts[token] = get(token, 0) + n * count


def bytes_alternation(tokens: Sequence[bytes]) -> re.Pattern[bytes] | None:
    """Like :func:`~bpe_course.pretokenize.special_token_regex`, for bytes: longest first."""
    if not tokens:
        return None
    ordered = sorted(tokens, key=len, reverse=True)
    return re.compile(b"(" + b"|".join(re.escape(token) for token in ordered) + b")")


def first_char(text: bytes, index: int) -> bytes:
    """The UTF-8 character that starts at ``index``, as bytes."""
    lead = text[index]
    length = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    return text[index : index + length]


def last_char(piece: bytes) -> bytes:
    """The last UTF-8 character of a piece, as bytes (b"" for an empty piece)."""
    i = len(piece) - 1
    while i > 0 and 0x80 <= piece[i] < 0xC0:  # continuation bytes
        i -= 1
    return piece[i:]


def count_pretokens(text: str, special_tokens: Sequence[str] = ()) -> Counter[str]:
    """The pretoken counts of ``text``, equal to the pattern's on every input (special tokens
    must not be empty nor hold a NUL: ``ValueError``).

    >>> count_pretokens("the cat  sat\\n \\nthe end") == Counter(
    ...     ["the", " cat", " ", " sat", "\\n ", "\\n", "the", " end"])
    True
    """
    counter = PieceCounter(special_tokens)
    counter.add(text.encode("utf-8"))
    return Counter({word.decode("utf-8"): n for word, n in counter.word_counts().items()})
