"""Figures: functions take data and return matplotlib figures; one helper saves them.

``save_figure`` writes SVG (and PNG) into ``figures/`` deterministically: no timestamp or random
id inside the file, so a rerun that draws the same data writes the same bytes.
"""

from __future__ import annotations

from pathlib import Path

from bpe_course.paths import figures_dir


def save_figure(
    fig, name: str, png: bool = True, data=None, folder: Path | None = None
) -> list[Path]:
    """Save ``fig`` as ``figures/<name>.svg`` (and ``.png``), and ``data`` (the DataFrame it was
    drawn from) as ``figures/<name>.csv``; return the paths written. ``folder`` replaces
    ``figures/``."""
    import matplotlib

    folder = figures_dir() if folder is None else Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{name}.svg"]
    with matplotlib.rc_context({"svg.hashsalt": name}):
        fig.savefig(paths[0], metadata={"Date": None}, bbox_inches="tight")
    if png:
        paths.append(folder / f"{name}.png")
        fig.savefig(paths[-1], dpi=120, metadata={"Software": None}, bbox_inches="tight")
    if data is not None:
        paths.append(folder / f"{name}.csv")
        data.to_csv(paths[-1], index=False)
    return paths


def describe(table) -> str:
    """``"generated corpus, Linux x86_64 (host)"``: what a figure's title must name."""
    corpora = ", ".join(sorted(set(table["corpus"].astype(str))))
    machines = ", ".join(sorted(set(table["machine"].astype(str))))
    return f"{corpora} corpus, {machines}"


def median_times(table, metric: str = "merge_s"):
    """Median of ``metric`` over repeats, per (size, vocab, version), finished runs only."""
    ok = table[table["status"] == "ok"]
    return ok.groupby(["size_bytes", "size", "vocab_size", "version"], as_index=False)[
        metric
    ].median()


def crossover_vocab(vocab_sizes, slow_minus_fast) -> float | None:
    """Where ``slow_minus_fast`` (V5 time minus V4 time, by vocab size) first turns from >= 0 to < 0,
    by linear interpolation between grid points; None when it never does."""
    points = list(zip(vocab_sizes, slow_minus_fast))
    for (v0, d0), (v1, d1) in zip(points, points[1:]):
        if d0 >= 0 > d1:
            return v0 + (v1 - v0) * d0 / (d0 - d1)
    return None


OUTSIDE_LABELS = {"hf": "HF tokenizers", "rustbpe": "rustbpe"}


def version_label(version: str) -> str:
    """How figures name a version: V5, fast max, HF tokenizers, or a reader's module:function."""
    if version == "fastmax":
        return "fast max"
    if version in OUTSIDE_LABELS:
        return OUTSIDE_LABELS[version]
    return version if ":" in version else version.upper()


def plot_crossover(table, metric: str = "merge_s", versions: tuple[str, ...] = ("v4", "v5")):
    """Time against vocab size, one panel per corpus size; with two versions, where they cross
    (interpolated) is marked on each panel."""
    import matplotlib.pyplot as plt

    medians = median_times(table, metric)
    medians = medians[medians["version"].isin(versions)]
    sizes = sorted(medians["size_bytes"].unique())
    fig, axes = plt.subplots(
        1, max(1, len(sizes)), figsize=(3.6 * max(1, len(sizes)), 3.4), squeeze=False
    )
    for ax, size_bytes in zip(axes[0], sizes):
        part = medians[medians["size_bytes"] == size_bytes]
        curves = {v: part[part["version"] == v].set_index("vocab_size")[metric] for v in versions}
        for version, curve in curves.items():
            if len(curve):
                ax.plot(curve.index, curve.values, marker="o", ms=3, label=version_label(version))
        if len(versions) == 2:
            first, second = curves[versions[0]], curves[versions[1]]
            common = first.index.intersection(second.index)
            cross = crossover_vocab(list(common), (second[common] - first[common]).tolist())
            if cross is not None:
                ax.axvline(cross, color="grey", ls="--", lw=1)
                ax.annotate(
                    f"crossover ≈ {cross:,.0f}",
                    (cross, ax.get_ylim()[1]),
                    xytext=(4, -12),
                    textcoords="offset points",
                    fontsize=8,
                )
        ax.set_title(part["size"].iloc[0])
        ax.set_xlabel("vocab size")
        ax.set_ylim(bottom=0)
    axes[0][0].set_ylabel(f"{METRIC_NAMES.get(metric, metric)} time (s)")
    if sizes:
        axes[0][0].legend()
    fig.suptitle(
        f"{' vs '.join(version_label(v) for v in versions)}, "
        f"{METRIC_NAMES.get(metric, metric)}: {describe(table)}",
        fontsize=10,
    )
    fig.tight_layout()
    return fig


