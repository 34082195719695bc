"""Figures: functions take data and return matplotlib figures; one helper saves them.

``save_figure`` writes SVG (and PNG) into ``figures/`` deterministically: no timestamp or random
id inside the file, so a rerun that draws the same data writes the same bytes.
"""

from __future__ import annotations

from pathlib import Path

from bpe_course.paths import figures_dir


def save_figure(fig, name: str, png: bool = True) -> list[Path]:
    """Save ``fig`` as ``figures/<name>.svg`` (and ``.png``); return the paths written."""
    import matplotlib

    folder = figures_dir()
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{name}.svg"]
    with matplotlib.rc_context({"svg.hashsalt": name}):
        fig.savefig(paths[0], metadata={"Date": None}, bbox_inches="tight")
    if png:
        paths.append(folder / f"{name}.png")
        fig.savefig(paths[1], dpi=120, metadata={"Software": None}, bbox_inches="tight")
    return paths


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


def plot_crossover(table, metric: str = "merge_s", versions: tuple[str, str] = ("v4", "v5")):
    """Time against vocab size for two versions, one panel per corpus size, crossover marked."""
    import matplotlib.pyplot as plt

    medians = median_times(table, metric)
    sizes = sorted(medians["size_bytes"].unique())
    fig, axes = plt.subplots(
        1, len(sizes), figsize=(3.6 * len(sizes), 3.4), sharey=False, squeeze=False
    )
    for ax, size_bytes in zip(axes[0], sizes):
        part = medians[medians["size_bytes"] == size_bytes]
        curves = {v: part[part["version"] == v].set_index("vocab_size")[metric] for v in versions}
        for version, curve in curves.items():
            ax.plot(curve.index, curve.values, marker="o", ms=3, label=version.upper())
        common = curves[versions[0]].index.intersection(curves[versions[1]].index)
        diff = (curves[versions[1]][common] - curves[versions[0]][common]).tolist()
        cross = crossover_vocab(list(common), diff)
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
    axes[0][0].set_ylabel(
        {"merge_s": "merge loop (s)", "total_s": "end to end (s)"}.get(metric, metric)
    )
    axes[0][0].legend()
    corpus = table["corpus"].iloc[0]
    machine = table["machine"].iloc[0]
    fig.suptitle(
        f"{versions[0].upper()} vs {versions[1].upper()}, {metric}: {corpus} corpus, {machine}",
        fontsize=10,
    )
    fig.tight_layout()
    return fig
