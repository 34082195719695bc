"""Figures: the crossover is found by interpolation, and figures save deterministically."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402

from bpe_course.bench.trace import merge_trace  # noqa: E402
from bpe_course.plots import (  # noqa: E402
    draw_all,
    plot_crossover,
    plot_per_merge,
    ratio_grid,
    save_figure,
    scaling_slopes,
    speedups,
)
from bpe_course.stats import crossover_vocab  # noqa: E402


def test_crossover_interpolates_the_sign_change() -> None:
    # V5 - V4: +1 at 1000, -1 at 2000 -> halfway.
    assert crossover_vocab([500, 1000, 2000], [2.0, 1.0, -1.0]) == 1500
    assert crossover_vocab([500, 1000], [-1.0, -2.0]) is None  # V5 faster everywhere: no crossover
    assert crossover_vocab([500, 1000], [1.0, 0.5]) is None


def synthetic_table() -> pd.DataFrame:
    rows = []
    for vocab in (500, 1000, 2000, 4000):
        for version, seconds in (("v4", vocab / 1000), ("v5", 1.0 + vocab / 4000)):
            rows.append(
                {
                    "corpus": "generated",
                    "size_bytes": 10**6,
                    "size": "1MB",
                    "vocab_size": vocab,
                    "version": version,
                    "repeat": 0,
                    "status": "ok",
                    "merge_s": seconds,
                    "machine": "test",
                }
            )
    return pd.DataFrame(rows)


def test_crossover_figure_and_deterministic_files(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("BPE_COURSE_FIGURES", str(tmp_path))
    fig = plot_crossover(synthetic_table())
    assert "crossover ≈ 1,333" in [t.get_text() for t in fig.axes[0].texts]
    first = [p.read_bytes() for p in save_figure(fig, "cross")]
    second = [p.read_bytes() for p in save_figure(fig, "cross")]
    assert first == second


def grid_table() -> pd.DataFrame:
    """Times with known shape: V4 = size x vocab / 1e9, V5 = size x 2e-7 (so V5/V4 = 200 / vocab),
    V1 = 10 x V4; W grows like size^0.5."""
    rows = []
    for size in (10**6, 4 * 10**6):
        for vocab in (100, 200, 400):
            v4 = size * vocab / 1e9
            for version, seconds in (("v1", 10 * v4), ("v4", v4), ("v5", size * 2e-7)):
                rows.append(
                    {
                        "corpus": "generated",
                        "size_bytes": size,
                        "size": f"{size // 10**6}MB",
                        "vocab_size": vocab,
                        "version": version,
                        "repeat": 0,
                        "status": "ok",
                        "merge_s": seconds,
                        "total_s": seconds + 0.1,
                        "pretokenize_s": 0.1,
                        "words": int(size**0.5),
                        "machine": "test",
                    }
                )
    return pd.DataFrame(rows)


def test_ratio_speedups_and_slopes_are_computed_from_the_table() -> None:
    table = grid_table()
    ratio = ratio_grid(table, "merge_s")
    assert list(ratio.columns) == [100, 200, 400] and list(ratio.index) == ["1MB", "4MB"]
    assert round(ratio.loc["1MB", 100], 9) == 2.0 and round(ratio.loc["4MB", 400], 9) == 0.5
    assert round(speedups(table, "merge_s", 10**6, 200)["v4"], 9) == 10.0
    slopes = scaling_slopes(table, "merge_s", 400)
    assert round(slopes["v4"], 6) == 1.0 and round(slopes["W"], 6) == 0.5


def test_draw_all_titles_name_corpus_and_machine(tmp_path) -> None:
    figures = draw_all(grid_table())
    assert set(figures) == {
        "crossover",
        "ratio_heatmap_merge",
        "ratio_heatmap_total",
        "speedups",
        "phases",
        "scaling_merge",
        "scaling_total",
    }
    for name, fig in figures.items():
        titles = [fig._suptitle.get_text() if fig._suptitle else ""]
        titles += [ax.get_title() for ax in fig.axes]
        assert any("generated corpus, test" in t for t in titles), name
        paths = save_figure(fig, name, data=grid_table(), folder=tmp_path)
        assert [p.suffix for p in paths] == [".svg", ".png", ".csv"]


def test_per_merge_trace_and_figure(tmp_path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("the cat sat on the mat<|endoftext|>a dog ran\n" * 200, encoding="utf-8")
    trace = merge_trace(corpus, 270)
    assert set(trace["version"]) == {"v4", "v5"} and trace["merge"].max() == 270 - 257
    v4, v5 = (trace[trace["version"] == v].reset_index() for v in ("v4", "v5"))
    assert (v4["words_touched"] == v5["words_touched"]).all()  # same merges, same words
    assert v4["heap_size"].isna().all() and (v5["heap_size"] >= v5["live_pairs"]).all()
    fig = plot_per_merge(trace, "test")
    assert fig.axes[0].get_title() == "test"


def repeated(times: dict[str, list[list[float]]], vocabs=(500, 1000, 2000, 4000)) -> pd.DataFrame:
    """A table with several repeats per cell: ``times[version][i]`` are the repeats at vocabs[i]."""
    rows = []
    for version, per_vocab in times.items():
        for vocab, repeats in zip(vocabs, per_vocab):
            for repeat, seconds in enumerate(repeats):
                rows.append(
                    {
                        "corpus": "generated",
                        "size_bytes": 10**6,
                        "size": "1MB",
                        "vocab_size": vocab,
                        "version": version,
                        "repeat": repeat,
                        "status": "ok",
                        "merge_s": seconds,
                        "machine": "test",
                    }
                )
    return pd.DataFrame(rows)


def test_a_crossover_needs_ranges_apart_on_both_sides() -> None:
    from bpe_course.plots import describe_crossover
    from bpe_course.stats import clear_crossover, repeat_ranges

    v4 = [[1.0, 1.1, 1.2], [2.0, 2.1, 2.2], [4.0, 4.1, 4.2], [8.0, 8.1, 8.2]]
    # V5 clearly slower at 500, clearly faster from 2000: a resolved crossover.
    v5 = [[1.5, 1.6, 1.7], [2.0, 2.3, 2.4], [3.0, 3.1, 3.2], [4.0, 4.1, 4.2]]
    found = clear_crossover(repeat_ranges(repeated({"v4": v4, "v5": v5})), "v4", "v5")
    assert found["slower"] == [500] and found["overlap"] == [1000]
    assert found["faster_from"] == 2000 and found["crossover"] is None  # 1000 overlaps: unresolved
    assert "no crossover is resolved" in describe_crossover(found, "v4", "v5")
    v5[1] = [2.5, 2.6, 2.7]  # now clearly slower at 1000 too
    found = clear_crossover(repeat_ranges(repeated({"v4": v4, "v5": v5})), "v4", "v5")
    assert found["faster_from"] == 2000 and 1000 < found["crossover"] < 2000
    # Medians that cross while the ranges overlap are no crossover at all.
    noisy = [[0.5, 1.1, 3.0], [1.0, 2.0, 5.0], [2.0, 4.2, 9.0], [4.0, 8.3, 20.0]]
    found = clear_crossover(repeat_ranges(repeated({"v4": v4, "v5": noisy})), "v4", "v5")
    assert found["faster_from"] is None and found["crossover"] is None


def test_the_crossover_sentence_names_where_v5_is_apart_below_its_run() -> None:
    # V5 apart and faster at 1000, overlapping at 500 and 2000, apart and faster from 4000 on:
    # "below it the repeats overlap" would hide the clear lead at 1000 (issue 33).
    from bpe_course.plots import describe_crossover
    from bpe_course.stats import clear_crossover, repeat_ranges

    v4 = [[1.0, 1.1, 1.2], [2.0, 2.1, 2.2], [4.0, 4.1, 4.2], [8.0, 8.1, 8.2]]
    v5 = [[1.1, 1.2, 1.3], [1.5, 1.6, 1.7], [4.1, 4.2, 4.3], [4.0, 4.1, 4.2]]
    found = clear_crossover(repeat_ranges(repeated({"v4": v4, "v5": v5})), "v4", "v5")
    assert found["faster"] == [1000, 4000] and found["overlap"] == [500, 2000]
    sentence = describe_crossover(found, "v4", "v5")
    assert "below it the repeats overlap" not in sentence
    assert sentence == (
        "V5 is clearly faster from vocab 4,000; below it, clearly faster at 1,000; the repeats "
        "overlap at 500 and 2,000; V5 is never clearly slower, so no crossover is resolved"
    )
    # Clearly slower at the smallest, apart and faster further up, overlapping in between.
    v5[0] = [1.5, 1.6, 1.7]
    sentence = describe_crossover(
        clear_crossover(repeat_ranges(repeated({"v4": v4, "v5": v5})), "v4", "v5"), "v4", "v5"
    )
    assert "clearly slower at 500" in sentence and "clearly faster at 1,000" in sentence
    assert sentence.endswith("so no crossover is resolved")
    # Not clearly faster at the end: the sizes where it was are still named.
    v5[3] = [7.9, 8.0, 8.5]
    sentence = describe_crossover(
        clear_crossover(repeat_ranges(repeated({"v4": v4, "v5": v5})), "v4", "v5"), "v4", "v5"
    )
    assert sentence.startswith("V5 is not clearly faster than V4 at the largest vocab size")
    assert "clearly faster at 1,000" in sentence and "overlap at 2,000-4,000" in sentence


def test_cumulative_time_and_where_one_overtakes() -> None:
    from bpe_course.plots import overtakes, plot_cumulative

    merges = list(range(1, 11))
    slow = [1.0] * 10  # 1 s per merge
    fast = [3.0, 3.0] + [0.1] * 8  # a costly start, then cheap: ahead from merge 7 on
    trace = pd.DataFrame(
        {"version": ["v4"] * 10 + ["v5"] * 10, "merge": merges * 2, "seconds": slow + fast}
    )
    assert overtakes(trace, "v4", "v5") == 7  # 6.5 s after 7 merges, against 7 s
    assert overtakes(trace, "v5", "v4") is None
    fig = plot_cumulative(trace, "test")
    assert [line.get_label() for line in fig.axes[0].lines] == ["V4", "V5"]


def test_one_colour_per_version_everywhere() -> None:
    from bpe_course.plots import version_color

    fig = plot_crossover(synthetic_table(), versions=("v5",))
    alone = fig.axes[0].lines[0].get_color()
    fig = plot_crossover(synthetic_table(), versions=("v4", "v5"))
    beside = [line.get_color() for line in fig.axes[0].lines if line.get_label() == "V5"]
    assert alone == beside[0] == version_color("v5")
    assert version_color("my_trainer") == version_color("my_trainer")  # stable for any name


def small_texts(fig) -> list[str]:
    """Every visible text of ``fig`` set below the projector floor (``style.SMALLEST`` points)."""
    from matplotlib.text import Text

    from bpe_course.plots import style

    fig.canvas.draw()  # tick labels exist once drawn
    return [
        f"{t.get_text()!r} at {t.get_fontsize()}"
        for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip() and t.get_fontsize() < style.SMALLEST
    ]


def test_the_side_by_side_chart_is_readable_when_one_version_dominates() -> None:
    import matplotlib.pyplot as plt

    from bpe_course.plots import plot_side_by_side

    table = synthetic_table().assign(status="ok", total_s=lambda t: t["merge_s"])
    table.loc[table["version"] == "v4", "total_s"] *= 50  # the post's V5 on wide text, say
    fig = plot_side_by_side(table)
    assert small_texts(fig) == []
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"  # the fast bars stay visible beside a 50x slower one
    labels = [t.get_text() for a in fig.axes for t in a.get_xticklabels() if t.get_visible()]
    labels = [text for text in labels if text]
    assert labels and all("^" not in text for text in labels)  # 10, 100: not $10^{2}$
    plt.close(fig)


def test_repeats_legend_sits_outside_every_panel() -> None:
    import matplotlib.pyplot as plt

    from bpe_course.plots.repeats import plot_repeats

    rows = [
        {"job": job, "repeat": r, "megabytes": mb, "seconds": mb * (1 + 0.1 * r) + offset}
        for job, offset in (("1 worker", 0.0), ("2 workers", 0.05))
        for mb in (1, 5)
        for r in range(3)
    ]
    runs = pd.DataFrame(rows)
    fig = plot_repeats([("this run", runs), ("stored", runs)], x="megabytes")
    fig.canvas.draw()
    assert all(ax.get_legend() is None for ax in fig.axes)  # no legend over a panel's points
    (legend,) = fig.legends
    box = legend.get_window_extent()
    assert all(not box.overlaps(ax.get_window_extent()) for ax in fig.axes)
    assert [t.get_text() for t in legend.get_texts()] == ["1 worker", "2 workers"]
    assert small_texts(fig) == []
    plt.close(fig)
