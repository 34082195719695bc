"""The explorer's figure: any selection of benchmark results, drawn on a figure the caller owns
(an interactive ipympl canvas in a notebook, or a plain figure in a test or a saved file)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.axis import Axis, XAxis
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

if TYPE_CHECKING:  # matplotlib.typing is 3.8's; the package asks for 3.7
    from matplotlib.typing import RcKeyType

from bpe_course.plots.common import METRIC_NAMES, version_color, version_label

LINE_STYLES = ["-", "--", ":", "-."]  # one per runs label, in the order they appear


@dataclass(frozen=True)
class Point:
    """One plotted point, for the hover read-out."""

    version: str
    corpus: str
    size: str
    runs: str  # the grid and the machine its repeats come from
    vocab_size: int
    median: float
    low: float
    high: float
    repeats: int


class View(Protocol):
    """What the figure reads of the explorer's selection (a
    :class:`bpe_course.bench.results.Selection`): the metric and how the axes are drawn."""

    @property
    def metric(self) -> str: ...

    @property
    def ratio_to(self) -> str | None: ...

    @property
    def log_x(self) -> bool: ...

    @property
    def log_y(self) -> bool: ...


def draw_explorer(
    fig: Figure, stats: pd.DataFrame, selection: View, text_scale: float = 1.0, empty: str = ""
) -> dict[Axes, list[Point]]:
    """Draw ``stats`` (:func:`bpe_course.bench.results.summary`) on ``fig``: one panel per corpus
    and size (smallest first), a line per version and runs label (colour: version; line style:
    runs), the min-max of the repeats as a band. ``text_scale`` enlarges every text (a projected
    figure); ``empty`` is what an empty figure says. Returns ``{axes: [Point, ...]}``."""
    sizes: dict[RcKeyType, Any] = {
        "font.size": 9 * text_scale,
        "axes.titlesize": 10 * text_scale,
        "axes.labelsize": 9 * text_scale,
        "xtick.labelsize": 8 * text_scale,
        "ytick.labelsize": 8 * text_scale,
        "legend.fontsize": 8 * text_scale,
    }
    with matplotlib.rc_context(sizes):
        return _draw(fig, stats, selection, text_scale, empty)


def _draw(
    fig: Figure, stats: pd.DataFrame, selection: View, text_scale: float, empty: str
) -> dict[Axes, list[Point]]:
    fig.clear()
    # numerically by size (1 MB, 5 MB, 21.5 MB), not as text (1MB, 21.5MB, 5MB)
    panels = sorted({(c, int(s)) for c, s in zip(stats["corpus"], stats["size_bytes"])})
    if not panels:
        _say_empty(fig, selection, empty)
        return {}
    width, height = fig.get_size_inches()
    columns = min(len(panels), 3 if width / height > 2.2 else 2)
    rows = -(-len(panels) // columns)
    all_runs = list(dict.fromkeys(stats["runs"]))
    points: dict[Axes, list[Point]] = {}
    unit = f"÷ {version_label(selection.ratio_to)}" if selection.ratio_to else "seconds"
    for index, (corpus, size_bytes) in enumerate(panels):
        ax = fig.add_subplot(rows, columns, index + 1)
        part = stats[(stats["corpus"] == corpus) & (stats["size_bytes"] == size_bytes)]
        points[ax] = _draw_panel(ax, part, corpus, all_runs, text_scale)
        if selection.ratio_to:
            ax.axhline(1.0, color="black", lw=0.8, ls=":")
        _axis(ax.xaxis, "log" if selection.log_x else "linear")
        _axis(ax.yaxis, "log" if selection.log_y else "linear")
        if not selection.log_y and not selection.ratio_to:
            ax.set_ylim(bottom=0)
        ax.set_title(f"{corpus}, {part['size'].iloc[0]}")
        ax.set_xlabel("vocab size")
        ax.set_ylabel(f"{METRIC_NAMES.get(selection.metric, selection.metric)}, {unit}")
        ax.legend()
    fig.tight_layout()
    return points


def _say_empty(fig: Figure, selection: View, empty: str) -> None:
    """No point to draw: the figure says why, in words."""
    ax = fig.add_subplot()
    ax.axis("off")
    what = "merge-loop" if selection.metric == "merge_s" else "end-to-end"
    ax.text(
        0.5,
        0.5,
        empty or f"no {what} times measured in this selection",
        ha="center",
        va="center",
        wrap=True,
    )


def _draw_panel(
    ax: Axes, part: pd.DataFrame, corpus: str, all_runs: list[str], text_scale: float
) -> list[Point]:
    """One corpus size: per version and runs, the median as a line (a dash per runs) and the
    min-max as a band; the points the read-out names."""
    short = short_runs(all_runs)
    points = []
    for (version_key, runs_key), curve in part.groupby(["version", "runs"], sort=False):
        version, runs, curve = str(version_key), str(runs_key), curve.sort_values("vocab_size")
        color = version_color(version)
        style = LINE_STYLES[all_runs.index(runs) % len(LINE_STYLES)]
        label = version_label(version) + (f" · {short[runs]}" if len(all_runs) > 1 else "")
        ax.fill_between(
            curve["vocab_size"], curve["min"], curve["max"], color=color, alpha=0.2, lw=0
        )
        ax.plot(
            curve["vocab_size"],
            curve["median"],
            style,
            marker="o",
            ms=3 * text_scale,
            lw=1.5 * text_scale,
            color=color,
            label=label,
        )
        points += [
            Point(
                version,
                corpus,
                row.size,
                runs,
                int(row.vocab_size),
                row.median,
                row.min,
                row.max,
                int(row.repeats),
            )
            for row in curve.itertuples()
        ]
    return points


def short_runs(all_runs: list[str]) -> dict[str, str]:
    """Legend names for runs labels (``"crossover grid, <machine>"``): the grid, and machine A,
    B, ... where several machines are shown (the read-out names the machine in full)."""
    split = {runs: runs.partition(" grid, ") for runs in all_runs}
    machines = list(dict.fromkeys(machine for _, _, machine in split.values()))
    names = {}
    for runs, (grid, _, machine) in split.items():
        names[runs] = (
            grid
            if len(machines) == 1
            else f"{grid}, machine {chr(65 + machines.index(machine) % 26)}"
        )
    return names


def _axis(axis: Axis, scale: str) -> None:
    """Set an axis's scale; a log axis is ticked at 1, 2, 5 times powers of ten, written as plain
    numbers (600, 2,000, 0.05), never as powers (6 × 10²)."""
    if isinstance(axis, XAxis):
        axis.axes.set_xscale(scale)
    else:
        axis.axes.set_yscale(scale)
    if scale == "log":
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(FuncFormatter(lambda x, _: plain_number(x)))
        axis.set_minor_formatter(NullFormatter())
    elif isinstance(axis, XAxis):
        axis.set_major_formatter(FuncFormatter(lambda x, _: plain_number(x)))


def plain_number(x: float) -> str:
    """A tick's label: ``2,000``, ``600``, ``0.05``."""
    if x >= 1000:
        return f"{x:,.0f}"
    return f"{x:g}"


def nearest(
    points: list[Point], ax: Axes, x: float | None, y: float | None, within: float = 12.0
) -> Point | None:
    """The plotted point of ``ax`` nearest to data coordinates (x, y), if within ``within`` pixels."""
    if not points or x is None or y is None:
        return None
    here = ax.transData.transform((x, y))
    where = ax.transData.transform(np.array([(p.vocab_size, p.median) for p in points]))
    distance = np.hypot(*(where - here).T)
    best = int(np.argmin(distance))
    return points[best] if distance[best] <= within else None


def describe_point(point: Point, metric: str, ratio_to: str | None) -> str:
    """The read-out of one point: what it is, and its median and spread over the repeats."""
    unit = f"× {version_label(ratio_to)}'s time" if ratio_to else "s"
    spread = f"{point.low:.3g} to {point.high:.3g}" if point.repeats > 1 else "one run"
    return (
        f"{version_label(point.version)} on {point.corpus} {point.size}, vocab "
        f"{point.vocab_size:,}: median {point.median:.3g} {unit} over {point.repeats} repeat(s) "
        f"({spread}), {METRIC_NAMES.get(metric, metric)}, {point.runs}"
    )
