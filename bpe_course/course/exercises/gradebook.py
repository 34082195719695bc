"""``bpe-course grade``: a class's submissions graded, each in its own sandbox, into a gradebook.

The submissions folder holds one folder or one ``.zip`` per student, named after the student, with
their exercise files: ``NAME.py`` anywhere inside (``exercises/NAME.py`` as the handout lays them
out; the shallowest when there are several). Each exercise of each student is graded as ``bpe-course
check NAME --file PATH`` grades it, in a child of its own behind the sandbox's walls
(:mod:`bpe_course.course.exercises.isolation`), one after another or on ``workers`` processes.

Out come a CSV gradebook, one row per student and exercise (:data:`COLUMNS`: the status, the
smallest input it failed on, the seconds the grading took, its speed against the speed check's
limit where there is one, and the report's paragraph or the reason it was not graded), written to
``NAME.partial`` and renamed when whole; and one Markdown report per student, with the paragraphs
the student would have seen from ``check``.

A submission that cannot be graded is one row with its reason, never a stop: a missing file, a
folder or a link where the file should be, a binary file, a file larger than any answer needs
(never read), a zip that does not open or would unpack to too much; a syntax error is graded as
``check`` grades it (a failed row naming the line). A zip is unpacked by this module: Python files
only, each under ``SOURCE_BYTES``, inside the folder unpacked to (never a path out of it).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import csv
import multiprocessing
import re
import stat
import tempfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from bpe_course.bars import progress_bar
from bpe_course.course.exercises.catalog import EXERCISES, get_exercise
from bpe_course.course.exercises.check import grade_file
from bpe_course.course.exercises.exercise import Report
from bpe_course.errors import BPEInputError

SOURCE_BYTES = 1_000_000  # an exercise's answer is a few kB: larger is refused unread
ZIP_ENTRIES, ZIP_BYTES = 2_000, 50_000_000  # what one student's zip may unpack to
SEARCH_DEPTH = 4  # how deep in a student's folder an exercise file is looked for
COLUMNS = [
    "student",
    "exercise",
    "status",  # passed, not done, failed, or missing / unreadable (not graded)
    "passed",
    "smallest_failing_input",
    "seconds",
    "speed_seconds",  # its time on the speed check's input (the capstone's)
    "speed_limit_seconds",  # that check's limit, measured in the same grading
    "speed_vs_limit",  # the two divided: at most 1 is fast enough
    "reason",  # the report's paragraph, or why it was not graded
]


@dataclass(frozen=True)
class Row:
    """One student's one exercise: its report, or why there is none (``status`` then says)."""

    student: str
    exercise: str
    status: str
    text: str
    report: Report | None = None

    def fields(self) -> dict[str, str]:
        report = self.report

        def number(value: float | None, digits: int = 2) -> str:
            return "" if value is None else f"{value:.{digits}f}"

        ratio = None
        if report is not None and report.speed_seconds is not None and report.speed_limit:
            ratio = report.speed_seconds / report.speed_limit
        return {
            "student": inert(self.student),
            "exercise": self.exercise,
            "status": self.status,
            "passed": "yes" if self.status == "passed" else "no",
            "smallest_failing_input": (report.failing_input or "") if report else "",
            "seconds": number(report.seconds if report else None, 1),
            "speed_seconds": number(report.speed_seconds if report else None),
            "speed_limit_seconds": number(report.speed_limit if report else None),
            "speed_vs_limit": number(ratio),
            "reason": self.text,
        }

    @property
    def shown(self) -> str:
        """What the student would have seen: the report as ``check`` prints it, or the reason."""
        return str(self.report) if self.report is not None else f"{self.exercise}: {self.text}"


def inert(name: str) -> str:
    """A student's folder name as a spreadsheet shows it, never as a formula (``=...``)."""
    return "'" + name if name[:1] in ("=", "+", "-", "@") else name


@dataclass(frozen=True)
class Task:
    """One grading for a worker: the file, as the report names it (relative to the submission)."""

    student: str
    exercise: str
    path: str
    shown: str
    timeout: float | None


# --- Finding the files -----------------------------------------------------------------------------


def student_name(entry: Path) -> str:
    return entry.name[: -len(".zip")] if entry.name.lower().endswith(".zip") else entry.name


