"""Figure of notebook 13's largest runs: time against corpus size, phase by phase, beside a line
through the origin (what linear growth from the smallest run predicts), and the memory over time
of the largest run, every process counted."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from bpe_course.plots import style
from bpe_course.plots.common import version_color


def plot_large_runs(summary: pd.DataFrame, samples: pd.DataFrame, title: str = "") -> Figure:
    """``summary``: one row per run (``size_bytes``, ``pretokenize_s``, ``merge_s``,
    ``total_s``, ``cpu_s``, ``peak_mb``), as :func:`bpe_course.bench.memory.summarize` makes; ``samples``:
    the memory samples of the run to draw over time (``seconds``, ``rss_mb``)."""
    runs = summary.sort_values("size_bytes")
    gb = runs["size_bytes"].to_numpy() / 1e9
    # one panel above the other, each the notebook's whole width: side by side in it, each panel
    # would have under half of it for the legend's five lines and the 12- and 13-point text
    fig, (left, right) = plt.subplots(2, 1, figsize=(style.MAX_WIDTH, 6.6), height_ratios=(3, 2))
    width = 0.06 * gb.max()
    left.bar(gb, runs["pretokenize_s"], width, color="tab:blue", label="pretokenization")
    left.bar(
        gb,
        runs["merge_s"],
        width,
        bottom=runs["pretokenize_s"],
        color="tab:orange",
        label="merge loop",
    )
    line = np.array([0.0, gb.max() * 1.05])
    # Linear growth from the smallest run, for wall time and for the CPU seconds of all processes
    # (on a shared machine, wall time also measures the load; CPU time far less).
    top = max(runs["total_s"].max(), runs["cpu_s"].max())
    for column, line_style, name in (
        ("total_s", "k--", "wall"),
        ("cpu_s", "g:", "CPU, all processes"),
    ):
        rate = runs[column].iloc[0] / gb[0]
        left.plot(line, rate * line, line_style, lw=1.4, label=f"{name}: linear from {gb[0]:g} GB")
        top = max(top, rate * line[-1])
    left.plot(gb, runs["cpu_s"], "go", ms=7, label="CPU seconds, all processes")
    # each run's wall time under its size, on the axis: beside a short bar, a label sat on the
    # lines and the CPU dot, which crowd the small sizes
    left.set_xticks(gb, [f"{x:g}\n{total:,.0f} s" for x, total in zip(gb, runs["total_s"])])
    left.set_xlabel("corpus size (GB), and under it the wall time end to end", fontsize=13)
    left.set_ylabel("seconds, end to end", fontsize=13)
    left.tick_params(labelsize=12)
    left.set_ylim(0, top * 1.45)  # room above the lines for the legend
    left.legend(fontsize=12, loc="upper left", ncols=2)

    right.plot(samples["seconds"], samples["rss_mb"], lw=1.4, color=version_color("fast"))
    right.set_xlabel("seconds since start", fontsize=13)
    right.set_ylabel("resident memory (MB),\nall processes", fontsize=13)
    right.set_ylim(0, samples["rss_mb"].max() * 1.25)
    right.tick_params(labelsize=12)
    right.set_title(f"{gb.max():g} GB run: memory over time", fontsize=13)
    left.set_title("time by phase, against linear growth", fontsize=13)
    if title:
        fig.suptitle(title, fontsize=13)
    fig.tight_layout()
    return fig


def plot_merge_growth(table: pd.DataFrame, title: str = "") -> Figure:
    """CPU microseconds per merge (median of each bucket) and the distinct words each merge
    rewrote (mean), against the merge's index, as :mod:`bpe_course.bench.merge_growth` writes."""
    fig, ax = plt.subplots(figsize=(style.MAX_WIDTH, 4.4))
    x = table["bucket"] + table["merges"] / 2
    ax.plot(x, table["cpu_us_median"], "o-", color=version_color("fast"), label="CPU per merge")
    ax.set_yscale("log")
    ax.set_xlabel("merge number", fontsize=13)
    ax.set_ylabel("CPU microseconds per merge\n(median of each bucket, log)", fontsize=13)
    ax.tick_params(labelsize=12)
    twin = ax.twinx()
    twin.plot(x, table["words_touched_mean"], "s--", color="tab:grey", label="words rewritten")
    twin.set_yscale("log")
    twin.set_ylabel(
        "distinct words rewritten\nper merge (mean, log)", fontsize=13, color="tab:grey"
    )
    twin.tick_params(labelsize=12)

    for axis in (ax.yaxis, twin.yaxis):  # plain numbers (50, 100), no 4x10^1 minor labels
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        axis.set_minor_formatter(NullFormatter())
    lines = ax.get_lines() + twin.get_lines()
    ax.legend(lines, [str(line.get_label()) for line in lines], fontsize=12, loc="upper right")
    ax.set_title(title or "fast's merge loop as the vocabulary grows", fontsize=13)
    fig.tight_layout()
    return fig


