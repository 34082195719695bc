"""Counting the words of a corpus: from text files to ``{word bytes: count}``, the merge loops' input.

One entry point, :func:`count_words`, for every caller (the API, the trainers' registry, the
command line, the benchmark, the notebooks). Its stages, each a module of this package:

1. :mod:`~bpe_course.counting.sources`: which files the corpus names (a file, a directory, a
   glob, a list; plain text or ``.gz``), each checked before any work starts;
2. :mod:`~bpe_course.counting.counters`: which counter counts (the pattern, or pieces first),
   chosen in one place, never changing the counts;
3. :mod:`~bpe_course.counting.plan`: the files cut into chunks that can be counted alone, dealt
   into tasks;
4. :mod:`~bpe_course.counting.tasks`: each task counted (its texts read by
   :mod:`~bpe_course.counting.texts`), here or on the process pool (:mod:`bpe_course.pool`), and
   the counts added up; or, with a ``scheduler``, on a Dask cluster
   (:mod:`~bpe_course.counting.cluster`, which plans and counts the same tasks).

The counts are the same for any number of workers, any counter and either place.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from bpe_course.bars import progress_bar
from bpe_course.counting.counters import choose_counter, counter_class
from bpe_course.counting.plan import (
    MIN_BYTES_PER_WORKER,
    TASKS_PER_WORKER,
    effective_workers,
    plan_tasks,
)
from bpe_course.counting.sources import Corpus, check_unchanged, file_states, resolve_sources
from bpe_course.counting.tasks import add_up, count_task, count_task_packed
from bpe_course.pool import StartMethod, run_tasks
from bpe_course.pretokenize import GPT2_PATTERN

if TYPE_CHECKING:
    from tqdm import tqdm

__all__ = ["Corpus", "corpus_shape", "count_words"]


def count_words(
    corpus: Corpus,
    special_tokens: Sequence[str] = (),
    workers: int | None = 1,
    *,
    counter: str = "pattern",
    pattern: str = GPT2_PATTERN,
    scheduler: str | None = None,
    progress: bool | None = None,
    on_counted: Callable[[int], object] | None = None,
    min_bytes_per_worker: int = MIN_BYTES_PER_WORKER,
    start_method: StartMethod = None,
    max_word_bytes: int | None = None,
) -> dict[bytes, int]:
    """Word counts of a corpus, ``{word bytes: count}``; the same for any ``workers``, any
    ``counter`` and any ``scheduler``.

    ``corpus``: a file, a directory, a glob pattern or a list of them, plain text or ``.gz``.
    ``workers``: processes (``None``: every core; fewer when the corpus is small: one per
    ``min_bytes_per_worker``; one means no pool at all). ``counter``: ``"pattern"`` or
    ``"pieces"`` (where pieces are not exact, the pattern counts: see
    :mod:`~bpe_course.counting.counters`). ``pattern``: the pretokenizer's pattern (GPT-2's by
    default). ``scheduler``: count on a Dask cluster instead, ``"local"`` or an address (the
    ``cluster`` extra). ``progress``: show a bar (bytes read; on Dask, tasks done).
    ``on_counted``: called with the bytes read as the counting goes. ``start_method``:
    ``"spawn"``, ``"fork"`` or ``"forkserver"`` for the pool. ``max_word_bytes``: the longest
    word counted (None: :data:`~bpe_course.counting.plan.MAX_WORD_BYTES`, 1 MB; a trainer's
    registry entry gives its own); a longer one is refused in one line
    (:class:`~bpe_course.errors.WordTooLongError`). A file that changes while it is
    counted stops the run (:func:`~bpe_course.counting.sources.check_unchanged`).

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "corpus.txt"
    ...     _ = path.write_text("the cat<|endoftext|>the dog", encoding="utf-8")
    ...     count_words(path, ["<|endoftext|>"])
    {b'the': 2, b' cat': 1, b' dog': 1}
    """
    chosen = choose_counter(counter, special_tokens, pattern)
    if scheduler is not None:
        # Dask's module only when a cluster is asked for: the local path never enters it
        from bpe_course.counting.cluster import count_words_on_cluster

        return count_words_on_cluster(
            corpus,
            special_tokens,
            scheduler=scheduler,
            workers=workers,
            counter=chosen,
            pattern=pattern,
            progress=progress,
            on_counted=on_counted,
            max_word_bytes=max_word_bytes,
        )
    paths = resolve_sources(corpus)
    states = file_states(paths)
    counter_class(chosen)  # its module loaded here, before the pool forks, not once per worker
    size = sum(path.stat().st_size for path in paths)
    n_workers = effective_workers(size, workers, min_bytes_per_worker)
    n_tasks = n_workers * TASKS_PER_WORKER[chosen] if n_workers > 1 else 1
    tasks = plan_tasks(
        paths, special_tokens, chosen, n_tasks, pattern=pattern, max_word_bytes=max_word_bytes
    )
    bar = progress_bar(progress, size, "pretokenize", "B")
    # on a pool, the workers send their counts packed (bytes and arrays, not a pickled dict)
    on_pool = n_workers > 1 and len(tasks) > 1  # as run_tasks decides
    try:
        results = run_tasks(
            count_task_packed if on_pool else count_task,
            tasks,
            n_workers,
            start_method=start_method,
            on_progress=_both(bar, on_counted),
        )
        word_counts = add_up(results)
    finally:
        if bar is not None:
            bar.close()
    check_unchanged(paths, states)
    return word_counts


def _both(
    bar: tqdm | None, on_counted: Callable[[int], object] | None
) -> Callable[[int], object] | None:
    """What the tasks' reports go to: the bar, the caller's function, both or neither."""
    if bar is None or on_counted is None:
        return on_counted if bar is None else bar.update

    def report(amount: int) -> None:
        bar.update(amount)
        on_counted(amount)

    return report


def corpus_shape(word_counts: Mapping[bytes, int]) -> tuple[int, int, float]:
    """The variables of the cost analysis, from word counts: ``(W, P, L)``.

    W: distinct words; P: distinct adjacent byte pairs over the distinct words, before any merge;
    L: mean length of a distinct word in bytes (how the V1-V5 post's table counts them).
    """
    pairs: set[tuple[int, int]] = set()
    for word in word_counts:
        pairs.update(zip(word, word[1:]))
    total = sum(len(word) for word in word_counts)
    return len(word_counts), len(pairs), total / max(1, len(word_counts))
