"""Repeated timings (bpe_course.bench.repeat): jobs in turn, warm-ups dropped, every round kept,
ranges and ratios within a round, ranking only where ranges are apart, the stored result read
beside it; the figure; and the lessons built on them."""

from __future__ import annotations

import matplotlib
import pandas as pd
import pytest

from bpe_course.bench import lessons, parallel
from bpe_course.bench.repeat import (
    Spread,
    apart,
    ranking_text,
    ratio_spread,
    seconds_text,
    spread,
    spreads,
    stored_ratio_line,
    time_in_turn,
)
from bpe_course.plots import plot_side_by_side
from bpe_course.plots.repeats import plot_repeats

matplotlib.use("Agg")


def times(rows: list[tuple[str, int, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["job", "repeat", "seconds"])


def test_options_run_in_turn_within_each_round_after_an_untimed_warmup() -> None:
    calls = []
    runs = {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}
    table = time_in_turn(runs, repeats=3, warmup=1)
    assert calls == ["a", "b"] * 4  # one warm-up round, then three timed rounds
    assert table["job"].tolist() == ["a", "b"] * 3
    assert table["repeat"].tolist() == [0, 0, 1, 1, 2, 2]
    assert (table["seconds"] >= 0).all()
    with pytest.raises(ValueError):
        time_in_turn(runs, repeats=0)


def test_ratios_are_taken_within_a_round_so_the_load_of_a_round_cancels() -> None:
    # round 1 ran under twice the load: both options twice as slow
    t = times([("a", 0, 1.0), ("b", 0, 2.0), ("a", 1, 2.0), ("b", 1, 4.0), ("a", 2, 1.1)])
    t = pd.concat([t, times([("b", 2, 2.2)])])
    r = ratio_spread(t, "a", "b").summary()
    assert r == pytest.approx({"median": 0.5, "min": 0.5, "max": 0.5, "repeats": 3})
    table = spread(t)
    assert list(table.index) == ["a", "b"]
    assert table.loc["a", "min"] == 1.0 and table.loc["a", "max"] == 2.0
    assert seconds_text(t, "a") == "1.10 s (1.00 to 2.00 s over 3 runs)"
    assert seconds_text(t, "a", digits=3) == "1.100 s (1.000 to 2.000 s over 3 runs)"


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


def test_a_cell_whose_merge_loop_beats_a_larger_vocab_in_every_repeat_is_not_resolved() -> None:
    small = stored(3)  # vocab 3,000: v5's loop 1.0 s in every repeat
    large = stored(3).assign(vocab_size=5000)
    large.loc[large["version"] == "v5", "merge_s"] = 0.5  # more merges, yet faster: load
    line = stored_ratio_line(pd.concat([small, large]), "v4", "v5", "merge_s")
    first, second = line.split("; ")
    assert "vocab 3,000" in first and "not resolved: v5's merge loop took 1.00 to 1.00 s" in first
    assert "at vocab 5,000, which makes these merges and more" in first
    assert "not resolved" not in second  # the larger vocab's runs are not impossible
    assert "load not stored" in second
    loaded = stored(3).assign(load_1m=[3.8, 3.8, 9.0, 9.0, 16.3, 16.3])
    assert "over 3 repeats, load average 3.8 to 16.3)" in stored_ratio_line(
        loaded, "v4", "v5", "merge_s"
    )


def test_the_figures_draw_ranges_and_a_log_axis_when_one_version_dwarfs_the_rest() -> None:
    t = times([("a", 0, 1.0), ("a", 1, 1.2), ("b", 0, 1.1), ("b", 1, 1.3)])
    fig = plot_repeats([("two options", t)], horizontal=True)
    assert [label.get_text() for label in fig.axes[0].get_yticklabels()] == ["a", "b"]
    table = stored(3).assign(total_s=lambda s: s["merge_s"], pretokenize_s=0.0)
    assert plot_side_by_side(table).axes[0].get_xscale() == "linear"  # 3x: linear
    table.loc[table["version"] == "v4", "total_s"] *= 100
    assert plot_side_by_side(table).axes[0].get_xscale() == "log"


def test_spread_summarises_and_ranks_only_apart_ranges() -> None:
    s = Spread((0.3, 0.1, 0.2))
    assert (s.low, s.median, s.high) == (0.1, 0.2, 0.3)
    assert s.text() == "0.20 s (0.10 s to 0.30 s, 3 runs)"
    assert Spread((7.31, 6.0, 8.0)).text("x", 1) == "7.3x (6.0x to 8.0x, 3 runs)"
    assert Spread((1.0,)).text() == "1.00 s (one run)"
    assert s.apart_from(Spread((0.4, 0.5)))
    assert not s.apart_from(Spread((0.25, 0.5)))  # overlapping ranges: no ranking


@pytest.mark.slow
def test_time_in_turn_runs_jobs_in_turn_and_drops_warmups() -> None:
    calls: list[str] = []
    jobs = {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}
    table = time_in_turn(jobs, repeats=3, warmup=2)
    assert calls == ["a", "b"] * 5  # in turn, every round, warm-ups included
    assert list(table["job"]) == ["a", "b"] * 3  # warm-ups not kept
    assert list(table["repeat"]) == [0, 0, 1, 1, 2, 2]
    assert set(spreads(table)) == {"a", "b"}
    with pytest.raises(ValueError):
        time_in_turn(jobs, repeats=0)


def test_time_in_turn_can_read_the_cpu_clock_too() -> None:
    table = time_in_turn(
        {"busy": lambda: sum(range(200_000)), "idle": lambda: None}, 2, 0, cpu=True
    )
    assert list(table.columns) == ["job", "repeat", "seconds", "cpu_s"]
    assert (table["cpu_s"] >= 0).all() and len(table) == 4
    assert "cpu_s" not in time_in_turn({"idle": lambda: None}, 1, 0).columns


def test_ratio_is_taken_round_by_round() -> None:
    table = pd.DataFrame(
        {"job": ["v1", "v2"] * 3, "repeat": [0, 0, 1, 1, 2, 2], "seconds": [4, 2, 9, 3, 8, 1]}
    )
    assert sorted(ratio_spread(table, "v1", "v2").values) == [2.0, 3.0, 8.0]


def test_time_to_vocab_sizes_reads_the_clock_at_each_size() -> None:
    words = {b"low": 5, b"lower": 2, b"newest": 6, b"widest": 3, b"slowest": 4}
    reached = lessons.time_to_vocab_sizes("v1", words, [258, 260, 262])
    assert list(reached) == [258, 260, 262]
    assert reached[258] <= reached[260] <= reached[262]
    table = lessons.by_vocab("v1", words, [258, 260, 262], repeats=2, warmup=1)
    assert len(table) == 6 and set(table["repeat"]) == {0, 1}
    per_merge = lessons.per_merge_ms(table)
    assert list(per_merge["interval"]) == ["258-260", "260-262"] * 2


def test_per_merge_cost_between_sizes() -> None:
    table = pd.DataFrame({"vocab_size": [300, 400, 600], "repeat": 0, "seconds": [1.0, 1.5, 3.5]})
    assert list(lessons.per_merge_ms(table)["ms_per_merge"]) == [5.0, 10.0]


def test_prediction_divides_only_the_workers_share() -> None:
    costs = dict.fromkeys(parallel.COSTS, 1.0) | {parallel.COUNT: 8.0}
    assert parallel.predicted_seconds(costs, 1) == 8.0 + 1.0 + 1.0  # counting, encoding, adding
    # start-up, unpickling, adding (3) + (counting 8 + encoding 1 + pickling 1) / k
    assert parallel.predicted_seconds(costs, 2) == 3.0 + 10.0 / 2
    assert parallel.predicted_seconds(costs, 10) == 3.0 + 1.0


def test_breakdown_counts_the_tasks_count_words_hands_out(tmp_path) -> None:
    path = tmp_path / "docs.txt"
    path.write_text("<|endoftext|>".join(f"story {i} of the cat" for i in range(400)))
    table = parallel.breakdown(path, workers=2, repeats=2, warmup=0)
    assert set(table["job"]) == set(parallel.COSTS)
    assert (table["tasks"] == 8).all() and (table["bytes_sent"] > 0).all()
    assert (table["seconds"] >= 0).all() and len(table) == 2 * len(parallel.COSTS)
    assert (table["cpu_s"] >= 0).all()
    counting = table[table["job"] == parallel.COUNT]
    assert (counting["cpu_s"] > 0).all()  # counting is this process's own work


def test_plot_draws_one_errorbar_per_job_and_panel() -> None:
    runs = pd.DataFrame({"job": ["v1", "v2"] * 3, "repeat": [0, 0, 1, 1, 2, 2], "seconds": 1.0})
    fig = plot_repeats([("this run", runs), ("stored", runs)])
    assert len(fig.axes) == 2
    assert all(len(ax.containers) == 2 for ax in fig.axes)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["V1", "V2"]


def test_where_measured_names_machine_cores_and_load() -> None:
    from bpe_course.bench.repeat import machine_note, where_measured

    table = pd.DataFrame(
        [machine_note() | {"load_1min": 1.94}, machine_note() | {"load_1min": 3.2}]
    )
    text = where_measured(table)
    assert text.endswith(f"cores, load average 1.9 to 3.2, {table['date'][0]}")
    assert text.startswith(table["machine"][0])
    # Any stored table: the load from the column it has, what it lacks said plainly.
    ladder = pd.DataFrame(
        {"machine": "Linux x86_64 (vm)", "load_before": [3.05, 9.47], "date": "2026-11-24"}
    )
    assert where_measured(ladder) == (
        "Linux x86_64 (vm) (cores not stored), load average 3.0 to 9.5, 2026-11-24"
    )
    grid = pd.DataFrame(
        {"machine": "the VM (Linux x86_64, 2 cores)", "date": ["2026-11-22", "2026-11-24"]}
    )
    assert where_measured(grid) == (
        "the VM (Linux x86_64, 2 cores), load not stored, 2026-11-22 to 2026-11-24"
    )


def test_compare_and_expect_rank_only_apart_ranges() -> None:
    from bpe_course.bench.repeat import compare, expect, machine_note

    apart = pd.DataFrame(
        {"job": ["v1", "v2"] * 3, "repeat": [0, 0, 1, 1, 2, 2], "seconds": [4, 2, 9, 3, 8, 1]}
    ).assign(**machine_note())
    line = compare(apart, "v1", "v2")
    assert "(ranges apart)" in line
    assert line.endswith("V1 / V2 round by round: 3.0x (2.0x to 8.0x, 3 runs)")
    assert expect(apart, "v1", "v2").startswith("what you should see: V2 ahead of V1, the ranges")
    close = apart.assign(seconds=[2, 2.5, 3, 2.8, 4, 3.5])
    assert "(ranges overlap)" in compare(close, "v1", "v2")
    assert "no clear winner" in expect(close, "v1", "v2")


def test_expect_holds_a_run_to_the_stored_ratio_only_on_the_stored_configuration() -> None:
    from bpe_course.bench.repeat import expect, machine_note

    stored = pd.DataFrame(
        {"job": ["v1", "v2"] * 3, "repeat": [0, 0, 1, 1, 2, 2], "seconds": [4, 2, 9, 3, 8, 1]}
    ).assign(size="1MB", vocab_size=2000, **machine_note())
    same = expect(stored, "v1", "v2", this_run={"size": "1MB", "vocab_size": 2000})
    assert "by a ratio near the stored 3.0x" in same
    other = expect(stored, "v1", "v2", this_run={"size": "200KB", "vocab_size": 2000})
    assert "near the stored" not in other
    assert "V2 ahead of V1, the ranges apart" in other
    assert "is for size 1MB, this run's for size 200KB: another configuration" in other
