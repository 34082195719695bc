"""Notebook 13's figure of the merge workers: each version's time over fast's, in the same repeat,
against the vocab size, one panel per corpus shape and size."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from bpe_course.plots import style
from bpe_course.plots.common import METRIC_NAMES, version_color, version_label


def plot_against_fast(ratios: pd.DataFrame, metric: str = "merge_s") -> Figure:
    """``ratios``: rows of ``corpus``, ``size``, ``vocab_size``, ``version`` and the ``median``,
    ``min`` and ``max`` over the repeats of the version's time over fast's (as
    :func:`bpe_course.bench.beyond.paired_ratios` gives them). Lines at the medians, bars over
    the range; below 1 the version beat fast."""
    panels = ratios[["corpus", "size"]].drop_duplicates().sort_values(["size", "corpus"])
    # two panels a row: four side by side left every label at 8 pt once fitted to the page
    columns = min(2, len(panels))
    rows = -(-len(panels) // columns)
    fig, axes = plt.subplots(
        rows, columns, figsize=(style.MAX_WIDTH, 3.4 * rows), sharey=True, squeeze=False
    )
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    for ax, (corpus, size) in zip(axes.flat, panels.itertuples(index=False)):
        part = ratios[(ratios["corpus"] == corpus) & (ratios["size"] == size)]
        for version, rows in part.groupby("version"):
            rows = rows.sort_values("vocab_size")
            spread = [rows["median"] - rows["min"], rows["max"] - rows["median"]]
            ax.errorbar(
                rows["vocab_size"],
                rows["median"],
                yerr=spread,
                marker="o",
                markersize=3,
                capsize=2,
                color=version_color(version),
                label=version_label(version),
            )
        ax.axhline(1.0, color="#999999", linewidth=0.8, linestyle="--")
        ax.set_xscale("log")
        ax.set_xlim(part["vocab_size"].min() / 1.6, part["vocab_size"].max() * 1.6)  # one vocab too
        ax.set_yscale("log")
        ax.set_title(f"{corpus} {size}")
        ax.set_xlabel("vocab size")
    for row in axes:
        row[0].set_ylabel(f"{METRIC_NAMES.get(metric, metric)} time\n/ fast's (same repeat)")
    axes[0][0].legend(fontsize=style.SMALLEST)
    fig.suptitle("Below the dashed line a version beats fast; bars: range of the repeats")
    fig.tight_layout()
    return fig
