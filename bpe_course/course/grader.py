"""The grader's parent side: check the student's file, start the grading, watch the clock.

The file's syntax is checked here (a syntax error is one line). The grading itself runs in a child
process started with the spawn start method (:func:`bpe_course.course.grading.child_main`, at module
level so a fresh interpreter can find it), which reports the input it is on before every call of
the student's function. A call that takes too long is taken for an endless loop: the child, and any
process it started, is stopped and the report names that input.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
from pathlib import Path

from bpe_course.course.grading import Exercise, Report, child_main, grader_failed

STARTUP_SECONDS = 60.0  # a fresh interpreter importing the grader, on a busy machine


def grade(exercise: Exercise, path: Path | None, shown: str, call_seconds: float | None) -> Report:
    """Grade the function ``exercise.name`` in the file ``path`` (None: the package's own solution).
    ``shown`` is how reports name the file; ``call_seconds`` overrides the exercise's limit."""
    if path is not None:
        problem = file_problem(exercise.name, path, shown)
        if problem is not None:
            return Report(exercise.name, "failed", problem)
    limit = exercise.call_seconds if call_seconds is None else call_seconds
    context = multiprocessing.get_context("spawn")
    inbox, outbox = context.Pipe(duplex=False)
    child = context.Process(
        target=child_main,
        args=(exercise, None if path is None else str(path), shown, outbox),
        name=f"bpe-course check {exercise.name}",
    )
    try:
        child.start()
    except Exception as err:  # cannot start a process at all: still one paragraph
        return Report(exercise.name, "failed", f"{exercise.name}: {grader_failed(err)}")
    outbox.close()  # the child holds the only sending end, so its death is an EOF here
    try:
        return watch(child, inbox, exercise, limit)
    finally:
        stop(child)
        inbox.close()


def file_problem(name: str, path: Path, shown: str) -> str | None:
    """One line if the file is missing, unreadable or not valid Python; else None."""
    if not path.is_file():
        return (
            f"{name}: no file {shown}. The stub is notebooks/exercises/{name}.py in the course; "
            "write your function there, or name your file with --file."
        )
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        return f"{name}: cannot read {shown}: {err}"
    try:
        compile(source, str(path), "exec")
    except SyntaxError as err:
        code = f" (`{err.text.strip()}`)" if err.text and err.text.strip() else ""
        return f"{name}: {shown}, line {err.lineno}: SyntaxError: {err.msg}{code}"
    return None


def watch(child, inbox, exercise: Exercise, call_seconds: float) -> Report:
    """Wait for the child's report; stop it when one call or the whole grading takes too long."""
    started = time.monotonic()
    # What the child is doing: (None, None) starting, ("loading", file), ("call", input) running
    # the student's code, timed by call_seconds; or ("busy", None), its own work.
    doing, since, calls = (None, None), started, 0
    while True:
        allowed = call_seconds if doing[0] in ("loading", "call") else STARTUP_SECONDS
        deadline = min(since + allowed, started + exercise.total_seconds)
        wait = deadline - time.monotonic()
        if wait <= 0:
            return timeout_report(exercise, doing, calls, call_seconds, time.monotonic() - started)
        if not inbox.poll(wait):
            continue
        try:
            kind, payload = inbox.recv()
        except (EOFError, OSError):
            child.join(5)
            return died_report(exercise, doing, child.exitcode)
        if kind == "done":
            return payload
        doing, since = (kind, payload), time.monotonic()
        calls += kind == "call"


def stop(child) -> None:
    """End the child and whatever it started (a student's process pool): its own process group."""
    if child.is_alive():
        if hasattr(os, "killpg"):
            with contextlib.suppress(OSError):  # not yet its own group: then only the child
                os.killpg(child.pid, signal.SIGKILL)
        child.kill()
    child.join(10)


def timeout_report(
    exercise: Exercise, doing: tuple, calls: int, call_seconds: float, elapsed: float
) -> Report:
    name, (kind, what) = exercise.name, doing
    if kind is None:
        text = f"the grader did not start within {STARTUP_SECONDS:g} s (is the machine very busy?)."
    elif kind == "busy":
        text = (
            f"the grader itself took more than {STARTUP_SECONDS:g} s (is the machine very busy?)."
        )
    elif elapsed >= exercise.total_seconds:
        text = (
            f"stopped after {exercise.total_seconds:g} s and {calls} inputs: your function is too "
            "slow to finish the grading."
        )
    elif kind == "loading":
        text = (
            f"stopped after {call_seconds:g} s while loading {what}: does the file run an endless "
            "loop when imported?"
        )
    else:
        text = (
            f"stopped after {call_seconds:g} s without an answer on {what}. An endless loop? Check "
            "that every pass of your loop moves forward (or allow more time with --timeout)."
        )
    return Report(name, "failed", f"{name}: {text}")


def died_report(exercise: Exercise, doing: tuple, exitcode: int | None) -> Report:
    kind, what = doing
    where = {
        None: "while starting",
        "busy": "between two calls of your function",
        "loading": f"while loading {what}",
    }.get(kind, f"while your function worked on {what}")
    return Report(
        exercise.name,
        "failed",
        f"{exercise.name}: the grading process ended (exit status {exitcode}) {where}. Does your "
        "code call os._exit(), or run out of memory?",
    )
