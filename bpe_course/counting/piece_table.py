"""Counting equal pieces with numpy: a piece of up to 8 bytes is one integer key, up to 16 two.

:class:`~bpe_course.counting.pieces.PieceCounter` counts the pieces of a text: each separator byte (a
space, a newline, a NUL where a special token was) with the bytes up to the next one. A
``Counter`` of them makes a ``bytes`` object per piece, hashes it and looks it up in a hash
table; on text with many distinct pieces the table outgrows the processor's caches and most
lookups wait for memory: updating a large table then costs more than filling a fresh one.

Here no object is made per piece. A piece of at most 8 bytes, read as a little-endian 64-bit
integer with the bytes past its end zeroed, *is* its key; a piece of 9 to 16 bytes is two such
integers. A piece starts with its separator and holds no NUL byte after it, so two different
pieces always have different keys (the zeros past a piece's end cannot be bytes of the piece),
and counting them is sorting: numpy sorts a chunk's keys and counts each run of equal ones, and
the chunks' tables are summed the same way every few chunks. The two-integer keys are sorted by
a 64-bit mix of the two and then checked equal within each run of equal mixes; where two keys
share a mix (never seen, but possible) that reduction sorts by both integers instead. Longer
pieces (few in prose) and every piece of a text with a NUL byte inside a piece go to a
``Counter``. The counts are those of a ``Counter`` of the same pieces on every input (tests
check it with hypothesis). What the table bought against a ``Counter`` was measured: the figures
are in ``notebooks/results/measurements.md``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from operator import itemgetter

import numpy as np

__all__ = ["PieceTable", "non_ascii_shares", "piece_ends", "separator_positions"]

_PAD = bytes(16)  # read past the last piece: keys are read 8 or 16 bytes at a time
_MIX = np.uint64(0x9E3779B97F4A7C15)  # odd: k0 * _MIX ^ k1 spreads two keys over one
# the bytes of a key below a piece's length, by length (0 to 8): key & _KEEP[length]
_KEEP = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
# non_ascii_shares looks at the pieces whose hash is 0 modulo this: one in 16.
_SAMPLE = 16
# Odd multipliers that mix the parts of a piece (its first 16 bytes, its last 8, its length)
# into one 64-bit hash.
_MIXERS = np.array(
    [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93],
    dtype=np.uint64,
)
# Rows waiting to be summed into the table before it is summed again (at least this many, and at
# least as many as the table holds, so each row is sorted a few times at most).
_SUM_EVERY = 1 << 20


class PieceTable:
    """How often each piece (a separator byte and what follows it up to the next) occurred, over
    many texts.

    Pieces of 1 to 8 bytes are kept as one ``uint64`` key each, pieces of 9 to 16 bytes as two,
    longer ones in a ``Counter``.
    """

    def __init__(self) -> None:
        self._short: list[tuple[np.ndarray, np.ndarray]] = []  # (keys, counts), first one summed
        self._mid: list[tuple[np.ndarray, np.ndarray]] = []  # (keys of shape (n, 2), counts)
        self._waiting = 0  # rows added since the last sum
        self._rows = 0  # rows held in all the arrays, summed or not
        self.others: Counter[bytes] = Counter()  # longer pieces, and those with a NUL byte
        self._short_in_others = False  # whether pieces of up to 16 bytes went to ``others``

    def __len__(self) -> int:
        """Distinct pieces held: exact just after a sum, an upper bound between sums."""
        return self._rows + len(self.others)

    def count(self, data: bytes, starts: np.ndarray, ends: np.ndarray) -> None:
        """Count the pieces ``data[starts[i]:ends[i]]`` (the pieces of a text are its
        :func:`separator_positions` to their :func:`piece_ends`; a caller may leave some out).

        Keys tell pieces apart only where no piece holds a NUL byte past its first (a NUL there
        would look like the zeros past its end): data that has one is counted by the ``Counter``.
        """
        n = len(data)
        buffer = np.frombuffer(data + _PAD, dtype=np.uint8)
        if b"\0" in data and _nul_inside(buffer[:n], starts, ends):
            self.others.update([data[a:b] for a, b in zip(starts.tolist(), ends.tolist())])
            self._short_in_others = True
            return
        lengths = ends - starts
        # the 8 bytes from every position, as one (unaligned) uint64 view of the same memory
        words = np.ndarray((n + 1,), dtype="<u8", buffer=buffer, strides=(1,))
        short = lengths <= 8
        s, length = starts[short], lengths[short]
        self._add_rows(self._short, np.unique(words[s] & _KEEP[length], return_counts=True))
        mid = ~short & (lengths <= 16)
        s, length = starts[mid], lengths[mid]
        keys = np.stack((words[s], words[s + 8] & _KEEP[length - 8]), axis=1)
        self._add_rows(self._mid, _sum_pairs(keys, np.ones(len(keys), dtype=np.int64)))
        long = lengths > 16
        if long.any():
            self.others.update(
                [data[a:b] for a, b in zip(starts[long].tolist(), ends[long].tolist())]
            )
        self._waiting += len(starts)
        if self._waiting >= max(_SUM_EVERY, len(self._short[0][0]) + len(self._mid[0][0])):
            self._sum()

    def items(self, batch: int) -> Iterator[list[tuple[bytes, int]]]:
        """Every piece with a count above 0, as ``(piece, count)``, ``batch`` at a time (so
        only that many ``bytes`` objects are made at once), by count within each kind of key
        (so the pieces of one count come together)."""
        self._fold_in_others()
        self._sum()
        for (keys, counts), width in ((self._short[0], 8), (self._mid[0], 16)):
            live = np.flatnonzero(counts > 0)
            live = live[np.argsort(counts[live], kind="stable")]
            for start in range(0, len(live), batch):
                rows = live[start : start + batch]
                raw = keys[rows].tobytes()  # a piece's first byte may be NUL: never stripped
                pieces = [
                    raw[i : i + 1] + raw[i + 1 : i + width].rstrip(b"\0")
                    for i in range(0, len(raw), width)
                ]
                yield list(zip(pieces, counts[rows].tolist()))
        rest = sorted(self.others.items(), key=itemgetter(1))  # counts only grow: all above 0
        for start in range(0, len(rest), batch):
            yield rest[start : start + batch]

    def _fold_in_others(self) -> None:
        """Move the pieces of ``others`` that have a key (up to 16 bytes, no NUL) into the
        arrays, so each piece is counted in one place."""
        if not self._short_in_others:  # only longer pieces there: nothing to move
            return
        self._short_in_others = False
        short: list[tuple[bytes, int]] = []  # (piece, count)
        mid: list[tuple[bytes, int]] = []
        for piece in list(self.others):
            if 0 < len(piece) <= 16 and b"\0" not in piece[1:]:
                (short if len(piece) <= 8 else mid).append((piece, self.others.pop(piece)))
        if short:
            keys = np.array([int.from_bytes(p, "little") for p, _ in short], dtype=np.uint64)
            self._add_rows(self._short, (keys, np.array([c for _, c in short], dtype=np.int64)))
        if mid:
            raw = b"".join(p.ljust(16, b"\0") for p, _ in mid)
            keys = np.frombuffer(raw, dtype="<u8").reshape(-1, 2).astype(np.uint64)
            self._add_rows(self._mid, (keys, np.array([c for _, c in mid], dtype=np.int64)))

    def _add_rows(self, tables: list, table: tuple[np.ndarray, np.ndarray]) -> None:
        tables.append(table)
        self._rows += len(table[0])

    def _sum(self) -> None:
        """Sum the waiting tables into one, for each kind of key."""
        if len(self._short) != 1:
            keys = np.concatenate([k for k, _ in self._short] or [np.empty(0, np.uint64)])
            counts = np.concatenate([c for _, c in self._short] or [np.empty(0, np.int64)])
            self._short = [_sum_keys(keys, counts)]
        if len(self._mid) != 1:
            keys = np.concatenate([k for k, _ in self._mid] or [np.empty((0, 2), np.uint64)])
            counts = np.concatenate([c for _, c in self._mid] or [np.empty(0, np.int64)])
            self._mid = [_sum_pairs(keys, counts)]
        self._waiting = 0
        self._rows = len(self._short[0][0]) + len(self._mid[0][0])


def separator_positions(data: bytes, separators: bytes) -> np.ndarray:
    """Where each of the ``separators`` bytes occurs in ``data``, in order."""
    buffer = np.frombuffer(data, dtype=np.uint8)
    is_separator = buffer == separators[0]
    for separator in separators[1:]:
        is_separator |= buffer == separator
    return np.flatnonzero(is_separator)


def _nul_inside(buffer: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> bool:
    """Whether a NUL byte lies inside a piece, past its first byte."""
    nul = np.flatnonzero(buffer == 0)
    piece = np.searchsorted(starts, nul, side="right") - 1  # the last piece starting at or before
    held = piece >= 0
    piece, nul = piece[held], nul[held]
    return bool(((starts[piece] < nul) & (nul < ends[piece])).any())


def non_ascii_shares(data: bytes, starts: np.ndarray, ends: np.ndarray) -> tuple[float, float]:
    """Two shares of ``data``'s bytes, of the pieces that hold a byte that is not ASCII: those
    longer than 16 bytes, and (an estimate) the distinct ones of up to 16 bytes, each counted
    once. Only those pieces are hashed, so text that is nearly all ASCII costs little more than
    one pass over its bytes.

    Such pieces are split with ``regex`` on decoded text, after a ``bytes`` object and a few
    steps in Python each (one per occurrence for a piece longer than 16 bytes), where the plain
    pattern pays once per byte and pretoken: where most of a text is such pieces, long (Chinese
    or Japanese with a space every few characters) or short and each seen once (words of a
    script that is not ASCII that never repeat), pieces only add work. The distinct share is estimated
    from the pieces whose 64-bit hash (of their first 16 bytes, last 8 and length) falls in one
    class of ``_SAMPLE``: every copy of a piece has the same hash, so the sample keeps the
    text's repeats, and it costs a few numpy passes over the pieces. Two different pieces with
    the same hash count once, which errs towards pieces.
    """
    n = len(data)
    if n == 0 or not len(starts):
        return 0.0, 0.0
    buffer = np.frombuffer(data + _PAD, dtype=np.uint8)
    # the pieces that hold a byte that is not ASCII
    high = np.zeros(n + 1, dtype=np.int32)  # bytes that are not ASCII before each offset
    np.cumsum(buffer[:n] >= 0x80, out=high[1:])
    holding = high[ends] > high[starts]
    starts, ends = starts[holding], ends[holding]
    words = np.ndarray((n + 9,), dtype="<u8", buffer=buffer, strides=(1,))  # to byte n + 16
    lengths = ends - starts
    head = words[starts] & _KEEP[np.minimum(lengths, 8)]
    middle = words[starts + 8] & _KEEP[np.clip(lengths - 8, 0, 8)]
    tail = np.where(lengths > 16, words[np.maximum(ends - 8, 0)], np.uint64(0))
    with np.errstate(over="ignore"):  # the products wrap around: that is the mixing
        key = head * _MIXERS[0] ^ middle * _MIXERS[1] ^ tail * _MIXERS[2]
        key ^= lengths.astype(np.uint64) * _MIXERS[3]
        key ^= key >> np.uint64(31)
        key *= _MIXERS[0]
        key ^= key >> np.uint64(29)
    long = float(lengths[lengths > 16].sum()) / n
    sampled = (lengths <= 16) & (key % np.uint64(_SAMPLE) == 0)
    _, first = np.unique(key[sampled], return_index=True)
    return long, float(lengths[sampled][first].sum()) * _SAMPLE / n


def piece_ends(starts: np.ndarray, size: int) -> np.ndarray:
    """Where each piece ends: at the next one's start, the last at ``size``."""
    return np.append(starts[1:], size)