def unpack(archive: Path, target: Path) -> str | None:
    """The Python files of a student's zip into ``target``; None, or why it was not unpacked. An
    exercise file too large to unpack is left out (its row then says it is missing or too large:
    :func:`oversized_in`)."""
    try:
        with zipfile.ZipFile(archive) as zipped:
            entries = zipped.infolist()
            if len(entries) > ZIP_ENTRIES:
                return f"the zip holds {len(entries):,} entries (more than {ZIP_ENTRIES:,})"
            kept = [
                e
                for e in entries
                if not e.is_dir() and e.filename.endswith(".py") and e.file_size <= SOURCE_BYTES
            ]
            if sum(e.file_size for e in kept) > ZIP_BYTES:
                return f"the zip would unpack to more than {ZIP_BYTES:,} bytes of Python"
            for entry in kept:
                parts = PurePosixPath(entry.filename.replace("\\", "/")).parts
                if not parts or parts[0] == "/" or ".." in parts or "__MACOSX" in parts:
                    continue  # never a path out of the folder
                destination = target.joinpath(*parts)
                destination.parent.mkdir(parents=True, exist_ok=True)
                with zipped.open(entry) as source, open(destination, "wb") as out:
                    out.write(source.read(SOURCE_BYTES + 1)[:SOURCE_BYTES])
    except (zipfile.BadZipFile, OSError, ValueError, RuntimeError, EOFError) as err:
        return f"the zip cannot be opened ({type(err).__name__}: {err})"
    return None


def oversized_in(archive: Path, name: str) -> int | None:
    """The size of the exercise file ``name``.py in a zip when too large to unpack, else None."""
    with contextlib.suppress(zipfile.BadZipFile, OSError, ValueError):
        with zipfile.ZipFile(archive) as zipped:
            for entry in zipped.infolist():
                if PurePosixPath(entry.filename).name == f"{name}.py" and not entry.is_dir():
                    if entry.file_size > SOURCE_BYTES:
                        return entry.file_size
    return None


def exercise_path(folder: Path, name: str) -> Path | None:
    """The shallowest ``name``.py in ``folder`` (not following links into other folders)."""
    level = [folder]
    for _ in range(SEARCH_DEPTH + 1):
        found = sorted(p for f in level for p in entries(f) if p.name == f"{name}.py")
        if found:
            return found[0]
        level = [
            p
            for f in level
            for p in entries(f)
            if is_folder(p) and not p.name.startswith((".", "__"))
        ]
    return None


def entries(folder: Path) -> list[Path]:
    try:
        return sorted(folder.iterdir())
    except OSError:
        return []


def is_folder(path: Path) -> bool:
    try:
        return stat.S_ISDIR(path.lstat().st_mode)
    except OSError:
        return False


def unreadable(path: Path) -> str | None:
    """Why the file cannot be graded as Python source, if it cannot (read only when small)."""
    try:
        info = path.lstat()
    except OSError as err:
        return f"cannot be read ({err.strerror})"
    if stat.S_ISLNK(info.st_mode):
        return "is a link, not a file (links are not followed)"
    if stat.S_ISDIR(info.st_mode):
        return "is a folder, not a file"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    if info.st_size > SOURCE_BYTES:
        return (
            f"is {info.st_size:,} bytes: more than any answer needs ({SOURCE_BYTES:,} at most), "
            "so it was not read"
        )
    try:
        data = path.read_bytes()
    except OSError as err:
        return f"cannot be read ({err.strerror})"
    if b"\x00" in data:
        return "is a binary file (it holds NUL bytes), not Python source"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "is not UTF-8 text, so not Python source"
    return None


# --- Grading -----------------------------------------------------------------------------------


def grade_task(task: Task) -> Row:
    """One grading (a worker's): never raises, whatever the file does."""
    try:
        report = grade_file(get_exercise(task.exercise), Path(task.path), task.shown, task.timeout)
    except Exception as err:  # the grader's own bug: still one row, and said to be ours
        text = f"the grader itself failed ({type(err).__name__}: {err})"
        return Row(task.student, task.exercise, "failed", text)
    return Row(task.student, task.exercise, report.status, report.text, report)


def plan(
    root: Path, names: list[str], unpacked: Path, timeout: float | None
) -> tuple[list[Task], list[Row]]:
    """The gradings to run, and the rows of what cannot be graded (each with its reason)."""
    tasks: list[Task] = []
    rows: list[Row] = []
    for entry in sorted(root.iterdir(), key=lambda p: p.name):
        if entry.name.startswith("."):
            continue
        student = student_name(entry)
        if is_folder(entry):
            folder, problem = entry, None
        elif entry.name.lower().endswith(".zip") and stat.S_ISREG(entry.lstat().st_mode):
            folder = (
                unpacked / f"{len(tasks) + len(rows)}-{re.sub(r'[^A-Za-z0-9._-]', '_', student)}"
            )
            folder.mkdir(parents=True)
            problem = unpack(entry, folder)
        else:
            folder, problem = None, "not a folder or a .zip: one of those per student"
        for name in names:
            if problem is not None:
                rows.append(Row(student, name, "unreadable", f"{entry.name}: {problem}"))
                continue
            assert folder is not None
            path = exercise_path(folder, name)
            if path is None:
                size = oversized_in(entry, name) if entry.suffix.lower() == ".zip" else None
                text = (
                    f"{name}.py is {size:,} bytes: more than any answer needs ({SOURCE_BYTES:,} "
                    "at most), so it was not read"
                    if size is not None
                    else f"no {name}.py in {entry.name}"
                )
                rows.append(Row(student, name, "unreadable" if size else "missing", text))
                continue
            shown = str(path.relative_to(folder))
            why = unreadable(path)
            if why is not None:
                rows.append(Row(student, name, "unreadable", f"{shown} {why}"))
                continue
            tasks.append(Task(student, name, str(path), shown, timeout))
    return tasks, rows


