"""Figures of notebook 13: versions side by side (the libraries and readers' trainers included),
what each change from V5 bought (a waterfall), and memory over time."""

from __future__ import annotations

import textwrap
from collections.abc import Hashable, Sequence
from typing import cast

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from bpe_course.plots import style
from bpe_course.plots.common import METRIC_NAMES, describe, version_color, version_label
from bpe_course.trainers import in_order


def plot_side_by_side(
    table: pd.DataFrame, metric: str = "total_s", log: bool | None = None
) -> Figure:
    """Median time per version, one panel per (corpus, size, vocab) cell, one horizontal bar per
    version with the range of the repeats as a line and its median written beside it. ``log``: a
    logarithmic time axis; by default when the slowest median is over 20 times the fastest (a
    linear axis would flatten the fast versions into the floor)."""
    ok = table[table["status"] == "ok"]
    cells = ["corpus", "size_bytes", "size", "vocab_size", "version"]
    stats = ok.groupby(cells)[metric].agg(["median", "min", "max"]).unstack("version")
    medians = stats["median"]
    versions = in_order(medians.columns)
    if log is None:
        log = bool(np.nanmax(medians.to_numpy()) > 20 * np.nanmin(medians.to_numpy()))
    # Rows of at most three panels, each wide enough for its bars and the medians written beside.
    columns = min(3, len(medians))
    rows = -(-len(medians) // columns)
    height = 0.9 + 0.36 * len(versions)
    fig, axes = plt.subplots(
        rows, columns, figsize=(style.MAX_WIDTH, 0.7 + height * rows), sharex=True,
        sharey=True, squeeze=False, layout="constrained",
    )  # fmt: skip
    y = np.arange(len(versions))
    for ax, (cell, row) in zip(axes.flat, medians.iterrows()):
        _side_by_side_panel(ax, row[versions], stats, cell, versions, y)
    for ax in axes.flat[len(medians) :]:
        ax.set_visible(False)
    axes[0][0].set_yticks(y, [version_label(v) for v in versions])
    axes[0][0].invert_yaxis()  # the first version on top
    low, high = np.nanmin(stats["min"].to_numpy()), np.nanmax(stats["max"].to_numpy())
    if log:  # one axis for all panels, ticks as plain numbers (1, 3, 10, 30), room for the text
        ax = axes[0][0]
        ax.set_xscale("log")
        ax.set_xlim(low / 1.5, high * 8)
        ax.xaxis.set_major_locator(LogLocator(subs=(1, 3)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
    else:
        axes[0][0].set_xlim(0, high * 1.35)
    name = METRIC_NAMES.get(metric, metric)
    fig.supxlabel(f"{name} time (s), median{', log scale' if log else ''}")
    fig.suptitle(
        style.wrap(f"Side by side, {name}; lines: range of the repeats\n{describe(table)}", 12)
    )
    return fig


def _side_by_side_panel(
    ax: Axes,
    middle: pd.Series,
    stats: pd.DataFrame,
    cell: Hashable,
    versions: Sequence[str],
    y: np.ndarray,
) -> None:
    """One cell of :func:`plot_side_by_side`: its bars, their ranges, their medians written."""
    low = np.array([stats["min"][v][cell] for v in versions])
    high = np.array([stats["max"][v][cell] for v in versions])
    medians = middle.to_numpy(dtype=float)
    ax.barh(
        y, medians, 0.7, color=[version_color(v) for v in versions],
        xerr=np.vstack([medians - low, high - medians]), error_kw={"elinewidth": 1, "capsize": 2},
    )  # fmt: skip
    for where, (value, top) in enumerate(zip(medians, high)):
        if np.isnan(value):  # at the panel's left edge, whatever the scale
            ax.annotate("not run", (0.02, where), xycoords=("axes fraction", "data"), va="center",
                        color="0.4", fontsize=style.SMALLEST)  # fmt: skip
        else:
            ax.annotate(f"{value:.3g} s", (top, where), va="center", xytext=(3, 0),
                        textcoords="offset points", fontsize=style.SMALLEST)  # fmt: skip
    corpus, _, size, vocab = cast(tuple[str, int, str, int], cell)  # the index's four levels
    ax.set_title(f"{corpus} {size}\nvocab {vocab:,}")  # two lines: three panels a row
    ax.xaxis.grid(True, alpha=0.3)


def plot_waterfall(steps: pd.DataFrame, title: str = "") -> Figure:
    """What each change bought, from ``steps`` (columns ``step``, ``seconds``, ``saved``,
    ``saved_low``, ``saved_high``, as
    :func:`bpe_course.bench.beyond.what_each_change_bought` returns)."""
    fig, ax = plt.subplots(figsize=(min(style.MAX_WIDTH, 8.0), 3.8))
    seconds, saved = steps["seconds"].to_numpy(), steps["saved"].to_numpy()
    x = np.arange(len(steps))
    ax.bar(x[:1], seconds[:1], color=version_color("v5"))
    for i in range(1, len(steps)):
        ax.bar(i, saved[i], bottom=seconds[i], color="tab:green" if saved[i] >= 0 else "tab:red")
        label = f"-{saved[i]:.2f} s"
        # where the end lands between the saving's extremes (its runs' fastest and slowest)
        low, high = steps["saved_low"].iloc[i], steps["saved_high"].iloc[i]
        ax.errorbar(
            i, seconds[i], yerr=[[high - saved[i]], [saved[i] - low]],
            color="black", capsize=4, elinewidth=1.2,
        )  # fmt: skip
        if low <= 0:
            label += "\nruns overlap"
        ax.annotate(label, (i, seconds[i - 1]), ha="center", va="bottom", fontsize=style.SMALLEST)
    end = len(steps)
    ax.bar(end, seconds[-1], color=version_color("fast"))
    ax.annotate(
        f"{seconds[0]:.2f} s", (0, seconds[0]), ha="center", va="bottom", fontsize=style.SMALLEST
    )
    ax.annotate(
        f"{seconds[-1]:.2f} s",
        (end, seconds[-1]),
        ha="center",
        va="bottom",
        fontsize=style.SMALLEST,
    )
    # Names wrapped, not slanted: slanted, a long one ran into its neighbour at projector size.
    names = [textwrap.fill(name, 14) for name in [*steps["step"], "fast"]]
    ax.set_xticks([*x, end], names, fontsize=style.SMALLEST)
    # a saving's range may reach above the bar before it
    top = max(seconds.max(), float((seconds[:-1] - steps["saved_low"].to_numpy()[1:]).max()))
    ax.set_ylim(0, top * 1.2)  # room for the numbers written above the bars
    ax.set_ylabel("end-to-end time (s), median;\nblack: the end, largest to smallest saving")
    ax.set_title(title or "What each change bought")
    fig.tight_layout()
    return fig


def plot_memory(samples: pd.DataFrame, title: str = "") -> Figure:
    """Resident memory of all processes of a run over time (``seconds``, ``rss_mb``,
    ``processes``, as :mod:`bpe_course.bench.memory` writes)."""
    fig, ax = plt.subplots(figsize=(7.0, 3.2))
    ax.plot(samples["seconds"], samples["rss_mb"], lw=1.2, color=version_color("fast"))
    ax.set_xlabel("seconds since start")
    ax.set_ylabel("resident memory, all processes (MB)")
    ax.set_ylim(bottom=0)
    twin = ax.twinx()
    twin.step(samples["seconds"], samples["processes"], color="tab:grey", lw=0.8, where="post")
    twin.set_ylabel("processes", color="tab:grey")
    twin.set_ylim(0, max(3, samples["processes"].max() + 1))
    ax.set_title(title or "Memory over time", fontsize=style.SMALLEST)
    fig.tight_layout()
    return fig
