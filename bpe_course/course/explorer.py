"""The benchmark explorer: every result the harness wrote, any corpus and vocab size, cells measured
on request in the background, a live figure with a read-out of each point, and export.

Used in notebook 11 and alone as a web page (``bpe-course explore``). The figure is an ipympl
canvas where ipympl is installed and active (zoom, pan, hover); elsewhere a picture. The logic
lives below (``bench.results`` for the data, ``plots.explorer`` for the drawing); this module wires
controls to it, and measures in a thread so the page stays responsive.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from bpe_course.bench.results import (
    Selection,
    load_results,
    missing_cells,
    select,
    stored_result_files,
    summary,
)
from bpe_course.plots import version_label

Cell = tuple[str, int, int, str]  # corpus, size in bytes, vocab size, version
Runner = Callable[[Cell, threading.Event], dict]


def measure_cell(
    cell: Cell, cancel: threading.Event | None = None, workers: int = 2, timeout_s: float = 900
) -> dict:
    """One run of the harness (a fresh process) for a cell: the row the explorer adds. Setting
    ``cancel`` kills the run under way."""
    from bpe_course.bench.harness import context, run_cell
    from bpe_course.corpora.datasets import course_corpus, size_label

    corpus, size_bytes, vocab, version = cell
    path = course_corpus(size_bytes, corpus)
    result = run_cell(path, version, vocab, workers, timeout_s, cancel)
    return {
        "corpus": corpus,
        "size_bytes": size_bytes,
        "size": size_label(size_bytes),
        "vocab_size": vocab,
        "version": version,
        "repeat": 0,
        "workers": workers,
        **result,
        **context(),
    }


class Explorer:
    """The explorer's state and controls; :attr:`widget` is what a notebook displays."""

    def __init__(
        self,
        table: pd.DataFrame,
        runner: Runner | None = measure_cell,
        measured_csv: Path | None = None,
        interactive: bool | None = None,
    ) -> None:
        import ipywidgets as w

        self.table = table
        self.runner = runner
        self.measured_csv = measured_csv
        self.cancel = threading.Event()
        self.worker: threading.Thread | None = None
        self.lock = threading.Lock()
        self.points: dict = {}
        self._note = ""  # what the last or current measuring says, after the status
        corpora = sorted(set(table["corpus"]) | _corpora_available())
        sizes = sorted(set(zip(table["size_bytes"], table["size"])))
        vocabs = sorted(int(v) for v in table["vocab_size"].unique()) or [300, 5000]
        versions = sorted(set(table["version"]) | set(_versions_available()))
        machines = sorted(set(table["machine"]))
        first = [c for c in ("stories",) if c in set(table["corpus"])] or corpora[:1]
        # the first figure shows something: the two smallest sizes measured on the first corpus
        measured = table[table["corpus"].isin(first)]
        shown = sorted(set(zip(measured["size_bytes"], measured["size"]))) or sizes
        self.corpus = w.SelectMultiple(options=corpora, value=first, description="corpus:", rows=4)
        self.size = w.SelectMultiple(
            options=[(label, int(b)) for b, label in sizes],
            value=[int(b) for b, _ in shown[:2]],
            description="size:",
            rows=4,
        )
        self.add_size = w.Text(
            placeholder="add a size: 2MB", continuous_update=False, layout=_width(150)
        )
        self.vocab = w.IntRangeSlider(
            value=(vocabs[0], vocabs[-1]),
            min=min(256, vocabs[0]),
            max=max(vocabs[-1], 10_000),
            step=50,
            description="vocab:",
            continuous_update=False,
            layout=_width(420),
            style={"description_width": "initial"},
        )
        self.add_vocab = w.Text(
            placeholder="more vocab sizes: 20000, 30000",
            continuous_update=False,
            layout=_width(230),
        )
        default_versions = [v for v in ("v4", "v5") if v in versions] or versions[:2]
        self.version = w.SelectMultiple(
            options=versions, value=default_versions, description="versions:", rows=5
        )
        self.own_trainer = w.Text(
            placeholder="your trainer: module:function",
            continuous_update=False,
            layout=_width(260),
        )
        self.machine = w.SelectMultiple(
            options=machines, value=machines, description="machines:", rows=3
        )
        self.metric = w.ToggleButtons(
            options=[("merge loop", "merge_s"), ("end to end", "total_s")],
            description="time:",
            style={"button_width": "110px", "description_width": "initial"},
            layout=_width(300),
        )
        self.scale = w.Dropdown(  # "" stands for seconds: a None value shows as a blank box
            options=[("seconds", "")] + [(f"÷ {version_label(v)}", v) for v in versions],
            value="",
            description="show:",
            layout=_width(220),
        )
        self.log_x = w.Checkbox(value=False, description="log vocab", indent=False)
        self.log_y = w.Checkbox(value=False, description="log time", indent=False)
        self.measure_button = w.Button(
            description="measure missing cells", disabled=runner is None, layout=_width(190)
        )
        self.cancel_button = w.Button(description="cancel", disabled=True, layout=_width(90))
        self.save_figure_button = w.Button(description="save figure", layout=_width(110))
        self.save_table_button = w.Button(description="save table", layout=_width(110))
        self.progress = w.IntProgress(value=0, min=0, max=1, layout=_width(200))
        self.status = w.HTML()
        self.readout = w.HTML("<i>point at a marker to read its values</i>")
        self.figure, self.canvas = _figure(interactive)
        for control in (
            self.corpus,
            self.size,
            self.vocab,
            self.version,
            self.machine,
            self.metric,
            self.scale,
            self.log_x,
            self.log_y,
        ):
            control.observe(lambda _: self.redraw(), names="value")
        self.add_size.observe(lambda _: self._add_size(), names="value")
        self.add_vocab.observe(lambda _: self.redraw(), names="value")
        self.own_trainer.observe(lambda _: self._add_trainer(), names="value")
        self.measure_button.on_click(lambda _: self.start_measuring())
        self.cancel_button.on_click(lambda _: self.stop_measuring())
        self.save_figure_button.on_click(lambda _: self.save_figure())
        self.save_table_button.on_click(lambda _: self.save_table())
        if hasattr(self.figure.canvas, "mpl_connect"):
            self.figure.canvas.mpl_connect("motion_notify_event", self._hover)
        self.widget = w.VBox(
            [
                w.HBox(
                    [self.corpus, w.VBox([self.size, self.add_size]), self.version, self.machine]
                ),
                w.HBox([self.vocab, self.add_vocab, self.own_trainer]),
                w.HBox([self.metric, self.scale, self.log_x, self.log_y]),
                w.HBox(
                    [
                        self.measure_button,
                        self.cancel_button,
                        self.progress,
                        self.save_figure_button,
                        self.save_table_button,
                    ]
                ),
                self.status,
                self.canvas,
                self.readout,
            ]
        )
        self.redraw()

    # --- what is shown --------------------------------------------------------------------------

    def selection(self) -> Selection:
        return Selection(
            corpora=list(self.corpus.value),
            sizes=list(self.size.value),
            vocab_range=tuple(self.vocab.value),
            extra_vocabs=_numbers(self.add_vocab.value),
            versions=list(self.version.value),
            machines=list(self.machine.value),
            metric=self.metric.value,
            ratio_to=self.scale.value or None,
            log_x=self.log_x.value,
            log_y=self.log_y.value,
        )

    def redraw(self, from_thread: bool = False) -> None:
        from bpe_course.plots.explorer import draw_explorer

        with self.lock:
            chosen = self.selection()
            shown = select(self.table, chosen)
            stats = summary(self.table, chosen)
            self.points = draw_explorer(self.figure, stats, chosen)
            _show(self.figure, self.canvas, now=from_thread)
            missing = len(missing_cells(self.table, chosen)) if chosen.versions else 0
            if not chosen.versions:
                note = "choose at least one version"
            elif stats.empty:
                note = "nothing measured in this selection"
            else:
                note = f"{len(stats)} points from {len(shown)} runs"
            self.status.value = (
                f"{html.escape(note)}; {missing} cell(s) of the selection not measured yet"
                + self._note
            )

    def _hover(self, event) -> None:
        from bpe_course.plots.explorer import describe_point, nearest

        point = nearest(self.points.get(event.inaxes, []), event.inaxes, event.xdata, event.ydata)
        if point is not None:
            chosen = self.selection()
            self.readout.value = html.escape(describe_point(point, chosen.metric, chosen.ratio_to))

    def _add_size(self) -> None:
        from bpe_course.corpora.datasets import parse_size, size_label
        from bpe_course.errors import BPEInputError

        if not self.add_size.value.strip():
            return
        try:
            size = parse_size(self.add_size.value)
        except BPEInputError as error:
            self.status.value = html.escape(str(error))
            return
        options = dict((label, value) for label, value in self.size.options)
        options[size_label(size)] = size
        self.size.options = sorted(options.items(), key=lambda item: item[1])
        self.size.value = tuple(sorted({*self.size.value, size}))
        self.add_size.value = ""

    def _add_trainer(self) -> None:
        """A reader's trainer (``module:function``, CS336's signature) becomes a version to
        measure beside the course's: checked first, so a typo is a message, not a failed run."""
        from bpe_course.bench.libraries import load_trainer
        from bpe_course.errors import BPEInputError

        spec = self.own_trainer.value.strip()
        if not spec:
            return
        try:
            load_trainer(spec)
        except BPEInputError as error:
            self.status.value = html.escape(str(error))
            return
        if spec not in self.version.options:
            self.version.options = [*self.version.options, spec]
        self.version.value = (*self.version.value, spec)
        self.own_trainer.value = ""

    # --- measuring ------------------------------------------------------------------------------

    def start_measuring(self) -> None:
        cells = missing_cells(self.table, self.selection())
        if not cells:
            self._note = "; no cell of the selection is missing: nothing to measure"
            self.redraw()
            return
        self.cancel.clear()
        self.progress.max, self.progress.value = len(cells), 0
        self.measure_button.disabled, self.cancel_button.disabled = True, False
        self._note = f"; measuring {len(cells)} missing cell(s)…"
        self.redraw()
        self.worker = threading.Thread(target=self._measure, args=(cells,), daemon=True)
        self.worker.start()

    def stop_measuring(self) -> None:
        self.cancel.set()
        self._note = "; cancelling…"
        self.status.value += html.escape(" (cancelling: the run under way is stopped)")

    def _measure(self, cells: list[Cell]) -> None:
        done, failed = 0, []
        for cell in cells:
            if self.cancel.is_set():
                break
            try:
                row = self.runner(cell, self.cancel)
            except Exception as error:  # shown in the status; the other cells go on
                failed.append(f"{cell[3]} vocab {cell[2]:,}: {str(error).splitlines()[0]}")
            else:
                if row.get("status") == "cancelled":
                    break
                self._add_row(row)
            done += 1
            self.progress.value = done
            self._note = f"; measuring: {done} of {len(cells)} missing cell(s) done" + (
                f"; failed: {'; '.join(failed)}" if failed else ""
            )
            self.redraw(from_thread=True)
        stopped = " (cancelled)" if self.cancel.is_set() and done < len(cells) else ""
        self._note = f"; measured {done - len(failed)} of {len(cells)} missing cell(s){stopped}" + (
            f"; failed: {'; '.join(failed)}" if failed else ""
        )
        self.measure_button.disabled, self.cancel_button.disabled = False, True
        self.redraw(from_thread=True)

    def _add_row(self, row: dict) -> None:
        new = pd.DataFrame([row])
        self.table = pd.concat([self.table, new.assign(source="measured here")], ignore_index=True)
        if self.measured_csv is not None:  # the reader's own file: stored grids are never written
            self.measured_csv.parent.mkdir(parents=True, exist_ok=True)
            header = not self.measured_csv.exists()
            new.to_csv(self.measured_csv, mode="a", header=header, index=False)
        if row.get("machine") not in self.machine.options:
            self.machine.options = [*self.machine.options, row["machine"]]
            self.machine.value = (*self.machine.value, row["machine"])

    def wait(self, timeout: float | None = None) -> None:
        """Block until the measuring in progress ends (tests, and scripts)."""
        if self.worker is not None:
            self.worker.join(timeout)

    # --- export ---------------------------------------------------------------------------------

    def save_figure(self, name: str = "explorer") -> list[Path]:
        from bpe_course.plots import save_figure

        paths = save_figure(self.figure, name)
        self.status.value = "saved " + ", ".join(html.escape(str(p)) for p in paths)
        return paths

    def save_table(self, name: str = "explorer") -> Path:
        from bpe_course.files import write_atomically
        from bpe_course.paths import figures_dir

        path = figures_dir() / f"{name}.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, select(self.table, self.selection()).to_csv(index=False))
        self.status.value = f"saved {html.escape(str(path))}"
        return path


