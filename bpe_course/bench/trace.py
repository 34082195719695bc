"""The per-merge cost of a trainer, merge by merge: what each merge touched and how long it took.

Runs in this process (it explains costs, it is not a benchmark cell: those run in fresh processes,
:mod:`bpe_course.bench.harness`).
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd

from bpe_course.counting import count_words
from bpe_course.pretokenize import END_OF_TEXT as EOT
from bpe_course.trainers import get_trainer


def merge_trace(
    corpus: str | Path,
    vocab_size: int,
    versions: tuple[str, ...] = ("v4", "v5"),
    special_tokens: tuple[str, ...] = (EOT,),
) -> pd.DataFrame:
    """Per-merge cost of each version on one corpus: one row per merge and version.

    Columns: ``version``, ``merge`` (1-based), ``words_touched``, ``seconds`` (wall time of that
    merge, taken between callbacks, so it includes finding the best pair and the word updates),
    ``count`` and, for V5, ``heap_size`` and ``live_pairs``. Runs in this process: it explains
    costs, it is not a benchmark cell.
    """

    word_counts = count_words(corpus, special_tokens)
    rows = []
    for version in versions:
        clock = [0.0]

        def record(event, version=version, clock=clock) -> None:
            now = time.perf_counter()
            rows.append(
                {
                    "version": version,
                    "merge": event.index + 1,
                    "words_touched": event.words_touched,
                    "seconds": now - clock[0],
                    "count": event.count,
                    "heap_size": event.heap.size if event.heap else None,
                    "live_pairs": event.heap.live_pairs if event.heap else None,
                }
            )
            clock[0] = time.perf_counter()  # the callback's own time is not charged to a merge

        clock[0] = time.perf_counter()
        get_trainer(version).merge_loop(word_counts, vocab_size, special_tokens, on_merge=record)
    return pd.DataFrame(rows)
