"""One training run merge by merge: what each merge costs, and the time so far."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from bpe_course.plots import style
from bpe_course.plots.common import version_color, version_label
from bpe_course.reference.published import POST_WORDS_TOUCHED


def plot_per_merge(trace: pd.DataFrame, title: str = "", window: int = 25) -> Figure:
    """Words touched and time per merge across training (V4 and V5), the crossover's cause.

    ``trace`` is :func:`bpe_course.bench.trace.merge_trace`'s table; lines are rolling medians over
    the last ``window`` merges (single merges are too noisy to read), drawn from merge ``window``
    on, so that every point is a median of the same number of merges.
    """
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.5, 5.5), sharex=True)
    first = trace[trace["version"] == trace["version"].iloc[0]]
    top.plot(first["merge"], first["words_touched"], lw=0.6, color="grey", alpha=0.5)
    top.plot(
        first["merge"],
        first["words_touched"].rolling(window).median(),
        color="black",
        label=f"words touched (A), our corpus: median of the last {window} merges",
    )
    for label, typical in POST_WORDS_TOUCHED:
        low, high = (int(x) for x in label.split("-"))
        top.hlines(typical, low, high, colors="tab:red", linestyles=":", lw=1.5)
    top.plot(
        [],
        [],
        "r:",
        label="V1-V5 post's typical A: its illustration, fits none of its benchmarked corpora",
    )
    top.set_yscale("log")
    top.set_ylabel("words touched")
    # the top panel's legend goes below the figure: inside the panel it covered the post's line
    handles, labels = top.get_legend_handles_labels()
    for version, part in trace.groupby("version"):
        microseconds = part["seconds"].iloc[1:] * 1e6  # the first merge also paid the set-up
        bottom.plot(
            part["merge"].iloc[1:],
            microseconds.rolling(window).median(),
            color=version_color(str(version)),
            label=version_label(str(version)),
        )
    bottom.set_yscale("log")
    bottom.set_ylabel(f"µs per merge (median of {window})")
    bottom.set_xlabel("merge number")
    bottom.set_xlim(1, trace["merge"].max())
    bottom.legend(fontsize=style.SMALLEST)
    top.set_title(title or "Per-merge cost across training", fontsize=style.SMALLEST)
    fig.legend(handles, labels, loc="lower center", fontsize=style.SMALLEST, frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


def plot_cumulative(trace: pd.DataFrame, title: str = "") -> Figure:
    """Time spent so far against merge number, per version, from one traced run: where one
    version's total overtakes another's within a single training."""
    fig, ax = plt.subplots(figsize=(6.0, 3.6))
    for version, part in trace.groupby("version", sort=False):
        ax.plot(
            part["merge"],
            part["seconds"].cumsum(),
            color=version_color(str(version)),
            label=version_label(str(version)),
        )
    ax.set_xlabel("merge number")
    ax.set_ylabel("merge-loop time so far (s)")
    ax.set_xlim(0, trace["merge"].max())
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=style.SMALLEST)
    ax.set_title(title or "Cumulative merge-loop time", fontsize=style.SMALLEST)
    fig.tight_layout()
    return fig


def overtakes(trace: pd.DataFrame, slow: str, fast: str) -> int | None:
    """The merge after which ``fast`` has spent less time than ``slow`` for good (None: never)."""
    a = trace[trace["version"] == slow].set_index("merge")["seconds"].cumsum()
    b = trace[trace["version"] == fast].set_index("merge")["seconds"].cumsum()
    ahead = (b < a).reindex(a.index.intersection(b.index))
    if ahead.empty or not ahead.iloc[-1]:
        return None
    behind = ahead[~ahead]
    return int(ahead.index[0]) if behind.empty else int(behind.index[-1]) + 1
