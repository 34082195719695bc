"""The benchmark explorer: every result the harness wrote, any corpus and vocab size, cells measured
on request in the background, a live figure with a read-out of each point, and export.

Used in notebook 11 and alone as a web page (``bpe-course explore``). The figure is an ipympl
canvas where ipympl is installed and active (zoom, pan, hover); elsewhere a picture. The logic
lives below (``bench.results`` for the data, ``plots.explorer`` for the drawing); this module wires
controls to it, and measures in a thread so the page stays responsive.
"""

from __future__ import annotations

import html
import importlib.util
import os
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import ipywidgets as w
import pandas as pd

from bpe_course.bench.libraries import LIBRARIES, library_available, load_trainer
from bpe_course.bench.results import (
    YOURS,
    Selection,
    is_yours,
    load_results,
    mark_yours,
    missing_cells,
    runs_dates,
    runs_label,
    select,
    stored_result_files,
    summary,
    with_runs,
)
from bpe_course.bench.tables import append_row
from bpe_course.corpora.datasets import DATASETS, parse_size, size_label
from bpe_course.course.widgets.live_figure import (
    CANVAS_STYLE,
    live_figure,
    show_figure,
    window_size,
)
from bpe_course.course.widgets.measuring import Job, Measuring, Runner, measure_cell
from bpe_course.errors import BPEInputError
from bpe_course.files import write_atomically
from bpe_course.paths import build_dir, data_dir, figures_dir, notebooks_dir
from bpe_course.plots import save_figure, version_label
from bpe_course.plots.explorer import (
    describe_point,
    draw_explorer,
    machine_letter,
    nearest,
    room_of,
    short_runs,
)
from bpe_course.trainers import ALL_TRAINERS

READOUT_HINT = "<i>point at a marker to read its values</i>"
STATUS_STYLE = """
.bpe-explorer .bpe-line { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.bpe-explorer .bpe-note { font-size: 0.9em; line-height: 1.3; color: #444; }
"""


SIDE_PX = 60  # the figure's toolbar and margins beside it, in pixels
BELOW_PX = 90  # the toolbar above the figure, the read-out line under it, margins
PRESENTATION_SCALE = 1.6  # text size of the figure in presentation mode


