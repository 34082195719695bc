"""Counting one task, and adding counts up: the work a process of the pool or a Dask worker does.

:func:`count_task` lives at module level, so a worker started by spawn (or on another machine)
imports it by name. It reads the task's texts (:mod:`bpe_course.counting.texts`), feeds them to
the counter the task names (:mod:`bpe_course.counting.counters`), reports the bytes it has read
(:func:`bpe_course.pool.report_progress`), and returns ``{word bytes: count}``. A file that
vanished, became unreadable, is not a whole gzip file or is not UTF-8 is one clear error naming
it.

On the process pool, :func:`count_task_packed` counts instead and returns the counts packed
(:class:`PackedCounts`: the words' bytes joined, their lengths and counts as arrays), after
handing the memory its dict held back to the system: a dict holds two Python objects and an entry
for every distinct word, and a worker that waits for the pool to end would keep those pages
(``notebooks/results/measurements.md`` measures it). :func:`add_up` adds dicts and packed counts
alike.
"""

from __future__ import annotations

import zlib
from array import array
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import accumulate

from bpe_course.counting.counters import make_counter
from bpe_course.counting.plan import Task, word_too_long
from bpe_course.counting.texts import raise_invalid_utf8, task_texts
from bpe_course.errors import BPEInputError
from bpe_course.pool import release_free_memory, report_progress


@dataclass(frozen=True)
class PackedCounts:
    """Word counts in three compact parts: ``words``, the words' bytes joined; ``lengths``, each
    word's length; ``counts``, each word's count: no Python object per word."""

    words: bytes
    lengths: array  # unsigned 64-bit
    counts: array  # signed 64-bit

    @classmethod
    def pack(cls, counts: Mapping[bytes, int]) -> PackedCounts:
        return cls(b"".join(counts), array("Q", map(len, counts)), array("q", counts.values()))

    def __len__(self) -> int:
        return len(self.lengths)

    def items(self) -> Iterator[tuple[bytes, int]]:
        """``(word, count)`` pairs, in the packed order."""
        words, ends = self.words, accumulate(self.lengths)
        starts = accumulate(self.lengths, initial=0)
        return zip((words[start:end] for start, end in zip(starts, ends)), self.counts)


def count_task(task: Task) -> dict[bytes, int]:
    """The word counts of every chunk of ``task``."""
    counts = _count(task)
    return counts if type(counts) is dict else dict(counts)


def count_task_packed(task: Task) -> PackedCounts:
    """:func:`count_task`'s counts, packed (:class:`PackedCounts`), for a worker of the pool to
    send: its dict is freed, and the memory handed back, before the result is pickled."""
    counts = _count(task)
    packed = PackedCounts.pack(counts)
    del counts
    release_free_memory()
    return packed


def _count(task: Task) -> Mapping[bytes, int]:
    """The word counts of every chunk of ``task``: the counter's own mapping when it counted
    them all at once (no copy), else a dict of the counts added up."""
    totals: dict[bytes, int] = {}
    counter = make_counter(task.counter, task.special_tokens, task.pattern)
    path = task.ranges[0].path if task.ranges else ""
    try:
        for text in task_texts(task):
            path = text.path
            counter.add(text.data)
            report_progress(text.read)
            if counter.full:
                add_into(totals, counter.word_counts())
                counter = make_counter(task.counter, task.special_tokens, task.pattern)
        last = counter.word_counts()
        del counter  # its tables, before the counts are added up or packed
        if totals:
            add_into(totals, last)
            del last
        else:
            totals = last  # a Counter (a dict) or a dict: kept as it is
        if totals and max(map(len, totals)) > task.word_limit:
            raise_long_word(task, max(totals, key=len))
    except UnicodeDecodeError:
        raise_invalid_utf8(task)  # names the file and the offset of the first bad byte
        raise
    except OSError as err:  # gzip.BadGzipFile is an OSError too
        raise BPEInputError(f"cannot read {path}: {err.strerror or err}") from None
    except (EOFError, zlib.error) as err:
        raise BPEInputError(f"{path} is not a whole gzip file: {err}") from None
    return totals


def raise_long_word(task: Task, word: bytes) -> None:
    """Raise the error naming where ``word`` (over ``task``'s word limit, in its counts: a
    stretch shorter than planning looks at) is: its file and byte offset, read again."""
    limit = task.word_limit
    for text in task_texts(task):
        index = text.data.find(word)
        if index != -1:
            raise word_too_long(text.path, text.offset + index, word, text.where, limit)
    raise word_too_long(task.ranges[0].path, 0, word, "", limit)  # not found again: file changed


def add_into(totals: dict[bytes, int], counts: Mapping[bytes, int]) -> None:
    """Add ``counts`` into ``totals`` (an empty total takes them as they are)."""
    if not totals:
        totals.update(counts)
        return
    get = totals.get
    for word, count in counts.items():
        totals[word] = get(word, 0) + count


def add_up(results: Iterable[dict[bytes, int] | PackedCounts]) -> dict[bytes, int]:
    """The sum of the tasks' counts, dicts or packed; the first dict result is kept as the total
    (no copy), a packed one unpacked into it. Each packed result is dropped once added."""
    totals: dict[bytes, int] = {}
    for counts in results:
        if isinstance(counts, PackedCounts):
            if totals:
                get = totals.get
                for word, count in counts.items():
                    totals[word] = get(word, 0) + count
            else:
                totals = dict(counts.items())
        elif totals:
            add_into(totals, counts)
        else:
            totals = counts
        del counts
    return totals
