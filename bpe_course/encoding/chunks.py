"""Encoding one chunk of a corpus: its UTF-8 bytes to the ids ``Tokenizer.encode`` gives its text.

The pieces idea (:mod:`bpe_course.counting.pieces`), turned to encoding. Text repeats: cut the
bytes into *units* where the pattern is sure to cut, encode each distinct unit once, and emit
the ids of every unit in order. The cuts are found in numpy, without decoding:

- every space, newline and special token starts a unit, unless the separator is *glued* to the
  one before it (whitespace on both sides of it, or whitespace before it and a special token or
  the end after it: :func:`~bpe_course.counting.pieces.unsafe_separators`, the counter's rule);
- each special token is replaced by a NUL byte first: a unit of its own, its id emitted;
- the chunk's start and end are cuts too (the planner cuts chunks only at cuts).

A unit's ids depend only on the unit: at every cut the pattern ends a pretoken and starts the
next whatever surrounds it, and merges never cross a pretoken. So the ids of the chunk are the
ids of its units, joined. The units met are numbered by a
:class:`~bpe_course.encoding.table.SliceIndex` (a unit of up to 16 bytes is its own key, looked up
for all units of the chunk at once), the ids of each kept in one flat array, and a chunk's ids are
gathered from it by one index (``np.repeat`` of each unit's start).

A unit met for the first time is cut again into *parts*, at the safe cuts between two ASCII
characters (:func:`cut_parts`: a letter before a symbol, a symbol before a digit...): most parts
are one pretoken, and the many distinct units of a dictionary or the web (``" (word),"``,
``" word."``) are made of few distinct parts. The parts are numbered as the units are, with their
ids kept; a part met for the first time is split by the pattern (many at once: parts that start
with a separator, or after a newline put in front of them with a character that is not
whitespace, and end in one that is not whitespace are joined and split by one ``findall``, as the
counter joins its pieces; the newlines put in are pretokens of their own, taken out again), and
its pretokens merged by :class:`~bpe_course.encoding.merging.BatchMerger`, all of a chunk's at
once.

A chunk holding a NUL byte of its own, or a tokenizer whose special token holds one, is encoded by
``Tokenizer.encode`` (the NUL would be taken for a special token). Bytes that are not UTF-8 raise
``UnicodeDecodeError`` (from the first new part that holds one; the caller names the offset).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from bpe_course.counting.piece_table import separator_positions
from bpe_course.counting.pieces import (
    SEPARATORS,
    bytes_alternation,
    first_char,
    is_space_char,
    last_char,
    unsafe_separators,
)
from bpe_course.encoding.merging import BatchMerger
from bpe_course.encoding.table import PAD, Growing, SliceIndex
from bpe_course.pretokenize import GPT2_ASCII_PATTERN, GPT2_REGEX
from bpe_course.tokenizer import Tokenizer

# Distinct units and parts kept between chunks; past either, the tables start afresh (after the
# chunk at hand), so memory follows these limits, not the corpus.
MAX_UNITS = 1_000_000
MAX_PARTS = 500_000
_ASCII_PATTERN = re.compile(GPT2_ASCII_PATTERN.encode("ascii"))
_ASCII_SPACE = np.zeros(256, dtype=bool)
_ASCII_SPACE[list(b" \t\n\r\x0b\x0c")] = True
_SEPARATOR = np.zeros(256, dtype=bool)
_SEPARATOR[list(b" \n")] = True
_NEWLINE = 10
# Each byte's kind for the safe cuts: 0 for a byte of a character that is not ASCII (no cut
# beside it), 1 letter, 2 digit, 3 other symbol (the apostrophe too), 4 ASCII whitespace.
_SPACE_KIND = 4
_KIND = np.zeros(256, dtype=np.int8)
_KIND[32:127] = 3
_KIND[list(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")] = 1
_KIND[list(b"0123456789")] = 2
_KIND[list(b" \t\n\r\x0b\x0c")] = _SPACE_KIND
_KIND[list(range(1, 32))] = np.where(_ASCII_SPACE[1:32], _SPACE_KIND, 3)
_KIND[127] = 3
_APOSTROPHE = ord("'")


class ChunkEncoder:
    """A tokenizer's encoding of texts that may each be encoded alone (a corpus's chunks), with
    the units and parts it has met kept between texts. :meth:`encode` equals
    ``Tokenizer.encode`` of the decoded text, id for id."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        self.merger = BatchMerger(tokenizer)
        self._special_bytes = [token.encode("utf-8") for token in tokenizer.special_tokens]
        # the units' way needs each special token to be told from the text by a NUL byte
        self.by_units = all(b"\0" not in token for token in self._special_bytes)
        self._special_pattern = bytes_alternation(self._special_bytes)
        self._special_unit = {token: i for i, token in enumerate(self._special_bytes)}
        self._is_space: dict[bytes, bool] = {}
        self.reset()

    def reset(self) -> None:
        """Forget every unit and part met (memory back to the tokenizer's tables)."""
        self.units = SliceIndex()
        self.unit_start = Growing(np.int32)  # where a unit's ids start in `ids`
        self.unit_length = Growing(np.int32)  # how many ids it has
        self.ids = Growing(np.int32)
        self.parts = SliceIndex()
        self.part_start = Growing(np.int32)  # where a part's ids start in `part_ids`
        self.part_length = Growing(np.int32)
        self.part_ids = Growing(np.int32)
        # units 0 .. S-1: the special tokens, in the tokenizer's order
        special_ids = self.tokenizer.special_ids
        self.special_ids = np.array(
            [special_ids[t] for t in self.tokenizer.special_tokens], dtype=np.int64
        )
        self._keep(self.special_ids, np.ones(len(self.special_ids), dtype=np.int64))

    @property
    def nbytes(self) -> int:
        """About how many bytes the tables hold."""
        arrays = [self.unit_start, self.unit_length, self.ids]
        arrays += [self.part_start, self.part_length, self.part_ids]
        held = sum(a.nbytes for a in arrays)
        return held + self.units.nbytes + self.parts.nbytes

    # --- A chunk ---------------------------------------------------------------------------------

    def encode(self, data: bytes) -> np.ndarray:
        """The ids of the UTF-8 text ``data`` (integers); ``UnicodeDecodeError`` if it is not
        UTF-8."""
        if not self.by_units or b"\0" in data:
            return np.array(self.tokenizer.encode(data.decode("utf-8")), dtype=np.int64)
        text, specials = self._mark_special(data)
        if not text:
            return np.zeros(0, dtype=np.int64)
        buffer = np.frombuffer(text + PAD, dtype=np.uint8)
        starts, ends = self._units(text, buffer)
        special = buffer[starts] == 0  # a NUL: a special token, a unit of its own
        if special.any():
            ordinary = np.flatnonzero(~special)
            starts, ends = starts[ordinary], ends[ordinary]
        units = self.units.find(text, buffer, starts, ends)
        if (units < 0).any():
            first = self.units.add_missing(text, buffer, starts, ends, units)
            self._add_units(text, buffer, starts[first], ends[first])
        units += len(self.special_ids)  # units 0 .. S-1 are the special tokens
        if special.any():
            every = np.empty(len(special), dtype=np.int64)
            every[ordinary] = units
            every[special] = 0 if specials is None else specials
            units = every
        ids = self._gather(units)
        if len(self.units) > MAX_UNITS or len(self.parts) > MAX_PARTS:
            self.reset()
        return ids

    def _mark_special(self, data: bytes) -> tuple[bytes, np.ndarray | None]:
        """``data`` with a NUL byte for each special token (leftmost, longest first, as the
        tokenizer splits them), and which token each NUL stands for (None: the only one)."""
        pattern = self._special_pattern
        if pattern is None:
            return data, None
        if len(self._special_bytes) == 1:
            return data.replace(self._special_bytes[0], b"\0"), None
        found = [self._special_unit[token] for token in pattern.findall(data)]
        return pattern.sub(b"\0", data), np.array(found, dtype=np.int64)

    def _units(self, text: bytes, buffer: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where each unit of ``text`` starts and ends."""
        n = len(text)
        separators = separator_positions(text, SEPARATORS)
        cut = np.zeros(n + 1, dtype=bool)
        cut[separators] = True
        cut[separators[unsafe_separators(text, separators, self._space)]] = False
        cut[separators[buffer[separators] == 0] + 1] = True  # after a special token
        cut[0] = cut[n] = True
        bounds = np.flatnonzero(cut)
        return bounds[:-1], bounds[1:]

    def _space(self, char: bytes) -> bool:
        known = self._is_space.get(char)
        if known is None:
            known = self._is_space[char] = is_space_char(char)
        return known

    def _gather(self, units: np.ndarray) -> np.ndarray:
        """The ids of ``units``, one after the other."""
        return _gather(self.ids.array, self.unit_start.array[units], self.unit_length.array[units])

    # --- Units met for the first time ------------------------------------------------------------

    def _add_units(
        self, text: bytes, buffer: np.ndarray, starts: np.ndarray, ends: np.ndarray
    ) -> None:
        """Encode the units ``text[starts[i]:ends[i]]`` (new, distinct) and keep their ids, in
        order: each is cut into parts (:func:`cut_parts`), the parts met for the first time are
        encoded (:meth:`_add_parts`), and a unit's ids are those of its parts."""
        data, part_starts, part_ends, counts = cut_parts(buffer, starts, ends)
        data_buffer = np.frombuffer(data + PAD, dtype=np.uint8)
        index = self.parts.find(data, data_buffer, part_starts, part_ends)
        if (index < 0).any():
            first = self.parts.add_missing(data, data_buffer, part_starts, part_ends, index)
            self._add_parts(data, data_buffer, part_starts[first], part_ends[first])
        lengths = self.part_length.array[index]
        ids = _gather(self.part_ids.array, self.part_start.array[index], lengths)
        self._keep(ids, np.add.reduceat(lengths, np.cumsum(counts) - counts))

    def _add_parts(
        self, data: bytes, buffer: np.ndarray, starts: np.ndarray, ends: np.ndarray
    ) -> None:
        """Split the parts ``data[starts[i]:ends[i]]`` (new, distinct) into pretokens, merge
        those all at once, and keep each part's ids, in order."""
        words_data, word_starts, word_ends, counts = split_units(
            data, buffer, starts, ends, self._space
        )
        words = [words_data[a:b] for a, b in zip(word_starts.tolist(), word_ends.tolist())]
        ids, offsets = self.merger.encode(words)
        lengths = np.add.reduceat(np.diff(offsets), np.cumsum(counts) - counts)
        start = self.part_ids.extend(ids)
        self.part_start.extend(start + np.cumsum(lengths) - lengths)
        self.part_length.extend(lengths)

    def _keep(self, ids: np.ndarray, lengths: np.ndarray) -> None:
        """Keep the ids of new units, ``lengths[i]`` of them for the next unit ``i``."""
        start = self.ids.extend(ids)
        self.unit_start.extend(start + np.concatenate(([0], np.cumsum(lengths)[:-1])))
        self.unit_length.extend(lengths)


def cut_parts(
    buffer: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> tuple[bytes, np.ndarray, np.ndarray, np.ndarray]:
    """The units ``buffer[starts[i]:ends[i]]`` joined into ``data``, each cut into *parts* at
    the safe cuts (:mod:`bpe_course.safe_cuts`) between two ASCII characters: a character that is
    not whitespace then whitespace, or two of different classes among letters, digits and other
    symbols, the first not an apostrophe. A part may be split alone, as the unit may; most parts
    are one pretoken, and a dictionary's many distinct units (``" (word),"``) share few distinct
    parts. Returns ``(data, part_starts, part_ends, counts)``, ``counts[i]`` parts for unit
    ``i``."""
    lengths = ends - starts
    raw = buffer[_spans(starts, lengths)]
    firsts = np.cumsum(lengths) - lengths
    kind = _KIND[raw]
    before, after = kind[:-1], kind[1:]
    cut = np.zeros(len(raw), dtype=bool)
    cut[1:] = (
        (before > 0)
        & (before < _SPACE_KIND)
        & ((after == _SPACE_KIND) | ((after > 0) & (after != before) & (raw[:-1] != _APOSTROPHE)))
    )
    cut[firsts] = True
    part_starts = np.flatnonzero(cut)
    part_ends = np.append(part_starts[1:], len(raw))
    return raw.tobytes(), part_starts, part_ends, np.add.reduceat(cut, firsts).astype(np.int64)


def split_units(
    text: bytes,
    buffer: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    is_space: Callable[[bytes], bool],
) -> tuple[bytes, np.ndarray, np.ndarray, np.ndarray]:
    """The pretokens of the units ``text[starts[i]:ends[i]]`` (each may be split alone; none
    holds a special token): ``(data, pretoken_starts, pretoken_ends, counts)``, the pretokens
    being slices of ``data``, unit after unit, ``counts[i]`` of them for unit ``i``.

    Units are joined and split by one ``findall`` where that is exact: a unit that ends in a
    character that is not whitespace, and starts with a separator (a space or a newline, which
    the pattern cuts before when a character that is not whitespace precedes it) or, after a
    newline put in front of it, with a character that is not whitespace (the newline is then a
    pretoken of its own, taken out again). ASCII units are split by the stdlib ``re`` on bytes,
    the others by ``regex`` on their decoded text; the rest one by one.
    """
    lengths = ends - starts
    groups, prefixed = _unit_groups(text, buffer, starts, ends, is_space)
    parts: list[bytes] = []
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (starts, ends, counts)
    offset = 0
    newline_at = len(buffer)  # where a newline is appended, to put in front of units
    source = np.append(buffer, np.uint8(_NEWLINE))
    for kind, members in enumerate(groups):
        if not len(members):
            continue
        if kind < 2:
            joined, pretoken_starts, pretoken_ends, counts = _split_joined(
                source, starts[members], lengths[members], prefixed[members], newline_at, kind == 0
            )
        else:
            joined, pretoken_starts, pretoken_ends, counts = _split_alone(
                text, starts[members], ends[members]
            )
        parts.append(joined)
        found.append((pretoken_starts + offset, pretoken_ends + offset, counts))
        offset += len(joined)
    return (b"".join(parts), *_in_unit_order(groups, found))


def _unit_groups(
    text: bytes,
    buffer: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    is_space: Callable[[bytes], bool],
) -> tuple[list[np.ndarray], np.ndarray]:
    """The units' indices in three groups (joinable ASCII, joinable other, split alone), and
    which units are split with a newline put in front (see :func:`split_units`)."""
    lengths = ends - starts
    if text.isascii():
        ascii_unit = np.ones(len(starts), dtype=bool)
    else:  # a unit is ASCII when none of its bytes is 0x80 or above
        high = buffer[_spans(starts, lengths)] >= 0x80
        ascii_unit = ~np.logical_or.reduceat(high, np.cumsum(lengths) - lengths)
    first_byte, last_byte = buffer[starts], buffer[ends - 1]
    ends_in_space = _ASCII_SPACE[last_byte]
    starts_with_space = _ASCII_SPACE[first_byte]
    for i in np.flatnonzero(last_byte >= 0x80).tolist():  # a wide space? (rare: checked alone)
        ends_in_space[i] = is_space(last_char(text[starts[i] : ends[i]]))
    for i in np.flatnonzero(first_byte >= 0x80).tolist():
        starts_with_space[i] = is_space(first_char(text, int(starts[i])))
    prefixed = ~_SEPARATOR[first_byte] & ~starts_with_space
    joinable = ~ends_in_space & (_SEPARATOR[first_byte] | prefixed)
    groups = [
        np.flatnonzero(joinable & ascii_unit),
        np.flatnonzero(joinable & ~ascii_unit),
        np.flatnonzero(~joinable),
    ]
    return groups, prefixed


def _split_joined(
    source: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    put_in: np.ndarray,
    newline_at: int,
    ascii_text: bool,
) -> tuple[bytes, np.ndarray, np.ndarray, np.ndarray]:
    """Joinable units split by one ``findall`` on their join; the newlines put in front of the
    units ``put_in`` are taken out again (each such unit's first pretoken)."""
    joined = _joined(source, starts, lengths, put_in, newline_at)
    sizes = _pretoken_sizes(joined, ascii_text=ascii_text)
    unit_ends = np.cumsum(lengths + put_in)
    pretoken_ends = np.cumsum(sizes)
    counts = np.diff(np.concatenate(([0], np.searchsorted(pretoken_ends, unit_ends, "right"))))
    pretoken_starts = pretoken_ends - sizes
    if put_in.any():
        keep = np.ones(len(sizes), dtype=bool)
        keep[(np.cumsum(counts) - counts)[put_in]] = False
        pretoken_starts, pretoken_ends = pretoken_starts[keep], pretoken_ends[keep]
        counts = counts - put_in
    return joined, pretoken_starts, pretoken_ends, counts


def _in_unit_order(
    groups: list[np.ndarray], found: list[tuple[np.ndarray, np.ndarray, np.ndarray]]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pretokens came group by group: put them back in the units' order."""
    n_units = sum(len(g) for g in groups)
    order = np.concatenate(groups)
    pretoken_starts = np.concatenate([f[0] for f in found])
    pretoken_ends = np.concatenate([f[1] for f in found])
    counts_in_order = np.concatenate([f[2] for f in found])
    counts = np.empty(n_units, dtype=np.int64)
    counts[order] = counts_in_order
    first_of_unit = np.empty(n_units, dtype=np.int64)
    first_of_unit[order] = np.cumsum(counts_in_order) - counts_in_order
    picks = _spans(first_of_unit, counts)
    return pretoken_starts[picks], pretoken_ends[picks], counts


def _joined(
    source: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    put_in: np.ndarray,
    newline_at: int,
) -> bytes:
    """The units ``source[starts[i]:starts[i] + lengths[i]]`` joined, each with a newline
    (``source[newline_at]``) in front of it where ``put_in`` says so."""
    sizes = lengths + put_in
    picks = _spans(starts - put_in, sizes)
    if put_in.any():
        picks[(np.cumsum(sizes) - sizes)[put_in]] = newline_at
    return source[picks].tobytes()


def _pretoken_sizes(joined: bytes, ascii_text: bool) -> np.ndarray:
    """The length in bytes of each pretoken of ``joined``, in order."""
    if ascii_text:
        found = _ASCII_PATTERN.findall(joined)
        return np.fromiter(map(len, found), dtype=np.int64, count=len(found))
    words = GPT2_REGEX.findall(joined.decode("utf-8"))
    # a pretoken's end in characters, then in bytes: where the character after it starts
    char_ends = np.cumsum(np.fromiter(map(len, words), dtype=np.int64, count=len(words)))
    raw = np.frombuffer(joined, dtype=np.uint8)
    char_starts = np.append(np.flatnonzero((raw & 0xC0) != 0x80), len(raw))
    byte_ends = char_starts[char_ends]
    return np.diff(np.concatenate(([0], byte_ends)))


def _split_alone(
    text: bytes, starts: np.ndarray, ends: np.ndarray
) -> tuple[bytes, np.ndarray, np.ndarray, np.ndarray]:
    """Each unit split by itself: the units joined, their pretokens' starts and ends in that,
    and how many each unit has."""
    sizes: list[int] = []
    counts: list[int] = []
    units = [text[a:b] for a, b in zip(starts.tolist(), ends.tolist())]
    for unit in units:
        if unit.isascii():
            found = [len(p) for p in _ASCII_PATTERN.findall(unit)]
        else:
            found = [len(p.encode("utf-8")) for p in GPT2_REGEX.findall(unit.decode("utf-8"))]
        sizes += found
        counts.append(len(found))
    pretoken_ends = np.cumsum(np.array(sizes, dtype=np.int64))
    pretoken_starts = pretoken_ends - np.array(sizes, dtype=np.int64)
    return b"".join(units), pretoken_starts, pretoken_ends, np.array(counts, dtype=np.int64)


def _gather(values: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``values[starts[i]:starts[i] + lengths[i]]`` for every ``i``, one after the other."""
    return values[_spans(starts, lengths)]


def _spans(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The indexes ``starts[i], ..., starts[i] + lengths[i] - 1`` for every ``i``, in order."""
    ends = np.cumsum(lengths)
    total = int(ends[-1]) if len(ends) else 0
    return np.repeat(starts - (ends - lengths), lengths) + np.arange(total)