class Explorer:
    """The explorer's state and controls; :attr:`widget` is what a notebook displays.

    One status line says, always about the current selection: what is shown, how many of its
    cells nobody has measured yet (and how many of those are queued), then how the last click of
    *measure missing cells* is going or went, then the answer to the last action (a typed value
    refused, a file saved). A change of selection drops what was said about the one before."""

    def __init__(
        self,
        table: pd.DataFrame,
        runner: Runner | None = measure_cell,
        measured_csv: Path | None = None,
        interactive: bool | None = None,
        trainer_folder: Path | None = None,
    ) -> None:
        self.table = with_runs(table)  # a table not read by load_results (tests, scripts)
        # where a reader's trainer module is imported from (the kernel's folder: notebook 11's)
        self.trainer_folder = trainer_folder or Path.cwd()
        self.runner = runner
        self.measured_csv = measured_csv
        self.measuring = Measuring(self._add_row, self._measured_one, self._measuring_ended)
        self.lock = threading.RLock()
        self.points: dict = {}
        self.job: Job | None = None
        self._notice = ""  # the answer to the last action, until the selection changes
        self._quiet = False  # options being replaced: no redraw for the transient values
        # a reader's trainer measured in an earlier session is listed only while it imports
        known = {v for v in self.table["version"] if ":" not in v or _importable(v)}
        versions = _ordered_versions(known | set(_versions_available()))
        self._corpus_controls()
        self._version_controls(versions)
        self._time_controls(versions)
        self._action_controls()
        self.figure, self.canvas = live_figure(interactive)
        # the room the figure may fill, in pixels (the browser reports it: ``_fit``); many
        # panels make the figure taller than this, never narrower
        self.room = room_of(self.figure)
        # every machine known, in one order: a machine keeps its letter in every view
        self.machines = list(dict.fromkeys(self.table["machine"]))
        self._connect()
        self.window = window_size(self._fit) if not isinstance(self.canvas, w.Output) else None
        self.widget = self._layout()
        self.redraw()

    # --- the controls ---------------------------------------------------------------------------

    def _corpus_controls(self) -> None:
        """Corpora, sizes and runs; the first figure shows something: the two smallest sizes
        measured on the first corpus, in the stored grids only (a reader's runs are listed,
        marked as theirs, and never the opening view: a rehearsal's one noisy run each would
        be). Only sizes measured are listed: a size typed in and never measured is not kept."""
        table = self.table
        ok = table[table["status"] == "ok"]
        stored = ok[~ok["runs"].map(is_yours)]
        opening = stored if not stored.empty else ok
        corpora = sorted(set(table["corpus"]) | _corpora_available())
        sizes = sorted(set(zip(ok["size_bytes"], ok["size"])))
        runs = sorted(set(table["runs"]), key=lambda label: (is_yours(label), label))
        first = [c for c in ("stories",) if c in set(opening["corpus"])]
        first = first or sorted(set(opening["corpus"]))[:1] or corpora[:1]
        measured = opening[opening["corpus"].isin(first)]
        shown = sorted(set(zip(measured["size_bytes"], measured["size"]))) or sizes
        self.corpus = _list(corpora, first)
        self.size = _list([(label, int(b)) for b, label in sizes], [int(b) for b, _ in shown[:2]])
        self.add_size = w.Text(
            placeholder="add a size: 2MB", continuous_update=False, layout=_width(170)
        )
        self.runs = _list(runs, [r for r in runs if not is_yours(r)] or runs, width=370)
        self.pool = w.Checkbox(value=False, description="pool the runs' repeats", indent=False)

    def _version_controls(self, versions: list[str]) -> None:
        """Vocab sizes (stops only on the grids' sizes: a range never falls between two of them,
        more typed in) and versions (a reader's own trainer typed in)."""
        vocabs = sorted(int(v) for v in self.table["vocab_size"].unique()) or [300, 5000]
        self.vocab = w.SelectionRangeSlider(
            options=[(f"{v:,}", v) for v in vocabs],
            index=(0, len(vocabs) - 1),
            description="vocab:",
            continuous_update=False,
            layout=_width(330),
            style={"description_width": "50px"},
        )
        self.add_vocab = w.Text(
            placeholder="more vocab sizes: 20000, 30000",
            continuous_update=False,
            layout=_width(330),
        )
        default_versions = [v for v in ("v4", "v5") if v in versions] or versions[:2]
        self.version = _list([(version_title(v), v) for v in versions], default_versions)
        self.own_trainer = w.Text(
            placeholder="your trainer: module:function",
            continuous_update=False,
            layout=_width(230),
            tooltip=f"module:function, the module in {self.trainer_folder} or on PYTHONPATH",
        )

    def _time_controls(self, versions: list[str]) -> None:
        """Which time, in seconds or as a ratio to a version, on which axes' scale."""
        self.metric = w.ToggleButtons(
            options=[("merge loop", "merge_s"), ("end to end", "total_s")],
            style={"button_width": "100px"},
        )
        self.scale = w.Dropdown(  # "" stands for seconds: a None value shows as a blank box
            options=[("seconds", "")] + [(f"÷ {version_label(v)}", v) for v in versions],
            value="",
            description="show:",
            layout=_width(220),
            style={"description_width": "50px"},
        )
        self.log_x = w.Checkbox(
            value=False, description="log vocab", indent=False, layout=_width(100)
        )
        self.log_y = w.Checkbox(
            value=False, description="log time", indent=False, layout=_width(100)
        )

    def _action_controls(self) -> None:
        """The buttons (presentation, controls, measure, cancel, save) and the read-outs."""
        self.presentation = w.ToggleButton(
            value=False,
            description="presentation",
            tooltip="larger text in the figure, for a projector",
            layout=_width(110),
        )
        self.show_controls = w.ToggleButton(
            value=True,
            description="controls",
            tooltip="hide the controls: the figure takes their room",
            layout=_width(90),
        )
        self.show_more = w.ToggleButton(
            value=False,
            description="more options",
            tooltip="runs and pooling, more vocab sizes, ratios, log axes, your trainer, export",
            layout=_width(120),
        )
        self.measure_button = w.Button(
            description="measure missing cells", disabled=self.runner is None, layout=_width(170)
        )
        self.cancel_button = w.Button(description="cancel", disabled=True, layout=_width(80))
        self.save_figure_button = w.Button(description="save figure", layout=_width(100))
        self.save_table_button = w.Button(description="save table", layout=_width(100))
        self.progress = w.IntProgress(value=0, min=0, max=1, layout=_width(180))
        # a line of its own, cut at the window's edge with the whole text as its tooltip: a
        # long status beside the buttons squeezed them to "co..."
        self.status = w.HTML(layout=w.Layout(width="100%", min_width="0"))
        self.status.add_class("bpe-explorer-status")
        self.readout = w.HTML(READOUT_HINT)
        self.readout.add_class("bpe-explorer-readout")
        # which runs the lines come from, and when: two lines of one version differ because they
        # are different runs (another day, machine or load), which the figure alone cannot say
        self.runs_note = w.HTML(layout=w.Layout(width="100%"))
        self.runs_note.add_class("bpe-explorer-runs")

    def _connect(self) -> None:
        """Every control to what it changes: a redraw, a new option, a run, a file."""
        for control in (
            self.corpus,
            self.size,
            self.vocab,
            self.version,
            self.runs,
            self.pool,
            self.metric,
            self.log_x,
            self.log_y,
            self.presentation,
        ):
            control.observe(lambda _: self._changed(), names="value")
        self.scale.observe(lambda _: self._scale_changed(), names="value")
        self.add_size.observe(lambda _: self._add_size(), names="value")
        self.add_vocab.observe(lambda _: self._changed(), names="value")
        self.own_trainer.observe(lambda _: self._add_trainer(), names="value")
        self.measure_button.on_click(lambda _: self.start_measuring())
        self.cancel_button.on_click(lambda _: self.stop_measuring())
        self.save_figure_button.on_click(lambda _: self.save_figure())
        self.save_table_button.on_click(lambda _: self.save_table())
        if hasattr(self.figure.canvas, "mpl_connect"):
            self.figure.canvas.mpl_connect("motion_notify_event", self._hover)

    def _layout(self):
        """A band of controls that wraps on a narrow screen (every list box tall enough to show
        all its items) and can be hidden, the options used less folded under *more options*, a
        line with the status, then the figure, which fills the room left below it (the
        ``window`` widget measures it)."""
        self.band = self._band()
        self.show_controls.observe(
            lambda change: setattr(self.band.layout, "display", None if change.new else "none"),
            names="value",
        )
        self.show_more.observe(
            lambda change: setattr(self.more.layout, "display", None if change.new else "none"),
            names="value",
        )
        self.band.add_class("bpe-explorer-controls")
        figure = w.VBox([self.canvas])
        figure.add_class("bpe-explorer-figure")
        top = w.HBox([self.show_controls, self.show_more, self.presentation])
        top.layout.align_items = "center"
        parts = [w.HTML(f"<style>{CANVAS_STYLE}{STATUS_STYLE}</style>"), self.band, top]
        parts += [self.status, figure, self.readout, self.runs_note]
        if self.window is not None:
            parts.append(self.window)
        root = w.VBox(parts)
        root.add_class("bpe-explorer")
        return root

    def _band(self):
        """The controls in three titled columns (corpus and size, versions, vocab size and time
        with measuring), one row beside a notebook's 848 pixels; under them, folded until
        *more options* opens it, a row with the runs and the options used less."""
        wrap = w.Layout(flex_flow="row wrap", grid_gap="0 16px")
        main = w.HBox(
            [
                _column("corpus and size", self.corpus, self.size, self.add_size),
                _column("versions", self.version),
                _column(
                    "vocab size and time",
                    self.vocab,
                    self.metric,
                    w.HBox([self.measure_button, self.cancel_button]),
                    self.progress,
                ),
            ],
            layout=wrap,
        )
        self.more = w.HBox(
            [
                _column("runs (grid, machine)", self.runs, self.pool),
                _column(
                    "more",
                    self.add_vocab,
                    self.scale,
                    w.HBox([self.log_x, self.log_y]),
                    self.own_trainer,
                    w.HBox([self.save_figure_button, self.save_table_button]),
                ),
            ],
            layout=w.Layout(flex_flow="row wrap", grid_gap="0 16px", display="none"),
        )
        self.more.add_class("bpe-explorer-more")
        return w.VBox([main, self.more])

    # --- what is shown --------------------------------------------------------------------------

    def selection(self) -> Selection:
        return Selection(
            corpora=list(self.corpus.value),
            sizes=list(self.size.value),
            vocab_range=tuple(self.vocab.value),
            extra_vocabs=_numbers(self.add_vocab.value),
            versions=list(self.version.value),
            runs=list(self.runs.value),
            pool=self.pool.value,
            metric=self.metric.value,
            ratio_to=self.scale.value or None,
            log_x=self.log_x.value,
            log_y=self.log_y.value,
        )

    def _changed(self) -> None:
        """A control changed the selection: what was said about the last one no longer holds."""
        if self._quiet:
            return
        self._notice = ""
        if self.job is not None and not self.job.running:
            self.job = None
        self.readout.value = READOUT_HINT
        self.redraw()

    def _scale_changed(self) -> None:
        """A ratio to a version needs that version's times: it joins the versions shown."""
        reference = self.scale.value
        if reference and reference not in self.version.value:
            self._extend(self.version, self.version.options, [reference])
        self._changed()

    def redraw(self, from_thread: bool = False) -> None:
        with self.lock:
            chosen = self.selection()
            stats = summary(self.table, chosen)
            empty = self._why_empty(chosen) if stats.empty else ""
            scale = PRESENTATION_SCALE if self.presentation.value else 1.0
            self.points = draw_explorer(
                self.figure, stats, chosen, scale, empty, self.room, self.machines
            )
            show_figure(self.figure, self.canvas, now=from_thread)
            if stats.empty:
                self.readout.value = READOUT_HINT
            self.status.value = self._status(chosen, stats, empty)
            self.runs_note.value = self._runs_note(stats)

    def _why_empty(self, chosen: Selection) -> str:
        if not chosen.versions:
            return "choose at least one version"
        if chosen.ratio_to and chosen.ratio_to not in chosen.versions:
            name = version_label(chosen.ratio_to)
            return (
                f"the ratio to {name} needs {name} among the versions: select it, or show seconds"
            )
        if chosen.ratio_to and not summary(self.table, replace(chosen, ratio_to=None)).empty:
            name = version_label(chosen.ratio_to)
            return f"no cell shown has {name} measured in the same runs to divide by"
        return ""

    def _status(self, chosen: Selection, stats: pd.DataFrame, empty: str) -> str:
        shown = select(self.table, chosen)
        if empty:
            parts = [empty]
        elif stats.empty:
            parts = ["nothing measured in this selection"]
        else:
            runs = int((shown["status"] == "ok").sum())
            parts = [f"{_count(len(stats), 'point')} from {_count(runs, 'run')}"]
        if chosen.versions:
            missing = missing_cells(self.table, chosen)
            queued = len(set(missing) & self.job.pending()) if self.job else 0
            if missing:
                parts.append(
                    f"{len(missing)} cell(s) of this selection not measured yet"
                    + (f" ({queued} of them queued)" if queued else "")
                )
            else:
                parts.append("every cell of this selection is measured")
        if self.job is not None:
            parts.append(self.job.describe())
        if self._notice:
            parts.append(self._notice)
        size = "1.3em" if self.presentation.value else "1em"
        text = html.escape("; ".join(parts))
        return f'<div class="bpe-line" style="font-size: {size}" title="{text}">{text}</div>'

    def _runs_note(self, stats: pd.DataFrame) -> str:
        """Where more than one runs label is drawn: when each was measured (and under what load,
        where stored), and which machine each letter of the legend stands for."""
        shown = list(dict.fromkeys(stats["runs"])) if not stats.empty else []
        if len(shown) < 2 or self.selection().pool:
            return ""
        names = short_runs(shown, self.machines)
        dates = runs_dates(self.table, shown)
        lines = "; ".join(f"{names[label]}: {dates[label]}" for label in shown)
        machines = dict.fromkeys(label.partition(" grid, ")[2] for label in shown)
        key = ""
        if len(machines) > 1:
            key = (
                " Machines: "
                + "; ".join(f"{machine_letter(m, self.machines)} = {m}" for m in machines)
                + "."
            )
        text = (
            "Lines of one version differ between runs (other days, machines or loads), whose "
            f"repeats are never pooled unless you tick pool. Measured: {lines}.{key}"
        )
        return f'<div class="bpe-note">{html.escape(text)}</div>'

    def _hover(self, event) -> None:
        point = nearest(self.points.get(event.inaxes, []), event.inaxes, event.xdata, event.ydata)
        if point is not None:
            chosen = self.selection()
            self.readout.value = html.escape(describe_point(point, chosen.metric, chosen.ratio_to))

    def _fit(self, width: int, height: int) -> None:
        """Size the figure to the room the browser reports (the window it is projected in)."""
        if width <= 0 or height <= 0:
            return
        pixels = (max(width - SIDE_PX, 480), max(height - BELOW_PX, 240))
        if abs(self.room[0] - pixels[0]) < 8 and abs(self.room[1] - pixels[1]) < 8:
            return  # no redraw for a pixel or two (a resize loop would flicker)
        with self.lock:
            self.room = pixels
        self.redraw(from_thread=True)  # drawn at once: the browser shows the canvas resized

    def _extend(self, control, options, also: list) -> None:
        """New options for a list box, keeping what was selected (replacing the options of an
        ipywidgets selection clears it) and selecting ``also``; one redraw, not three."""
        kept = tuple(control.value)
        values = [o[1] if isinstance(o, tuple) else o for o in options]
        self._quiet = True
        try:
            control.options = options
            control.rows = max(len(options), 1)
            control.value = tuple(v for v in dict.fromkeys([*kept, *also]) if v in values)
        finally:
            self._quiet = False

    def _add_size(self) -> None:
        if not self.add_size.value.strip():
            return
        try:
            size = parse_size(self.add_size.value)
        except BPEInputError as error:
            self._notice = str(error)
            self.redraw()
            return
        options = dict((label, value) for label, value in self.size.options)
        options[size_label(size)] = size
        self._extend(self.size, sorted(options.items(), key=lambda item: item[1]), [size])
        self.add_size.value = ""
        self._changed()

    def _add_trainer(self) -> None:
        """A reader's trainer (``module:function``, CS336's signature) becomes a version to
        measure beside the course's: checked first, so a typo is a message, not a failed run."""
        spec = self.own_trainer.value.strip()
        if not spec:
            return
        module = spec.partition(":")[0]
        if module and not _importable(spec):
            self._notice = (
                f"no module {module!r} here: put {module.replace('.', '/')}.py in "
                f"{self.trainer_folder} (notebook 11 and the explore page both import from "
                "there) or add its folder to PYTHONPATH"
            )
            self.redraw()
            return
        try:
            load_trainer(spec)
        except BPEInputError as error:
            self._notice = str(error)
            self.redraw()
            return
        options = list(self.version.options)
        if spec not in [value for _, value in options]:
            options.append((version_title(spec), spec))
        self._extend(self.version, options, [spec])
        self.own_trainer.value = ""
        self._changed()

    # --- measuring ------------------------------------------------------------------------------

    def start_measuring(self) -> None:
        """Queue the selection's missing cells (none twice: a resume after a cancel measures
        exactly those still missing) and measure them in the background."""
        if self.job is not None and self.job.running:
            return
        cells = missing_cells(self.table, self.selection())
        if not cells:
            self.job = None
            self._notice = "nothing to measure"
            self.redraw()
            return
        self.progress.max, self.progress.value = len(cells), 0
        self.measure_button.disabled, self.cancel_button.disabled = True, False
        self.job, self._notice = Job(cells), ""
        self.redraw()
        self.measuring.start(self.job, self.runner)

    def stop_measuring(self) -> None:
        if self.job is None or not self.job.running:
            return
        self.measuring.stop(self.job)
        self.redraw()

    def _measured_one(self, job: Job) -> None:
        self.progress.value = job.done
        self.redraw(from_thread=True)

    def _measuring_ended(self, job: Job) -> None:
        """Whatever happened, the buttons work again and the status says it has ended."""
        self.measure_button.disabled, self.cancel_button.disabled = False, True
        self.redraw(from_thread=True)

    def _add_row(self, row: dict) -> None:
        new = pd.DataFrame([{**row, "grid": "explorer"}])
        with self.lock:
            added = new.assign(source="measured here")
            added["runs"] = YOURS + runs_label(added)
            self.table = pd.concat([self.table, added], ignore_index=True)
        if self.measured_csv is not None:  # the reader's own file: stored grids are never written
            # as the harness appends: each value under its column's name, whatever columns a
            # row has (a timeout's are fewer than a finished run's)
            append_row(self.measured_csv, new.iloc[0].to_dict())
        label = added["runs"].iloc[0]
        if row.get("machine") not in self.machines:  # a letter of its own, kept from now on
            self.machines.append(row.get("machine"))
        if label not in self.runs.value:  # the reader's runs, shown beside the stored ones
            # (listed but unselected when an earlier session measured some: selected now, so
            # the cell just measured is drawn and no longer counted as missing)
            options = list(self.runs.options)
            self._extend(self.runs, options + [label] * (label not in options), [label])

    def wait(self, timeout: float | None = None) -> None:
        """Block until the measuring in progress ends (tests, and scripts)."""
        self.measuring.wait(timeout)

    # --- export ---------------------------------------------------------------------------------

    def save_figure(self, name: str = "explorer") -> list[Path]:
        paths = save_figure(self.figure, name)
        self._notice = "saved " + ", ".join(str(p) for p in paths)
        self.redraw()
        return paths

    def save_table(self, name: str = "explorer") -> Path:
        path = figures_dir() / f"{name}.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, select(self.table, self.selection()).to_csv(index=False))
        self._notice = f"saved {path}"
        self.redraw()
        return path


