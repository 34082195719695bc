"""Reading a task's text: its chunks as UTF-8 bytes, each a text a counter may count alone.

A plain chunk is read as it was planned. A ``.gz`` file is one chunk, streamed: it is read in
blocks and each block is counted up to its last cut, the last occurrence of the split token or
the last safe cut (:mod:`bpe_course.safe_cuts`), whichever comes later; what follows waits for
the next block. Memory then holds a block and the bytes after its last cut: a few bytes, unless
the text has no cut at all for a long stretch (one huge pretoken).

Decoding is the counters' (pieces decode only their distinct pieces); where it fails,
:func:`raise_invalid_utf8` reads the task again to name the file and the offset of the first bad
byte.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from bpe_course.counting.plan import (
    ByteRange,
    Task,
    chunk_bytes,
    long_stretch_bytes,
    pick_split_token,
    refuse_long_word,
)
from bpe_course.counting.sources import changed_while_counted
from bpe_course.errors import BPEInputError
from bpe_course.pretokenize import GPT2_PATTERN
from bpe_course.safe_cuts import next_safe_cut

_TAIL_BLOCK = 1 << 16  # where a .gz block looks for its last safe cut: 2 of these from its end
_DECOMPRESSED = " of the decompressed data"


class Text(NamedTuple):
    """Bytes of a file that may be counted alone: ``data`` starts at byte ``offset`` of
    ``path`` (of its decompressed data for a ``.gz``); ``read`` is how far the reading got
    on disk since the text before (compressed bytes, for a ``.gz``)."""

    data: bytes
    path: str
    offset: int
    read: int

    @property
    def where(self) -> str:
        return _DECOMPRESSED if self.path.endswith(".gz") else ""


def task_texts(task: Task) -> Iterator[Text]:
    """The texts of ``task``'s chunks, in order."""
    for byte_range in task.ranges:
        if byte_range.compressed:
            yield from _gzip_texts(byte_range, task)
        else:
            yield Text(read_range(byte_range), byte_range.path, byte_range.start, byte_range.size)


def read_range(byte_range: ByteRange) -> bytes:
    """The bytes of a plain range, all of them: a file cut short since it was planned is one
    clear error, never a text counted in part."""
    path, start, end = byte_range
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read(end - start)
    if len(data) != end - start:
        raise changed_while_counted(path)
    return data


def _gzip_texts(byte_range: ByteRange, task: Task) -> Iterator[Text]:
    path = byte_range.path
    split = pick_split_token(task.special_tokens)
    token = split.encode("utf-8") if split else b""
    safe = task.pattern == GPT2_PATTERN  # safe cuts are GPT-2's: another pattern cuts at tokens
    pending = bytearray()  # bytes read but not counted yet: they start at offset `counted`
    counted = reported = 0
    with open(path, "rb") as raw, gzip.open(raw, "rb") as f:
        while block := f.read(chunk_bytes(task.counter)):
            # Search only where a new occurrence can be: the new block and the token's width before.
            search_from = max(1, len(pending) - len(token) + 1)
            pending += block
            cut = pending.rfind(token, search_from) if token else -1
            if safe:
                cut = max(cut, _last_safe_cut(pending, task.special_tokens))
                if cut <= 0 and len(pending) > long_stretch_bytes(task.max_word_bytes):
                    cut = _cut_or_long_word(
                        pending, task.special_tokens, path, counted, task.max_word_bytes
                    )
            if cut > 0:
                position = raw.tell()
                yield Text(bytes(pending[:cut]), path, counted, position - reported)
                reported = position
                del pending[:cut]
                counted += cut
    yield Text(bytes(pending), path, counted, byte_range.size - reported)


def _last_safe_cut(
    data: bytearray, special_tokens: Sequence[str], tail: int = 2 * _TAIL_BLOCK
) -> int:
    """A safe cut among the last ``tail`` bytes of ``data`` (its offset), or -1 if none."""
    start = max(0, len(data) - tail)
    cut = next_safe_cut(io.BytesIO(bytes(data[start:])), 0, special_tokens)
    return -1 if cut is None else start + cut


def _cut_or_long_word(
    pending: bytearray,
    special_tokens: Sequence[str],
    path: str,
    counted: int,
    max_word_bytes: int | None = None,
) -> int:
    """A safe cut in the last :func:`long_stretch_bytes` of ``pending``, a text grown past them
    with no cut in its tail; if there is none, the stretch holds a word too long (one line)
    unless special tokens are in it (then -1: read on)."""
    reach = long_stretch_bytes(max_word_bytes)
    cut = _last_safe_cut(pending, special_tokens, tail=reach)
    if cut == -1:
        start = len(pending) - reach
        refuse_long_word(
            bytes(pending[start:]),
            special_tokens,
            path,
            counted + start,
            _DECOMPRESSED,
            max_word_bytes=max_word_bytes,
        )
    return cut


def decode_utf8(data: bytes | bytearray, path: str, offset: int, where: str = "") -> str:
    """``data`` as text, or one clear error naming the file and the byte offset of the bad byte.

    ``offset`` is where ``data`` starts in the file; ``where`` qualifies it (a ``.gz`` file's
    offsets count the decompressed bytes).
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise BPEInputError(
            f"{path} is not valid UTF-8: byte 0x{data[err.start]:02x} at byte offset "
            f"{offset + err.start}{where} ({err.reason}). Re-encode the file as UTF-8 (for example "
            "with iconv) and try again."
        ) from None


def read_text(path: str, start: int, end: int) -> str:
    """Bytes ``start:end`` of a plain file as text, or a clear error naming the first invalid byte."""
    return decode_utf8(read_range(ByteRange(path, start, end)), path, start)


def raise_invalid_utf8(task: Task) -> None:
    """Raise the error that names the first byte of ``task`` that is not UTF-8 (a counter found
    one, but the counters do not know where: pieces decode only their distinct pieces)."""
    for text in task_texts(task):
        decode_utf8(text.data, text.path, text.offset, text.where)
