"""Notebook 13's hand trace of the fast trainer's flat array: it runs the trainer's own stages,
makes the trainer's merges, and prints what the notebook says it prints."""

from __future__ import annotations

import re

from bpe_course.course.widgets.by_hand import FOUR_WORDS, pair_text
from bpe_course.course.widgets.by_hand_flat import flat_trace
from bpe_course.trainers import fast


def merges_printed(blocks: list[str]) -> list[str]:
    return [re.match(r"merge \d+: (\(.*?\)) at", b).group(1) for b in blocks if b[:6] == "merge "]


def test_the_trace_makes_the_loops_merges() -> None:
    vocab, merges = fast.merge_loop(FOUR_WORDS, 256 + 6)
    ids = {token: i for i, token in vocab.items()}
    expected = [pair_text((ids[a], ids[b]), vocab) for a, b in merges]
    assert merges_printed(flat_trace(merges=6)) == expected


def test_the_printout_shows_links_rewritten_and_stale_positions_kept() -> None:
    first, one, two, three, last = flat_trace(merges=3)
    assert "word 2 (count 6)   pos    8    9   10   11   12   13" in first.splitlines()
    assert "        (s, t) count  9  at 12 18" in first.splitlines()
    assert "  position 13: tok t -> ·, merged away" in one.splitlines()
    assert "        (e, s) count  0  at 11x 17x" in one.splitlines()  # never pruned: stale
    assert "  pairs lost: (d, e) 3 -> 0, (w, e) 8 -> 2" in two.splitlines()
    assert "  position  6: prv 5 -> 4" in three.splitlines()  # the link past the merged w
    assert "                   tok    l   ow    e    r" in last.splitlines()


def test_the_numpy_path_writes_the_same_array_as_the_python_path(monkeypatch) -> None:
    python_path = flat_trace(merges=6)
    monkeypatch.setattr(fast, "SMALL", 0)  # every merge through _merge_many
    assert flat_trace(merges=6) == python_path
