"""The benchmark explorer without a browser: what it shows, what it measures (only what is
missing, never over stored results), cancelling, failures, the read-out, export."""

from __future__ import annotations

import html
import threading
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from bpe_course.bench.results import (  # noqa: E402
    Selection,
    load_results,
    missing_cells,
    summary,
)
from bpe_course.course.widgets.explorer import (  # noqa: E402
    BELOW_PX,
    READOUT_HINT,
    SIDE_PX,
    Explorer,
)
from bpe_course.errors import BPEInputError  # noqa: E402
from bpe_course.plots import version_color  # noqa: E402
from bpe_course.plots.explorer import describe_point, nearest  # noqa: E402


def grid(machine: str = "machine A") -> pd.DataFrame:
    """V4 and V5 on two sizes, three vocab sizes, three repeats: V5 takes half of V4's time."""
    rows = []
    for size, label in ((1_000_000, "1MB"), (5_000_000, "5MB")):
        for vocab in (500, 1000, 2000):
            for repeat in range(3):
                for version, seconds in (("v4", vocab / 1000), ("v5", vocab / 2000)):
                    rows.append(
                        {
                            "corpus": "stories",
                            "size_bytes": size,
                            "size": label,
                            "vocab_size": vocab,
                            "version": version,
                            "repeat": repeat,
                            "status": "ok",
                            "merge_s": seconds + repeat * 0.01,
                            "total_s": seconds + 1,
                            "machine": machine,
                        }
                    )
    return pd.DataFrame(rows)


def fake_row(cell, cancel=None, seconds: float = 0.5) -> dict:
    corpus, size_bytes, vocab, version = cell
    return {
        "corpus": corpus,
        "size_bytes": size_bytes,
        "size": f"{size_bytes // 10**6}MB",
        "vocab_size": vocab,
        "version": version,
        "repeat": 0,
        "status": "ok",
        "merge_s": seconds,
        "total_s": seconds + 1,
        "machine": "this machine",
    }


@pytest.fixture(autouse=True)
def folders(tmp_path, monkeypatch):
    monkeypatch.setenv("BPE_COURSE_FIGURES", str(tmp_path / "figures"))
    monkeypatch.setenv("BPE_COURSE_DATA", str(tmp_path / "data"))


def explorer(table=None, runner=fake_row, **kwargs) -> Explorer:
    return Explorer(grid() if table is None else table, runner=runner, interactive=False, **kwargs)


def test_results_load_with_their_source_and_refuse_other_csvs(tmp_path) -> None:
    good, bad = tmp_path / "grid.csv", tmp_path / "trace.csv"
    grid().to_csv(good, index=False)
    pd.DataFrame({"merge": [1], "seconds": [0.1]}).to_csv(bad, index=False)
    table = load_results([good])
    assert len(table) == len(grid()) and set(table["source"]) == {"grid.csv"}
    with pytest.raises(BPEInputError, match="trace.csv is not a benchmark table"):
        load_results([good, bad])


def test_nothing_is_missing_when_everything_is_measured() -> None:
    chosen = Selection(
        corpora=["stories"],
        sizes=[1_000_000, 5_000_000],
        vocab_range=(500, 2000),
        versions=["v4", "v5"],
    )
    assert missing_cells(grid(), chosen) == []  # the bug: it measured these anyway
    chosen.extra_vocabs = [20_000]
    assert sorted(missing_cells(grid(), chosen)) == sorted(
        ("stories", size, 20_000, version)
        for size in (1_000_000, 5_000_000)
        for version in ("v4", "v5")
    )


def test_ratio_to_a_version() -> None:
    chosen = Selection(
        corpora=["stories"],
        sizes=[1_000_000],
        vocab_range=(500, 2000),
        versions=["v4", "v5"],
        ratio_to="v4",
    )
    stats = summary(grid(), chosen)
    v5 = stats[stats["version"] == "v5"].set_index("vocab_size")["median"]
    assert v5.round(2).tolist() == [0.51, 0.5, 0.5]  # medians (+0.01 each) over V4's medians
    assert (stats[stats["version"] == "v4"]["median"] == 1.0).all()


