"""Time against vocab size: where two versions cross, with the spread of the repeats."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from bpe_course.plots import style
from bpe_course.plots.common import METRIC_NAMES, describe, version_color, version_label
from bpe_course.stats import Crossover, clear_crossover, median_times, repeat_ranges
from bpe_course.stats import ranges_apart as apart_where


def ratio_grid(
    table: pd.DataFrame, metric: str = "merge_s", versions: tuple[str, str] = ("v4", "v5")
) -> pd.DataFrame:
    """Median ``versions[1]`` time / ``versions[0]`` time, as a (corpus size x vocab size) table."""
    medians = median_times(table, metric)
    wide = medians.pivot_table(index=["size_bytes", "size"], columns=["vocab_size", "version"])[
        metric
    ]
    ratio = wide.xs(versions[1], axis=1, level="version") / wide.xs(
        versions[0], axis=1, level="version"
    )
    return ratio.droplevel("size_bytes").sort_index(axis=1)


def plot_ratio_heatmap(
    table: pd.DataFrame, metric: str = "merge_s", versions: tuple[str, str] = ("v4", "v5")
) -> Figure:
    """Heat map of the time ratio over vocab size x corpus size. Cells where the repeats of the
    two versions overlap are hatched and their ratio marked ``≈``: no winner is claimed there (no
    "ratio 1" line is drawn through them)."""
    ratio = ratio_grid(table, metric, versions)
    values = ratio.to_numpy(dtype=float)
    spread = max(2.0, float(np.nanmax(np.abs(np.log(values)))) if values.size else 2.0)
    # Cells wide enough for "≈1.23" at the projector floor; the notebook column caps the width,
    # and where the map needs it all the colour bar goes below it, not beside it.
    below = 1.8 + 0.66 * len(ratio.columns) > style.MAX_WIDTH
    width = min(style.MAX_WIDTH, (1.0 if below else 1.8) + 0.66 * len(ratio.columns))
    height = (2.5 if below else 1.5) + 0.6 * len(ratio)
    fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
    image = ax.imshow(
        values,
        cmap="RdBu_r",
        norm=LogNorm(np.exp(-spread), np.exp(spread)),
        aspect="auto",
        origin="lower",
    )
    apart = ranges_apart(table, metric, versions).reindex_like(ratio)
    _label_cells(ax, values, apart, spread)
    ax.set_xticks(range(len(ratio.columns)), [f"{v:,}" for v in ratio.columns], rotation=45)
    ax.set_yticks(range(len(ratio)), list(ratio.index))
    ax.set_xlabel("vocab size")
    ax.set_ylabel("corpus size")
    slow, fast = (version_label(v) for v in versions)
    bar = fig.colorbar(
        image,
        ax=ax,
        label=f"{fast} / {slow} time",
        location="bottom" if below else "right",
        shrink=0.5 if below else 1.0,
        aspect=30 if below else 20,
    )
    ticks = [t for t in (0.1, 0.2, 0.5, 1, 2, 5, 10) if np.exp(-spread) <= t <= np.exp(spread)]
    bar.set_ticks(ticks, labels=[f"{t:g}" for t in ticks])
    bar.minorticks_off()
    title = (
        f"{fast}/{slow} {METRIC_NAMES.get(metric, metric)} time "
        f"(blue: {fast} faster; hatched, ≈: the repeats overlap)\n{describe(table)}"
    )
    ax.set_title(style.wrap(title, width=width), fontsize=style.SMALLEST)
    return fig


def _label_cells(ax: Axes, values: np.ndarray, apart: pd.DataFrame, spread: float) -> None:
    """Each cell's ratio; a cell whose repeats overlap is hatched and its ratio marked ``≈``."""
    for (row, col), value in np.ndenumerate(values):
        if not np.isfinite(value):
            continue
        clear = (
            bool(apart.iloc[row, col]) if apart.iloc[row, col] == apart.iloc[row, col] else False
        )
        dark = abs(np.log(value)) > 0.6 * spread  # white on the darkest cells
        if not clear:  # the repeats overlap: no winner can be claimed in this cell
            ax.add_patch(
                Rectangle(
                    (col - 0.5, row - 0.5),
                    1,
                    1,
                    fill=False,
                    hatch="///",
                    edgecolor="#777777",
                    linewidth=0,
                )
            )
        ax.text(
            col,
            row,
            f"{value:.2f}" if clear else f"≈{value:.2f}",
            ha="center",
            va="center",
            fontsize=style.SMALLEST,
            color="white" if dark else "black",
            fontstyle="normal" if clear else "italic",
        )


