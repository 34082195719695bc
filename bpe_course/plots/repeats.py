"""Repeated timings drawn with their spread (from :func:`bpe_course.bench.repeat.time_in_turn` or
a stored table like it): the median as a marker, every kept run as a dot, and a bar from the
fastest run to the slowest. Panels side by side compare this run (quick size) with the stored
full-size one; ``horizontal`` lays the jobs out as rows, for one panel of many or long names.

Side by side, each panel is about 4 inches wide: its title is set at ``PANEL_TITLE`` points and the
figure's at ``FIGURE_TITLE``, large enough to read on a projector, so a title must be short (about
40 characters fit a panel on one line); what does not fit (the stored run's machine and load) goes
in the panel's note, printed under its axis."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from bpe_course.plots import style
from bpe_course.trainers import registered

PANEL_TITLE = 12  # points: a panel's title when panels stand side by side
FIGURE_TITLE = 13  # points: the title over them


def _color(job: Hashable, colors: Mapping[str, str] | None, position: int) -> str:
    """The colour given for the job, else the version's it names, else the next of the cycle."""
    if colors and str(job) in colors:
        return colors[str(job)]
    entry = registered(str(job).lower())
    return entry.color if entry else f"C{position}"


def _label(job: Hashable) -> str:
    """A job that names a version (``"v4"``, ``"V4"``) is labelled as every figure labels it."""
    entry = registered(str(job).lower())
    return entry.label if entry else str(job)


def _figure(panels: int, jobs: int, horizontal: bool) -> tuple[Figure, np.ndarray]:

    size = (6.4, 0.9 + 0.45 * jobs) if horizontal else style.grid_size(panels, 2)
    # Constrained layout: it makes room for a legend placed outside the panels (see _legend).
    return plt.subplots(1, panels, figsize=size, squeeze=False, layout="constrained")


def plot_repeats(
    panels: Sequence[tuple[str, pd.DataFrame] | tuple[str, pd.DataFrame, str]],
    x: str = "job",
    y: str = "seconds",
    xlabel: str = "",
    ylabel: str = "seconds",
    title: str = "",
    colors: Mapping[str, str] | None = None,
    horizontal: bool = False,
    log: bool = False,
    digits: int | None = None,
) -> Figure:
    """One panel per ``(title, table)`` or ``(title, table, note)``. Each table has a ``job``
    column and one row per kept run; runs are grouped by ``job`` and ``x``. With ``x="job"`` each
    job is one column of the panel (one row with ``horizontal``, its median written beside it,
    with ``digits`` decimals as a table beside it prints them, else 3 significant digits);
    otherwise ``x`` is numeric and each job a line through its medians. ``ylabel`` names the
    values ``y``, on whichever axis; a panel's ``note`` is a line under ``xlabel``."""
    if horizontal and x != "job":
        raise ValueError("horizontal draws one row per job: x must be 'job'")
    most = max(panel[1]["job"].nunique() for panel in panels)
    fig, axes = _figure(len(panels), most, horizontal)
    width = fig.get_size_inches()[0]  # titles wrapped to it: a longer one widens the picture
    side_by_side = len(panels) > 1
    panel_size = PANEL_TITLE if side_by_side else style.RC["axes.titlesize"]
    for ax, (panel_title, table, *note) in zip(axes[0], panels):
        jobs = list(dict.fromkeys(table["job"]))
        for position, job in enumerate(jobs):
            color = _color(job, colors, position)
            _draw(ax, table[table["job"] == job], position, x, y, color, horizontal, digits)
        label = "\n".join(part for part in (xlabel, *note) if part)
        _axes(ax, jobs, x, label, ylabel, horizontal, log)
        if horizontal and not log:  # room for the medians written at the right
            ax.set_xlim(0, table[y].max() * 1.25)
        title_width = width / len(panels)
        ax.set_title(style.wrap(panel_title, panel_size, title_width), fontsize=panel_size)
    if title:
        size = FIGURE_TITLE if side_by_side else style.RC["figure.titlesize"]
        fig.suptitle(style.wrap(title, size, width), fontsize=size)
    if x != "job" and most > 1:
        _legend(fig, axes[0])
    return fig


def _legend(fig: Figure, axes: Sequence[Axes]) -> None:
    """One legend for all panels, below them: inside a panel it covered points (a median at the
    smallest size sat under it), and every panel draws the same jobs in the same colours."""
    labels: dict[str, Artist] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            labels.setdefault(label, handle)
    fig.legend(
        list(labels.values()), list(labels), loc="outside lower center", ncols=len(labels),
        frameon=False,
    )  # fmt: skip


def _draw(
    ax: Axes,
    part: pd.DataFrame,
    position: int,
    x: str,
    y: str,
    color: str,
    horizontal: bool,
    digits: int | None = None,
) -> None:
    """One job's runs: every run a dot, a bar from the fastest to the slowest, the median."""
    job = part["job"].iloc[0]
    stats = part.groupby(x, sort=True)[y].agg(["median", "min", "max"])
    where = [position] * len(stats) if x == "job" else list(stats.index)
    spread = [stats["median"] - stats["min"], stats["max"] - stats["median"]]
    at, dots = ([position] * len(part) if x == "job" else list(part[x])), list(part[y])
    if horizontal:  # values along x, one row per job, its median written at the right
        ax.errorbar(stats["median"], where, xerr=spread, fmt="none", lw=2.5, color=color, alpha=0.5)
        ax.plot(dots, at, "o", color=color, ms=5, mec="black", mew=0.6, zorder=3)
        ax.plot(stats["median"], where, "|", color="black", ms=14, mew=2)
        unit = " s" if y == "seconds" else ""
        median, high = stats["median"].iloc[0], stats["max"].iloc[0]
        value = f"{median:.3g}" if digits is None else f"{median:.{digits}f}"
        ax.annotate(f" {value}{unit}", (high, position), va="center")
        return
    ax.errorbar(
        where, stats["median"], yerr=spread, fmt="o-" if x != "job" else "o",
        capsize=5, lw=1.5, ms=7, color=color, label=_label(job),
    )  # fmt: skip
    ax.plot(at, dots, "o", color=color, ms=5, mec="black", mew=0.6, zorder=3)


def _axes(
    ax: Axes, jobs: list[Hashable], x: str, xlabel: str, ylabel: str, horizontal: bool, log: bool
) -> None:
    """Ticks, limits, labels and scale of one panel: the job axis and the value axis."""
    job_axis, value_axis = (ax.yaxis, ax.xaxis) if horizontal else (ax.xaxis, ax.yaxis)
    if x == "job":
        job_axis.set_ticks(range(len(jobs)), [_label(job) for job in jobs])
        (ax.set_ylim if horizontal else ax.set_xlim)(-0.6, len(jobs) - 0.4)
    if horizontal:
        ax.invert_yaxis()  # the first job on top
    if log:
        (ax.set_xscale if horizontal else ax.set_yscale)("log")
    elif not horizontal:
        # From 0 to a little above the highest dot or bar: the automatic margin is a share of the
        # data's own span, which can leave a dot at the top half outside once the axis starts at 0.
        ax.set_ylim(0, ax.dataLim.y1 * 1.08)
    job_axis.set_label_text(xlabel)
    value_axis.set_label_text(ylabel)
    (ax.xaxis if horizontal else ax.yaxis).grid(True, alpha=0.3)
