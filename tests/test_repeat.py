"""Repeated timings: warm-ups dropped, jobs in turn, ranges and ratios; the lessons built on them."""

from __future__ import annotations

import pandas as pd
import pytest

from bpe_course.bench import lessons, parallel
from bpe_course.bench.repeat import Spread, interleaved, ratio_spread, spreads


def test_spread_summarises_and_ranks_only_apart_ranges() -> None:
    s = Spread((0.3, 0.1, 0.2))
    assert (s.low, s.median, s.high) == (0.1, 0.2, 0.3)
    assert s.text() == "0.20 s (0.10 s to 0.30 s, 3 runs)"
    assert Spread((7.31, 6.0, 8.0)).text("x", 1) == "7.3x (6.0x to 8.0x, 3 runs)"
    assert Spread((1.0,)).text() == "1.00 s (one run)"
    assert s.apart_from(Spread((0.4, 0.5)))
    assert not s.apart_from(Spread((0.25, 0.5)))  # overlapping ranges: no ranking


def test_interleaved_runs_jobs_in_turn_and_drops_warmups() -> None:
    calls: list[str] = []
    jobs = {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}
    table = interleaved(jobs, repeats=3, warmup=2)
    assert calls == ["a", "b"] * 5  # in turn, every round, warm-ups included
    assert list(table["job"]) == ["a", "b"] * 3  # warm-ups not kept
    assert list(table["repeat"]) == [0, 0, 1, 1, 2, 2]
    assert set(spreads(table)) == {"a", "b"}
    with pytest.raises(ValueError):
        interleaved(jobs, repeats=0)


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
    assert parallel.predicted_seconds(costs, 1) == 8.0 + 1.0 + 1.0  # counting, adding, encoding
    # start-up, unpickling, adding, encoding (4) + (counting 8 + pickling 1) / k
    assert parallel.predicted_seconds(costs, 2) == 4.0 + 9.0 / 2
    assert parallel.predicted_seconds(costs, 9) == 4.0 + 1.0


def test_breakdown_counts_the_chunks_count_words_cuts(tmp_path) -> None:
    path = tmp_path / "docs.txt"
    path.write_text("<|endoftext|>".join(f"story {i} of the cat" for i in range(400)))
    table = parallel.breakdown(path, workers=2, repeats=2, warmup=0)
    assert set(table["job"]) == set(parallel.COSTS)
    assert (table["chunks"] == 8).all() and (table["bytes_sent"] > 0).all()
    assert (table["seconds"] >= 0).all() and len(table) == 2 * len(parallel.COSTS)
    assert (table["cpu_s"] >= 0).all()
    counting = table[table["job"] == parallel.COUNT]
    assert (counting["cpu_s"] > 0).all()  # counting is this process's own work


def test_plot_draws_one_errorbar_per_job_and_panel() -> None:
    from bpe_course.plots.repeats import plot_repeats

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