def course_explorer(measured_csv: Path | None = None, clean: bool = False, **options) -> Explorer:
    """The explorer over every stored grid and every run of the reader's (``build/bench``,
    listed as "yours: ..."); cells measured here go to ``build/bench/explorer.csv``, never into
    the stored grids. ``clean``: set that file aside first (:func:`set_aside_measured`), for a
    class that should not see a rehearsal's runs."""
    measured_csv = measured_csv or measured_path()
    if clean:
        moved = set_aside_measured(measured_csv)
        print(f"your earlier runs were set aside in {moved}" if moved else "no runs of yours")
    own_folder = build_dir() / "bench"
    files = stored_result_files()
    table = load_results(p for p in files if p.parent != own_folder)
    own = [p for p in files if p.parent == own_folder]
    if own:
        table = pd.concat([table, mark_yours(load_results(own))], ignore_index=True)
    return Explorer(table, measured_csv=measured_csv, **options)


def measured_path() -> Path:
    """Where the explorer appends the cells it measures: ``build/bench/explorer.csv``."""
    return build_dir() / "bench" / "explorer.csv"


def set_aside_measured(path: Path | None = None) -> Path | None:
    """Move the explorer's own runs (``build/bench/explorer.csv``) to
    ``build/bench/set-aside/explorer-<date and time>.csv``, out of the explorer's sight (it reads
    ``build/bench/*.csv`` only) but not deleted; the new path, or None when there was none."""
    path = path or measured_path()
    if not path.is_file():
        return None
    target = path.parent / "set-aside" / f"{path.stem}-{time.strftime('%Y%m%d-%H%M%S')}.csv"
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(path, target)
    return target