METRIC_NAMES = {"merge_s": "merge loop", "total_s": "end to end", "pretokenize_s": "pretokenize"}


def ratio_grid(table, metric: str = "merge_s", versions: tuple[str, str] = ("v4", "v5")):
    """Median ``versions[1]`` time / ``versions[0]`` time, as a (corpus size x vocab size) table."""
    medians = median_times(table, metric)
    wide = medians.pivot_table(index=["size_bytes", "size"], columns=["vocab_size", "version"])[
        metric
    ]
    ratio = wide.xs(versions[1], axis=1, level="version") / wide.xs(
        versions[0], axis=1, level="version"
    )
    return ratio.droplevel("size_bytes").sort_index(axis=1)


def plot_ratio_heatmap(table, metric: str = "merge_s", versions: tuple[str, str] = ("v4", "v5")):
    """Heat map of the time ratio over vocab size x corpus size, ratio 1 (the crossover) as a contour."""
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.colors import LogNorm

    ratio = ratio_grid(table, metric, versions)
    values = ratio.to_numpy(dtype=float)
    spread = max(2.0, float(np.nanmax(np.abs(np.log(values)))) if values.size else 2.0)
    fig, ax = plt.subplots(figsize=(1.0 + 0.62 * len(ratio.columns), 1.4 + 0.55 * len(ratio)))
    image = ax.imshow(
        values,
        cmap="RdBu_r",
        norm=LogNorm(np.exp(-spread), np.exp(spread)),
        aspect="auto",
        origin="lower",
    )
    for (row, col), value in np.ndenumerate(values):
        if np.isfinite(value):
            ax.text(col, row, f"{value:.2f}", ha="center", va="center", fontsize=7)
    if values.shape[0] > 1 and values.shape[1] > 1 and np.nanmin(values) < 1 < np.nanmax(values):
        ax.contour(values, levels=[1.0], colors="black", linewidths=1.5)
    ax.set_xticks(range(len(ratio.columns)), [f"{v:,}" for v in ratio.columns], rotation=45)
    ax.set_yticks(range(len(ratio)), list(ratio.index))
    ax.set_xlabel("vocab size")
    ax.set_ylabel("corpus size")
    bar = fig.colorbar(image, ax=ax, label=f"{versions[1].upper()} / {versions[0].upper()} time")
    ticks = [t for t in (0.1, 0.2, 0.5, 1, 2, 5, 10) if np.exp(-spread) <= t <= np.exp(spread)]
    bar.set_ticks(ticks, labels=[f"{t:g}" for t in ticks])
    bar.minorticks_off()
    ax.set_title(
        f"{versions[1].upper()}/{versions[0].upper()} {METRIC_NAMES.get(metric, metric)} time "
        f"(blue: {versions[1].upper()} faster; line: ratio 1)\n{describe(table)}",
        fontsize=9,
    )
    fig.tight_layout()
    return fig


def speedups(table, metric: str = "total_s", size_bytes: int | None = None, vocab_size=None):
    """Speed-up of each version over V1 (median times) at one corpus size and vocab size."""
    medians = median_times(table, metric)
    if size_bytes is not None:
        medians = medians[medians["size_bytes"] == size_bytes]
    if vocab_size is not None:
        medians = medians[medians["vocab_size"] == vocab_size]
    times = medians.groupby("version")[metric].median()
    return times["v1"] / times


def plot_speedups(table, size_mb: float, vocab_size: int, metric: str = "total_s"):
    """Speed-up over V1 of every version at one configuration, ours beside the V1-V5 post's."""
    import matplotlib.pyplot as plt
    import numpy as np

    from bpe_course.reference.published import POST_SECONDS, V1_V5_POST, post_speedups

    ours = speedups(table, metric, round(size_mb * 1_000_000), vocab_size)
    theirs = post_speedups(size_mb, vocab_size) if (size_mb, vocab_size) in POST_SECONDS else {}
    versions = sorted(ours.index, key=lambda v: (v == "fastmax", v))
    x = np.arange(len(versions))
    fig, ax = plt.subplots(figsize=(1.2 + 1.0 * len(versions), 3.6))
    bars = [
        ax.bar(x - 0.2, [ours.get(v, np.nan) for v in versions], 0.4, label="this course"),
        ax.bar(x + 0.2, [theirs.get(v, np.nan) for v in versions], 0.4, label="V1-V5 post"),
    ]
    for group in bars:
        ax.bar_label(group, fmt="%.0fx", fontsize=7, padding=1)
    ax.set_yscale("log")
    ax.set_xticks(x, [version_label(v) for v in versions])
    ax.set_ylabel(f"speed-up over V1 ({METRIC_NAMES.get(metric, metric)})")
    ax.legend(fontsize=8)
    ax.set_title(
        f"Speed-up over V1, {size_mb:g} MB, vocab {vocab_size:,}: {describe(table)}\n"
        f"post: {V1_V5_POST}",
        fontsize=8,
    )
    fig.tight_layout()
    return fig


