"""The course's figure defaults, in one place: a width that JupyterLab shows at its own size (so
nothing is scaled down and text stays readable), and font sizes a reader can read.

JupyterLab's notebook column is about 970 pixels wide at its default zoom. A figure drawn at 100
dots per inch and at most ``MAX_WIDTH`` inches wide is shown pixel for pixel, and a 9-point font
on it is read as 9 points, where a wider figure is shrunk and its labels with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import matplotlib

if TYPE_CHECKING:  # matplotlib.typing is 3.8's; the package asks for 3.7
    from matplotlib.typing import RcKeyType

DPI = 100  # what the notebook shows; saved PNGs use SAVE_DPI
SAVE_DPI = 120
MAX_WIDTH = 9.4  # inches: 940 pixels at DPI, inside the notebook column
PANEL_WIDTH = 4.6  # one panel of a grid of panels, two side by side
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
