"""Exercise of notebook 09 (V5): pop the best pair from a lazily updated heap.

Write the function below, save, then grade it: ``check("pop_best")`` in the notebook, or
``bpe-course check pop_best`` in a terminal.
"""

import heapq  # noqa: F401 (you will need heappop and heappush)


def pop_best(
    heap: list[tuple[int, bytes, tuple[int, int]]], pair_counts: dict[tuple[int, int], int]
) -> tuple[int, int] | None:
    """Pop entries ``(-count, key, pair)`` from the min-heap ``heap`` until one is live, and
    return its pair (None if the heap runs out).

    An entry is live when ``count`` equals the pair's count in ``pair_counts`` (a pair not in it
    has count 0). A stale entry is dropped, except when its pair is alive with a lower count: then
    push ``(-live count, key, pair)`` back, where it now belongs. The live entry found is popped
    too. Do not change ``pair_counts``; keep ``heap`` a heap (use ``heapq``).

    Below, ``(0, 1)`` was counted 7 and is now 5 (stale, alive lower: pushed back at 5), ``(2, 3)``
    is gone (stale: dropped), and ``(1, 2)``'s entry holds its count 6 (live: returned). The keys
    here are placeholders; V5's order equal counts by the pairs' bytes, as the tie-break does.

    >>> import heapq
    >>> heap = [(-7, b"k01", (0, 1)), (-6, b"k12", (1, 2)), (-9, b"k23", (2, 3))]
    >>> heapq.heapify(heap)
    >>> pop_best(heap, {(0, 1): 5, (1, 2): 6})
    (1, 2)
    >>> heap
    [(-5, b'k01', (0, 1))]
    """
    raise NotImplementedError("write pop_best")
