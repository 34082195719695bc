"""The benchmark harness: a grid of runs, each in a fresh process, into a tidy table and a CSV.

Every cell (version x corpus size x vocab size x repeat) runs in its own subprocess, so one run's
memory and garbage never leak into the next. Rows are appended to the CSV as they finish; a sweep
that is interrupted resumes where it stopped (finished cells are not rerun unless asked). A run
over the time limit is recorded as ``timeout`` and the larger cells of that version are skipped.
Once per corpus and vocab size, every version's merges must equal the others' (a fast wrong
trainer is not a result): a mismatch stops the sweep. Versions from outside the course (Hugging
Face ``hf``, ``rustbpe``, a reader's ``module:function``) are compared with the course's merges
instead: the row says how many first merges agree, how many merges both share, and where they
first differ.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pandas as pd

from bpe_course.bars import progress_bar
from bpe_course.bench import libraries
from bpe_course.bench.grids import GRIDS, Grid
from bpe_course.bench.libraries import merge_agreement
from bpe_course.bench.machine import context
from bpe_course.bench.tables import append_row, read_benchmark_table
from bpe_course.bench.worker import PARENT_VARIABLE
from bpe_course.corpora.datasets import corpus_source, course_corpus, parse_size, size_label
from bpe_course.errors import BPEInputError
from bpe_course.pretokenize import END_OF_TEXT as EOT
from bpe_course.trainers import ALL_TRAINERS, LIBRARIES

KEY = ["corpus", "size_bytes", "vocab_size", "version", "repeat"]


class BenchmarkMismatch(RuntimeError):
    """Two versions learned different merges for the same corpus and vocab size."""


def run_cell(
    corpus: Path,
    version: str,
    vocab_size: int,
    workers: int,
    timeout_s: float,
    cancel: threading.Event | None = None,
) -> dict:
    """One benchmark run in a fresh process: its result, ``{"status": "timeout"}`` past
    ``timeout_s``, or ``{"status": "cancelled"}`` as soon as ``cancel`` is set (the process is
    killed, so a long run does not hold up a reader who asked to stop)."""
    spec = {
        "corpus": str(corpus),
        "version": version,
        "vocab_size": vocab_size,
        "workers": workers,
        "special_tokens": [EOT],
    }
    command = [sys.executable, "-m", "bpe_course.bench.worker", json.dumps(spec)]
    status, done = run_worker(command, timeout_s, cancel)
    if done is None:
        return {"status": status}
    if done.returncode != 0:
        raise RuntimeError(
            f"benchmark run {version} vocab {vocab_size} failed:\n{done.stderr[-2000:]}"
        )
    return {"status": "ok", **json.loads(done.stdout.strip().splitlines()[-1])}


def run_worker(
    command: list[str], timeout_s: float, cancel: threading.Event | None = None
) -> tuple[str, subprocess.CompletedProcess | None]:
    """Run a benchmark worker in its own session: ``("ok", its outcome)``, or ``("timeout",
    None)`` / ``("cancelled", None)`` with the worker and all it started killed.

    Its own session keeps the terminal's Ctrl-C from reaching it half-way, so this process stops
    it instead: on any exception here (KeyboardInterrupt included) the worker's group is killed
    before the exception goes on. (The worker ends itself if this process dies without a word:
    :func:`bpe_course.bench.worker.exit_with_parent`.)
    """
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own group: a kill reaches the pool it may have started
        env={**os.environ, PARENT_VARIABLE: str(os.getpid())},
    )
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            try:
                # wake at least every 0.25 s to see a cancel, and never past the deadline: a run
                # that ends after its deadline but inside one wait is still a timeout
                wait = min(0.25, max(deadline - time.monotonic(), 0.0))
                stdout, stderr = process.communicate(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                stopped = "cancelled" if cancel is not None and cancel.is_set() else None
                if stopped is None and time.monotonic() > deadline:
                    stopped = "timeout"
                if stopped:
                    kill_group(process)
                    return stopped, None
    except BaseException:
        kill_group(process)
        raise
    return "ok", subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def kill_group(process: subprocess.Popen) -> None:
    """Kill a worker started in its own session, and all it started; reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (AttributeError, ProcessLookupError, PermissionError):  # no process groups: Windows
        process.kill()
    try:
        process.communicate(timeout=10)
    except (subprocess.TimeoutExpired, ValueError):  # a pipe held by a stray child, or closed
        process.wait()


