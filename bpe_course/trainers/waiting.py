"""Rare pairs wait outside the heap: the heap of fast (and shards) holds only pairs that may win soon.

A merge makes many pairs, and most are rare: counted far less often than any pair the run goes
on to merge (on a corpus of many distinct words, counted in ``notebooks/results/measurements.md``).
Pushing each into V5's heap costs a key (four ``bytes`` joined) and a sift, for entries most runs
never pop.

So pairs made with a count below a *floor* (a power of two) are not pushed: they wait in a bucket
by their count's bit length. Exact because of fast's rule that a pair is made only by the merge of
its newest token, so its count never rises after: a waiting pair stays below the floor, and while
the best live entry of the heap is at or above the floor it is the best of all pairs (strictly
above every waiting one, so ties never cross the floor). When the best falls below the floor,
the floor drops to the power of two at or below it and the buckets above the new floor enter the
heap with their counts of now (a pair whose count is 0, merged or lost, is dropped). A pair
enters the heap at most once, as before, and the run may end with most pairs never pushed.

Cost: O(1) per pair made (a comparison with the floor, then a push or an append); a waiting pair
is visited once more, when the floor drops below its bucket. Measured against fast's loop pushing every pair made, in turn in one process: fewer
pushes and less CPU, most where merges make many rare pairs (the figures and the command:
``notebooks/results/measurements.md``).
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping

from bpe_course.trainers.v5_heap import PairKeys, pop_best

__all__ = ["WaitingPairs"]


class WaitingPairs:
    """The pairs (integer codes ``left * base + right``) made below ``floor``, in buckets by the
    bit length of their count when made; :meth:`pop_best` lets them into the heap when needed."""

    def __init__(self, heap: list[tuple[int, bytes, int]], keys: PairKeys, base: int) -> None:
        self.keys, self.base = keys, base
        best = -heap[0][0] if heap else 1  # the heap was just built: its top entry is live
        self.floor = _power_of_two_at_most(best)
        self.buckets: list[list[int]] = [[] for _ in range(self.floor.bit_length())]

    def push_made(
        self,
        heap: list[tuple[int, bytes, int]],
        pair_counts: dict[int, int],
        merged: int,
        made: Mapping[int, int],
    ) -> None:
        """After the merge of ``merged``: it is dead (count 0); each pair made gets its count, and
        one heap entry if it reaches the floor, else a place in a bucket (a pair is made once)."""
        pair_counts[merged] = 0
        floor, buckets = self.floor, self.buckets
        for pair, count in made.items():
            pair_counts[pair] = count
            if count >= floor:
                heapq.heappush(heap, (-count, self.keys.of(*divmod(pair, self.base)), pair))
            else:
                buckets[count.bit_length()].append(pair)

    def pop_best(
        self, heap: list[tuple[int, bytes, int]], pair_counts: Mapping[int, int]
    ) -> tuple[tuple[int, bytes, int] | None, int, int]:
        """V5's :func:`~bpe_course.trainers.v5_heap.pop_best` over the heap and the waiting pairs:
        while the best live entry is below the floor and pairs wait, push it back, lower the
        floor and let the pairs above it in. The same return (stale and pushed-back tallies are
        the heap's)."""
        while True:
            top, stale, pushed_back = pop_best(heap, pair_counts)
            best = 0 if top is None else -top[0]
            if best >= self.floor or not any(self.buckets):
                return top, stale, pushed_back
            if top is not None:
                heapq.heappush(heap, top)
            self._lower_floor(heap, pair_counts, _power_of_two_at_most(best))

    def _lower_floor(
        self, heap: list[tuple[int, bytes, int]], pair_counts: Mapping[int, int], floor: int
    ) -> None:
        heappush, get, key_of, base = heapq.heappush, pair_counts.get, self.keys.of, self.base
        for bucket in self.buckets[floor.bit_length() :]:
            for pair in bucket:
                count = get(pair, 0)
                if count:
                    heappush(heap, (-count, key_of(*divmod(pair, base)), pair))
            bucket.clear()
        self.floor = floor


def _power_of_two_at_most(count: int) -> int:
    """The largest power of two at or below ``count`` (1 for counts below 2)."""
    return 1 << max(count.bit_length() - 1, 0)
