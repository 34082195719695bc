"""Counting one task, and adding counts up: the work a process of the pool or a Dask worker does.

:func:`count_task` lives at module level, so a worker started by spawn (or on another machine)
imports it by name. It reads the task's texts (:mod:`bpe_course.counting.texts`), feeds them to
the counter the task names (:mod:`bpe_course.counting.counters`), reports the bytes it has read
(:func:`bpe_course.pool.report_progress`), and returns ``{word bytes: count}``. A file that
vanished, became unreadable, is not a whole gzip file or is not UTF-8 is one clear error naming
it.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping

from bpe_course.counting.counters import make_counter
from bpe_course.counting.plan import Task, word_too_long
from bpe_course.counting.texts import raise_invalid_utf8, task_texts
from bpe_course.errors import BPEInputError
from bpe_course.pool import report_progress


def count_task(task: Task) -> dict[bytes, int]:
    """The word counts of every chunk of ``task``."""
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
        add_into(totals, counter.word_counts())
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


def add_up(results: Iterable[dict[bytes, int]]) -> dict[bytes, int]:
    """The sum of the tasks' counts; the first result is kept as the total (no copy)."""
    results = iter(results)
    totals = next(results, {})
    for counts in results:
        add_into(totals, counts)
    return totals
