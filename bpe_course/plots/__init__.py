"""Figures: functions take data (DataFrames) and return matplotlib figures; one helper saves them.

``save_figure`` writes SVG (and PNG) into ``figures/`` deterministically: no timestamp or random
id inside the file, so a rerun that draws the same data writes the same bytes. Every figure of
the course draws a version in the same colour (:func:`version_color`) and names it the same way
(:func:`version_label`).

The figures live by subject: :mod:`.crossover` (time against vocab size, ratios),
:mod:`.scaling` (against V1 and corpus size, phases), :mod:`.traces` (per merge, cumulative),
:mod:`.beyond` (side by side with the libraries, what each change bought, memory over time).
"""

from __future__ import annotations

from pathlib import Path

from bpe_course.files import replaced_whole
from bpe_course.paths import figures_dir
from bpe_course.plots import style

style.apply()  # every figure of the course, and the notebooks' own, start from these defaults


def save_figure(
    fig, name: str, png: bool = True, data=None, folder: Path | None = None
) -> list[Path]:
    """Save ``fig`` as ``figures/<name>.svg`` (and ``.png``), and ``data`` (the DataFrame it was
    drawn from) as ``figures/<name>.csv``; return the paths written. ``folder`` replaces
    ``figures/``. Each file is written whole or not at all (an interrupted save leaves the old
    one, never a cut image that looks finished)."""
    import matplotlib

    folder = figures_dir() if folder is None else Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{name}.svg"]
    with matplotlib.rc_context({"svg.hashsalt": name}), replaced_whole(paths[0]) as partial:
        fig.savefig(partial, format="svg", metadata={"Date": None}, bbox_inches="tight")
    if png:
        paths.append(folder / f"{name}.png")
        with replaced_whole(paths[-1]) as partial:
            fig.savefig(
                partial,
                format="png",
                dpi=style.SAVE_DPI,
                metadata={"Software": None},
                bbox_inches="tight",
            )
    if data is not None:
        paths.append(folder / f"{name}.csv")
        with replaced_whole(paths[-1]) as partial:
            data.to_csv(partial, index=False)
    return paths


def describe(table) -> str:
    """``"generated corpus, Linux x86_64 (host)"``: what a figure's title must name."""
    corpora = ", ".join(sorted(set(table["corpus"].astype(str))))
    machines = ", ".join(sorted(set(table["machine"].astype(str))))
    return f"{corpora} corpus, {machines}"


METRIC_NAMES = {"merge_s": "merge loop", "total_s": "end to end", "pretokenize_s": "pretokenize"}

# One colour per version in every figure, whatever else is drawn beside it.
VERSION_COLORS = {
    "v0": "#7f7f7f",
    "v1": "#8c564b",
    "v2": "#e377c2",
    "v3": "#bcbd22",
    "v4": "#1f77b4",
    "v5": "#ff7f0e",
    "fastmax": "#2ca02c",
    "sites": "#ff9896",
    "fast": "#d62728",
    "shards": "#8c6d31",
    "post_v4": "#17becf",
    "post_v5": "#9467bd",
    "post_v5_nogc": "#c5b0d5",
    "hf": "#393b79",
    "rustbpe": "#637939",
}
_LABELS = {
    "fastmax": "fast max",
    "shards": "shards (merge workers)",
    "post_v4": "post's V4",
    "post_v5": "post's V5",
    "post_v5_nogc": "post's V5, GC off",
    "hf": "HF tokenizers",
    "rustbpe": "rustbpe",
}


def version_color(version: str) -> str:
    """The version's colour; a version not listed (a reader's own trainer) gets a fixed one too."""
    if version in VERSION_COLORS:
        return VERSION_COLORS[version]
    import zlib

    palette = ["#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c49c94", "#f7b6d2", "#dbdb8d"]
    return palette[zlib.crc32(version.encode()) % len(palette)]


def version_label(version: str) -> str:
    return _LABELS.get(version, version.upper() if version[:1] == "v" else version)


from bpe_course.plots.beyond import (  # noqa: E402
    ORDER,
    ordered,
    plot_memory,
    plot_side_by_side,
    plot_waterfall,
)
from bpe_course.plots.crossover import (  # noqa: E402  (they import the helpers above)
    describe_crossover,
    plot_crossover,
    plot_ratio_heatmap,
    ratio_grid,
)
from bpe_course.plots.scaling import (  # noqa: E402
    CLAIMED_GROWTH,
    plot_phases,
    plot_scaling,
    plot_speedups,
    scaling_slopes,
    speedups,
)
from bpe_course.plots.shards import plot_against_fast  # noqa: E402, F401
from bpe_course.plots.traces import overtakes, plot_cumulative, plot_per_merge  # noqa: E402


def draw_all(table) -> dict:
    """Every figure a benchmark table supports, by file name: the crossover (merge loop and end
    to end in one figure) and the heat maps (V4 and V5 at two or more vocab sizes), speed-ups and
    where the time goes (V1 present), scaling (two or more corpus sizes)."""
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
    others = versions - {"v0", "v1", "v2", "v3", "v4", "v5", "fastmax"}
    if others:  # beyond the course's V1-V5: side by side, and beside V4 and V5 over vocab sizes
        figures["side_by_side_total"] = plot_side_by_side(ok, "total_s")
        if {"v4", "v5"} <= versions and ok["vocab_size"].nunique() >= 2:
            figures["beside_v4_v5"] = plot_crossover(
                ok, versions=("v4", "v5", *ordered(others)), metrics=("merge_s", "total_s")
            )
    return figures


__all__ = [
    "CLAIMED_GROWTH",
    "METRIC_NAMES",
    "ORDER",
    "VERSION_COLORS",
    "describe",
    "describe_crossover",
    "ordered",
    "overtakes",
    "draw_all",
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
    "version_color",
    "version_label",
]
