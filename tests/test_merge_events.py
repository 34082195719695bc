"""The per-merge event's stage times and V4's scan statistics (notebook 08 fits its costs on them)."""

from __future__ import annotations

import pytest

from bpe_course.course.widgets.by_hand import FOUR_WORDS
from bpe_course.trainers import TRAINERS, v1_naive, v4_inverted_index
from bpe_course.trainers.common import count_pairs, words_as_ids

TIMED = ["v2", "v3", "v4", "v5", "fastmax", "sites", "fast"]


@pytest.mark.parametrize("version", TIMED)
def test_timed_loops_report_both_stages(version: str) -> None:
    events = []
    result = TRAINERS[version].merge_loop(FOUR_WORDS, 256 + 5, on_merge=events.append)
    assert result == v1_naive.merge_loop(FOUR_WORDS, 256 + 5)  # the clock changes nothing
    assert len(events) == 5
    for event in events:
        assert isinstance(event.find_s, float) and event.find_s >= 0
        assert isinstance(event.rewrite_s, float) and event.rewrite_s >= 0


def test_v4_scan_stats_count_what_the_stages_handle() -> None:
    events = []
    v4_inverted_index.merge_loop(FOUR_WORDS, 256 + 2, on_merge=events.append, scan_stats=True)
    words, counts = words_as_ids(FOUR_WORDS)
    pair_counts = count_pairs(words, counts)
    top = max(pair_counts.values())
    first = events[0].scan
    assert first.live_pairs == len(pair_counts)
    assert first.tied == sum(1 for count in pair_counts.values() if count == top)
    best = (ord("s"), ord("t"))  # the first merge of the four words, (s, t) at 9
    assert first.word_work == sum(len(word) for word in words if best in zip(word, word[1:]))
    # by hand: 11 pairs, (e, s) and (s, t) tied at 9, "newest" and "widest" (6 tokens each);
    # then (e, st) alone at 9 among 10 pairs, in the same two words, now 5 tokens each
    assert [tuple(vars_of(e.scan)) for e in events] == [(11, 2, 12), (10, 1, 10)]


def vars_of(scan) -> tuple[int, int, int]:
    return scan.live_pairs, scan.tied, scan.word_work


def test_scan_stats_only_when_asked() -> None:
    events = []
    v4_inverted_index.merge_loop(FOUR_WORDS, 256 + 2, on_merge=events.append)
    assert [event.scan for event in events] == [None, None]
