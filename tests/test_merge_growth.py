"""The merge-growth table: one row per bucket of merges, every merge counted once."""

from __future__ import annotations

from bpe_course.bench.merge_growth import per_merge_costs
from bpe_course.pretokenize import count_words_in_text

from .conftest import EOT, stdlib_corpus


def test_buckets_cover_every_merge_once_with_the_words_each_rewrote() -> None:
    words = count_words_in_text(stdlib_corpus(60_000), [EOT])
    table = per_merge_costs(words, 257 + 700, bucket=200)
    assert list(table["bucket"]) == [0, 200, 400, 600]
    assert table["merges"].sum() == 700 and list(table["merges"])[:3] == [200, 200, 200]
    assert (table["words_touched_mean"] >= 1).all() and (table["cpu_s_sum"] >= 0).all()
    # counts of the merged pairs never rise from one merge to the next: nor do their bucket means
    assert table["count_mean"].is_monotonic_decreasing
    assert (table["words"] == len(words)).all()
