"""Looking many keys up at once: a hash table in numpy arrays, and an array that grows.

The file encoder looks up every piece of a chunk (prose has a piece every few bytes) and every
pair of tokens of the words it merges. A ``dict`` makes a Python object per key and answers one
key per call; :class:`KeyTable` answers them all in a few numpy passes: a key is two ``uint64``
words (a piece of up to 16 bytes; a pair of token ids), hashed to a slot of a table of a power of
two slots, and further slots are probed, for all the keys still unanswered at once, until each
finds its key or an empty slot (open addressing; each key steps by an odd stride of its own, a
second hash, so keys that collide part at once and few rounds are needed: with a stride of one,
the longest run of taken slots sets the number of rounds). Sorting the keys (``np.unique``) or
searching a sorted array (``np.searchsorted``) gives the same answers; the probes take a fraction
of their time on this work (``notebooks/results/measurements.md``).
"""

from __future__ import annotations

import numpy as np

_MIX0 = np.uint64(0x9E3779B97F4A7C15)  # odd constants: multiplying spreads a key's bits upwards
_MIX1 = np.uint64(0xC2B2AE3D27D4EB4F)
_ROW = np.dtype((np.void, 24))  # a slot: three words
_MIN_BITS = 10


class KeyTable:
    """Keys of two ``uint64`` words each -> values (non-negative ``int64``), in numpy arrays.

    :meth:`get` answers many keys at once (``-1`` where a key is absent); :meth:`add` inserts
    keys not yet held. A slot is one row of three words (the key's two, and the value plus one;
    0 marks an empty slot), so a probe reads one place in memory. The table grows when it is two
    thirds full, so a probe stops soon.
    """

    def __init__(self, bits: int = 16) -> None:
        self._allocate(bits)
        self.count = 0

    def _allocate(self, bits: int) -> None:
        self.bits = bits
        self._mask = np.int64((1 << bits) - 1)
        self._shift = np.uint64(64 - bits)
        self._rows = np.zeros((1 << bits, 3), dtype=np.uint64)
        # the same memory as one row per element, and as one word per element: ``np.put`` into
        # those writes many rows (or values) at once, several times faster than ``rows[i] = ...``
        self._row_view = self._rows.view(_ROW).ravel()
        self._words = self._rows.ravel()

    def __len__(self) -> int:
        return self.count

    @property
    def nbytes(self) -> int:
        return self._rows.nbytes

    def _slots(self, k0: np.ndarray, k1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each key's first slot, and its step to the next (odd: every slot is reached)."""
        first = ((k0 * _MIX0 ^ k1 * _MIX1) >> self._shift).astype(np.int64)
        step = ((k0 * _MIX1 ^ k1 * _MIX0) >> self._shift).astype(np.int64) | 1
        return first, step

    def get(self, k0: np.ndarray, k1: np.ndarray) -> np.ndarray:
        """The value of each key ``(k0[i], k1[i])``, or -1 where it is absent."""
        slots, steps = self._slots(k0, k1)
        rows = np.take(self._rows, slots, axis=0)
        values = rows[:, 2].astype(np.int64) - 1  # -1 where the slot is empty
        # a slot holding another key: probe on, only for those
        again = np.flatnonzero((values >= 0) & ((rows[:, 0] != k0) | (rows[:, 1] != k1)))
        values[again] = -1
        while len(again):
            slots[again] = (slots[again] + steps[again]) & self._mask
            rows = np.take(self._rows, slots[again], axis=0)
            held = rows[:, 2].astype(np.int64) - 1
            found = (rows[:, 0] == k0[again]) & (rows[:, 1] == k1[again]) & (held >= 0)
            values[again[found]] = held[found]
            again = again[~found & (held >= 0)]
        return values

    def add(self, k0: np.ndarray, k1: np.ndarray, values: np.ndarray) -> None:
        """Insert the keys ``(k0[i], k1[i])`` with ``values[i]``: distinct keys, none held yet."""
        self._make_room(len(k0))
        slots = self._place(k0, k1)
        self._set_values(slots, values.astype(np.uint64) + np.uint64(1))
        self.count += len(k0)

    def add_new(self, k0: np.ndarray, k1: np.ndarray, first: int) -> tuple[np.ndarray, np.ndarray]:
        """Insert keys none of which is held yet, but which may repeat: each distinct one gets
        the next value from ``first`` on. Return the value of every key, and one position in the
        arguments of each distinct key, in the order of their values."""
        # room for every key, were none a copy; but filled up to 9/10 at most while placing (a
        # stride of its own per key keeps the rounds few), then grown to two thirds at most once
        # the copies are known: most keys of a chunk's new units are copies
        if 10 * (self.count + len(k0)) > 9 * (1 << self.bits):
            self._resize(self.count + len(k0))
        slots = self._place(k0, k1)
        positions = np.arange(len(k0), dtype=np.uint64)
        # one occurrence of each new key is recorded in its slot (whichever: any will do)
        self._set_values(slots, positions + np.uint64(1))
        chosen = np.flatnonzero(self._words[3 * slots + 2] == positions + np.uint64(1))
        new = np.arange(first, first + len(chosen), dtype=np.uint64) + np.uint64(1)
        self._set_values(slots[chosen], new)
        self.count += len(chosen)
        values = self._words[3 * slots + 2].astype(np.int64) - 1
        if 8 * self.count < (1 << self.bits) and self.bits > _MIN_BITS:
            self._resize(self.count)  # room was made for every key, and most were copies
        else:
            self._make_room(0)
        return values, chosen

    def _set_values(self, slots: np.ndarray, stored: np.ndarray) -> None:
        np.put(self._words, 3 * slots + 2, stored)

    def _make_room(self, adding: int) -> None:
        if 3 * (self.count + adding) > 2 * (1 << self.bits):  # at most two thirds full
            self._resize(self.count + adding)

    def _place(self, k0: np.ndarray, k1: np.ndarray) -> np.ndarray:
        """The slot of each key: its own if held, else an empty one it is written to (copies of
        a key share one). A slot written here holds a value of 0 for "taken": set it after."""
        slots, steps = self._slots(k0, k1)
        pending = np.arange(len(k0))
        taken = np.uint64(1 << 63)  # a slot being filled: not empty
        while len(pending):
            at = slots[pending]
            held = np.take(self._rows, at, axis=0)
            free = held[:, 2] == 0
            claim = pending[free]
            # the claimants of a free slot all write it; one of them is there after (which one
            # does not matter); a slot filled here is marked taken until its value is set
            rows = np.stack((k0[claim], k1[claim], np.full(len(claim), taken)), axis=1)
            np.put(self._row_view, slots[claim], rows.astype(np.uint64).view(_ROW).ravel())
            held[free] = np.take(self._rows, slots[claim], axis=0)
            found = (held[:, 0] == k0[pending]) & (held[:, 1] == k1[pending])
            pending = pending[~found]
            slots[pending] = (slots[pending] + steps[pending]) & self._mask
        return slots

    def _resize(self, wanted: int) -> None:
        """Rehash into the fewest slots (at least ``2 ** _MIN_BITS``) that ``wanted`` keys fill
        half at most."""
        held = self._rows[self._rows[:, 2] != 0]
        bits = _MIN_BITS
        while 2 * wanted > (1 << bits):
            bits += 1
        self._allocate(bits)
        slots = self._place(held[:, 0].copy(), held[:, 1].copy())
        self._set_values(slots, held[:, 2].copy())


class Growing:
    """A 1-d numpy array appended to in place: its capacity doubles when it is full."""

    def __init__(self, dtype: np.dtype | type, capacity: int = 1024) -> None:
        self._data = np.empty(capacity, dtype=dtype)
        self.size = 0

    def __len__(self) -> int:
        return self.size

    @property
    def array(self) -> np.ndarray:
        """The values appended so far (a view: it changes if more are appended)."""
        return self._data[: self.size]

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    def extend(self, values: np.ndarray) -> int:
        """Append ``values``; return the index of the first of them."""
        start, end = self.size, self.size + len(values)
        if end > len(self._data):
            bigger = np.empty(max(end, 2 * len(self._data)), dtype=self._data.dtype)
            bigger[:start] = self._data[:start]
            self._data = bigger
        self._data[start:end] = values
        self.size = end
        return start


# the bytes of a word below a slice's length, by length (0 to 8): word & KEEP[length]
_KEEP = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
PAD = bytes(16)  # to append to a text whose slices are keyed: keys read 16 bytes from a start


def slice_keys(
    buffer: np.ndarray, starts: np.ndarray, lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The key of each slice of 1 to 16 bytes: its bytes as two little-endian ``uint64`` words,
    zeroed past its end. ``buffer``: the text's bytes with :data:`PAD` after them."""
    words = np.ndarray((len(buffer) - 7,), dtype="<u8", buffer=buffer, strides=(1,))
    k0 = (words[starts] & _KEEP[np.minimum(lengths, 8)]).astype(np.uint64)
    k1 = np.zeros(len(starts), dtype=np.uint64)
    longer = np.flatnonzero(lengths > 8)
    k1[longer] = words[starts[longer] + 8] & _KEEP[lengths[longer] - 8]
    return k0, k1


class SliceIndex:
    """Byte strings that hold no NUL byte -> indexes 0, 1, 2, ... in the order they were added.

    Those of up to 16 bytes are keyed by their bytes (:func:`slice_keys`; zeros past the end
    cannot be mistaken for bytes of a string with no NUL) in a :class:`KeyTable`, looked up all at
    once; longer ones in a ``dict``. Strings are given as slices of a text: ``starts`` and ``ends``.
    """

    def __init__(self) -> None:
        self.keyed = KeyTable()
        self.long: dict[bytes, int] = {}

    def __len__(self) -> int:
        return len(self.keyed) + len(self.long)

    @property
    def nbytes(self) -> int:
        """About how many bytes it holds (a long string's entry counted at 100 bytes)."""
        return self.keyed.nbytes + 100 * len(self.long)

    def find(
        self, text: bytes, buffer: np.ndarray, starts: np.ndarray, ends: np.ndarray
    ) -> np.ndarray:
        """The index of each slice ``text[starts[i]:ends[i]]``, -1 where it is absent.
        ``buffer``: ``text`` and :data:`PAD`, as ``uint8``."""
        lengths = ends - starts
        index = np.full(len(starts), -1, dtype=np.int64)
        keyed = np.flatnonzero(lengths <= 16)
        if len(keyed):
            k0, k1 = slice_keys(buffer, starts[keyed], lengths[keyed])
            index[keyed] = self.keyed.get(k0, k1)
        long = np.flatnonzero(lengths > 16)
        if len(long):
            get = self.long.get
            index[long] = [
                get(text[a:b], -1) for a, b in zip(starts[long].tolist(), ends[long].tolist())
            ]
        return index

    def add_missing(
        self,
        text: bytes,
        buffer: np.ndarray,
        starts: np.ndarray,
        ends: np.ndarray,
        index: np.ndarray,
    ) -> np.ndarray:
        """Add the distinct slices whose ``index`` is -1, numbered from ``len(self)`` on, and fill
        their ``index`` in; return where the added slices first occur (positions in ``starts``),
        in the order of their new indexes."""
        base = len(self)
        missing = np.flatnonzero(index < 0)
        lengths = ends[missing] - starts[missing]
        keyed = missing[lengths <= 16]
        k0, k1 = slice_keys(buffer, starts[keyed], ends[keyed] - starts[keyed])
        index[keyed], chosen = self.keyed.add_new(k0, k1, base)
        added = [keyed[chosen]]
        long = missing[lengths > 16]
        if len(long):
            numbers: dict[bytes, int] = {}
            at: list[int] = []
            next_index = base + len(chosen)
            found = []
            for position, a, b in zip(long.tolist(), starts[long].tolist(), ends[long].tolist()):
                key = text[a:b]
                number = numbers.get(key)
                if number is None:
                    number = numbers[key] = next_index + len(at)
                    at.append(position)
                found.append(number)
            index[long] = found
            self.long.update(numbers)
            added.append(np.array(at, dtype=np.int64))
        return np.concatenate(added)
