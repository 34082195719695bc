"""A matplotlib figure live in a widget: an ipympl canvas (zoom, pan, hover) where ipympl works in
the kernel, else a picture in an Output; sized to the room the browser reports (``window``), with
ipympl's toolbar above the figure rather than over it."""

from __future__ import annotations

from collections.abc import Callable

import ipywidgets as w
from IPython import get_ipython
from IPython.display import display
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from bpe_course.course.widgets.window import WindowSize
from bpe_course.plots import style

# ipympl lays its toolbar over the figure (position: absolute), where it hides the first panel's
# title or label: here it takes its own room above the figure.
CANVAS_STYLE = """
.bpe-explorer .jupyter-matplotlib { display: flex; flex-direction: column; }
.bpe-explorer .jupyter-matplotlib-toolbar { position: static !important; order: -1; }
"""

FIRST_WIDTH_PX = 760  # the figure until the browser says how wide its cell is


def live_figure(interactive: bool | None):
    """A figure and what shows it: an ipympl canvas (zoom, pan, hover) when ipympl works in this
    kernel, else an Output that shows the figure as a picture."""
    # narrower than any notebook cell (JupyterLab's is 848 px at 1280 px with the file browser
    # open): the first picture is never cut off before the browser reports the cell's width
    figure = Figure(figsize=(FIRST_WIDTH_PX / style.DPI, 4.2), dpi=style.DPI)
    if interactive is None:
        interactive = in_kernel()
    if interactive:
        try:  # ipympl's backend, only where a kernel shows its canvas (else the picture below)
            from ipympl.backend_nbagg import new_figure_manager_given_figure

            manager = new_figure_manager_given_figure(id(figure), figure)
            manager.canvas.header_visible = False
            # a toolbar of its own above the figure: one laid over it hides the first panel's
            # title and axis label
            manager.canvas.toolbar_position = "top"
            manager.canvas.toolbar_visible = "visible"
            manager.canvas.footer_visible = False
            return figure, manager.canvas
        except ImportError:
            pass
    FigureCanvasAgg(figure)
    return figure, w.Output()


def in_kernel() -> bool:
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def show_figure(figure, canvas, now: bool = False) -> None:
    """Show the redrawn figure. From the measuring thread, draw at once: a deferred draw is
    scheduled on the kernel's event loop, which runs it only when the notebook next wakes up."""
    if isinstance(canvas, w.Output):
        with canvas:
            canvas.clear_output(wait=True)
            display(figure)
    elif now:
        canvas.draw()
    else:
        canvas.draw_idle()


def window_size(on_change: Callable[[int, int], None]) -> WindowSize:
    """The browser's room for the figure (anywidget's JavaScript measures the window), reported
    to ``on_change``."""
    window = WindowSize()
    window.observe(lambda _: on_change(window.width, window.height), names=["width", "height"])
    return window
