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
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

if TYPE_CHECKING:  # matplotlib.typing is 3.8's; the package asks for 3.7
    from matplotlib.typing import RcKeyType

from bpe_course.plots.common import METRIC_NAMES, version_color, version_label

# one line style and one marker per runs label, in the order they appear: past four labels the
# styles repeat, the markers (seven) still tell the lines apart
LINE_STYLES = ["-", "--", ":", "-."]
MARKERS = ["o", "s", "^", "D", "v", "P", "X"]


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


# The least room a panel needs to stay readable at text scale 1 (its title, ticks and curves), in
# pixels: more panels than fit side by side wrap into rows, and rows that the room cannot hold at
# this height make the figure taller (the page scrolls) instead of squeezing them.
PANEL_MIN_PX = (330, 210)
LEGEND_ROW_PX = 22  # one row of the shared legend, at text scale 1


def room_of(fig: Figure) -> tuple[float, float]:
    """The figure's size in the browser's pixels (a HiDPI screen raises ``fig.dpi``, not them)."""
    width, height = fig.get_size_inches() * getattr(fig, "_original_dpi", fig.dpi)
    return float(width), float(height)


def _set_size(fig: Figure, width_px: float, height_px: float) -> None:
    if max(abs(a - b) for a, b in zip(room_of(fig), (width_px, height_px))) >= 1:
        dpi = getattr(fig, "_original_dpi", fig.dpi)
        fig.set_size_inches(width_px / dpi, height_px / dpi, forward=True)