def course_explorer(measured_csv: Path | None = None, **options) -> Explorer:
    """The explorer over every stored grid and every run of the reader's (``build/bench``);
    cells measured here go to ``build/bench/explorer.csv``, never into the stored grids."""
    from bpe_course.paths import build_dir

    measured_csv = measured_csv or build_dir() / "bench" / "explorer.csv"
    return Explorer(load_results(stored_result_files()), measured_csv=measured_csv, **options)


# --- helpers --------------------------------------------------------------------------------------


def _corpora_available() -> set[str]:
    from bpe_course.corpora.datasets import DATASETS
    from bpe_course.paths import data_dir

    found = {"stories", "wide"}
    if (data_dir() / DATASETS["tinystories-valid"].filename).exists():
        found.add("tinystories")
    return found


def _versions_available() -> list[str]:
    """The course's trainers, the reference designs, and the libraries installed (``hf``,
    ``rustbpe``, from the ``bench`` extra): anything the harness can measure by name."""
    from bpe_course.bench.libraries import LIBRARIES, library_available
    from bpe_course.trainers import ALL_TRAINERS

    return [*ALL_TRAINERS, *(name for name in LIBRARIES if library_available(name))]


def _numbers(text: str) -> list[int]:
    return [int(part) for part in text.replace(",", " ").split() if part.isdigit()]


