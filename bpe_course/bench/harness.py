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

import datetime
import json
import os
import platform
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd

import bpe_course
from bpe_course.bench.grids import ABLATION_VOCABS, CROSSOVER_VOCABS, GRIDS, Grid  # noqa: F401
from bpe_course.bench.worker import PARENT_VARIABLE
from bpe_course.corpora.datasets import corpus_source, course_corpus, parse_size, size_label
from bpe_course.errors import BPEInputError
from bpe_course.files import replaced_whole
from bpe_course.pretokenize import END_OF_TEXT as EOT

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


def machine_label() -> str:
    """Where a run is made, specific enough that runs of two machines never share a label:
    ``"Linux x86_64, AMD EPYC, 2 cores (vm)"`` (system, CPU model, cores, host name)."""
    return (
        f"{platform.system()} {platform.machine()}, {cpu_model()}{os.cpu_count()} cores "
        f"({platform.node()})"
    )


def cpu_model() -> str:
    """The CPU's model name and a comma (Linux's /proc/cpuinfo; elsewhere the platform's word)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip() + ", "
    except OSError:
        pass
    return f"{platform.processor()}, " if platform.processor() else ""


def context() -> dict:
    return {
        "python": platform.python_version(),
        "machine": machine_label(),
        "package": bpe_course.__version__,
        "date": datetime.date.today().isoformat(),
    }


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
    check_versions(grid.versions)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise BPEInputError(f"workers must be 1 or more, not {workers!r}")
    source = corpus_source(corpus)
    done = (
        read_table(csv_path)
        if csv_path is not None and csv_path.exists() and not rerun
        else pd.DataFrame(columns=KEY)
    )
    finished = {tuple(row) for row in done[KEY].itertuples(index=False)}
    # Versions alternate within each repeat, so a change of load on a shared machine falls on
    # all of them alike and their ratios stay fair.
    cells = [
        (size, vocab, version, repeat)
        for size in sorted(grid.sizes, key=parse_size)
        for vocab in sorted(grid.vocab_sizes)
        for repeat in range(grid.repeats)
        for version in grid.versions
    ]
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(cells), desc="benchmark", unit="run")
    rows, timed_out, shas, references = [], set(), {}, {}
    for size, vocab, version, repeat in cells:
        size_bytes = parse_size(size)
        key = (source, size_bytes, vocab, version, repeat)
        if key in finished or version in timed_out:
            if bar is not None:
                bar.update(1)  # nothing to run: counted at once
            continue
        path = course_corpus(size, source)
        result = run_cell(path, version, vocab, workers, grid.timeout_s)
        if result["status"] == "timeout":
            timed_out.add(version)  # larger cells of this version would time out too
        elif "merges_hex" in result:  # from outside the course: compared, never a mismatch
            if (path, vocab) not in references:
                references[path, vocab] = course_merges(path, vocab)
            result.update(compare_outside(result.pop("merges_hex"), references[path, vocab]))
        else:
            seen = shas.setdefault((size_bytes, vocab), (version, result["merges_sha"]))
            if seen[1] != result["merges_sha"]:
                raise BenchmarkMismatch(
                    f"{version} and {seen[0]} learned different merges on {size_label(size_bytes)} at vocab {vocab}"
                )
        row = {
            "corpus": source,
            "size_bytes": size_bytes,
            "size": size_label(size_bytes),
            "vocab_size": vocab,
            "version": version,
            "repeat": repeat,
            "workers": workers,
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


def append_row(csv_path: Path, row: dict) -> None:
    """Append one row; when it brings columns the file lacks (a library's comparison columns),
    rewrite the file with all of them, so every line has the header's fields. A last line left
    unfinished by a run that was killed while writing it is dropped first (its cell runs again)."""
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    new = pd.DataFrame([row])
    if csv_path.exists():
        drop_unfinished_line(csv_path)
    if csv_path.exists() and csv_path.stat().st_size:
        header = read_table(csv_path, nrows=0).columns
        if set(new.columns) - set(header):  # rewritten whole: a crash keeps the old rows
            with replaced_whole(csv_path) as partial:
                pd.concat([read_table(csv_path), new]).to_csv(partial, index=False)
            return
        new = new.reindex(columns=header)
        new.to_csv(csv_path, mode="a", header=False, index=False)
        return
    new.to_csv(csv_path, index=False)


def drop_unfinished_line(csv_path: Path) -> None:
    """Cut ``csv_path`` after its last newline: a row is finished only with its line's end."""
    with open(csv_path, "r+b") as f:
        data = f.read()
        if data and not data.endswith(b"\n"):
            f.truncate(data.rfind(b"\n") + 1)


def read_table(csv_path: Path, **options) -> pd.DataFrame:
    """A benchmark CSV without its unfinished last line, if a killed run left one (never read
    as a row with a cut value); a file that is not a table is one clear error naming it."""
    import io

    try:
        data = Path(csv_path).read_bytes()
        if data and not data.endswith(b"\n"):
            data = data[: data.rfind(b"\n") + 1]
        return pd.read_csv(io.BytesIO(data), **options)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        reason = str(err).strip().splitlines()[-1] if str(err).strip() else type(err).__name__
        raise BPEInputError(f"cannot read {csv_path} as a table: {reason}") from None


def check_versions(versions: tuple[str, ...]) -> None:
    """Every version is the course's, an installed library, or an importable ``module:function``."""
    from bpe_course.bench import libraries
    from bpe_course.trainers import ALL_TRAINERS

    for version in versions:
        if version in ALL_TRAINERS:
            continue
        if version in libraries.LIBRARIES:
            if not libraries.library_available(version):
                raise BPEInputError(
                    f"{libraries.LIBRARIES[version]} is not installed; pip install -e '.[bench]'"
                )
        elif ":" in version:
            libraries.load_trainer(version)
        else:
            known = ", ".join([*ALL_TRAINERS, *libraries.LIBRARIES])
            raise BPEInputError(
                f"unknown version {version!r}; choose one of: {known}, or module:function"
            )


def course_merges(path: Path, vocab_size: int) -> list[tuple[bytes, bytes]]:
    """The course's merges for one cell (every course version learns these), for comparisons."""
    import warnings

    from bpe_course.api import train_bpe

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return train_bpe(path, vocab_size, [EOT], version="fast", workers=1)[1]


def compare_outside(merges_hex: list, ours: list[tuple[bytes, bytes]]) -> dict:
    """Columns saying how merges from outside the course compare with the course's."""
    from bpe_course.bench.libraries import merge_agreement

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


def merge_trace(
    corpus: str | Path,
    vocab_size: int,
    versions: tuple[str, ...] = ("v4", "v5"),
    special_tokens: tuple[str, ...] = (EOT,),
) -> pd.DataFrame:
    """Per-merge cost of each version on one corpus: one row per merge and version.

    Columns: ``version``, ``merge`` (1-based), ``words_touched``, ``seconds`` (wall time of that
    merge, taken between callbacks, so it includes finding the best pair and the word updates),
    ``count`` and, for V5, ``heap_size`` and ``live_pairs``. Runs in this process: it explains
    costs, it is not a benchmark cell.
    """
    from bpe_course.pretokenize import count_words
    from bpe_course.trainers import get_trainer

    word_counts = count_words(corpus, special_tokens)
    rows = []
    for version in versions:
        clock = [0.0]

        def record(event, version=version, clock=clock) -> None:
            now = time.perf_counter()
            rows.append(
                {
                    "version": version,
                    "merge": event.index + 1,
                    "words_touched": event.words_touched,
                    "seconds": now - clock[0],
                    "count": event.count,
                    "heap_size": event.heap.size if event.heap else None,
                    "live_pairs": event.heap.live_pairs if event.heap else None,
                }
            )
            clock[0] = time.perf_counter()  # the callback's own time is not charged to a merge

        clock[0] = time.perf_counter()
        get_trainer(version).merge_loop(word_counts, vocab_size, special_tokens, on_merge=record)
    return pd.DataFrame(rows)


def stored_results(name: str) -> pd.DataFrame:
    """A benchmark table shipped with the course (``notebooks/results/<name>.csv``), measured by its
    authors with this harness, so quick mode can show the full grid without rerunning it."""
    from bpe_course.paths import notebooks_dir

    path = notebooks_dir() / "results" / f"{name}.csv"
    if not path.exists():
        raise BPEInputError(f"no stored results {path}; run `bpe-course bench` to measure them")
    return read_table(path)


def grid_by_name(name: str) -> Grid:
    try:
        return GRIDS[name]
    except KeyError:
        raise BPEInputError(f"unknown grid {name!r}; choose one of: {', '.join(GRIDS)}") from None
