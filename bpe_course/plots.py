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
