"""Exercise of notebook 09 (V5): pop the best pair from a lazily updated heap.

Write the function below, save, then grade it: ``check("pop_best")`` in the notebook, or
``bpe-course check pop_best`` in a terminal. The course's own solution is
``bpe_course.trainers.v5_heap.pop_best`` (which also counts stale entries, for statistics).
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
    """
    raise NotImplementedError("write pop_best")