def _sum_keys(keys: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each distinct key once, with the sum of its counts."""
    order = np.argsort(keys)
    keys = keys[order]
    first = _run_starts(keys != np.roll(keys, 1))
    return keys[first], np.add.reduceat(counts[order], first) if len(first) else counts[:0]


def _sum_pairs(keys: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each distinct row of ``keys`` (shape ``(n, 2)``) once, with the sum of its counts."""
    if len(keys) == 0:
        return keys, counts
    mixed = keys[:, 0] * _MIX ^ keys[:, 1]
    order = np.argsort(mixed)
    keys, counts, mixed = keys[order], counts[order], mixed[order]
    first = _run_starts(mixed != np.roll(mixed, 1))
    sizes = np.diff(np.append(first, len(keys)))
    if not (keys == np.repeat(keys[first], sizes, axis=0)).all():
        # two different keys share a mix: sort by the keys themselves (exact, slower)
        order = np.lexsort((keys[:, 1], keys[:, 0]))
        keys, counts = keys[order], counts[order]
        first = _run_starts((keys != np.roll(keys, 1, axis=0)).any(axis=1))
    return keys[first], np.add.reduceat(counts, first)


def _run_starts(differs_from_previous: np.ndarray) -> np.ndarray:
    """The indexes where a run of equal sorted values starts (the first row always does)."""
    if len(differs_from_previous):
        differs_from_previous[0] = True
    return np.flatnonzero(differs_from_previous)
