"""Figures: functions take data (DataFrames) and return matplotlib figures; one helper saves them.

The figures live by subject: :mod:`.crossover` (time against vocab size, ratios),
:mod:`.scaling` (against V1 and corpus size, phases), :mod:`.traces` (per merge, cumulative),
:mod:`.beyond` (side by side with the libraries, what each change bought, memory over time),
:mod:`.shards` (the merge workers against fast), :mod:`.ladder`, :mod:`.repeats`,
:mod:`.large_run` and :mod:`.explorer`; what they all share (colours, labels, saving) is
:mod:`.common`, their sizes and fonts :mod:`.style`. This package hands the most used on, and
:func:`draw_all` draws every figure a benchmark table supports. Importing it sets the course's
figure defaults (:func:`.style.apply`).
"""

from __future__ import annotations

from matplotlib.figure import Figure
from pandas import DataFrame

from bpe_course.plots import style
from bpe_course.plots.beyond import plot_memory, plot_side_by_side, plot_waterfall
from bpe_course.plots.common import (
    METRIC_NAMES,
    describe,
    save_figure,
    version_color,
    version_label,
)
from bpe_course.plots.crossover import (
    describe_crossover,
    plot_crossover,
    plot_ratio_heatmap,
    ratio_grid,
)
from bpe_course.plots.scaling import (
    CLAIMED_GROWTH,
    plot_phases,
    plot_scaling,
    plot_speedups,
    scaling_slopes,
    speedups,
)
from bpe_course.plots.shards import plot_against_fast
from bpe_course.plots.traces import overtakes, plot_cumulative, plot_per_merge
from bpe_course.trainers import in_order, shown

style.apply()  # every figure of the course, and the notebooks' own, start from these defaults


def draw_all(table: DataFrame) -> dict[str, Figure]:
    """Every figure a benchmark table supports, by file name: the crossover (merge loop and end
    to end in one figure) and the heat maps (V4 and V5 at two or more vocab sizes), speed-ups and
    where the time goes (V1 present), scaling (two or more corpus sizes), and the versions off the
    course's ladder (the posts', the libraries, a reader's) side by side and beside V4 and V5."""
    ok = table[table["status"] == "ok"]
    figures = {}
    versions = set(ok["version"])
    if {"v4", "v5"} <= versions and ok["vocab_size"].nunique() >= 2:
        figures["crossover"] = plot_crossover(ok, metrics=("merge_s", "total_s"))
        for metric, tag in (("merge_s", "merge"), ("total_s", "total")):
            figures[f"ratio_heatmap_{tag}"] = plot_ratio_heatmap(ok, metric)
    if "v1" in versions:
        v1 = ok[ok["version"] == "v1"]
        size_bytes, vocab = max(zip(v1["size_bytes"], v1["vocab_size"]))
        figures["speedups"] = plot_speedups(ok, size_bytes / 1_000_000, int(vocab))
        figures["phases"] = plot_phases(ok, int(size_bytes), int(vocab))
    if ok["size_bytes"].nunique() >= 2:
        figures["scaling_merge"] = plot_scaling(ok, "merge_s")
        figures["scaling_total"] = plot_scaling(ok, "total_s")
    others = {v for v in versions if shown(v).track != "ladder"}
    if others:  # off the course's ladder: side by side, and beside V4 and V5 over vocab sizes
        figures["side_by_side_total"] = plot_side_by_side(ok, "total_s")
        if {"v4", "v5"} <= versions and ok["vocab_size"].nunique() >= 2:
            figures["beside_v4_v5"] = plot_crossover(
                ok, versions=("v4", "v5", *in_order(others)), metrics=("merge_s", "total_s")
            )
    return figures


__all__ = [
    "CLAIMED_GROWTH",
    "METRIC_NAMES",
    "describe",
    "describe_crossover",
    "draw_all",
    "overtakes",
    "plot_against_fast",
    "plot_crossover",
    "plot_cumulative",
    "plot_memory",
    "plot_per_merge",
    "plot_phases",
    "plot_ratio_heatmap",
    "plot_scaling",
    "plot_side_by_side",
    "plot_speedups",
    "plot_waterfall",
    "ratio_grid",
    "save_figure",
    "scaling_slopes",
    "speedups",
    "style",
    "version_color",
    "version_label",
]