def ranges_apart(table: pd.DataFrame, metric: str, versions: tuple[str, str]) -> pd.DataFrame:
    """True where every repeat of one version beat every repeat of the other, as a
    (corpus size x vocab size) table like :func:`ratio_grid`'s."""
    ranges = repeat_ranges(table, metric)
    wide = ranges.pivot_table(index=["size_bytes", "size"], columns=["vocab_size", "version"])
    low, high = wide["min"], wide["max"]
    low_a, high_a, low_b, high_b = (
        side.xs(v, axis=1, level="version") for v in versions for side in (low, high)
    )
    # Cells where only one version was measured: aligned, and never "apart" (NaN compares False).
    low_a, low_b = low_a.align(low_b, join="outer")
    high_a, high_b = high_a.align(high_b, join="outer")
    high_a, low_b = high_a.align(low_b, join="outer")
    low_a, high_b = low_a.align(high_b, join="outer")
    apart = apart_where(low_a, high_a, low_b, high_b)
    return apart.droplevel("size_bytes").sort_index(axis=1)


def describe_crossover(result: Crossover, slow: str, fast: str) -> str:
    """One sentence for :func:`bpe_course.stats.clear_crossover`'s result, naming the versions.
    Every vocab size measured is accounted for: where ``fast`` is clearly faster, clearly slower,
    or where the repeats overlap, so the sentence never says more than the measurements do."""
    s, f = version_label(slow), version_label(fast)
    grid = sorted(result["faster"] + result["slower"] + result["overlap"])
    if result["crossover"] is not None:
        return (
            f"{f} is clearly slower up to vocab {max(result['slower']):,}, clearly faster from "
            f"{result['faster_from']:,}: they cross near {result['crossover']:,.0f}"
        )
    start = result["faster_from"]
    if start is not None and start == grid[0]:
        return f"{f} is clearly faster than {s} at every vocab size measured"
    if start is not None:
        below = [v for v in grid if v < start]
        return (
            f"{f} is clearly faster from vocab {start:,}; below it, "
            + _where(result, below, grid, f)
            + ", so no crossover is resolved"
        )
    if not result["faster"] and not result["overlap"]:
        return f"{f} is clearly slower than {s} at every vocab size measured"
    return f"{f} is not clearly faster than {s} at the largest vocab size measured: " + _where(
        result, grid, grid, f
    )


def _where(result: Crossover, vocabs: list[int], grid: list[int], fast: str) -> str:
    """``"clearly faster at 500-1,250; the repeats overlap at 300 and 1,500; never clearly
    slower"``: each of ``vocabs`` in its category, runs of neighbouring grid points joined."""
    parts = []
    for where, words in (
        (result["faster"], "clearly faster at"),
        (result["slower"], "clearly slower at"),
    ):
        mine = [v for v in vocabs if v in where]
        if mine:
            parts.append(f"{words} {_spans(mine, grid)}")
    overlap = [v for v in vocabs if v in result["overlap"]]
    if overlap:
        parts.append(f"the repeats overlap at {_spans(overlap, grid)}")
    if not result["slower"]:
        parts.append(f"{fast} is never clearly slower")
    return "; ".join(parts)


def _spans(vocabs: list[int], grid: list[int]) -> str:
    """``[500, 750, 1000, 1500]`` on a grid with 1250 between: ``"500-1,000 and 1,500"``."""
    runs: list[list[int]] = []
    for vocab in vocabs:
        if runs and grid.index(vocab) == grid.index(runs[-1][-1]) + 1:
            runs[-1].append(vocab)
        else:
            runs.append([vocab])
    texts = [f"{r[0]:,}" if len(r) == 1 else f"{r[0]:,}-{r[-1]:,}" for r in runs]
    return texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " and " + texts[-1]


