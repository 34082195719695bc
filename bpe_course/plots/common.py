"""What every figure shares: a version's colour and label (its registry entry's), the metrics'
names, the title's account of where the runs were made, and saving a figure.

``save_figure`` writes SVG (and PNG) into ``figures/`` deterministically: no timestamp or random
id inside the file, so a rerun that draws the same data writes the same bytes. Every figure of
the course draws a version in the same colour (:func:`version_color`), names it the same way
(:func:`version_label`) and lists it in the same place (:func:`bpe_course.trainers.in_order`):
as its registry entry says (:mod:`bpe_course.trainers`), the one place they are written.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib
import pandas as pd
from matplotlib.figure import Figure

from bpe_course.files import replaced_whole
from bpe_course.paths import figures_dir
from bpe_course.plots import style
from bpe_course.trainers import shown

METRIC_NAMES = {"merge_s": "merge loop", "total_s": "end to end", "pretokenize_s": "pretokenize"}


def version_color(version: str) -> str:
    """The version's colour, its registry entry's (:func:`bpe_course.trainers.shown`): a reader's
    own trainer, which has no entry, gets a fixed one too."""
    return shown(version).color


def version_label(version: str) -> str:
    """What a figure calls the version: its registry entry's label."""
    return shown(version).label


def describe(table: pd.DataFrame) -> str:
    """``"generated corpus, Linux x86_64 (host)"``: what a figure's title must name."""
    corpora = ", ".join(sorted(set(table["corpus"].astype(str))))
    machines = ", ".join(sorted(set(table["machine"].astype(str))))
    return f"{corpora} corpus, {machines}"


def save_figure(
    fig: Figure,
    name: str,
    png: bool = True,
    data: pd.DataFrame | None = None,
    folder: str | Path | None = None,
) -> list[Path]:
    """Save ``fig`` as ``figures/<name>.svg`` (and ``.png``), and ``data`` (the DataFrame it was
    drawn from) as ``figures/<name>.csv``; return the paths written. ``folder`` replaces
    ``figures/``. Each file is written whole or not at all (an interrupted save leaves the old
    one, never a cut image that looks finished)."""
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
