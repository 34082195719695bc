"""Every figure the notebooks show fits JupyterLab's cell on a projector, text unshrunk.

JupyterLab at 1280 x 800 with its file browser open gives a cell's output ``style.CELL_PX``
pixels; a wider picture is shrunk, its labels with it. Each plotting function of the package is
called here on the stored tables, as the notebooks call it (quick mode), and its figure is drawn
as the notebook draws it (``style.DPI``, cropped to what it holds: matplotlib's
``bbox_inches="tight"``). It must be at most ``style.MAX_WIDTH`` inches wide and shown at most
``(MAX_WIDTH + 0.2) x DPI`` pixels (a title or a legend past the figure's edge widens the
picture), with no text under ``style.SMALLEST`` points and no two texts or legends overlapping.
The notebooks' own figures are checked by their ``figsize``.
"""

from __future__ import annotations

import io
import itertools
import json
import re
import struct
from collections.abc import Callable, Iterator
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from bpe_course.bench.tables import stored_results  # noqa: E402
from bpe_course.plots import style  # noqa: E402

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
SHAPES = ("stories", "wide")


def _ladder(rungs: tuple[str, ...] | None = None) -> Figure:
    from bpe_course.plots.ladder import plot_ladder_curves

    return plot_ladder_curves(stored_results("ladder"), rungs=rungs or ("p5", "grown", "v5", "p4"))


def _steps() -> Figure:
    from bpe_course.plots.ladder import plot_ladder_steps

    return plot_ladder_steps(stored_results("ladder"), (1000, 10000))


def _trace() -> pd.DataFrame:
    """A traced run of V4 and V5 on a small text (the figures' layout, not the numbers)."""
    import tempfile

    from bpe_course.bench.trace import merge_trace

    with tempfile.TemporaryDirectory() as folder:
        corpus = Path(folder) / "c.txt"
        words = " ".join(f"w{i % 97}x{i % 13}" for i in range(3000))
        corpus.write_text((words + "<|endoftext|>\n") * 20, encoding="utf-8")
        return merge_trace(corpus, 340)  # 88 merges are there to make


def _waterfalls() -> Iterator[tuple[str, Figure]]:
    from bpe_course.bench.beyond import what_each_change_bought
    from bpe_course.plots import plot_waterfall

    ok = stored_results("beyond").query("status == 'ok'")
    for corpus, part in ok.groupby("corpus"):
        cell = part.sort_values("vocab_size").iloc[-1]
        steps = what_each_change_bought(part, int(cell["size_bytes"]), int(cell["vocab_size"]))
        if not steps.empty:
            title = f"V5 to fast, {corpus} {cell['size']}, vocab {int(cell['vocab_size']):,}"
            yield f"waterfall {corpus}", plot_waterfall(steps, title)


def _large_runs() -> Figure:
    from bpe_course.bench.memory import summarize
    from bpe_course.plots.large_run import plot_large_runs

    samples = sorted(
        (pd.read_csv(p) for p in (NOTEBOOKS / "results").glob("memory_wide_*.csv")),
        key=lambda t: t["size_bytes"].iloc[-1],
    )
    return plot_large_runs(pd.DataFrame([summarize(t) for t in samples]), samples[-1])


def _growing_runs() -> Figure:
    from bpe_course.bench.memory import summarize
    from bpe_course.plots.large_run import plot_growing_runs

    rows = []
    for shape in ("growing", "wide"):
        for path in (NOTEBOOKS / "results").glob(f"memory_{shape}_*.csv"):
            table = pd.read_csv(path)
            table["repeat"] = table.get("repeat", 1)
            for (version, _), samples in table.groupby(["version", "repeat"]):
                row = summarize(samples.reset_index(drop=True))
                rows.append(row | {"shape": shape, "version": version})
    return plot_growing_runs(pd.DataFrame(rows), 4000)


def _merge_growth() -> Figure:
    from bpe_course.plots.large_run import plot_merge_growth

    growth = stored_results("merge_growth_wide_500MB")
    return plot_merge_growth(growth, f"fast's merge loop on {growth['words'].iloc[0]:,} words")


def _memory() -> Figure:
    from bpe_course.plots import plot_memory

    memory = pd.read_csv(NOTEBOOKS / "results" / "memory_stories_2.1GB.csv")
    return plot_memory(memory, "fast on stories (2.10 GB), vocab 32,000")


def _against_fast() -> Figure:
    from bpe_course.bench.beyond import paired_ratios
    from bpe_course.plots import plot_against_fast

    ok = stored_results("shards").query("status == 'ok'")
    ratios = [paired_ratios(ok, v, "fast", "merge_s").assign(version=v) for v in ("shards", "v5")]
    return plot_against_fast(pd.concat(ratios), "merge_s")


