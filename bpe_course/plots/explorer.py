"""The explorer's figure: any selection of benchmark results, drawn on a figure the caller owns
(an interactive ipympl canvas in a notebook, or a plain figure in a test or a saved file)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bpe_course.plots import METRIC_NAMES, version_color, version_label

LINE_STYLES = ["-", "--", ":", "-."]  # one per machine, in the order machines appear


@dataclass(frozen=True)
class Point:
    """One plotted point, for the hover read-out."""

    version: str
    corpus: str
    size: str
    machine: str
    vocab_size: int
    median: float
    low: float
    high: float
    repeats: int


def draw_explorer(fig, stats, selection) -> dict:
    """Draw ``stats`` (:func:`bpe_course.bench.results.summary`) on ``fig``: one panel per corpus
    and size, a line per version and machine (colour: version; line style: machine), the min-max
    of the repeats as a band. Returns ``{axes: [Point, ...]}`` for the hover read-out."""
    fig.clear()
    panels = sorted({(c, s) for c, s in zip(stats["corpus"], stats["size_bytes"])}, key=str)
    if not panels:
        ax = fig.add_subplot()
        ax.axis("off")
        what = "merge-loop" if selection.metric == "merge_s" else "end-to-end"
        ax.text(0.5, 0.5, f"no {what} times measured in this selection", ha="center", va="center")
        return {}
    columns = min(2, len(panels))
    rows = -(-len(panels) // columns)
    machines = list(dict.fromkeys(stats["machine"]))
    points: dict = {}
    unit = f"÷ {version_label(selection.ratio_to)}" if selection.ratio_to else "seconds"
    for index, (corpus, size_bytes) in enumerate(panels):
        ax = fig.add_subplot(rows, columns, index + 1)
        part = stats[(stats["corpus"] == corpus) & (stats["size_bytes"] == size_bytes)]
        points[ax] = []
        for (version, machine), curve in part.groupby(["version", "machine"], sort=False):
            curve = curve.sort_values("vocab_size")
            color = version_color(version)
            style = LINE_STYLES[machines.index(machine) % len(LINE_STYLES)]
            label = version_label(version) + (f" ({machine})" if len(machines) > 1 else "")
            ax.fill_between(
                curve["vocab_size"], curve["min"], curve["max"], color=color, alpha=0.2, lw=0
            )
            ax.plot(
                curve["vocab_size"],
                curve["median"],
                style,
                marker="o",
                ms=3,
                color=color,
                label=label,
            )
            points[ax] += [
                Point(
                    version,
                    corpus,
                    row.size,
                    machine,
                    int(row.vocab_size),
                    row.median,
                    row.min,
                    row.max,
                    int(row.repeats),
                )
                for row in curve.itertuples()
            ]
        if selection.ratio_to:
            ax.axhline(1.0, color="black", lw=0.8, ls=":")
        ax.set_xscale("log" if selection.log_x else "linear")
        ax.set_yscale("log" if selection.log_y else "linear")
        if not selection.log_y and not selection.ratio_to:
            ax.set_ylim(bottom=0)
        ax.set_title(f"{corpus}, {part['size'].iloc[0]}")
        ax.set_xlabel("vocab size")
        ax.set_ylabel(f"{METRIC_NAMES.get(selection.metric, selection.metric)}, {unit}")
        ax.legend(fontsize=8)
    fig.tight_layout()
    return points


def nearest(points: list[Point], ax, x: float, y: float, within: float = 12.0) -> Point | None:
    """The plotted point of ``ax`` nearest to data coordinates (x, y), if within ``within`` pixels."""
    if not points or x is None or y is None:
        return None
    here = ax.transData.transform((x, y))
    where = ax.transData.transform(np.array([(p.vocab_size, p.median) for p in points]))
    distance = np.hypot(*(where - here).T)
    best = int(np.argmin(distance))
    return points[best] if distance[best] <= within else None


def describe_point(point: Point, metric: str, ratio_to: str | None) -> str:
    """The read-out of one point: what it is, and its median and spread over the repeats."""
    unit = f"× {version_label(ratio_to)}'s time" if ratio_to else "s"
    spread = f"{point.low:.3g} to {point.high:.3g}" if point.repeats > 1 else "one run"
    return (
        f"{version_label(point.version)} on {point.corpus} {point.size}, vocab "
        f"{point.vocab_size:,}: median {point.median:.3g} {unit} over {point.repeats} repeat(s) "
        f"({spread}), {METRIC_NAMES.get(metric, metric)}, {point.machine}"
    )
