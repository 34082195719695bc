"""Repeated timings drawn with their spread: the median as a marker, every kept run as a dot, and
a bar from the fastest run to the slowest. Used where a lesson compares this run (quick size)
with the stored full-size one, panel beside panel."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from bpe_course.plots import style


def _color(job) -> str | None:
    from bpe_course.plots import VERSION_COLORS

    return VERSION_COLORS.get(str(job).lower())


def _label(job) -> str:
    from bpe_course.plots import version_label

    text = str(job)
    return version_label(text) if text.lower() in ("v1", "v2", "v3", "v4", "v5") else text


def plot_repeats(
    panels: Sequence[tuple[str, pd.DataFrame]],
    x: str = "job",
    y: str = "seconds",
    xlabel: str = "",
    ylabel: str = "seconds",
    title: str = "",
):
    """One panel per ``(title, table)``. Each table has a ``job`` column and one row per kept run;
    runs are grouped by ``job`` and ``x``. With ``x="job"`` each job is one column of the panel;
    otherwise ``x`` is numeric and each job a line through its medians."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=style.grid_size(len(panels), 2), squeeze=False)
    for ax, (panel_title, table) in zip(axes[0], panels):
        jobs = list(dict.fromkeys(table["job"]))
        for position, job in enumerate(jobs):
            part = table[table["job"] == job]
            stats = part.groupby(x, sort=True)[y].agg(["median", "min", "max"])
            where = [position] * len(stats) if x == "job" else list(stats.index)
            spread = [stats["median"] - stats["min"], stats["max"] - stats["median"]]
            color = _color(job) or f"C{position}"
            ax.errorbar(
                where, stats["median"], yerr=spread, fmt="o-" if x != "job" else "o",
                capsize=5, lw=1.5, ms=7, color=color, label=_label(job),
            )  # fmt: skip
            dots = [position] * len(part) if x == "job" else list(part[x])
            ax.plot(dots, part[y], ".", color=color, alpha=0.45, ms=5)
        if x == "job":
            ax.set_xticks(range(len(jobs)), [_label(job) for job in jobs])
            ax.set_xlim(-0.6, len(jobs) - 0.4)
        elif len(jobs) > 1:
            ax.legend()
        ax.set_ylim(bottom=0)
        ax.set_title(panel_title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", alpha=0.3)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