def panel_grid(
    count: int, width_px: float, height_px: float, text_scale: float = 1.0, legend_rows: int = 1
) -> tuple[int, int, float]:
    """Rows, columns and the figure's height (pixels) for ``count`` panels in a room of
    ``width_px`` x ``height_px``: as many columns as panels of the least width fit, the rows
    balanced (5 panels: 3 + 2, not 4 + 1), and the room's height unless the rows and the legend's
    need more."""
    least_width, least_height = (side * text_scale for side in PANEL_MIN_PX)
    columns = max(1, min(count, int(width_px // least_width)))
    rows = -(-count // columns)
    columns = -(-count // rows)
    needed = rows * least_height + (legend_rows + 1) * LEGEND_ROW_PX * text_scale
    return rows, columns, max(height_px, needed)


def draw_explorer(
    fig: Figure,
    stats: pd.DataFrame,
    selection: View,
    text_scale: float = 1.0,
    empty: str = "",
    room: tuple[float, float] | None = None,
    machines: list[str] | None = None,
) -> dict[Axes, list[Point]]:
    """Draw ``stats`` (:func:`bpe_course.bench.results.summary`) on ``fig``: one panel per corpus
    and size (smallest first), wrapped into rows, a line per version and runs label (colour:
    version; line style: runs), the min-max of the repeats as a band, one legend for all the
    panels above them and one label per axis. ``text_scale`` enlarges every text (a projected
    figure); ``empty`` is what an empty figure says; ``room`` (pixels) is the space the figure may
    fill (default: its size now); it grows taller where the panels need it. ``machines`` fixes
    the letters the legend gives the machines (default: in the order they appear).
    Returns ``{axes: [Point, ...]}``."""
    sizes: dict[RcKeyType, Any] = {
        "font.size": 11 * text_scale,
        "axes.titlesize": 11 * text_scale,
        "axes.labelsize": 11 * text_scale,
        "xtick.labelsize": 10 * text_scale,
        "ytick.labelsize": 10 * text_scale,
        "legend.fontsize": 10 * text_scale,
        "figure.labelsize": 11 * text_scale,
    }
    if room is None:
        room = room_of(fig)
    with matplotlib.rc_context(sizes):
        return _draw(fig, stats, selection, text_scale, empty, room, machines)


def _draw(
    fig: Figure,
    stats: pd.DataFrame,
    selection: View,
    text_scale: float,
    empty: str,
    room: tuple[float, float],
    machines: list[str] | None,
) -> dict[Axes, list[Point]]:
    fig.clear()
    fig.set_layout_engine("constrained", w_pad=0.04, h_pad=0.04, hspace=0.04, wspace=0.02)
    # numerically by size (1 MB, 5 MB, 21.5 MB), not as text (1MB, 21.5MB, 5MB)
    panels = sorted({(c, int(s)) for c, s in zip(stats["corpus"], stats["size_bytes"])})
    if not panels:
        _set_size(fig, *room)
        _say_empty(fig, selection, empty)
        return {}
    all_runs = list(dict.fromkeys(stats["runs"]))
    names = short_runs(all_runs, machines)
    curves = stats[["version", "runs"]].drop_duplicates()
    columns_of_legend = _legend_columns(curves, names, len(all_runs), room[0], text_scale)
    legend_rows = -(-len(curves) // columns_of_legend)
    rows, columns, height = panel_grid(len(panels), room[0], room[1], text_scale, legend_rows)
    _set_size(fig, room[0], height)
    points: dict[Axes, list[Point]] = {}
    unit = f"÷ {version_label(selection.ratio_to)}" if selection.ratio_to else "seconds"
    ticks_px = 75 * text_scale  # a tick label's width and a gap, in pixels
    for index, (corpus, size_bytes) in enumerate(panels):
        ax = fig.add_subplot(rows, columns, index + 1)
        part = stats[(stats["corpus"] == corpus) & (stats["size_bytes"] == size_bytes)]
        points[ax] = _draw_panel(ax, part, corpus, all_runs, names, text_scale)
        if selection.ratio_to:
            ax.axhline(1.0, color="black", lw=0.8, ls=":")
        _axis(ax.xaxis, "log" if selection.log_x else "linear")
        if not selection.log_x:  # no more ticks than their labels ("10,000") have room for
            ax.xaxis.set_major_locator(
                MaxNLocator(
                    nbins=max(2, int(room[0] / columns / ticks_px)), steps=[1, 2, 2.5, 5, 10]
                )
            )
        _axis(ax.yaxis, "log" if selection.log_y else "linear")
        if not selection.log_y and not selection.ratio_to:
            ax.set_ylim(bottom=0)
        ax.set_title(f"{corpus}, {part['size'].iloc[0]}")
    # one legend and one label per axis for every panel: a legend in each panel covered its
    # curves and the titles, and a y-label beside each ran into its left neighbour's ticks
    handles: dict[str, Any] = {}
    for ax in points:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    _fit_legend(fig, list(handles.values()), list(handles), columns_of_legend)
    fig.supxlabel("vocab size")
    fig.supylabel(f"{METRIC_NAMES.get(selection.metric, selection.metric)}, {unit}")
    return points


def _fit_legend(fig: Figure, handles: list, labels: list[str], columns: int) -> None:
    """The shared legend above the panels, in as many columns as fit the figure's width: the
    first guess (:func:`_legend_columns`) is measured and narrowed until the legend fits (a
    legend wider than the figure is cut off at both sides: the layout does not shrink it)."""
    while True:
        legend = fig.legend(
            handles, labels, loc="outside upper center", ncols=columns, frameon=False
        )
        if columns == 1 or legend.get_window_extent().width <= 0.98 * fig.bbox.width:
            return
        legend.remove()
        columns -= 1


def _legend_columns(
    curves: pd.DataFrame, names: dict[str, str], runs: int, width_px: float, text_scale: float
) -> int:
    """How many entries of the shared legend fit side by side in the figure's width."""
    longest = max(
        len(version_label(v) + (f" · {names[r]}" if runs > 1 else ""))
        for v, r in curves.itertuples(index=False)
    )
    entry_px = (longest * 6.5 + 50) * text_scale  # about 6.5 px a character at 10 points
    return max(1, min(len(curves), int(width_px // entry_px)))


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
    ax: Axes,
    part: pd.DataFrame,
    corpus: str,
    all_runs: list[str],
    short: dict[str, str],
    text_scale: float,
) -> list[Point]:
    """One corpus size: per version and runs, the median as a line (a dash per runs) and the
    min-max as a band; the points the read-out names."""
    points = []
    for (version_key, runs_key), curve in part.groupby(["version", "runs"], sort=False):
        version, runs, curve = str(version_key), str(runs_key), curve.sort_values("vocab_size")
        color = version_color(version)
        style = LINE_STYLES[all_runs.index(runs) % len(LINE_STYLES)]
        marker = MARKERS[all_runs.index(runs) % len(MARKERS)]
        label = version_label(version) + (f" · {short[runs]}" if len(all_runs) > 1 else "")
        ax.fill_between(
            curve["vocab_size"], curve["min"], curve["max"], color=color, alpha=0.2, lw=0
        )
        ax.plot(
            curve["vocab_size"],
            curve["median"],
            style,
            marker=marker,
            ms=3.5 * text_scale,
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


def short_runs(all_runs: list[str], machines: list[str] | None = None) -> dict[str, str]:
    """Legend names for runs labels (``"crossover grid, <machine>"``): the grid, and machine A,
    B, ... where several machines are shown (the read-out names the machine in full). The
    letters follow ``machines`` (the explorer passes every machine it knows, so a machine keeps
    its letter whatever is shown), else the order the machines appear in."""
    split = {runs: runs.partition(" grid, ") for runs in all_runs}
    shown = list(dict.fromkeys(machine for _, _, machine in split.values()))
    order = [*(machines or []), *(m for m in shown if m not in (machines or []))]
    names = {}
    for runs, (grid, _, machine) in split.items():
        names[runs] = grid if len(shown) == 1 else f"{grid}, {machine_letter(machine, order)}"
    return names


def machine_letter(machine: str, machines: list[str]) -> str:
    """``machine A``, ``machine B``, ...: the machine's place in ``machines``."""
    return f"machine {chr(65 + machines.index(machine) % 26)}"


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