def _repeats() -> Iterator[tuple[str, Figure]]:
    """plot_repeats as 05-10 and 13 call it: two panels over sizes, jobs in columns, jobs in rows."""
    from bpe_course.plots.repeats import plot_repeats

    runs = pd.DataFrame(
        [
            {"job": job, "repeat": r, "megabytes": mb, "seconds": mb * (1 + 0.1 * r) + offset}
            for job, offset in (("V1", 0.0), ("V2", 0.05), ("V4", 0.1))
            for mb in (1, 5, 21.5)
            for r in range(3)
        ]
    )
    title = "V1 and V2 against corpus size (dot: one run; bar: fastest to slowest)"
    yield (
        "repeats over sizes",
        plot_repeats(
            [("this run: stories corpus", runs), ("stored: stories corpus, 3 repeats", runs)],
            x="megabytes",
            xlabel="corpus size (MB)",
            title=title,
        ),
    )
    yield (
        "repeats by job",
        plot_repeats(
            [("stored, 1MB", runs), ("stored, 5MB", runs)],
            ylabel="pretokenization (s)",
            title=title,
        ),
    )
    yield (
        "repeats in rows",
        plot_repeats(
            [("Merge loop, three rounds in turn: stories corpus, 5MB, vocab 5,000", runs)],
            ylabel="merge-loop seconds (dot: one run; bar: fastest to slowest; |: the median)",
            horizontal=True,
        ),
    )


def _stepper() -> Figure:
    from bpe_course.course.widgets.steppers import pair_counts_figure
    from bpe_course.reference.sennrich import PAPER_EXAMPLE, steps

    return pair_counts_figure(steps(PAPER_EXAMPLE, 10)[0], 10)


def course_figures() -> Iterator[tuple[str, Callable[[], Figure]]]:
    """(name, a function that draws it) for every figure the package draws for a notebook."""
    from bpe_course import plots
    from bpe_course.plots import scaling

    for shape in SHAPES:
        grid, versions = f"crossover_{shape}", f"versions_{shape}"
        yield f"heatmap {shape}", lambda g=grid: plots.plot_ratio_heatmap(stored_results(g))
        for metric in ("merge_s", "total_s"):
            yield (
                f"crossover {shape} {metric}",
                lambda g=grid, m=metric: plots.plot_crossover(
                    stored_results(g), m, versions=("v4", "v5")
                ),
            )
        yield (
            f"scaling {shape}",
            lambda g=grid: plots.plot_scaling(
                stored_results(g), vocab_size=5000, metrics=("merge_s", "total_s")
            ),
        )
        yield (
            f"phases {shape}",
            lambda v=versions: plots.plot_phases(stored_results(v), 21_500_000, 5000),
        )
    yield "speedups", lambda: scaling.plot_speedups(stored_results("versions_stories"), 21.5, 5000)
    yield "ladder curves", _ladder
    yield "ladder half 1", lambda: _ladder(("p5", "bytes", "cached", "grown", "p4"))
    yield "ladder half 2", lambda: _ladder(("grown", "live", "rewrite", "v5", "p4", "top4"))
    yield "ladder steps", _steps
    yield (
        "per merge",
        lambda: plots.plot_per_merge(
            _trace(), "Per-merge cost, V4 vs V5: stories corpus, 21.5MB, vocab 5,000"
        ),
    )
    yield (
        "cumulative",
        lambda: plots.plot_cumulative(
            _trace(), "Merge-loop time so far: wide corpus, 5MB, vocab 5,000"
        ),
    )
    yield (
        "side by side",
        lambda: plots.plot_side_by_side(
            stored_results("beyond").query("status == 'ok'"), "total_s"
        ),
    )
    yield "memory", _memory
    yield "large runs", _large_runs
    yield "growing runs", _growing_runs
    yield "merge growth", _merge_growth
    yield "against fast", _against_fast
    yield "stepper", _stepper


def more_figures() -> Iterator[tuple[str, Figure]]:
    """Figures a function draws several of at once."""
    yield from _waterfalls()
    yield from _repeats()
    from bpe_course.plots import draw_all

    for shape in SHAPES:  # what `bpe-course bench` saves beside its table
        for name, fig in draw_all(stored_results(f"versions_{shape}")).items():
            yield f"draw_all {shape} {name}", fig


