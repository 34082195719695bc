"""Figures: functions take data (DataFrames) and return matplotlib figures; one helper saves them.

``save_figure`` writes SVG (and PNG) into ``figures/`` deterministically: no timestamp or random
id inside the file, so a rerun that draws the same data writes the same bytes. Every figure of
the course draws a version in the same colour (:func:`version_color`), names it the same way
(:func:`version_label`) and lists it in the same place: as its registry entry says
(:mod:`bpe_course.trainers`), the one place they are written.

The figures live by subject: :mod:`.crossover` (time against vocab size, ratios),
:mod:`.scaling` (against V1 and corpus size, phases), :mod:`.traces` (per merge, cumulative),
:mod:`.beyond` (side by side with the libraries, what each change bought, memory over time).
"""

from __future__ import annotations

from pathlib import Path

from bpe_course.files import replaced_whole
from bpe_course.paths import figures_dir
from bpe_course.plots import style
from bpe_course.trainers import in_order, shown

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


def version_color(version: str) -> str:
    """The version's colour, its registry entry's (:func:`bpe_course.trainers.shown`): a reader's
    own trainer, which has no entry, gets a fixed one too."""
    return shown(version).color


def version_label(version: str) -> str:
    """What a figure calls the version: its registry entry's label."""
    return shown(version).label


from bpe_course.plots.beyond import (  # noqa: E402
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
