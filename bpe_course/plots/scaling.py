"""Every version against V1, time against corpus size, and where the time goes."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import LogLocator, NullFormatter, ScalarFormatter

from bpe_course.plots import style
from bpe_course.plots.common import METRIC_NAMES, describe, version_color, version_label
from bpe_course.reference.published import POST_SECONDS, V1_V5_POST, post_speedups
from bpe_course.stats import median_times, ranked
from bpe_course.trainers import in_order


def speedups(
    table: pd.DataFrame,
    metric: str = "total_s",
    size_bytes: int | None = None,
    vocab_size: int | None = None,
) -> pd.Series:
    """Speed-up of each version over V1 (median times) at one corpus size and vocab size."""
    medians = median_times(table, metric)
    if size_bytes is not None:
        medians = medians[medians["size_bytes"] == size_bytes]
    if vocab_size is not None:
        medians = medians[medians["vocab_size"] == vocab_size]
    times = medians.groupby("version")[metric].median()
    return times["v1"] / times


def speedup_ranges(
    table: pd.DataFrame,
    metric: str = "total_s",
    size_bytes: int | None = None,
    vocab_size: int | None = None,
) -> pd.DataFrame:
    """Speed-up over V1 per repeat (V1's repeat i over the version's repeat i, run in the same
    pass), as min, median and max per version, sorted fastest first."""
    ok = table[table["status"] == "ok"]
    if size_bytes is not None:
        ok = ok[ok["size_bytes"] == size_bytes]
    if vocab_size is not None:
        ok = ok[ok["vocab_size"] == vocab_size]
    times = ok.pivot_table(index="repeat", columns="version", values=metric)
    if "v1" not in times:
        return times.iloc[0:0]
    per_repeat = times.rdiv(times["v1"], axis=0).drop(columns="v1")
    out = per_repeat.agg(["min", "median", "max", "count"]).T
    return out.sort_values("median", ascending=False)


def ranking(ranges: pd.DataFrame) -> str:
    """``"V5 > V4 ≈ fast max > V2"``: versions by median speed-up, ``>`` only where the ranges of
    the repeats are apart, ``≈`` where they overlap (no ranking can be claimed there)."""
    return ranked(ranges, " > ", version_label)


def plot_speedups(
    table: pd.DataFrame, size_mb: float, vocab_size: int, metric: str = "total_s"
) -> Figure:
    """Speed-up over V1 of every version at one configuration: the median of the repeats with
    their range as an error bar, ranked only where the ranges are apart; the V1-V5 post's beside."""
    ours = speedup_ranges(table, metric, round(size_mb * 1_000_000), vocab_size)
    theirs = post_speedups(size_mb, vocab_size) if (size_mb, vocab_size) in POST_SECONDS else {}
    versions = list(ours.index)
    x = np.arange(len(versions))
    fig, ax = plt.subplots(figsize=(min(style.MAX_WIDTH, 2.0 + 1.1 * len(versions)), 4.2))
    median = ours["median"].to_numpy()
    errors = [median - ours["min"].to_numpy(), ours["max"].to_numpy() - median]
    repeats = int(ours["count"].min()) if len(ours) else 0
    mine = ax.bar(
        x - 0.2,
        median,
        0.4,
        yerr=errors,
        capsize=4,
        label=f"this course (median of {repeats} repeats, bar: range)",
    )
    post = ax.bar(
        x + 0.2,
        [theirs.get(v, np.nan) for v in versions],
        0.4,
        label="V1-V5 post (as published; runs behind it not stated)",
    )
    ax.bar_label(mine, labels=[f"{m:.0f}x" for m in median], fontsize=style.SMALLEST, padding=2)
    ax.bar_label(post, fmt="%.0fx", fontsize=style.SMALLEST, padding=2)
    ax.set_yscale("log")
    ax.set_xticks(x, [version_label(v) for v in versions])
    ax.set_ylabel(f"speed-up over V1 ({METRIC_NAMES.get(metric, metric)})")
    # Below the axes: inside, the legend covered the tallest bars' labels.
    fig.legend(fontsize=style.SMALLEST, loc="lower center", ncol=2, frameon=False)
    ax.set_title(
        f"Speed-up over V1, {size_mb:g} MB, vocab {vocab_size:,}: {describe(table)}\n"
        f"neighbours only, > where apart: {ranking(ours)}\npost: {V1_V5_POST}",
        fontsize=style.SMALLEST,
    )
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