# What the course claims each version's time grows like, in corpus size N (W grows like N^beta by
# Heaps' law, so a loop over all words grows like W, not N).
CLAIMED_GROWTH = {
    "pretokenize_s": "N (every byte is read once)",
    "merge_s": "V1, V2: m W L (every word, every merge); V4: m P + sum of A; V5: (P + sum of A) log P",
}


def scaling_slopes(table, metric: str = "merge_s", vocab_size: int | None = None):
    """Least-squares slope of log(time) against log(corpus bytes), per version (and of W)."""
    import numpy as np

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


def plot_scaling(table, metric: str = "merge_s", vocab_size: int | None = None):
    """Time against corpus size, log-log, per version, with fitted slopes and the claimed growth."""
    import matplotlib.pyplot as plt

    ok = table[table["status"] == "ok"]
    if vocab_size is None:
        vocab_size = int(ok["vocab_size"].max())
    ok = ok[ok["vocab_size"] == vocab_size]
    slopes = scaling_slopes(ok, metric)
    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    for version, part in ok.groupby("version"):
        by_size = part.groupby("size_bytes")[metric].median()
        label = version_label(version)
        if version in slopes:
            label += f": slope {slopes[version]:.2f}"
        ax.plot(by_size.index / 1e6, by_size.values, marker="o", label=label)
    from matplotlib.ticker import LogLocator, ScalarFormatter

    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(LogLocator(subs=(1, 2, 5)))
        axis.set_major_formatter(ScalarFormatter())
        axis.set_minor_formatter(plt.NullFormatter())
    ax.set_xlabel("corpus size (MB)")
    ax.set_ylabel(f"{METRIC_NAMES.get(metric, metric)} time (s)")
    note = f"claimed growth: {CLAIMED_GROWTH.get(metric, '?')}"
    if "W" in slopes:
        note += f"\nmeasured: unique words W grow like N^{slopes['W']:.2f} (Heaps' law)"
    fig.text(0.01, 0.0, note, va="top", fontsize=7)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title(
        f"{METRIC_NAMES.get(metric, metric).capitalize()} time against corpus size, vocab "
        f"{vocab_size:,}\n{describe(table)}",
        fontsize=9,
    )
    fig.tight_layout()
    return fig


def plot_per_merge(trace, title: str = "", window: int = 25):
    """Words touched and time per merge across training (V4 and V5), the crossover's cause.

    ``trace`` is :func:`bpe_course.bench.merge_trace`'s table; lines are rolling medians over
    ``window`` merges (single merges are too noisy to read).
    """
    import matplotlib.pyplot as plt

    from bpe_course.reference.published import POST_WORDS_TOUCHED

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.5, 5.5), sharex=True)
    first = trace[trace["version"] == trace["version"].iloc[0]]
    top.plot(first["merge"], first["words_touched"], lw=0.6, color="grey", alpha=0.5)
    top.plot(
        first["merge"],
        first["words_touched"].rolling(window, min_periods=1).median(),
        color="black",
        label="words touched (A), our corpus",
    )
    for label, typical in POST_WORDS_TOUCHED:
        low, high = (int(x) for x in label.split("-"))
        top.hlines(typical, low, high, colors="tab:red", linestyles=":", lw=1.5)
    top.plot([], [], "r:", label="post's typical A (TinyStories, W ≈ 100k)")
    top.set_yscale("log")
    top.set_ylabel("words touched")
    top.legend(fontsize=7)
    for version, part in trace.groupby("version"):
        microseconds = part["seconds"].iloc[1:] * 1e6  # the first merge also paid the set-up
        bottom.plot(
            part["merge"].iloc[1:],
            microseconds.rolling(window, min_periods=1).median(),
            label=version.upper(),
        )
    bottom.set_yscale("log")
    bottom.set_ylabel("time per merge (µs)")
    bottom.set_xlabel("merge number")
    bottom.set_xlim(1, trace["merge"].max())
    bottom.legend(fontsize=8)
    top.set_title(title or "Per-merge cost across training", fontsize=9)
    fig.tight_layout()
    return fig


COURSE_ORDER = ("v1", "v2", "v3", "v4", "v5", "fastmax", "sites", "fast", "hf", "rustbpe")


def _ordered(versions) -> list[str]:
    """Course versions in course order, then libraries, then readers' trainers by name."""
    return sorted(versions, key=lambda v: (COURSE_ORDER.index(v) if v in COURSE_ORDER else 99, v))