def explorer_page(measured_csv: Path | None = None, **options) -> w.Widget:
    """What the explorer's page (``bpe-course explore``) shows: the explorer, or, when a stored
    table cannot be read (a hand's edit: a value where it cannot be), the one line that says
    which file, line and column, where a traceback would leave only "There was an error when
    executing cell [1]"."""
    # a trainer module the reader wrote for notebook 11 (in notebooks/) imports here too, in
    # this kernel and in the fresh process that measures each cell
    folder = str(notebooks_dir())
    if folder not in sys.path:
        sys.path.insert(0, folder)
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if folder not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([folder, *filter(None, paths)])
    options.setdefault("trainer_folder", notebooks_dir())
    try:
        return course_explorer(measured_csv, **options).widget
    except BPEInputError as error:
        return w.HTML(
            '<p class="bpe-explorer-error"><b>The explorer cannot start:</b> '
            f"{html.escape(str(error))}</p><p>Mend or remove that file, then reload this page.</p>"
        )


# --- helpers --------------------------------------------------------------------------------------


def _corpora_available() -> set[str]:
    found = {"stories", "wide"}
    if (data_dir() / DATASETS["tinystories-valid"].filename).exists():
        found.add("tinystories")
    return found


def _versions_available() -> list[str]:
    """The course's trainers, the reference designs, and the libraries installed (``hf``,
    ``rustbpe``, from the ``bench`` extra): anything the harness can measure by name."""
    return [*ALL_TRAINERS, *(name for name in LIBRARIES if library_available(name))]