# What the course claims each version's time grows like, in corpus size N (a loop over all words
# grows like W, which grows more slowly than N on the course's corpora: the fit under the figure).
CLAIMED_GROWTH = {
    "pretokenize_s": "N (every byte is read once)",
    "merge_s": "V1, V2: m W L (every word, every merge); V4: m P + sum of A L; V5: (P + sum of A L) log P",
    "total_s": "pretokenization (N) + the merge loop (above)",
}


def scaling_slopes(
    table: pd.DataFrame, metric: str = "merge_s", vocab_size: int | None = None
) -> dict[str, float]:
    """Least-squares slope of log(time) against log(corpus bytes), per version (and of W)."""
    ok = table[table["status"] == "ok"]
    if vocab_size is not None:
        ok = ok[ok["vocab_size"] == vocab_size]
    slopes = {}
    for version, part in ok.groupby("version"):
        by_size = part.groupby("size_bytes")[metric].median()
        if len(by_size) >= 2:
            slopes[version] = float(np.polyfit(np.log(by_size.index), np.log(by_size.values), 1)[0])
    words = ok.groupby("size_bytes")["words"].median()
    if len(words) >= 2:
        slopes["W"] = float(np.polyfit(np.log(words.index), np.log(words.values), 1)[0])
    return slopes


def plot_scaling(
    table: pd.DataFrame,
    metric: str = "merge_s",
    vocab_size: int | None = None,
    metrics: tuple[str, ...] | None = None,
) -> Figure:
    """Time against corpus size, log-log, per version, with fitted slopes and the expected
    growth; one panel per metric when ``metrics`` is given (merge loop beside end to end)."""
    metrics = metrics or (metric,)
    ok = table[table["status"] == "ok"]
    if vocab_size is None:
        vocab_size = int(ok["vocab_size"].max())
    ok = ok[ok["vocab_size"] == vocab_size]
    width = min(style.MAX_WIDTH, style.PANEL_WIDTH * len(metrics))
    fig, axes = plt.subplots(1, len(metrics), figsize=(width, 3.8), squeeze=False)
    notes = []
    for ax, name in zip(axes[0], metrics):
        _draw_scaling_panel(ax, ok, name)
        if name in CLAIMED_GROWTH:
            notes.append(f"{METRIC_NAMES.get(name, name)}: expected {CLAIMED_GROWTH[name]}")
    slopes = scaling_slopes(ok, metrics[0])
    if "W" in slopes:
        sizes = ok[ok["words"].notna()]["size_bytes"].nunique()
        notes.append(
            f"measured on this corpus: distinct words W grew like N^{slopes['W']:.2f} "
            f"(a fit on {sizes} sizes, not a law)"
        )
    fig.suptitle(
        style.wrap(
            f"Time against corpus size, vocab {vocab_size:,}\n{describe(table)}", width=width
        ),
        fontsize=style.SMALLEST,
    )
    fig.tight_layout()
    # below the panels, each note wrapped to the figure's width (a longer line widens the picture)
    fig.text(
        0.01,
        0.0,
        style.wrap("\n".join(notes), width=0.98 * width),
        va="top",
        fontsize=style.SMALLEST,
    )
    return fig


