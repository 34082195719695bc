"""The course's figure defaults, in one place: a width that JupyterLab shows at its own size (so
nothing is scaled down and text stays readable), and font sizes a reader can read.

JupyterLab projected at 1280 x 800 pixels, its file browser open, gives a notebook cell's output
848 pixels (``CELL_PX``, measured in a browser). A wider picture is shrunk to that width, its text
with it: a figure 1,200 pixels wide shows its 10-point labels at about 7 points. The notebook draws
a figure at ``DPI`` (100 pixels an inch) and crops it to what it holds plus 0.1 inch on each side
(matplotlib's ``bbox_inches="tight"``), so a figure at most ``MAX_WIDTH`` = 8.2 inches wide is
shown at most 840 pixels wide, pixel for pixel, and a 10-point font on it is read as 10 points.
Text that reaches past the figure's edge (a long title, a legend set outside the panels) widens the
picture: wrap it (:func:`wrap`) or lay the figure out with ``layout="constrained"``, which keeps
everything inside.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

import matplotlib

if TYPE_CHECKING:  # matplotlib.typing is 3.8's; the package asks for 3.7
    from matplotlib.typing import RcKeyType

DPI = 100  # what the notebook shows; saved PNGs use SAVE_DPI
SAVE_DPI = 120
CELL_PX = 848  # JupyterLab's output at 1280 x 800 with the file browser open
MAX_WIDTH = 8.2  # inches: at most 840 pixels shown (8.2 + 2 x 0.1 inch of margin, at DPI)
PANEL_WIDTH = 4.6  # one panel alone; two side by side share MAX_WIDTH
PANEL_HEIGHT = 3.0

# A projector shows the notebook column across a room: no text under about 14 pixels, which at
# DPI is 10 points (10 / 72 * 100 = 13.9 px). ``SMALLEST`` is the floor a figure's own font sizes
# (annotations, crowded tick labels) must not go below.
SMALLEST = 10
RC: dict[RcKeyType, float] = {
    "figure.dpi": DPI,
    "savefig.dpi": SAVE_DPI,
    "font.size": 11,
    "axes.titlesize": 11,
    "axes.labelsize": 11,
    "xtick.labelsize": SMALLEST,
    "ytick.labelsize": SMALLEST,
    "legend.fontsize": SMALLEST,
    "figure.titlesize": 12,
}


def apply() -> None:
    """Set the defaults (the plotting functions call it; a notebook may call it too)."""
    matplotlib.rcParams.update(RC)


def grid_size(panels: int, columns: int) -> tuple[float, float]:
    """Figure size for ``panels`` panels in rows of ``columns``, never wider than ``MAX_WIDTH``."""
    rows = -(-panels // columns)
    return min(MAX_WIDTH, PANEL_WIDTH * columns), PANEL_HEIGHT * rows


def wrap(text: str, fontsize: float = SMALLEST, width: float = MAX_WIDTH) -> str:
    """``text`` broken into lines that fit ``width`` inches at ``fontsize`` points, each of its
    lines on its own, at ``"; "`` where that takes no more lines, else between words: a title or
    a note longer than the figure widens the picture the notebook shows, which is then shrunk,
    its text with it."""
    # DejaVu Sans, matplotlib's default, averages about 0.6 of the font size a character
    characters = max(20, int(width * 72 / (0.6 * fontsize)))
    return "\n".join(piece for line in text.split("\n") for piece in _pack(line, characters))


def _pack(line: str, characters: int) -> list[str]:
    """One line as lines of at most ``characters``: its ``"; "``-separated parts packed
    greedily, a part too long for a line broken between words."""
    if len(line) <= characters:
        return [line]
    parts = line.split("; ")
    lines: list[str] = []
    current = ""
    for index, part in enumerate(parts):
        piece = part + (";" if index < len(parts) - 1 else "")
        joined = f"{current} {piece}" if current else piece
        if len(joined) <= characters:
            current = joined
            continue
        if current:
            lines.append(current)
        current = piece
    lines.append(current)
    packed = [short for long in lines for short in textwrap.wrap(long, characters) or [long]]
    plain = textwrap.wrap(line, characters)
    return packed if len(packed) <= len(plain) else plain  # no extra line for a "; "
