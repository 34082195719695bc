"""Timing with its spread (bpe_course.bench.spread): options in turn, rounds kept, ranking only
where ranges are apart, and the stored result read beside it."""

from __future__ import annotations

import matplotlib
import pandas as pd
import pytest

from bpe_course.bench.spread import (
    apart,
    ranking_text,
    ratio_spread,
    seconds_text,
    spread,
    stored_ratio_line,
    time_in_turn,
)
from bpe_course.plots import plot_side_by_side
from bpe_course.plots.spread import plot_spread

matplotlib.use("Agg")


def times(rows: list[tuple[str, int, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["option", "repeat", "seconds"])


def test_options_run_in_turn_within_each_round_after_an_untimed_warmup() -> None:
    calls = []
    runs = {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}
    table = time_in_turn(runs, repeats=3, warmup=True)
    assert calls == ["a", "b"] * 4  # one warm-up round, then three timed rounds
    assert table["option"].tolist() == ["a", "b"] * 3
    assert table["repeat"].tolist() == [0, 0, 1, 1, 2, 2]
    assert (table["seconds"] >= 0).all()
    with pytest.raises(ValueError):
        time_in_turn(runs, repeats=0)


def test_ratios_are_taken_within_a_round_so_the_load_of_a_round_cancels() -> None:
    # round 1 ran under twice the load: both options twice as slow
    t = times([("a", 0, 1.0), ("b", 0, 2.0), ("a", 1, 2.0), ("b", 1, 4.0), ("a", 2, 1.1)])
    t = pd.concat([t, times([("b", 2, 2.2)])])
    r = ratio_spread(t, "a", "b")
    assert r == pytest.approx({"median": 0.5, "min": 0.5, "max": 0.5, "repeats": 3})
    table = spread(t)
    assert list(table.index) == ["a", "b"]
    assert table.loc["a", "min"] == 1.0 and table.loc["a", "max"] == 2.0
    assert seconds_text(t, "a") == "1.10 s (1.00 to 2.00 s over 3 runs)"


def test_overlapping_ranges_rank_nothing() -> None:
    t = times(
        [("a", 0, 1.0), ("a", 1, 1.2), ("b", 0, 1.1), ("b", 1, 1.3), ("c", 0, 3), ("c", 1, 4)]
    )
    assert not apart(t, "a", "b")
    assert apart(t, "b", "c") and apart(t, "c", "a")
    assert ranking_text(t) == "a ≈ b < c"


def stored(repeats: int) -> pd.DataFrame:
    rows = []
    for repeat in range(repeats):
        for version, seconds in (("v4", 2.0 + repeat), ("v5", 1.0)):
            rows.append(
                {
                    "corpus": "stories",
                    "size_bytes": 1_000_000,
                    "size": "1MB",
                    "vocab_size": 3000,
                    "version": version,
                    "repeat": repeat,
                    "status": "ok",
                    "merge_s": seconds,
                    "machine": "Linux x86_64 (vm)",
                    "date": "2026-11-22",
                    "workers": 2,
                }
            )
    return pd.DataFrame(rows)


def test_the_stored_line_gives_the_range_and_the_machine_and_warns_under_three_repeats() -> None:
    line = stored_ratio_line(stored(3), "v4", "v5", "merge_s", {"size": "1MB"})
    assert "v4 took 3.00x v5's merge time (from 2.00 to 4.00x over 3 repeats)" in line
    assert "Linux x86_64 (vm), 2026-11-22, 2 workers" in line
    assert "(one run: not a ranking)" in stored_ratio_line(stored(1), "v4", "v5", "merge_s")
    assert "over 2 repeats, fewer than 3: not a ranking" in stored_ratio_line(
        stored(2), "v4", "v5", "merge_s"
    )
    assert "no runs" in stored_ratio_line(stored(3), "v4", "fastmax", "merge_s")


def test_the_figures_draw_ranges_and_a_log_axis_when_one_version_dwarfs_the_rest() -> None:
    t = times([("a", 0, 1.0), ("a", 1, 1.2), ("b", 0, 1.1), ("b", 1, 1.3)])
    fig = plot_spread(t, "two options")
    assert [label.get_text() for label in fig.axes[0].get_yticklabels()] == ["a", "b"]
    table = stored(3).assign(total_s=lambda s: s["merge_s"], pretokenize_s=0.0)
    assert plot_side_by_side(table).axes[0].get_yscale() == "linear"  # 3x: linear
    table.loc[table["version"] == "v4", "total_s"] *= 100
    assert plot_side_by_side(table).axes[0].get_yscale() == "log"
