"""The process the student's code runs in: the child's side of a graded run, and the plain data
both sides exchange.

The parent (:mod:`bpe_course.course.exercises.judge`, through
:mod:`bpe_course.course.exercises.isolation`, which starts this child behind its walls) sends
one input at a time; the child calls the student's function on it and sends back what it returned,
converted to plain data (numbers, strings, bytes, tuples, lists, dicts, sets), or which exception
it raised. The parent reads that with an unpickler that refuses every class, decides alone whether
it is right, and waits for each answer no longer than that input's limit, whatever the child sends
meanwhile.

This module is what the child runs (``python -c "...sandbox import main; main(FD)"``), so it
imports nothing of the package but :mod:`~bpe_course.course.exercises.exercise` (plain data,
itself importing nothing of the package): the child sees only the part of the package the
exercise allows (:mod:`bpe_course.course.exercises.view`).

Before any of the student's code loads, the child takes its limits: its own session, death with
its parent (Linux's ``PR_SET_PDEATHSIG``), its own orphans adopted (``PR_SET_CHILD_SUBREAPER``: a
double fork cannot leave the tree), memory (``RLIMIT_AS``), CPU time (``RLIMIT_CPU``) and file
size (``RLIMIT_FSIZE``) limits that every process it starts inherits.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import os
import pickle
import signal
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bpe_course.course.exercises.exercise import short

MEMORY_BYTES = 4 * 2**30  # address space of each graded process: a trainer on 100 kB needs far less
FILE_BYTES = 2**30  # the largest file a graded process may write (a corpus it copies, a log)
MAX_MESSAGE_BYTES = 64 * 2**20  # one answer; the largest (vocab 1000) is a few tens of kB
PRINTED_LIMIT = 1000  # characters of what the student's function printed, sent back
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36
# The exception the package's withheld answers raise in the child (the view defines it): its name
# is how the parent recognises a call of the course's own answer.
WITHHELD = "Withheld"


@dataclass(frozen=True)
class Limits:
    memory_bytes: int = MEMORY_BYTES
    cpu_seconds: float = 900.0  # CPU time of each process, loading and every call included


class Stopped(Exception):
    """The child did not answer: ``limit`` names what stopped it, in one line."""

    def __init__(self, limit: str) -> None:
        super().__init__(limit)
        self.limit = limit


@dataclass(frozen=True)
class Opaque:
    """A value the child could not send as plain data: its type and repr, as text."""

    type_name: str
    text: str

    def __repr__(self) -> str:
        return self.text


# --- Plain data, both ways -----------------------------------------------------------------------

OPAQUE_TAG = "\x00opaque"
SCALARS = (int, float, str, bytes, bool, type(None))


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as builtins only; anything else (or too deep) as ``(OPAQUE_TAG, type, repr)``."""
    kind = type(value)
    if kind in SCALARS:
        return value
    if depth < 50:
        if kind in (tuple, list, set, frozenset):
            return kind(plain(item, depth + 1) for item in value)
        if isinstance(value, dict):  # a Counter or defaultdict is a dict here
            return {plain(k, depth + 1): plain(v, depth + 1) for k, v in value.items()}
    return (OPAQUE_TAG, kind.__name__, short(value))


def unplain(value: Any) -> Any:
    """The parent's side of :func:`plain`: opaque triples become :class:`Opaque`."""
    kind = type(value)
    if kind is tuple and len(value) == 3 and value[0] == OPAQUE_TAG:
        return Opaque(str(value[1]), str(value[2]))
    if kind in (tuple, list, set, frozenset):
        return kind(unplain(item) for item in value)
    if kind is dict:
        return {unplain(k): unplain(v) for k, v in value.items()}
    return value


class _DataOnly(pickle.Unpickler):
    def find_class(self, module: str, name: str):  # noqa: ANN201 (pickle's signature)
        raise pickle.UnpicklingError(f"not plain data: {module}.{name}")


def read_data(blob: bytes) -> Any:
    """Unpickle ``blob`` allowing no class at all: nothing in it can run code in the parent."""
    return unplain(_DataOnly(io.BytesIO(blob)).load())