def plot_side_by_side(table, metric: str = "total_s"):
    """Median time per version, bars side by side, one group per (corpus, size, vocab) cell."""
    import matplotlib.pyplot as plt
    import numpy as np

    ok = table[table["status"] == "ok"]
    medians = ok.groupby(["corpus", "size_bytes", "size", "vocab_size", "version"])[metric].median()
    medians = medians.unstack("version")
    versions = _ordered(medians.columns)
    x = np.arange(len(medians))
    width = 0.8 / max(1, len(versions))
    fig, ax = plt.subplots(figsize=(2.0 + 1.6 * len(medians), 3.6))
    for i, version in enumerate(versions):
        values = medians[version].to_numpy()
        bars = ax.bar(x + (i - (len(versions) - 1) / 2) * width, values, width)
        bars.set_label(version_label(version))
        ax.bar_label(bars, fmt="%.2f", fontsize=6, padding=1)
    labels = [f"{corpus} {size}\nvocab {vocab:,}" for corpus, _, size, vocab in medians.index]
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylabel(f"{METRIC_NAMES.get(metric, metric)} time (s), median")
    ax.legend(fontsize=7)
    ax.set_title(f"Side by side, {METRIC_NAMES.get(metric, metric)}: {describe(table)}", fontsize=9)
    fig.tight_layout()
    return fig


def plot_waterfall(steps, title: str = ""):
    """What each change bought: a waterfall from ``steps`` (columns ``step``, ``seconds``, ``saved``,
    as :func:`bpe_course.bench.beyond.what_each_change_bought` returns)."""
    import matplotlib.pyplot as plt
    import numpy as np

    fig, ax = plt.subplots(figsize=(7.0, 3.4))
    seconds, saved = steps["seconds"].to_numpy(), steps["saved"].to_numpy()
    x = np.arange(len(steps))
    ax.bar(x[:1], seconds[:1], color="tab:grey")
    for i in range(1, len(steps)):
        ax.bar(i, saved[i], bottom=seconds[i], color="tab:green" if saved[i] >= 0 else "tab:red")
        ax.annotate(f"-{saved[i]:.2f} s", (i, seconds[i - 1]), ha="center", va="bottom", fontsize=8)
    ax.bar(len(steps), seconds[-1], color="tab:blue")
    ax.annotate(f"{seconds[0]:.2f} s", (0, seconds[0]), ha="center", va="bottom", fontsize=8)
    ax.annotate(
        f"{seconds[-1]:.2f} s", (len(steps), seconds[-1]), ha="center", va="bottom", fontsize=8
    )
    ax.set_xticks([*x, len(steps)], [*steps["step"], "fast"], fontsize=7, rotation=15)
    ax.set_ylabel("end-to-end time (s), median")
    ax.set_title(title or "What each change bought", fontsize=9)
    fig.tight_layout()
    return fig


def plot_memory(samples, title: str = ""):
    """Resident memory of all processes of a run over time (``seconds``, ``rss_mb``, ``processes``)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.0, 3.2))
    ax.plot(samples["seconds"], samples["rss_mb"], lw=1.2)
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


def draw_all(table) -> dict:
    """Every figure a benchmark table supports, by file name: crossover and heat map (V4 and V5
    at two or more vocab sizes), speed-ups (V1 present), scaling (two or more corpus sizes)."""
    ok = table[table["status"] == "ok"]
    figures = {}
    versions = set(ok["version"])
    if {"v4", "v5"} <= versions and ok["vocab_size"].nunique() >= 2:
        for metric, tag in (("merge_s", "merge"), ("total_s", "total")):
            figures[f"crossover_{tag}"] = plot_crossover(ok, metric)
            figures[f"ratio_heatmap_{tag}"] = plot_ratio_heatmap(ok, metric)
    if "v1" in versions:
        v1 = ok[ok["version"] == "v1"]
        size_bytes, vocab = max(zip(v1["size_bytes"], v1["vocab_size"]))
        figures["speedups"] = plot_speedups(ok, size_bytes / 1_000_000, int(vocab))
    if ok["size_bytes"].nunique() >= 2:
        figures["scaling_merge"] = plot_scaling(ok, "merge_s")
        figures["scaling_total"] = plot_scaling(ok, "total_s")
    others = versions - set(COURSE_ORDER[:6])
    if others:  # the fast trainer, the libraries or a reader's trainer
        figures["side_by_side_total"] = plot_side_by_side(ok, "total_s")
        if {"v4", "v5"} <= versions and ok["vocab_size"].nunique() >= 2:
            figures["beside_v4_v5_total"] = plot_crossover(
                ok, "total_s", ("v4", "v5", *_ordered(others))
            )
    return figures