def grade_class(
    submissions: str | Path,
    output: str | Path,
    exercises: Iterable[str] | None = None,
    *,
    workers: int = 1,
    timeout: float | None = None,
    reports: str | Path | None = None,
    progress: bool = True,
) -> list[Row]:
    """Grade every student's exercises in ``submissions``; write the gradebook ``output`` (CSV)
    and one Markdown report per student in ``reports`` (default: ``OUTPUT_reports/`` beside it).
    Returns the rows, by student then exercise in the course's order."""
    root = Path(submissions)
    if not root.is_dir():
        raise BPEInputError(f"{root} is not a folder of submissions (one folder or zip a student)")
    names = list(dict.fromkeys(exercises)) if exercises else list(EXERCISES)
    for name in names:
        get_exercise(name)  # a clear error for a name that is none
    if workers < 1:
        raise BPEInputError(f"--workers must be at least 1, not {workers}")
    output = Path(output)
    folder = Path(reports) if reports is not None else output.with_name(f"{output.stem}_reports")
    with tempfile.TemporaryDirectory(prefix="bpe-course-grade-") as unpacked:
        tasks, rows = plan(root, names, Path(unpacked), timeout)
        bar = progress_bar(progress, len(tasks) + len(rows), "grading", "file", leave=True)
        if bar is not None:
            bar.update(len(rows))
        try:
            for row in run_tasks(tasks, workers):
                rows.append(row)
                if bar is not None:
                    bar.update(1)
        finally:
            if bar is not None:
                bar.close()
    order = {name: i for i, name in enumerate(names)}
    rows.sort(key=lambda row: (row.student, order[row.exercise]))
    write_gradebook(rows, output)
    write_reports(rows, folder)
    return rows


def run_tasks(tasks: list[Task], workers: int) -> Iterable[Row]:
    """Each task's row as it is done: here, or on ``workers`` processes (each grading still in a
    sandboxed child of its own)."""
    if workers == 1 or len(tasks) <= 1:
        yield from map(grade_task, tasks)
        return
    context = multiprocessing.get_context("spawn")  # a clean start: no thread of ours forked
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
        futures = {pool.submit(grade_task, task): task for task in tasks}
        for future in concurrent.futures.as_completed(futures):
            task = futures[future]
            try:
                yield future.result()
            except Exception as err:  # a worker lost (killed from outside): one row, no stop
                text = f"the grader's worker failed ({type(err).__name__}: {err})"
                yield Row(task.student, task.exercise, "failed", text)


# --- Writing -----------------------------------------------------------------------------------


def write_gradebook(rows: list[Row], output: Path) -> None:
    """The CSV, written to ``output.partial`` and renamed when whole."""
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(output.name + ".partial")
    with open(partial, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow(row.fields())
    partial.replace(output)


def file_name(student: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", student).lstrip(".") or "student"


def fenced(text: str) -> str:
    """``text`` in a fence longer than any run of backticks in it: shown as it is, never as
    Markdown or HTML (it may quote what a student's code printed)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def student_report(student: str, rows: list[Row]) -> str:
    passed = sum(row.status == "passed" for row in rows)
    lines = [
        f"# {student}",
        "",
        f"{passed} of {len(rows)} exercises passed (graded by `bpe-course grade`).",
        "",
        "| exercise | status | seconds | speed |",
        "| --- | --- | ---: | --- |",
    ]
    for row in rows:
        fields = row.fields()
        report = row.report
        speed = {None: "", True: "fast enough", False: "too slow"}[
            report.fast_enough if report else None
        ]
        lines.append(f"| {row.exercise} | {row.status} | {fields['seconds']} | {speed} |")
    for row in rows:
        lines += ["", f"## {row.exercise}", "", fenced(row.shown)]
    return "\n".join(lines) + "\n"


def write_reports(rows: list[Row], folder: Path) -> None:
    """One Markdown report per student (each written whole, then renamed into place)."""
    folder.mkdir(parents=True, exist_ok=True)
    by_student: dict[str, list[Row]] = {}
    for row in rows:
        by_student.setdefault(row.student, []).append(row)
    used: set[str] = set()
    for student, mine in by_student.items():
        name = file_name(student)
        while name in used:
            name += "_"
        used.add(name)
        partial = folder / f"{name}.md.partial"
        partial.write_text(student_report(student, mine), encoding="utf-8")
        partial.replace(folder / f"{name}.md")