# --- The child -----------------------------------------------------------------------------------


def main(fd: int) -> None:
    """The child process, on the socket ``fd`` to its parent: the grader's part first (limits and
    how to call the function), then the limits taken, then the student's part loaded, then one
    answer per input until the parent closes the socket.

    The grader's part is ``(limits, outcome, parent_pid)``: ``outcome(function, case)`` is what
    one call did (the exercise's, run here on the input); ``parent_pid`` is checked after
    ``PR_SET_PDEATHSIG`` (None: the parent is not this process's parent, as behind bubblewrap).
    The student's part is the path of a file holding the loader
    (:mod:`bpe_course.course.exercises.loading`; a file, as a notebook's function may be large):
    it returns the student's function, or a string saying why it cannot be loaded."""
    from multiprocessing.connection import Connection

    conn = Connection(fd)
    limits, outcome, parent_pid = pickle.loads(conn.recv_bytes())
    confine(parent_pid, limits)
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (the child's whole life)
    send(conn, ("loading", None))  # before any of the student's code: the parent's clock starts
    load: Callable | None = None
    where = pickle.loads(conn.recv_bytes())
    try:
        with open(where, "rb") as payload:
            load = pickle.load(payload)  # a function sent by value: its module may be withheld
        function = load()
    except BaseException as err:  # a notebook's function that needs what the child cannot see
        function = (
            f"your function could not be sent to the grader's process: {explain(err, None, '')}."
        )
    send(conn, ("loaded", None) if callable(function) else ("unloadable", str(function)))
    while True:
        try:
            request = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):
            os._exit(0)
        serial, case = request
        send(conn, answer(serial, function, outcome, case, load))


def confine(parent_pid: int | None, limits: Limits) -> None:
    """Own session, death with the parent, orphans adopted, memory, CPU and file-size limits."""
    if hasattr(os, "setsid"):
        with contextlib.suppress(OSError):  # already a session's leader (bubblewrap made it one)
            os.setsid()
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        if parent_pid is not None and os.getppid() != parent_pid:  # died before the line above
            os._exit(1)
    try:
        import resource
    except ImportError:  # Windows: the parent's wall-clock limits only
        return
    cpu = int(limits.cpu_seconds)
    for which, value, hard in (
        (resource.RLIMIT_AS, limits.memory_bytes, limits.memory_bytes),
        (resource.RLIMIT_CPU, cpu, cpu + 5),  # SIGXCPU at the soft limit, SIGKILL at the hard
        (resource.RLIMIT_FSIZE, FILE_BYTES, FILE_BYTES),
    ):
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(which, (value, hard))
    if hasattr(signal, "SIGXFSZ"):  # a file too large is an OSError the student's code sees
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def send(conn, message: tuple) -> None:
    conn.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))


def answer(serial: int, function, outcome: Callable, case: Any, load: Callable | None) -> tuple:
    """What the call did and what it printed."""
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            result = outcome(function, case)
        said = printed.getvalue()[:PRINTED_LIMIT]
        return ("returned", serial, plain(result), said)
    except BaseException as err:  # SystemExit and all: the student's, described as theirs
        text = explain(err, getattr(load, "student_file", None), getattr(load, "shown", ""))
        said = printed.getvalue()[:PRINTED_LIMIT]
        return ("raised", serial, type(err).__name__, text, said)


def explain(err: BaseException, student_file: str | None, shown: str) -> str:
    """The student's exception: type, message, and the line of their file it came from."""
    message = str(err)[:300]
    text = f"{type(err).__name__}: {message}" if message else type(err).__name__
    if isinstance(err, SyntaxError) and err.filename and err.lineno:  # in a module they import
        return f"{text} ({err.filename}, line {err.lineno})"
    frames = [
        frame
        for frame in traceback.extract_tb(err.__traceback__)
        if student_file and os.path.realpath(frame.filename) == student_file
    ]
    if not frames:
        return text
    frame = frames[-1]
    code = f": `{frame.line.strip()}`" if frame.line else ""
    return f"{text}, at {shown or frame.filename} line {frame.lineno}{code}"
