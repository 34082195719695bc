"""Measuring benchmark cells in the background: a queue of cells run one by one in a thread (each
cell a fresh process, the harness's), a cancel that kills the run under way, and a job that says
how far it got, so the explorer's page stays responsive and a later click resumes with exactly the
cells still missing.

The explorer (:mod:`bpe_course.course.widgets.explorer`) lays out the controls; this module knows
nothing of widgets: it reports through the callbacks it is given.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from bpe_course.bench.harness import cell_columns, run_cell
from bpe_course.bench.machine import context
from bpe_course.corpora.datasets import course_corpus

Cell = tuple[str, int, int, str]  # corpus, size in bytes, vocab size, version
Runner = Callable[[Cell, threading.Event], dict]


def measure_cell(
    cell: Cell, cancel: threading.Event | None = None, workers: int = 2, timeout_s: float = 900
) -> dict:
    """One run of the harness (a fresh process) for a cell: the row the explorer adds. Setting
    ``cancel`` kills the run under way."""
    corpus, size_bytes, vocab, version = cell
    path = course_corpus(size_bytes, corpus)
    result = run_cell(path, version, vocab, workers, timeout_s, cancel)
    return {
        **cell_columns(corpus, size_bytes, vocab, version, 0, workers),
        **result,
        **context(),
    }


@dataclass
class Job:
    """One click of *measure missing cells*: the cells queued, and how far the measuring got."""

    cells: list[Cell]
    done: int = 0
    failed: list[str] = field(default_factory=list)
    running: bool = True
    cancelled: bool = False

    def pending(self) -> set[Cell]:
        return set(self.cells[self.done :]) if self.running else set()

    def describe(self) -> str:
        failed = f"; failed: {'; '.join(self.failed)}" if self.failed else ""
        if self.running:
            stopping = " (cancelling: the run under way is stopped)" if self.cancelled else ""
            return (
                f"measuring: {self.done} of {len(self.cells)} queued cell(s) done{stopping}{failed}"
            )
        stopped = " (cancelled)" if self.cancelled and self.done < len(self.cells) else ""
        return (
            f"measured {self.done - len(self.failed)} of {len(self.cells)} queued cell(s)"
            f"{stopped}{failed}"
        )


class Measuring:
    """Runs a job's cells in a background thread: ``on_row`` gets each measured row, ``on_step``
    the job after each cell, ``on_end`` the job once it has stopped (finished, failed or cancelled).
    """

    def __init__(
        self,
        on_row: Callable[[dict], None],
        on_step: Callable[[Job], None],
        on_end: Callable[[Job], None],
    ) -> None:
        self.on_row, self.on_step, self.on_end = on_row, on_step, on_end
        self.cancel = threading.Event()
        self.worker: threading.Thread | None = None

    def start(self, job: Job, runner: Runner) -> None:
        self.cancel.clear()
        self.worker = threading.Thread(target=self._run, args=(job, runner), daemon=True)
        self.worker.start()

    def stop(self, job: Job) -> None:
        """Kill the run under way and queue no more: the job says it is cancelling."""
        self.cancel.set()
        job.cancelled = True

    def wait(self, timeout: float | None = None) -> None:
        """Block until the measuring in progress ends (tests, and scripts)."""
        if self.worker is not None:
            self.worker.join(timeout)

    def _run(self, job: Job, runner: Runner) -> None:
        try:
            for cell in job.cells:
                if self.cancel.is_set():
                    break
                try:
                    row = runner(cell, self.cancel)
                except Exception as error:  # shown in the status; the other cells go on
                    first = str(error).splitlines()[0] if str(error) else type(error).__name__
                    job.failed.append(f"{cell[3]} vocab {cell[2]:,}: {first}")
                else:
                    if row.get("status") == "cancelled":
                        break
                    self.on_row(row)
                job.done += 1
                self.on_step(job)
        finally:  # whatever happened, the job has ended and says so
            job.cancelled = self.cancel.is_set()
            job.running = False
            self.on_end(job)
