"""The process the student's code runs in, and the limits it runs inside.

The parent (:mod:`bpe_course.course.exercises.judge`) sends one input at a time; the child calls
the student's function on it and sends back what it returned, converted to plain data (numbers,
strings, bytes, tuples, lists, dicts, sets), or which exception it raised. The parent reads that
with an unpickler that refuses every class, decides alone whether it is right, and waits for each
answer no longer than that input's limit, whatever the child sends meanwhile.

The child lives in its own session, dies with the parent (Linux's ``PR_SET_PDEATHSIG``), adopts
its own orphans (``PR_SET_CHILD_SUBREAPER``: a double fork cannot leave the tree), and has
memory (``RLIMIT_AS``) and CPU-time (``RLIMIT_CPU``) limits that every process it starts inherits.
At the end the parent stops and kills the child's whole tree and session, found through ``/proc``.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import multiprocessing
import os
import pickle
import signal
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bpe_course.course.exercises.exercise import short
from bpe_course.course.exercises.watch import called, watch

MEMORY_BYTES = 4 * 2**30  # address space of each graded process: a trainer on 100 kB needs far less
MAX_MESSAGE_BYTES = 64 * 2**20  # one answer; the largest (vocab 1000) is a few tens of kB
PRINTED_LIMIT = 1000  # characters of what the student's function printed, sent back
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36


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


def child_main(
    conn,
    parent_pid: int,
    limits: Limits,
    load: Callable,
    outcome: Callable,
    watched: tuple[Callable, ...] = (),
) -> None:
    """The child process: limits first, then the student's function, then answer each input.

    ``load()`` returns the student's function, or a string saying why it cannot be loaded;
    ``outcome(function, case)`` is what one call did (the exercise's, run here on the input);
    ``watched``: the course's own answers, whose calls each answer names
    (:mod:`bpe_course.course.exercises.watch`), watched before the student's code loads."""
    confine(parent_pid, limits)
    watch(watched)
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (the child's whole life)
    send(conn, ("loading", None))  # before any of the student's code: the parent's clock starts
    function = load()
    send(conn, ("loaded", None) if callable(function) else ("unloadable", str(function)))
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        serial, case = request
        send(conn, answer(serial, function, outcome, case, load))


def confine(parent_pid: int, limits: Limits) -> None:
    """Own session, death with the parent, orphans adopted, memory and CPU limits."""
    if hasattr(os, "setsid"):
        os.setsid()
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        if os.getppid() != parent_pid:  # the parent died before the line above
            os._exit(1)
    try:
        import resource
    except ImportError:  # Windows: the parent's wall-clock limits only
        return
    cpu = int(limits.cpu_seconds)
    for which, value, hard in (
        (resource.RLIMIT_AS, limits.memory_bytes, limits.memory_bytes),
        (resource.RLIMIT_CPU, cpu, cpu + 5),  # SIGXCPU at the soft limit, SIGKILL at the hard
    ):
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(which, (value, hard))


def send(conn, message: tuple) -> None:
    conn.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))


def answer(serial: int, function, outcome: Callable, case: Any, load: Callable) -> tuple:
    """What the call did, what it printed, and which of the course's answers it called."""
    printed = io.StringIO()
    called()  # forget anything noted before this call
    try:
        with contextlib.redirect_stdout(printed):
            result = outcome(function, case)
        said = printed.getvalue()[:PRINTED_LIMIT]
        return ("returned", serial, plain(result), said, called())
    except BaseException as err:  # SystemExit and all: the student's, described as theirs
        text = explain(err, getattr(load, "student_file", None), getattr(load, "shown", ""))
        said = printed.getvalue()[:PRINTED_LIMIT]
        return ("raised", serial, type(err).__name__, text, said, called())


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


# --- The parent's handle on the child ------------------------------------------------------------