def version_title(version: str) -> str:
    """A version as the course names it in a list: the registry's title ("V5 heap", "post's V5,
    GC off"), a library's name, or a reader's ``module:function`` marked as theirs."""
    if version in ALL_TRAINERS:
        return ALL_TRAINERS[version].title
    if ":" in version:
        return f"yours: {version}"
    return version_label(version)


def _importable(spec: str) -> bool:
    """A reader's ``module:function`` whose module can be found (not run: listing it must not
    execute a reader's code)."""
    try:
        return importlib.util.find_spec(spec.partition(":")[0]) is not None
    except (ImportError, ValueError):
        return False


def _ordered_versions(versions: set[str]) -> list[str]:
    """The course's versions in the course's order, then the references, libraries, others."""
    known = [v for v in ALL_TRAINERS if v in versions]
    return known + sorted(versions - set(known))


def _column(title: str, *children):
    """Controls one above the other, under a bold title."""
    return w.VBox([w.HTML(f"<b>{title}</b>"), *children])


def _list(options: list, value: list, width: int = 230):
    """A list box tall enough to show every item: what is selected is seen without scrolling."""
    return w.SelectMultiple(
        options=options, value=value, rows=max(len(options), 1), layout=_width(width)
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _numbers(text: str) -> list[int]:
    return [int(part) for part in text.replace(",", " ").split() if part.isdigit()]


def _width(pixels: int):
    return w.Layout(width=f"{pixels}px")