def shown_width(fig: Figure) -> int:
    """The width in pixels of the picture the notebook shows (its inline backend's PNG)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=style.DPI, bbox_inches="tight")
    return struct.unpack(">I", buffer.getvalue()[16:20])[0]


def drawn_texts(fig: Figure) -> Iterator[tuple[str, Text]]:
    """Every text the figure draws: titles, axis labels, the tick labels inside the axes' limits
    (an axis holds more, undrawn), annotations; not the texts inside legends."""
    for text in [fig._suptitle, fig._supxlabel, fig._supylabel, *fig.texts]:
        if text is not None:
            yield "figure", text
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        yield from (
            (f"title of {ax.get_label()}", t) for t in (ax.title, ax._left_title, ax._right_title)
        )
        yield from (("text", t) for t in ax.texts)
        for axis in (ax.xaxis, ax.yaxis):
            yield "axis label", axis.label
            yield "offset", axis.offsetText
            for tick in axis._update_ticks():  # the ticks inside the limits, as drawn
                yield from (("tick", t) for t in (tick.label1, tick.label2) if t.get_visible())


def overlaps(fig: Figure) -> list[str]:
    """Pairs of drawn texts (titles, labels, tick labels, annotations) or legends whose boxes
    overlap by more than a pixel each way (a descender touching the line below is not one). Not
    compared: two slanted texts (their boxes overlap where the letters do not: slanted tick labels
    side by side) and a text with its twin (a twin axis draws its shared axis's labels again)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    texts = {id(t): t for _, t in drawn_texts(fig) if t.get_visible() and t.get_text().strip()}
    boxes = [
        (repr(t.get_text()), t.get_window_extent(renderer), t.get_rotation() % 180 != 0)
        for t in texts.values()
    ]
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_visible())]
    boxes += [
        (f"legend {leg.get_texts()[0].get_text()!r}...", leg.get_window_extent(renderer), False)
        for leg in legends
        if leg is not None and leg.get_visible() and leg.get_texts()
    ]
    found = []
    for (a, box_a, slanted_a), (b, box_b, slanted_b) in itertools.combinations(boxes, 2):
        if (slanted_a and slanted_b) or (a == b and box_a.bounds == box_b.bounds):
            continue
        width = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
        height = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
        if width > 1 and height > 1:
            found.append(f"{a} over {b}")
    return found


def small_texts(fig: Figure) -> list[str]:
    fig.canvas.draw()
    return [
        f"{t.get_text()!r} at {t.get_fontsize()}"
        for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip() and t.get_fontsize() < style.SMALLEST
    ]


def check(fig: Figure) -> None:
    try:
        width_in = fig.get_size_inches()[0]
        assert width_in <= style.MAX_WIDTH + 1e-9, f"{width_in:.2f} in wide"
        pixels = shown_width(fig)
        assert pixels <= round((style.MAX_WIDTH + 0.2) * style.DPI), f"shown {pixels} px wide"
        assert pixels <= style.CELL_PX
        assert small_texts(fig) == []
        assert overlaps(fig) == []
    finally:
        plt.close(fig)


@pytest.mark.parametrize("draw", [pytest.param(d, id=n) for n, d in course_figures()])
def test_a_figure_fits_the_projected_notebook_cell(draw: Callable[[], Figure]) -> None:
    check(draw())


@pytest.mark.slow
def test_the_figures_drawn_in_sets_fit_too() -> None:
    names = []
    for name, fig in more_figures():
        names.append(name)
        try:
            check(fig)
        except AssertionError as error:
            raise AssertionError(f"{name}: {error}") from error
    assert any(n.startswith("waterfall") for n in names) and len(names) >= 5


FIGSIZE = re.compile(r"figsize=\(([^,]+),")
LAID_OUT = re.compile(r'layout="constrained"|tight_layout\(')


def test_the_notebooks_own_figures_are_no_wider() -> None:
    """A notebook that draws its own figure gives it a width of at most ``MAX_WIDTH`` (a number,
    or ``style.MAX_WIDTH`` itself) when it lays the figure out inside that width (constrained or
    tight layout); without a layout, labels drawn past the figure's edge widen the picture (02's
    bar chart, 6.5 inches, is shown 745 pixels wide), so an inch less."""
    found = 0
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        for index, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            source = "".join(cell["source"]) if cell["cell_type"] == "code" else ""
            limit = style.MAX_WIDTH - (0 if LAID_OUT.search(source) else 1.0)
            for width in FIGSIZE.findall(source):
                found += 1
                where = f"{path.name} cell {index}: figsize width {width}, at most {limit:g}"
                if width.strip() != "style.MAX_WIDTH":
                    assert float(width) <= limit, where
                else:
                    assert limit == style.MAX_WIDTH, where
    assert found >= 10


def test_the_checks_catch_a_wide_figure_and_a_legend_over_a_title() -> None:
    title = "a long title about the corpus, the machine and its load; " * 4
    fig, ax = plt.subplots(figsize=(style.MAX_WIDTH, 2), layout="constrained")
    ax.set_title(title)
    assert shown_width(fig) > style.CELL_PX  # constrained layout does not wrap a title
    ax.set_title(style.wrap(title, 11))
    check(fig)  # wrapped, it fits

    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1], [0, 1], label="a line")
    ax.set_title("a title")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 0.95))
    assert any("legend" in pair for pair in overlaps(fig))
    plt.close(fig)
