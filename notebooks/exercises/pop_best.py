"""Exercise of notebook 09: pop the best pair from a lazily updated heap (V5).

V5's step 1: pop the best pair from a lazily updated heap.

Write the function below, save, then grade it: ``check("pop_best")`` in the notebook, or
``bpe-course check pop_best`` in a terminal. (Made by ``python -m
bpe_course.course.exercises.stubs`` from the course's own solution, with the solution taken
out.)
"""

from __future__ import annotations

import heapq  # noqa: F401 (the course's solution uses it)
from collections.abc import Mapping

from bpe_course.trainers.v5_heap import P


def pop_best(
    heap: list[tuple[int, bytes, P]], pair_counts: Mapping[P, int]
) -> tuple[tuple[int, bytes, P] | None, int, int]:
    """Pop entries ``(-count, key, pair)`` from the min-heap ``heap`` until one is live: that
    entry holds the best pair. Returns it (None if the heap runs out), the stale entries popped,
    and how many of those were pushed back (V5's statistics, :class:`HeapStats`).

    An entry is live when ``count`` equals the pair's count in ``pair_counts`` (a pair not in it
    has count 0). A stale entry is dropped, except when its pair is alive with a lower count: then
    push ``(-live count, key, pair)`` back, where it now belongs. The live entry found is popped
    too. Do not change ``pair_counts``; keep ``heap`` a heap (use ``heapq``).

    Below, ``(2, 3)`` is gone (stale: dropped), ``(0, 1)`` was counted 7 and is now 5 (stale,
    alive lower: pushed back at 5), and ``(1, 2)``'s entry holds its count 6 (live: returned).
    The keys here are placeholders; V5's order equal counts by the pairs' bytes, as the
    tie-break does.

    >>> import heapq
    >>> heap = [(-7, b"k01", (0, 1)), (-6, b"k12", (1, 2)), (-9, b"k23", (2, 3))]
    >>> heapq.heapify(heap)
    >>> pop_best(heap, {(0, 1): 5, (1, 2): 6})
    ((-6, b'k12', (1, 2)), 2, 1)
    >>> heap
    [(-5, b'k01', (0, 1))]
    """
    raise NotImplementedError("write pop_best")
