"""Figures of notebook 13: versions side by side (the libraries and readers' trainers included),
what each change from V5 bought (a waterfall), and memory over time."""

from __future__ import annotations

from bpe_course.plots import METRIC_NAMES, describe, version_color, version_label

# Course versions in course order, then the posts' designs, then the libraries.
ORDER = ("v0", "v1", "v2", "v3", "v4", "v5", "fastmax", "sites", "fast", "shards")
ORDER += ("post_v4", "post_v5", "post_v5_nogc", "hf", "rustbpe")


def ordered(versions) -> list[str]:
    """Versions in :data:`ORDER`, then readers' trainers by name."""
    return sorted(versions, key=lambda v: (ORDER.index(v) if v in ORDER else len(ORDER), v))


def plot_side_by_side(table, metric: str = "total_s", log: bool | None = None):
    """Median time per version, bars side by side, one group per (corpus, size, vocab) cell, with
    the range of the repeats as a line on each bar. ``log``: a logarithmic time axis; by default
    when the slowest median is over 20 times the fastest (a linear axis would flatten the fast
    versions into the floor)."""
    import matplotlib.pyplot as plt
    import numpy as np

    ok = table[table["status"] == "ok"]
    cells = ["corpus", "size_bytes", "size", "vocab_size", "version"]
    stats = ok.groupby(cells)[metric].agg(["median", "min", "max"]).unstack("version")
    medians = stats["median"]
    versions = ordered(medians.columns)
    if log is None:
        log = bool(np.nanmax(medians.to_numpy()) > 20 * np.nanmin(medians.to_numpy()))
    x = np.arange(len(medians))
    width = 0.8 / max(1, len(versions))
    fig, ax = plt.subplots(figsize=(2.0 + 1.8 * len(medians), 3.6))
    for i, version in enumerate(versions):
        offset = (i - (len(versions) - 1) / 2) * width
        middle = medians[version].to_numpy()
        spread = np.vstack([middle - stats["min"][version], stats["max"][version] - middle])
        bars = ax.bar(
            x + offset,
            middle,
            width,
            color=version_color(version),
            yerr=spread,
            error_kw={"elinewidth": 0.8, "capsize": 1.5},
        )
        bars.set_label(version_label(version))
        ax.bar_label(bars, fmt="%.3g", fontsize=6, padding=1)
    labels = [f"{corpus} {size}\nvocab {vocab:,}" for corpus, _, size, vocab in medians.index]
    ax.set_xticks(x, labels, fontsize=8)
    name = METRIC_NAMES.get(metric, metric)
    if log:
        ax.set_yscale("log")
    ax.set_ylabel(f"{name} time (s), median{', log scale' if log else ''}")
    ax.legend(fontsize=7)
    ax.set_title(
        f"Side by side, {name}: {describe(table)}; lines: range of the repeats", fontsize=9
    )
    fig.tight_layout()
    return fig


def plot_waterfall(steps, title: str = ""):
    """What each change bought, from ``steps`` (columns ``step``, ``seconds``, ``saved``, as
    :func:`bpe_course.bench.beyond.what_each_change_bought` returns)."""
    import matplotlib.pyplot as plt
    import numpy as np

    fig, ax = plt.subplots(figsize=(7.0, 3.4))
    seconds, saved = steps["seconds"].to_numpy(), steps["saved"].to_numpy()
    x = np.arange(len(steps))
    ax.bar(x[:1], seconds[:1], color=version_color("v5"))
    for i in range(1, len(steps)):
        ax.bar(i, saved[i], bottom=seconds[i], color="tab:green" if saved[i] >= 0 else "tab:red")
        ax.annotate(f"-{saved[i]:.2f} s", (i, seconds[i - 1]), ha="center", va="bottom", fontsize=8)
    end = len(steps)
    ax.bar(end, seconds[-1], color=version_color("fast"))
    ax.annotate(f"{seconds[0]:.2f} s", (0, seconds[0]), ha="center", va="bottom", fontsize=8)
    ax.annotate(f"{seconds[-1]:.2f} s", (end, seconds[-1]), ha="center", va="bottom", fontsize=8)
    ax.set_xticks([*x, end], [*steps["step"], "fast"], fontsize=7, rotation=15)
    ax.set_ylabel("end-to-end time (s), median")
    ax.set_title(title or "What each change bought", fontsize=9)
    fig.tight_layout()
    return fig


def plot_memory(samples, title: str = ""):
    """Resident memory of all processes of a run over time (``seconds``, ``rss_mb``,
    ``processes``, as :mod:`bpe_course.bench.memory` writes)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.0, 3.2))
    ax.plot(samples["seconds"], samples["rss_mb"], lw=1.2, color=version_color("fast"))
    ax.set_xlabel("seconds since start")
    ax.set_ylabel("resident memory, all processes (MB)")
    ax.set_ylim(bottom=0)
    twin = ax.twinx()
    twin.step(samples["seconds"], samples["processes"], color="tab:grey", lw=0.8, where="post")
    twin.set_ylabel("processes", color="tab:grey")
    twin.set_ylim(0, max(3, samples["processes"].max() + 1))
    ax.set_title(title or "Memory over time", fontsize=9)
    fig.tight_layout()
    return fig