def plot_growing_runs(summary: pd.DataFrame, memory_target_mb: float | None = None) -> Figure:
    """The runs of notebook 13 at OpenWebText's scale, one line per corpus shape and version
    through the medians of its runs (each run a dot), against corpus size: the distinct words
    counted, the seconds end to end (with linear growth from the smallest size drawn for each
    line), and the highest memory sample of all processes. ``summary``: one row per run with
    ``shape``, ``version``, ``size_bytes``, ``words``, ``total_s``, ``peak_mb``."""
    # One row: three panels stacked were 10 inches tall, taller than a slide.
    fig, axes = plt.subplots(1, 3, figsize=(style.MAX_WIDTH, 4.8), sharex=True)
    words_ax, time_ax, memory_ax = axes
    for (shape, version), runs in summary.groupby(["shape", "version"], sort=True):
        gb = runs["size_bytes"] / 1e9
        medians = runs.groupby(gb)[["words", "total_s", "peak_mb"]].median()
        line = "-" if shape == "growing" else "--"
        color = version_color(str(version))
        label = f"{version}, {shape}"
        for ax, column in ((words_ax, "words"), (time_ax, "total_s"), (memory_ax, "peak_mb")):
            if runs[column].notna().any():
                ax.plot(medians.index, medians[column], line, marker="o", color=color, label=label)
                ax.plot(gb, runs[column], ".", color=color, ms=5, alpha=0.6)
        smallest = medians.index.min()
        if len(medians) > 1:
            rate = medians["total_s"].iloc[0] / smallest
            x = np.array([smallest, medians.index.max()])
            time_ax.plot(x, rate * x, ":", color=color, lw=1.2)
    if memory_target_mb:
        low, high = memory_ax.get_ylim()
        memory_ax.set_ylim(low, max(high, memory_target_mb * 1.6))
        memory_ax.axhline(memory_target_mb, color="tab:red", lw=1.2, ls="-.")
        memory_ax.annotate(
            f"target: {memory_target_mb:,.0f} MB",
            (summary["size_bytes"].min() / 1e9, memory_target_mb),
            xytext=(0, 4),
            textcoords="offset points",
            fontsize=12,
            color="tab:red",
        )
    words_ax.set_title("distinct words", fontsize=12)
    time_ax.set_title("seconds, end to end\n(dotted: linear)", fontsize=12)
    memory_ax.set_title("highest memory (MB),\nall processes", fontsize=12)
    for ax in axes:
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.tick_params(labelsize=11)
        ax.set_xlabel("corpus (GB, log)", fontsize=11)
        ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.10g}"))
            axis.set_minor_formatter(NullFormatter())
    sizes = sorted(set(np.round(summary["size_bytes"] / 1e9, 2)))
    for ax in axes:
        ax.set_xticks(sizes)
    # every line has times (a library counts no words): the legend from those, where the words'
    # panel has room
    handles, labels = time_ax.get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=11, loc="lower center", ncol=2, frameon=False)
    fig.suptitle("growing and saturating corpora at vocab 32,000 (log axes)", fontsize=12)
    fig.tight_layout(rect=(0, 0.03 + 0.05 * ((len(labels) + 1) // 2), 1, 1))
    return fig