def run_grid(
    grid: Grid,
    csv_path: Path | None = None,
    *,
    corpus: str | None = None,
    workers: int = 2,
    rerun: bool = False,
    progress: bool = True,
) -> pd.DataFrame:
    """Run ``grid``; return every row (old and new) as a DataFrame, appending new ones to ``csv_path``."""
    check_grid(grid)
    check_versions(grid.versions)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise BPEInputError(f"workers must be 1 or more, not {workers!r}")
    source = corpus_source(corpus)
    done = (
        read_benchmark_table(csv_path, required=[*KEY, "status"])
        if csv_path is not None and csv_path.exists() and not rerun
        else pd.DataFrame(columns=[*KEY, "status"])
    )
    finished = finished_cells(done, grid.timeout_s)
    cells = grid_cells(grid)
    bar = progress_bar(progress, len(cells), "benchmark", "run", leave=True)
    rows, timed_out, check = [], set(), MergeCheck()
    for size, vocab, version, repeat in cells:
        size_bytes = parse_size(size)
        key = (source, size_bytes, vocab, version, repeat)
        if key in finished or version in timed_out:
            if finished.get(key) == "timeout":
                timed_out.add(version)  # as when it timed out: its larger cells would too
            if bar is not None:
                bar.update(1)  # nothing to run: counted at once
            continue
        path = course_corpus(size, source)
        result = run_cell(path, version, vocab, workers, grid.timeout_s)
        if result["status"] == "timeout":
            timed_out.add(version)  # larger cells of this version would time out too
        else:
            check(path, size_bytes, vocab, version, result)
        row = {
            **cell_columns(source, size_bytes, vocab, version, repeat, workers),
            "timeout_s": grid.timeout_s,  # the limit it ran under: a timeout is final only under it
            **result,
            **context(),
            "grid": grid.name,
        }
        rows.append(row)
        if csv_path is not None:
            append_row(csv_path, row)
        if bar is not None:
            bar.update(1)  # a run is counted when it has finished, never when it starts
    if bar is not None:
        bar.close()
    return pd.concat([done, pd.DataFrame(rows)], ignore_index=True) if rows else done


def finished_cells(done: pd.DataFrame, timeout_s: float) -> dict[tuple, str]:
    """The cells of ``done`` a run under ``timeout_s`` must not run again, with their status:
    those measured (``ok``), and those that timed out under a limit as long or longer (a rerun
    with a longer limit measures them; a row without its limit, written before rows said it,
    stays final). A cancelled run is never final."""
    finished: dict[tuple, str] = {}
    limits = done["timeout_s"] if "timeout_s" in done.columns else pd.Series(math.inf, done.index)
    for key, status, limit in zip(
        done[KEY].itertuples(index=False, name=None), done["status"], limits
    ):
        key = (key[0], int(key[1]), int(key[2]), key[3], int(key[4]))
        if status == "ok":
            finished[key] = "ok"
        elif status == "timeout" and not limit < timeout_s:  # NaN: no limit said, final
            finished.setdefault(key, "timeout")
    return finished


def check_grid(grid: Grid) -> None:
    """A grid that can run, or one line saying what cannot: no row is stored for a run that
    never happened (a timeout of -1 s), or that did no work (a vocab too small for one merge)."""
    if not grid.versions:
        raise BPEInputError("no version to run; name some with --versions")
    timeout = grid.timeout_s
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise BPEInputError(f"--timeout must be a number of seconds above 0, not {timeout!r}")
    if math.isinf(timeout) or math.isnan(timeout):
        raise BPEInputError(f"--timeout must be a finite number of seconds, not {timeout!r}")
    repeats = grid.repeats
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise BPEInputError(f"--repeats must be 1 or more, not {repeats!r}")
    floor = 256 + 1  # the byte tokens and <|endoftext|>, the benchmark's special token
    for vocab in grid.vocab_sizes:
        if isinstance(vocab, bool) or not isinstance(vocab, int) or vocab <= floor:
            raise BPEInputError(
                f"vocab size {vocab!r} leaves no merge to time: the 256 bytes and {EOT} take "
                f"{floor} ids; use vocab sizes above {floor}"
            )
    sizes = [parse_size(size) for size in grid.sizes]
    for what, values in (
        ("versions", list(grid.versions)),
        ("sizes", sizes),
        ("vocab sizes", list(grid.vocab_sizes)),
    ):
        repeated = sorted({str(v) for v in values if values.count(v) > 1})
        if repeated:
            raise BPEInputError(
                f"the {what} repeat {', '.join(repeated)}: each cell runs once per repeat"
            )