def _draw_scaling_panel(ax: Axes, ok: pd.DataFrame, name: str) -> None:
    """One metric: each version's median time per size on log-log axes, its slope in the legend."""
    slopes = scaling_slopes(ok, name)
    for key, part in ok.groupby("version"):
        version = str(key)
        by_size = part.groupby("size_bytes")[name].median()
        label = version_label(version)
        if version in slopes:
            label += f": slope {slopes[version]:.2f}"
        ax.plot(
            by_size.index / 1e6,
            by_size.to_numpy(),
            marker="o",
            color=version_color(version),
            label=label,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(LogLocator(subs=(1, 2, 5)))
        axis.set_major_formatter(ScalarFormatter())
        axis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("corpus size (MB)")
    ax.set_ylabel(f"{METRIC_NAMES.get(name, name)} time (s)")
    ax.set_title(METRIC_NAMES.get(name, name), fontsize=style.SMALLEST)
    ax.legend(fontsize=style.SMALLEST)


def plot_phases(table: pd.DataFrame, size_bytes: int, vocab_size: int) -> Figure:
    """Where the time goes: each version's time split into pretokenization and merge loop, as
    shares of its total (medians), with the total's median and range written on each bar; a
    share, so a version that takes a second and one that takes minutes are read alike."""
    ok = table[
        (table["status"] == "ok")
        & (table["size_bytes"] == size_bytes)
        & (table["vocab_size"] == vocab_size)
    ]
    medians = ok.groupby("version")[["pretokenize_s", "merge_s"]].median()
    medians = medians.loc[in_order(medians.index)]
    totals = ok.groupby("version")["total_s"].agg(["min", "median", "max", "count"])
    share = medians["pretokenize_s"] / medians.sum(axis=1)
    labels = [version_label(v) for v in medians.index]
    fig, ax = plt.subplots(figsize=(min(style.MAX_WIDTH, 2.2 + 1.0 * len(medians)), 4.0))
    ax.bar(labels, share * 100, color="#bbbbbb")
    ax.bar(
        labels,
        (1 - share) * 100,
        bottom=share * 100,
        color=[version_color(v) for v in medians.index],
    )
    _label_bars(ax, medians.index, totals, share)
    ax.set_ylim(0, 122)
    ax.set_ylabel("share of the time (%)")
    _phase_legend(ax)
    repeats = int(totals["count"].min()) if len(totals) else 0
    ax.set_title(
        f"Where the time goes, {ok['size'].iloc[0] if len(ok) else ''}, vocab {vocab_size:,} "
        f"(medians of {repeats} repeats; above: total seconds, median and range)"
        f"\n{describe(table)}",
        fontsize=style.SMALLEST,
    )
    fig.tight_layout()
    return fig


def _label_bars(ax: Axes, versions: Sequence[str], totals: pd.DataFrame, share: pd.Series) -> None:
    """Above each bar its total's median and range in seconds; in its grey part, the share (just
    above the grey part, on white, where that part is too thin to hold it)."""
    for i, version in enumerate(versions):
        t = totals.loc[version]
        ax.text(
            i,
            101,
            f"{_seconds(t['median'])} s\n({_seconds(t['min'])}-{_seconds(t['max'])})",
            ha="center",
            va="bottom",
            fontsize=style.SMALLEST,
        )
        thin = share[version] < 0.08  # too thin to hold the label: write it just above the grey
        ax.text(
            i,
            share[version] * 100 + 1.5 if thin else share[version] * 50,
            f"{share[version]:.0%}",
            ha="center",
            va="bottom" if thin else "center",
            fontsize=style.SMALLEST,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1} if thin else None,
        )


def _seconds(value: float) -> str:
    """Two significant digits, never in exponent form (200, not 2e+02)."""
    return f"{value:.0f}" if value >= 10 else f"{value:.2g}"


def _phase_legend(ax: Axes) -> None:

    ax.legend(
        handles=[
            Patch(color="#bbbbbb", label="pretokenize"),
            Patch(
                facecolor="white", edgecolor="black", label="merge loop (in the version's colour)"
            ),
        ],
        fontsize=style.SMALLEST,
        loc="lower left",
        bbox_to_anchor=(0, -0.32),
        ncol=2,
        frameon=False,
    )