def _width(pixels: int):
    import ipywidgets as w

    return w.Layout(width=f"{pixels}px")


def _figure(interactive: bool | None):
    """A figure and what shows it: an ipympl canvas (zoom, pan, hover) when ipympl works in this
    kernel, else an Output that shows the figure as a picture."""
    import ipywidgets as w
    from matplotlib.figure import Figure

    from bpe_course.plots import style

    figure = Figure(figsize=(style.MAX_WIDTH, 6.0), dpi=style.DPI)
    if interactive is None:
        interactive = _in_kernel()
    if interactive:
        try:
            from ipympl.backend_nbagg import new_figure_manager_given_figure

            manager = new_figure_manager_given_figure(id(figure), figure)
            manager.canvas.header_visible = False
            return figure, manager.canvas
        except ImportError:
            pass
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(figure)
    return figure, w.Output()


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def _show(figure, canvas, now: bool = False) -> None:
    """Show the redrawn figure. From the measuring thread, draw at once: a deferred draw is
    scheduled on the kernel's event loop, which runs it only when the notebook next wakes up."""
    import ipywidgets as w

    if isinstance(canvas, w.Output):
        from IPython.display import display

        with canvas:
            canvas.clear_output(wait=True)
            display(figure)
    elif now:
        canvas.draw()
    else:
        canvas.draw_idle()
