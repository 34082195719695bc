"""The ladder's figures: each rung's time against vocab size, and what each step of the ladder
bought, from the table of :mod:`bpe_course.bench.ladder` (read through
:func:`bpe_course.stats.bands`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

from bpe_course.plots import style
from bpe_course.reference.ladder import MAIN_V4, MAIN_V5, RUNGS, corpora
from bpe_course.stats import bands, where_measured

VOCAB_TICKS = (300, 500, 1000, 2000, 5000, 10000)
# A rung's colour: a name or an RGBA tuple (what a colormap gives).
Color = str | tuple[float, float, float, float]
METRIC_LABELS = {"cpu_s": "merge-loop CPU time (s)", "seconds": "merge-loop wall time (s)"}


def rung_label(name: str) -> str:
    rung = RUNGS[name]
    return f"{name}: {rung.change}"


# Up to this many lines in a panel, the repeats' bands are drawn darker (fewer overlap).
FEW_LINES = 5
# Told apart at a projector's distance: matplotlib's qualitative palette (tab10, its grey and olive
# left out, which the V4 greys and a washed-out projector would confuse), one marker a rung. A ramp
# of one colormap was tried: four V5 rungs on viridis gave blue-greens a projector cannot tell
# apart.
DISTINCT = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def rung_colors(names: Iterable[str]) -> dict[str, Color]:
    """A distinct colour per V5 rung, in ladder order; V4 rungs in greys (dashed where drawn)."""
    names = list(names)
    v5 = [n for n in names if RUNGS[n].kind == "v5"]
    v4 = [n for n in names if RUNGS[n].kind == "v4"]
    colors: dict[str, Color] = {n: DISTINCT[i % len(DISTINCT)] for i, n in enumerate(v5)}
    greys = ("#000000", "#6b6b6b", "#a8a8a8")
    colors.update({n: greys[i % len(greys)] for i, n in enumerate(v4)})
    return colors


def rung_markers(names: Sequence[str]) -> dict[str, str]:
    """A marker per rung, in ladder order within each kind, so that lines of close colours (the
    V4 greys, or two V5 shades) are told apart without the colour."""
    out: dict[str, str] = {}
    for kind in ("v5", "v4"):
        of_kind = [n for n in names if RUNGS[n].kind == kind]
        out.update({n: MARKERS[i % len(MARKERS)] for i, n in enumerate(of_kind)})
    return out


def plot_ladder_curves(
    table: pd.DataFrame,
    rungs: Sequence[str] = MAIN_V5 + MAIN_V4,
    metric: str = "cpu_s",
    relative_to: str | None = None,
) -> Figure:
    """One panel per corpus: each rung's merge-loop time against vocab size (median line, band
    from the fastest to the slowest repeat), log axes; V4 rungs dashed. Pass the few ``rungs``
    a reading is about (say the post's V5 and V4 and one step between): every rung at once is
    a bundle of near-identical lines.

    ``relative_to`` (a rung): draw each rung's median and band divided by that rung's median at
    the same corpus and vocab size, on a linear axis, with a line at 1. Rungs a few percent apart
    lie within a line width of each other on a log axis of seconds; as ratios they separate."""
    summary = bands(table, metric)
    if relative_to is not None:
        if relative_to not in set(summary["rung"]):
            raise ValueError(f"relative_to={relative_to!r} is not a rung of this table")
        base = summary[summary["rung"] == relative_to].set_index(["shape", "size", "vocab_size"])
        scale = summary.join(base["median"].rename("base"), on=["shape", "size", "vocab_size"])
        summary = summary.assign(
            **{c: scale[c] / scale["base"] for c in ("min", "median", "max")}
        ).dropna(subset=["median"])
    pairs = corpora(table)
    columns = 2 if len(pairs) > 1 else 1
    width, height = style.grid_size(len(pairs), columns)
    fig, axes = plt.subplots(
        -(-len(pairs) // columns), columns, figsize=(width, height + 1.4), squeeze=False
    )
    colors, markers = rung_colors(rungs), rung_markers(rungs)
    plain = FuncFormatter(lambda value, _: f"{value:,.0f}" if value >= 1 else f"{value:g}")
    for ax, (shape, size) in zip(axes.flat, pairs):
        part = summary[(summary["shape"] == shape) & (summary["size"] == size)]
        _draw_rungs(ax, part, rungs, colors, markers)
        ax.set_xscale("log")
        if relative_to is None:
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(plain)
        else:
            ax.axhline(1, color="black", linewidth=0.8)
        ticks = [
            t for t in VOCAB_TICKS if part["vocab_size"].min() <= t <= part["vocab_size"].max()
        ]
        ax.set_xticks(ticks, [f"{t:,}" for t in ticks])
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_title(f"{shape}, {size}")
        ax.set_xlabel("vocab size")
        if relative_to is None:
            ax.set_ylabel(METRIC_LABELS.get(metric, metric))
        else:
            ax.set_ylabel(f"time / {relative_to}'s median\n(below 1: faster)")
        ax.grid(True, which="major", alpha=0.3)
    for ax in list(axes.flat)[len(pairs) :]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=style.SMALLEST, frameon=False)
    runs = table[table["traced"]].groupby(["shape", "size", "rung"])["repeat"].nunique()
    repeats = f"{runs.min()}" if runs.min() == runs.max() else f"{runs.min()}-{runs.max()}"
    fig.suptitle(
        "The ladder: the post's V5 towards the course's, one change a step; "
        f"V4s dashed\nline: median of {repeats} repeats, band: fastest to slowest"
        + (f", each over {relative_to}'s median" if relative_to else "")
        + "\n"
        f"{where_measured(table)}",
        fontsize=style.SMALLEST + 1,
    )
    fig.tight_layout(rect=(0, 0.05 + 0.025 * len(rungs) / 2, 1, 1))
    return fig


def _draw_rungs(
    ax: Axes,
    part: pd.DataFrame,
    rungs: Sequence[str],
    colors: dict[str, Color],
    markers: dict[str, str],
) -> None:
    """Each rung's median as a line with its marker (V4 rungs dashed), its repeats' range as a
    band (fainter where many lines share the panel)."""
    alpha = 0.18 if len(rungs) <= FEW_LINES else 0.08
    for name in rungs:
        line = part[part["rung"] == name]
        if line.empty:
            continue
        dashed = RUNGS[name].kind == "v4"
        ax.plot(
            line["vocab_size"],
            line["median"],
            color=colors[name],
            linestyle="--" if dashed else "-",
            linewidth=1.6,
            marker=markers[name],
            markersize=6,
            markevery=0.1,  # a marker every tenth of the line's length on the page
            label=rung_label(name),
        )
        ax.fill_between(
            line["vocab_size"], line["min"], line["max"], color=colors[name], alpha=alpha
        )


def step_ratios(table: pd.DataFrame, vocab_size: int, metric: str = "cpu_s") -> pd.DataFrame:
    """For every rung with a base: base time / rung time at ``vocab_size``, per corpus, as
    ``median (min-max)`` over the repeats (repeat i of the rung against repeat i of its base,
    run in the same pass); above 1, the change made it faster. Three decimals: at two, a range just above 1 printed as 1.00 beside a
    verdict of "faster in every repeat pair"."""
    traced = table[table["traced"] & (table["vocab_size"] == vocab_size)]
    times = traced.pivot_table(index=["shape", "size", "repeat"], columns="rung", values=metric)
    rows = {}
    for name, rung in RUNGS.items():
        if rung.base is None or name not in times or rung.base not in times:
            continue
        ratio = (times[rung.base] / times[name]).dropna()
        cells = {}
        for (shape, size), part in ratio.groupby(level=["shape", "size"]):
            cells[f"{shape} {size}"] = f"{part.median():.3f} ({part.min():.3f}-{part.max():.3f})"
        rows[f"{name} (from {rung.base})"] = cells
    out = pd.DataFrame(rows).T
    return out[[f"{s} {z}" for s, z in corpora(table) if f"{s} {z}" in out.columns]]


def step_verdicts(
    table: pd.DataFrame, vocab_size: int, steps: Sequence[str] = MAIN_V5[1:], metric: str = "cpu_s"
) -> list[str]:
    """For each step, the corpora where it was faster than the rung before in every repeat pair
    at ``vocab_size``, slower in every pair, or where its pairs fall on both sides of 1 (a step
    is read one repeat pair at a time, the two runs of one pass)."""
    traced = table[table["traced"] & (table["vocab_size"] == vocab_size)]
    times = traced.pivot_table(index=["shape", "size", "repeat"], columns="rung", values=metric)
    lines = []
    for name in steps:
        base = RUNGS[name].base
        if name not in times or base not in times:
            continue
        ratio = (times[base] / times[name]).dropna()
        kinds: dict[str, list[str]] = {"faster": [], "slower": [], "both sides of 1": []}
        for shape, size in corpora(table):
            if (shape, size) not in ratio.index.droplevel("repeat"):
                continue
            part = ratio.loc[(shape, size)]
            kind = "faster" if part.min() > 1 else "slower" if part.max() < 1 else "both sides of 1"
            kinds[kind].append(f"{shape} {size}")
        said = [
            (f"{kind} in every repeat pair on " if kind != "both sides of 1" else f"{kind} on ")
            + ", ".join(where)
            for kind, where in kinds.items()
            if where
        ]
        lines.append(f"{name} [{RUNGS[name].change}]: " + "; ".join(said))
    return lines


def plot_ladder_steps(
    table: pd.DataFrame, vocab_sizes: Sequence[int] = (1000, 10000), metric: str = "cpu_s"
) -> Figure:
    """The main V5 ladder as a staircase: each step's time (median, range of the repeats) at a
    few vocab sizes, one line per corpus, log axis; with the V4s' time where they were traced."""
    summary = bands(table, metric)
    fig, axes = plt.subplots(
        1, len(vocab_sizes), figsize=(style.MAX_WIDTH, 4.4), squeeze=False, sharey=True
    )
    steps = [n for n in MAIN_V5 if n in set(table["rung"])]
    x = np.arange(len(steps))
    markers = "osD^v<>"
    for ax, vocab in zip(axes[0], vocab_sizes):
        at = summary[summary["vocab_size"] == vocab]
        for i, (shape, size) in enumerate(corpora(table)):
            part = at[(at["shape"] == shape) & (at["size"] == size)].set_index("rung")
            med = [part["median"].get(n, np.nan) for n in steps]
            low = [part["min"].get(n, np.nan) for n in steps]
            high = [part["max"].get(n, np.nan) for n in steps]
            yerr = [np.subtract(med, low), np.subtract(high, med)]
            ax.errorbar(
                x + (i - 1.5) * 0.06,
                med,
                yerr=yerr,
                marker=markers[i],
                capsize=3,
                linewidth=1.3,
                label=f"{shape} {size}",
            )
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(
            FuncFormatter(lambda value, _: f"{value:,.0f}" if value >= 1 else f"{value:g}")
        )
        ax.set_xticks(x, [f"{n}" for n in steps], rotation=30, ha="right")
        ax.set_title(f"vocab {vocab:,}")
        ax.grid(True, axis="y", which="both", alpha=0.3)
    axes[0][0].set_ylabel(METRIC_LABELS.get(metric, metric))
    axes[0][-1].legend(fontsize=style.SMALLEST, loc="upper right")
    fig.suptitle(
        "Each step of the V5 ladder, in each panel from the post's V5 (first tick) to the "
        "course's (last tick)\n"
        f"{where_measured(table)}",
        fontsize=style.SMALLEST + 1,
    )
    fig.tight_layout()
    return fig