def cell_columns(
    corpus: str, size_bytes: int, vocab: int, version: str, repeat: int, workers: int
) -> dict:
    """The columns that say which cell a row measured (before its result and context)."""
    return {
        "corpus": corpus,
        "size_bytes": size_bytes,
        "size": size_label(size_bytes),
        "vocab_size": vocab,
        "version": version,
        "repeat": repeat,
        "workers": workers,
    }


def grid_cells(grid: Grid) -> list[tuple[str, int, str, int]]:
    """The grid's cells in the order they run: (size, vocab size, version, repeat).

    Versions alternate within each repeat, so a lasting change of load on a shared machine is
    spread over all of them; it is not removed, nor is a burst within one run, so every ratio is
    read with its range over the repeats."""
    return [
        (size, vocab, version, repeat)
        for size in sorted(grid.sizes, key=parse_size)
        for vocab in sorted(grid.vocab_sizes)
        for repeat in range(grid.repeats)
        for version in grid.versions
    ]


class MergeCheck:
    """Checks each finished run's merges: a course version's must equal the first version's on the
    same size and vocab (else :class:`BenchmarkMismatch`); a version from outside the course gets
    columns comparing its merges with the course's (never a mismatch)."""

    def __init__(self) -> None:
        self.shas: dict[tuple[int, int], tuple[str, str]] = {}
        self.references: dict[tuple[Path, int], list[tuple[bytes, bytes]]] = {}

    def __call__(self, path: Path, size_bytes: int, vocab: int, version: str, result: dict) -> None:
        if "merges_hex" in result:  # from outside the course: compared, never a mismatch
            if (path, vocab) not in self.references:
                self.references[path, vocab] = course_merges(path, vocab)
            result.update(compare_outside(result.pop("merges_hex"), self.references[path, vocab]))
            return
        seen = self.shas.setdefault((size_bytes, vocab), (version, result["merges_sha"]))
        if seen[1] != result["merges_sha"]:
            raise BenchmarkMismatch(
                f"{version} and {seen[0]} learned different merges on {size_label(size_bytes)} at vocab {vocab}"
            )


def check_versions(versions: tuple[str, ...]) -> None:
    """Every version is the course's, an installed library, or an importable ``module:function``."""
    for version in versions:
        if version in ALL_TRAINERS:
            continue
        if version in LIBRARIES:
            if not libraries.library_available(version):
                raise BPEInputError(
                    f"{LIBRARIES[version].title} is not installed; pip install -e '.[bench]'"
                )
        elif ":" in version:
            libraries.load_trainer(version)
        else:
            known = ", ".join([*ALL_TRAINERS, *LIBRARIES])
            raise BPEInputError(
                f"unknown version {version!r}; choose one of: {known}, or module:function"
            )


def course_merges(path: Path, vocab_size: int) -> list[tuple[bytes, bytes]]:
    """The course's merges for one cell (every course version learns these), for comparisons."""
    from bpe_course.api import train_bpe

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return train_bpe(path, vocab_size, [EOT], version="fast", workers=1)[1]


def compare_outside(merges_hex: list, ours: list[tuple[bytes, bytes]]) -> dict:
    """Columns saying how merges from outside the course compare with the course's."""
    theirs = [(bytes.fromhex(left), bytes.fromhex(right)) for left, right in merges_hex]
    agreement = merge_agreement(ours, theirs)
    return {
        "merges_equal": agreement.equal,
        "same_prefix": agreement.same_prefix,
        "same_set": agreement.same_set,
        "first_difference": agreement.first_difference,
    }


def summarize(table: pd.DataFrame) -> pd.DataFrame:
    """Median merge-loop and end-to-end seconds per (corpus, size, vocab), one column per version
    (a CSV may hold several corpora: the stories and the wide shape at the same size)."""
    ok = table[table["status"] == "ok"]
    if ok.empty:
        return pd.DataFrame()
    wide = ok.pivot_table(
        index=["corpus", "size", "vocab_size"],
        columns="version",
        values=["merge_s", "total_s"],
        aggfunc="median",
    )
    return wide.round(3)


def grid_by_name(name: str) -> Grid:
    try:
        return GRIDS[name]
    except KeyError:
        raise BPEInputError(f"unknown grid {name!r}; choose one of: {', '.join(GRIDS)}") from None