def plot_crossover(
    table: pd.DataFrame,
    metric: str = "merge_s",
    versions: tuple[str, ...] = ("v4", "v5"),
    metrics: tuple[str, ...] | None = None,
    log: bool = False,
) -> Figure:
    """Time against vocab size: one panel per corpus size (and per metric, side by side, when
    ``metrics`` is given): the median of the repeats as a line, their min-max as a band. With
    two versions, a crossover is marked only where the repeats say so
    (:func:`bpe_course.stats.clear_crossover`). ``log``: time on a log scale (versions that differ
    by orders of magnitude).
    """
    metrics = metrics or (metric,)
    ok = table[(table["status"] == "ok") & table["version"].isin(versions)]
    sizes = sorted(ok["size_bytes"].unique())
    # One panel per (corpus size, metric): metrics side by side, corpus sizes down the page.
    panels = [(size_bytes, name) for size_bytes in sizes for name in metrics] or [(None, metric)]
    columns = len(metrics) if len(metrics) > 1 else min(2, len(panels))
    rows = -(-len(panels) // columns)
    fig, grid = plt.subplots(
        rows, columns, figsize=style.grid_size(len(panels), columns), squeeze=False
    )
    for ax in list(grid.flat)[len(panels) :]:
        ax.set_visible(False)
    for (size_bytes, name), ax in zip(panels, grid.flat):
        part = repeat_ranges(ok, name)
        part = part[part["size_bytes"] == size_bytes]
        _draw_curves(ax, part, versions)
        if len(versions) == 2:
            _mark_crossover(ax, part, versions)
        ax.set_title(f"{part['size'].iloc[0] if len(part) else ''}, {METRIC_NAMES.get(name, name)}")
        if log:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        ax.set_xlabel("vocab size")
        ax.set_ylabel("seconds")
    names = " vs ".join(version_label(v) for v in versions) if len(versions) <= 2 else "Versions"
    fig.suptitle(f"{names}: median of repeats, band = min to max\n{describe(table)}")
    _legend(fig, grid.flat[0], bool(sizes), len(versions))
    return fig


def _draw_curves(ax: Axes, part: pd.DataFrame, versions: tuple[str, ...]) -> None:
    """Each version's median over vocab sizes as a line, its repeats' min-max as a band."""
    for version in versions:
        curve = part[part["version"] == version].sort_values("vocab_size")
        if curve.empty:
            continue
        color = version_color(version)
        ax.fill_between(
            curve["vocab_size"], curve["min"], curve["max"], color=color, alpha=0.25, lw=0
        )
        ax.plot(
            curve["vocab_size"],
            curve["median"],
            marker="o",
            ms=3,
            lw=1.3,
            color=color,
            label=version_label(version),
        )


def _mark_crossover(ax: Axes, part: pd.DataFrame, versions: tuple[str, ...]) -> None:
    """A dashed line where the repeats say two versions cross
    (:func:`bpe_course.stats.clear_crossover`)."""
    found = clear_crossover(part, *versions)
    if found["crossover"] is not None:
        ax.axvline(found["crossover"], color="black", ls="--", lw=0.8)
        ax.annotate(
            f"crossover ≈ {found['crossover']:,.0f}",
            (found["crossover"], 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(3, -12),
            textcoords="offset points",
        )


def _legend(fig: Figure, first: Axes, measured: bool, versions: int) -> None:
    """Two versions: a legend in the first panel; many: below the panels, not over the data."""
    if measured and versions <= 2:
        first.legend()
        fig.tight_layout()
    elif measured:
        handles, labels = first.get_legend_handles_labels()
        fig.tight_layout(rect=(0, 0.12, 1, 1))
        fig.legend(handles, labels, loc="lower center", ncol=min(3, len(labels)), frameon=False)
    else:
        fig.tight_layout()
