"""Counts sent packed from the pool's workers (counting/tasks.py): packing loses nothing, and
adding packed counts up gives the dicts' sum, in any mix and order."""

from __future__ import annotations

import pickle
import platform
import sys
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course.counting.tasks import PackedCounts, add_up
from bpe_course.pool import _find_malloc_trim, release_free_memory

_counts = st.dictionaries(st.binary(max_size=12), st.integers(1, 2**40), max_size=30)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_counts, st.booleans()), max_size=5))
def test_adding_packed_counts_up_is_adding_the_dicts(
    parts: list[tuple[dict[bytes, int], bool]],
) -> None:
    expected: Counter[bytes] = Counter()
    for counts, _ in parts:
        expected.update(counts)
    # packed as a worker sends them: through pickle
    results = [
        pickle.loads(pickle.dumps(PackedCounts.pack(c))) if packed else dict(c)
        for c, packed in parts
    ]
    total = add_up(results)
    assert type(total) is dict
    assert total == dict(expected)


@given(_counts)
def test_packing_keeps_every_word_and_count_in_order(counts: dict[bytes, int]) -> None:
    packed = PackedCounts.pack(counts)
    assert len(packed) == len(counts)
    assert list(packed.items()) == list(counts.items())


def test_releasing_free_memory_runs_anywhere() -> None:
    release_free_memory()  # glibc's malloc_trim, or nothing: never an error
    release_free_memory()


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="malloc_trim is glibc's",
)
def test_on_glibc_the_real_malloc_trim_is_found() -> None:
    trim = _find_malloc_trim()
    assert trim() in (0, 1)  # malloc_trim's own result; the fallback returns None