def test_a_click_measures_only_missing_cells_and_never_touches_stored_rows(tmp_path) -> None:
    stored = grid()
    calls = []
    view = explorer(
        stored.copy(),
        runner=lambda cell, cancel: calls.append(cell) or fake_row(cell),
        measured_csv=tmp_path / "mine.csv",
    )
    view.start_measuring()
    view.wait(30)
    assert calls == []  # nothing was missing
    assert "every cell of this selection is measured; nothing to measure" in view.status.value
    view.add_vocab.value = "20000"
    assert "nothing to measure" not in view.status.value  # said of the selection before
    assert "4 cell(s) of this selection not measured yet" in view.status.value
    view.start_measuring()
    view.wait(30)
    assert sorted(calls) == sorted(
        ("stories", s, 20_000, v) for s in (1_000_000, 5_000_000) for v in ("v4", "v5")
    )
    assert "measured 4 of 4 queued cell(s)" in view.status.value
    assert "every cell of this selection is measured" in view.status.value
    assert len(pd.read_csv(tmp_path / "mine.csv")) == 4  # the reader's file, not the stored one
    pd.testing.assert_frame_equal(
        view.table.iloc[: len(stored)].drop(columns=["source", "grid", "runs"]), stored
    )
    assert any("this machine" in r for r in view.runs.value)  # shown beside the stored runs


def test_no_version_says_so_in_the_plot_and_the_status() -> None:
    view = explorer()
    view.version.value = ()
    assert "choose at least one version" in view.status.value
    texts = [t.get_text() for ax in view.figure.axes for t in ax.texts]
    assert "choose at least one version" in texts
    view.version.value = ("v5",)
    view.size.value = ()
    texts = [t.get_text() for ax in view.figure.axes for t in ax.texts]
    assert "no merge-loop times measured in this selection" in texts
    view.metric.value = "total_s"  # the empty figure changes with the metric too
    texts = [t.get_text() for ax in view.figure.axes for t in ax.texts]
    assert "no end-to-end times measured in this selection" in texts


def test_the_first_figure_shows_measurements() -> None:
    """The default sizes are ones measured on the default corpus, whatever the stored grids."""
    wide = grid()
    wide["corpus"], wide["size_bytes"], wide["size"] = "wide", 200_000, "0.2MB"
    stories = grid()
    stories = stories[stories["size_bytes"] == 5_000_000]
    view = explorer(pd.concat([wide, stories], ignore_index=True))
    assert view.corpus.value == ("stories",) and view.size.value == (5_000_000,)
    assert view.points, view.status.value


def test_a_failed_cell_is_reported_and_the_others_go_on() -> None:
    def runner(cell, cancel):
        if cell[3] == "v4":
            raise RuntimeError("benchmark run v4 vocab 20000 failed: out of memory")
        return fake_row(cell)

    view = explorer(runner=runner)
    view.add_vocab.value = "20000"
    view.start_measuring()
    view.wait(30)
    assert "measured 2 of 4" in view.status.value and "failed: v4 vocab 20,000" in view.status.value
    assert not view.measure_button.disabled and view.cancel_button.disabled


def test_cancel_stops_the_run_under_way() -> None:
    started = threading.Event()

    def slow(cell, cancel):
        started.set()
        return {"status": "cancelled"} if cancel.wait(10) else fake_row(cell)

    view = explorer(runner=slow)
    view.add_vocab.value = "20000, 30000"
    view.start_measuring()
    assert started.wait(10)
    view.stop_measuring()
    view.wait(30)
    assert "(cancelled)" in view.status.value and "measured 0 of 8" in view.status.value
    assert "8 cell(s) of this selection not measured yet" in view.status.value
    assert len(view.table) == len(grid())  # the cancelled run added nothing


def test_the_harness_kills_a_cancelled_run() -> None:
    from bpe_course.bench.harness import run_cell
    from bpe_course.corpora.datasets import course_corpus

    cancel = threading.Event()
    threading.Timer(1.0, cancel.set).start()
    # V1 at vocab 5000 on 1 MB runs far longer than a second: it can only come back cancelled.
    result = run_cell(course_corpus("1MB", "stories"), "v1", 5000, 1, 600, cancel)
    assert result == {"status": "cancelled"}