class Sandbox:
    """Start the child, send it inputs one at a time, and end it and everything it started."""

    def __init__(
        self,
        load: Callable,
        outcome: Callable,
        limits: Limits,
        fork: bool,
        watched: tuple[Callable, ...] = (),
    ) -> None:
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if fork and "fork" in methods else "spawn")
        self.conn, theirs = context.Pipe(duplex=True)
        self.limits = limits
        self.process = context.Process(
            target=child_main,
            args=(theirs, os.getpid(), limits, load, outcome, watched),
            name="bpe-course check",
        )
        self.serial = 0
        self.process.start()
        theirs.close()  # the child holds the only other end: its death is an EOF here

    def loaded(self, seconds: float) -> str | None:
        """None once the student's function is loaded, else why not (one line)."""
        message = self.receive(seconds)
        if message[0] == "loaded":
            return None
        if message[0] == "unloadable" and len(message) == 2 and isinstance(message[1], str):
            return message[1]
        raise Stopped(garbled(message))

    def call(self, case: Any, seconds: float) -> tuple:
        """``("returned", value, printed, called)`` or ``("raised", type name, text, printed,
        called)``; ``called`` names the watched functions the call ran (``""``: none)."""
        self.serial += 1
        try:
            self.conn.send((self.serial, case))
        except (OSError, ValueError):
            raise Stopped(self.ended()) from None
        message = self.receive(seconds)
        shapes = {"returned": 5, "raised": 6}
        if message[0] not in shapes or len(message) != shapes[message[0]]:
            raise Stopped(garbled(message))
        if message[1] != self.serial:
            raise Stopped(garbled(message))
        if not all(isinstance(text, str) for text in message[2 if message[0] == "raised" else 3 :]):
            raise Stopped(garbled(message))
        return (message[0], *message[2:])

    def receive(self, seconds: float) -> tuple:
        """One message within ``seconds`` (a fixed deadline: whatever arrives, it never moves)."""
        deadline = time.monotonic() + seconds
        wait = deadline - time.monotonic()
        if wait <= 0 or not self.conn.poll(wait):
            raise Stopped(self.ended() if not self.process.is_alive() else f"time:{seconds:g}")
        try:
            blob = self.conn.recv_bytes(MAX_MESSAGE_BYTES)
        except (EOFError, OSError):
            raise Stopped(self.ended()) from None
        try:
            message = read_data(blob)
        except Exception as err:  # noqa: BLE001 (anything unreadable is the child's doing)
            raise Stopped(f"garbled:{type(err).__name__}") from None
        if not isinstance(message, tuple) or not message:
            raise Stopped(garbled(message))
        return message

    def ended(self) -> str:
        """Why the child is gone: ``cpu``, ``killed:N``, ``exit:N``."""
        self.process.join(5)
        code = self.process.exitcode
        if code is None:
            return "exit:None"
        if hasattr(signal, "SIGXCPU") and code == -signal.SIGXCPU:
            return f"cpu:{self.limits.cpu_seconds:g}"
        return f"killed:{-code}" if code < 0 else f"exit:{code}"

    def close(self) -> None:
        """Kill the child and every process it started, then reap it."""
        pid = self.process.pid
        if pid is not None:
            end_tree(pid)
        self.process.join(10)
        with contextlib.suppress(OSError):
            self.conn.close()


def garbled(message: Any) -> str:
    return f"garbled:{short(message, 80)}"


# --- Ending a process tree -----------------------------------------------------------------------


def processes() -> dict[int, tuple[int, int, int]]:
    """``pid -> (parent pid, process group, session)`` of every process, from ``/proc``."""
    found = {}
    for entry in Path("/proc").iterdir() if Path("/proc/self/stat").exists() else ():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()  # after "pid (name) ": state ppid pgrp sid
        if fields[0] in ("Z", "X"):
            continue  # a zombie is already dead: only its parent can reap it
        found[int(entry.name)] = (int(fields[1]), int(fields[2]), int(fields[3]))
    return found


def tree(root: int) -> set[int]:
    """``root``'s descendants and every process of its session or group (``root`` leads both)."""
    table = processes()
    found = {pid for pid, (_, group, session) in table.items() if root in (group, session)}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, _, _) in table.items():
            if ppid == parent and pid not in found:
                found.add(pid)
                frontier.append(pid)
    found.discard(root)
    found.discard(os.getpid())
    return found


def end_tree(root: int) -> None:
    """Freeze ``root`` and its tree (so nothing forks meanwhile), then kill them all."""
    signal_all({root}, getattr(signal, "SIGSTOP", signal.SIGTERM))
    frozen: set[int] = set()
    for _ in range(100):  # each round freezes what the last one missed; a frozen tree cannot grow
        new = tree(root) - frozen
        if not new:
            break
        signal_all(new, getattr(signal, "SIGSTOP", signal.SIGTERM))
        frozen |= new
    if not Path("/proc/self/stat").exists() and hasattr(os, "killpg"):
        with contextlib.suppress(OSError):
            os.killpg(root, signal.SIGKILL)  # no /proc: the child's own group at least
    signal_all(frozen | {root}, getattr(signal, "SIGKILL", signal.SIGTERM))


def signal_all(pids: set[int], number: int) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, number)