def test_each_point_reads_out_and_colours_follow_the_version() -> None:
    view = explorer()
    ax = next(iter(view.points))
    point = view.points[ax][0]
    found = nearest(view.points[ax], ax, point.vocab_size, point.median)
    assert found == point
    text = describe_point(point, "merge_s", None)
    assert f"vocab {point.vocab_size:,}" in text and "3 repeat(s)" in text
    colours = {line.get_label(): line.get_color() for line in ax.lines}
    assert colours["V5"] == version_color("v5") and colours["V4"] == version_color("v4")
    view.version.value = ("v5",)
    alone = {line.get_label(): line.get_color() for a in view.figure.axes for line in a.lines}
    assert alone["V5"] == version_color("v5")


def test_export_writes_the_figure_and_the_table_shown(tmp_path) -> None:
    view = explorer()
    view.size.value = (1_000_000,)
    paths = view.save_figure()
    assert {p.suffix for p in paths} == {".svg", ".png"}
    table = pd.read_csv(view.save_table())
    assert set(table["size_bytes"]) == {1_000_000} and set(table["version"]) == {"v4", "v5"}


def test_a_readers_trainer_joins_the_versions(tmp_path, monkeypatch) -> None:
    (tmp_path / "my_bpe.py").write_text(
        "def train(input_path, vocab_size, special_tokens):\n    return {}, []\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    view = explorer()
    view.own_trainer.value = "my_bpe:nothing_here"
    assert (
        "has no function" in view.status.value and "my_bpe:nothing_here" not in view.version.options
    )
    view.own_trainer.value = "my_bpe:train"
    assert ("yours: my_bpe:train", "my_bpe:train") in view.version.options
    # the versions selected before stay selected: the reader's joins them
    assert view.version.value == ("v4", "v5", "my_bpe:train")
    assert "6 cell(s) of this selection not measured yet" in view.status.value  # 2 sizes x 3 vocabs
    view.own_trainer.value = "no_such_module_here:train"
    said = html.unescape(view.status.value)  # where to put it, the folder notebook 11 imports from
    assert (
        f"no module 'no_such_module_here' here: put no_such_module_here.py in {Path.cwd()}" in said
    )
    assert "--trainer" not in view.status.value  # no command-line flag named in a notebook


def test_resume_after_cancel_measures_exactly_the_cells_still_missing() -> None:
    """The issue's case: a selection with no data, some cells measured, cancel, resume."""
    calls: list = []
    release = threading.Semaphore(0)

    def runner(cell, cancel):
        calls.append(cell)
        if len(calls) > 2:  # the third run is under way when cancel comes
            return {"status": "cancelled"} if cancel.wait(10) else fake_row(cell)
        release.acquire(timeout=10)
        return fake_row(cell)

    view = explorer(runner=runner)
    view.size.value = ()
    view.add_size.value = "3MB"  # a size nobody measured: 3 vocab sizes x 2 versions
    assert view.size.value == (3_000_000,)
    assert "6 cell(s) of this selection not measured yet" in view.status.value
    view.start_measuring()
    release.release()
    release.release()
    while len(calls) < 3:
        threading.Event().wait(0.01)
    view.stop_measuring()
    view.wait(30)
    assert "measured 2 of 6 queued cell(s) (cancelled)" in view.status.value
    assert "4 cell(s) of this selection not measured yet" in view.status.value
    first = calls[:2]
    calls.clear()
    view.runner = fake_runner = lambda cell, cancel: calls.append(cell) or fake_row(cell)
    assert view.runner is fake_runner
    view.start_measuring()
    view.wait(30)
    wanted = {("stories", 3_000_000, v, s) for v in (500, 1000, 2000) for s in ("v4", "v5")}
    assert sorted(calls) == sorted(wanted - set(first))  # exactly the rest, none twice
    assert "every cell of this selection is measured" in view.status.value


def test_the_status_speaks_of_the_current_selection_only() -> None:
    started, finish = threading.Event(), threading.Event()

    def runner(cell, cancel):
        started.set()
        finish.wait(10)
        return fake_row(cell)

    view = explorer(runner=runner)
    view.add_vocab.value = "20000"
    view.start_measuring()
    assert started.wait(10)
    # while the four cells are queued, the count of this selection names them, and holds still
    assert "4 cell(s) of this selection not measured yet (4 of them queued)" in view.status.value
    view.size.value = (1_000_000,)  # a new selection while measuring: its own count
    assert "2 cell(s) of this selection not measured yet (2 of them queued)" in view.status.value
    assert "measuring: 0 of 4 queued cell(s) done" in view.status.value
    finish.set()
    view.wait(30)
    assert "measured 4 of 4 queued cell(s)" in view.status.value
    view.version.value = ("v5",)  # the finished job was about another selection: not carried
    assert "queued" not in view.status.value
    shown = view.status.value.split(">", 1)[1]  # the line's text, not its tooltip
    assert shown.count(";") == 1  # what is shown; what is missing


def test_the_readout_is_cleared_when_the_metric_changes_or_the_figure_empties() -> None:
    view = explorer()
    view.readout.value = "V5 on stories 1MB, vocab 500: ..."
    view.metric.value = "total_s"
    assert view.readout.value == READOUT_HINT
    view.readout.value = "V5 on stories 1MB, vocab 500: ..."
    view.version.value = ()
    assert view.readout.value == READOUT_HINT


def test_the_vocab_slider_stops_only_on_the_grids_vocab_sizes() -> None:
    view = explorer()
    assert [value for _, value in view.vocab.options] == [500, 1000, 2000]
    assert [label for label, _ in view.vocab.options] == ["500", "1,000", "2,000"]
    view.vocab.index = (1, 2)  # a drag moves from stop to stop: no 306, no point lost
    assert view.vocab.value == (1000, 2000)
    assert {p.vocab_size for points in view.points.values() for p in points} == {1000, 2000}


def test_a_ratio_selects_its_reference_and_says_when_it_is_missing() -> None:
    view = explorer()
    view.version.value = ("v5",)
    view.scale.value = "v4"  # the reference joins the versions shown
    assert set(view.version.value) == {"v4", "v5"} and view.points
    view.version.value = ("v5",)  # taken away again: the status says why nothing is drawn
    assert "the ratio to V4 needs V4 among the versions" in view.status.value
    texts = [t.get_text() for ax in view.figure.axes for t in ax.texts]
    assert any("needs V4 among the versions" in t for t in texts)
    assert "nothing measured" not in view.status.value


def test_versions_are_listed_by_their_course_names() -> None:
    view = explorer()
    titles = dict((value, label) for label, value in view.version.options)
    assert titles["post_v5_nogc"] == "post's V5, GC off"
    assert titles["fastmax"] == "V4 + SortedDict (fast max)"
    assert titles["v5"] == "V5 heap"
    assert view.version.rows == len(view.version.options)  # every item seen, no scrolling


def test_panels_go_by_size_and_log_ticks_are_plain_numbers() -> None:
    table = grid()
    big = grid()
    big["size_bytes"], big["size"] = 21_500_000, "21.5MB"
    view = explorer(pd.concat([table, big], ignore_index=True))
    view.size.value = (1_000_000, 5_000_000, 21_500_000)
    titles = [ax.get_title() for ax in view.figure.axes]
    assert titles == ["stories, 1MB", "stories, 5MB", "stories, 21.5MB"]
    view.log_x.value = True
    view.figure.canvas.draw()
    labels = [t.get_text() for t in view.figure.axes[0].get_xticklabels() if t.get_text()]
    assert "1,000" in labels and "500" in labels and "2,000" in labels, labels
    assert not any("^" in label or "10" == label[:2] and "{" in label for label in labels)


def test_repeats_pool_within_a_grid_and_machine_never_across_unless_asked() -> None:
    crossover = grid().assign(grid="crossover", machine="the course's VM")
    ablation = grid().assign(grid="ablation", machine="the course's VM")
    elsewhere = grid().assign(grid="crossover", machine="Linux x86_64, 8 cores (laptop)")
    table = pd.concat([crossover, ablation, elsewhere], ignore_index=True)
    chosen = Selection(["stories"], [1_000_000], (500, 500), versions=["v4"])
    stats = summary(table, chosen)
    assert sorted(stats["repeats"]) == [3, 3, 3] and stats["runs"].nunique() == 3
    chosen.pool = True
    assert summary(table, chosen)["repeats"].tolist() == [9]


def test_presentation_mode_enlarges_the_text_and_the_figure_fits_the_room() -> None:
    view = explorer()
    normal = view.figure.axes[0].title.get_fontsize()
    view.presentation.value = True
    assert view.figure.axes[0].title.get_fontsize() > 1.5 * normal
    view._fit(1900, 800)  # what the browser reports: the room beside and below
    width, height = view.figure.get_size_inches() * view.figure.dpi
    assert round(width) == 1900 - SIDE_PX and round(height) == 800 - BELOW_PX
    assert len(view.figure.axes) == 2


def test_stored_grids_name_their_grid_and_a_machine_no_reader_run_shares() -> None:
    """A reader's runs, even on the machine that made the stored grids, get a label of their
    own: they are never counted as repeats of a stored cell unless the reader pools them."""
    from bpe_course.bench.machine import machine_label
    from bpe_course.bench.results import stored_result_files

    stored = load_results(p for p in stored_result_files() if p.parent.name == "results")
    assert not stored.empty and stored["grid"].notna().all()
    assert {"crossover", "ablation", "versions"} <= set(stored["grid"])
    assert machine_label() not in set(stored["machine"])
    crossover = stored[(stored["grid"] == "crossover") & (stored["corpus"] == "stories")]
    assert crossover.groupby(["size_bytes", "vocab_size", "version"]).size().max() == 3


def test_rows_without_a_grid_take_the_grid_their_file_is_named_after(tmp_path) -> None:
    old = grid()  # written before rows named their grid
    new = grid().assign(grid="crossover", repeat=5)
    (tmp_path / "crossover-stories.csv").write_text(
        pd.concat([old, new], ignore_index=True).to_csv(index=False)
    )
    old.to_csv(tmp_path / "ablation_wide.csv", index=False)
    table = load_results(sorted(tmp_path.glob("*.csv")))
    assert table.groupby("source")["grid"].unique().map(list).to_dict() == {
        "ablation_wide.csv": ["ablation"],
        "crossover-stories.csv": ["crossover"],
    }


def _boxes_apart(a, b) -> bool:
    return a.x1 <= b.x0 + 1 or b.x1 <= a.x0 + 1 or a.y1 <= b.y0 + 1 or b.y1 <= a.y0 + 1


@pytest.mark.parametrize(
    ("room", "presentation"),
    [
        ((1220, 450), False),
        ((1220, 450), True),
        ((788, 500), False),
        ((1830, 500), False),
        ((1860, 900), True),
    ],
    ids=["1280x800", "1280x800-presentation", "notebook-cell", "1920x1080", "1920-presentation"],
)
def test_every_panel_selected_nothing_overlaps(room, presentation) -> None:
    """Issue 35, part 7: all sizes of both corpora, every stored grid: one legend above the
    panels, covering none of them; no panel's title, ticks or labels run into another's; one
    label per axis; nothing outside the figure; panels never squeezed below their least size."""
    from bpe_course.bench.results import stored_result_files
    from bpe_course.plots.explorer import PANEL_MIN_PX

    stored = load_results(p for p in stored_result_files() if p.parent.name == "results")
    view = explorer(stored)
    view.corpus.value = tuple(view.corpus.options)
    view.size.value = tuple(value for _, value in view.size.options)
    view.presentation.value = presentation
    view._fit(room[0] + SIDE_PX, room[1] + BELOW_PX)
    figure = view.figure
    renderer = figure.canvas.get_renderer()
    figure.canvas.draw()
    panels = [ax for ax in figure.axes if ax.has_data()]
    assert len(panels) >= 6 and not any(ax.get_legend() for ax in panels)
    assert len(figure.legends) == 1
    legend = figure.legends[0].get_window_extent(renderer)
    whole = figure.bbox
    boxes = [ax.get_tightbbox(renderer) for ax in panels]  # title, ticks and all
    for index, box in enumerate(boxes):
        assert _boxes_apart(legend, box), f"the legend covers {panels[index].get_title()}"
        assert box.x0 >= -1 and box.x1 <= whole.x1 + 1 and box.y0 >= -1 and box.y1 <= whole.y1 + 1
        for other in boxes[index + 1 :]:
            assert _boxes_apart(box, other), f"{panels[index].get_title()} runs into a neighbour"
        area = panels[index].get_window_extent(renderer)
        scale = 1.6 if presentation else 1.0
        assert area.width >= 0.6 * PANEL_MIN_PX[0] * scale, area
    assert all(not ax.get_ylabel() and not ax.get_xlabel() for ax in panels)
    ylabel = figure._supylabel.get_window_extent(renderer)
    assert all(_boxes_apart(ylabel, box) for box in boxes)
    assert legend.x0 >= 0 and legend.x1 <= whole.x1 and legend.y1 <= whole.y1 + 1


def test_the_same_machine_keeps_its_letter_in_every_view() -> None:
    """A machine keeps its letter whatever else is shown (the letters followed the order of the
    runs shown: the laptop was "machine B" beside its shards grid, "machine A" beside its
    ablation grid, which sorts first)."""
    table = pd.concat(
        [
            grid("the course's VM").assign(grid="custom"),
            grid("a laptop").assign(grid="shards"),
            grid("a laptop").assign(grid="ablation"),
        ],
        ignore_index=True,
    )
    view = explorer(table)
    runs = {label.partition(" grid")[0]: label for label in view.runs.options}
    legends = []
    for grid_name in ("shards", "ablation"):
        view.runs.value = (runs["custom"], runs[grid_name])
        legends.append({t.get_text() for t in view.figure.legends[0].get_texts()})
    assert "V4 · shards, machine B" in legends[0] and "V4 · custom, machine A" in legends[0]
    assert "V4 · ablation, machine B" in legends[1] and "V4 · custom, machine A" in legends[1]


def _rehearsal(build):
    """A rehearsal's runs in build/bench/explorer.csv: a size nobody stored (30KB, measured), a
    size that only timed out (70KB), a trainer whose module is gone."""
    from bpe_course.bench.tables import append_row

    path = build / "bench" / "explorer.csv"
    for size, status, version in (
        (30_000, "ok", "v5"),
        (70_000, "timeout", "v5"),
        (1_000_000, "ok", "gone_trainer_module:train"),
    ):
        row = fake_row(("stories", size, 300, version))
        append_row(path, {**row, "size": f"{size // 1000}KB", "status": status, "grid": "explorer"})
    return path


def test_a_rehearsal_never_becomes_the_opening_view(tmp_path, monkeypatch) -> None:
    """Issue 35, part 7: the explorer opens on the stored grids; a reader's runs are listed as
    theirs, unselected; a trainer that cannot be imported is not listed; a size typed in is kept
    only if it was measured."""
    from bpe_course.course.widgets.explorer import course_explorer

    monkeypatch.setenv("BPE_COURSE_BUILD", str(tmp_path / "build"))
    path = _rehearsal(tmp_path / "build")
    view = course_explorer(path, interactive=False, runner=fake_row)
    assert view.corpus.value == ("stories",) and view.size.value == (1_000_000, 5_000_000)
    yours = [label for label in view.runs.options if label.startswith("yours: ")]
    assert yours == ["yours: explorer grid, this machine"]
    assert not set(yours) & set(view.runs.value) and view.runs.value
    assert "gone_trainer_module:train" not in [value for _, value in view.version.options]
    sizes = [value for _, value in view.size.options]
    assert 30_000 in sizes and 70_000 not in sizes
    # measured here, in this session: the reader's earlier runs join the selection, so the
    # cell just measured is drawn and no longer missing
    view.size.value = (30_000,)
    view.version.value = ("v5",)
    view.vocab.value = (300, 300)
    view.add_vocab.value = "400"
    assert missing_cells(view.table, view.selection()) == [
        ("stories", 30_000, 300, "v5"),  # measured in the rehearsal, whose runs are not selected
        ("stories", 30_000, 400, "v5"),
    ]
    view.start_measuring()
    view.wait(30)
    assert missing_cells(view.table, view.selection()) == [] and set(yours) <= set(view.runs.value)
    # the earlier runs are the reader's too, and said to be
    view.size.value = (30_000,)
    view.version.value = ("v5",)
    view.vocab.value = (300, 300)
    view.runs.value = tuple(yours)
    assert "yours: explorer grid, this machine" in {
        p.runs for ps in view.points.values() for p in ps
    }


def test_starting_clean_sets_the_readers_runs_aside(tmp_path, monkeypatch, capsys) -> None:
    """``course_explorer(clean=True)`` and ``bpe-course explore --clean``: the explorer's own file
    moves to build/bench/set-aside/, unread, not deleted."""
    from bpe_course.cli import explore as explore_command
    from bpe_course.course.widgets.explorer import course_explorer

    monkeypatch.setenv("BPE_COURSE_BUILD", str(tmp_path / "build"))
    path = _rehearsal(tmp_path / "build")
    view = course_explorer(clean=True, interactive=False)
    assert not path.exists() and not any(r.startswith("yours") for r in view.runs.options)
    (moved,) = (tmp_path / "build" / "bench" / "set-aside").glob("explorer-*.csv")
    assert f"set aside in {moved}" in capsys.readouterr().out
    _rehearsal(tmp_path / "build")
    monkeypatch.setattr(explore_command, "serve", lambda command, env=None: 0)
    monkeypatch.setattr(explore_command, "free_port", lambda port: port)
    from bpe_course.__main__ import main

    assert main(["explore", "--clean", "--no-browser"]) == 0
    assert not path.exists() and "set aside in" in capsys.readouterr().out


def test_a_long_status_has_a_line_of_its_own_and_its_whole_text_in_a_tooltip() -> None:
    view = explorer()
    view._notice = "saved " + "/a/long/path" * 30
    view.redraw()
    assert view.status not in view.widget.children[2].children  # not beside the buttons
    assert 'title="' in view.status.value and view._notice in view.status.value.split('title="')[1]


def test_lines_of_different_runs_say_when_each_was_measured() -> None:
    """Two V4 lines (crossover grid, versions grid) differ: the note under the figure says they
    are other runs and when each ran."""
    crossover = grid("the course's VM").assign(grid="crossover", date="2026-11-22")
    versions = grid("the course's VM").assign(grid="versions", date="2026-11-24", load_1m=1.5)
    view = explorer(pd.concat([crossover, versions], ignore_index=True))
    note = html.unescape(view.runs_note.value)
    assert "crossover: 2026-11-22" in note and "versions: 2026-11-24, load 1.5-1.5" in note
    view.runs.value = view.runs.options[:1]
    assert view.runs_note.value == ""


def test_the_explore_page_imports_a_trainer_from_where_notebook_11_does(
    tmp_path, monkeypatch
) -> None:
    """Notebook 11's kernel runs in notebooks/, so a reader's trainer module goes there; the
    explore page's kernel runs elsewhere (build/explore): it imports from notebooks/ too (here
    and in the process that measures each cell), and its hint names that folder."""
    import os
    import sys

    import ipywidgets

    from bpe_course.course.widgets.explorer import explorer_page
    from bpe_course.paths import notebooks_dir

    monkeypatch.setenv("BPE_COURSE_BUILD", str(tmp_path / "build"))
    monkeypatch.setenv("PYTHONPATH", "")
    monkeypatch.setattr(sys, "path", list(sys.path))
    page = explorer_page(interactive=False)
    folder = str(notebooks_dir())
    assert folder in sys.path and os.environ["PYTHONPATH"].split(os.pathsep)[0] == folder

    def texts(widget):
        if isinstance(widget, ipywidgets.Text):
            yield widget
        for child in getattr(widget, "children", ()):
            yield from texts(child)

    (box,) = [t for t in texts(page) if t.placeholder.startswith("your trainer")]
    assert f"the module in {folder}" in box.tooltip
    box.value = "no_such_trainer_here:train"
    (status,) = [c for c in page.children if "bpe-explorer-status" in c._dom_classes]
    said = html.unescape(status.value)
    assert f"put no_such_trainer_here.py in {folder}" in said
