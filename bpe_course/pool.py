"""The process pool of pretokenization, set up in one place: a worker that dies stops the run.

Every pretokenizer (the pattern, pieces, a corpus of many files) hands its tasks to
:func:`run_tasks`, which runs them here or on a pool and passes on their progress reports.

``multiprocessing.Pool`` replaces a worker that dies in the middle of a task and then waits
forever for the task's result (and a worker killed while it holds the task queue's lock blocks
the others too): one SIGKILL from the out-of-memory killer, and training hangs at 0% CPU.
``concurrent.futures.ProcessPoolExecutor`` watches its workers instead and marks itself broken
when one dies; :func:`process_pool` turns that into one line naming the worker, how it ended and
the likely cause. On any other way out (an error in a task, Ctrl-C) the workers are stopped at
once, rather than left to finish their chunks.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, Literal

from bpe_course.errors import WorkerDiedError

if TYPE_CHECKING:
    from multiprocessing.queues import SimpleQueue

# How a pool (or shards' merge workers) start their processes: one of multiprocessing's start
# methods, or None for the platform's default (None inside the Literal: a type checker then picks
# get_context's overload for each value, a context that has a Process class).
StartMethod = Literal["fork", "spawn", "forkserver", None]


@contextlib.contextmanager
def process_pool(
    workers: int,
    start_method: StartMethod = None,
    initializer: Callable[..., None] | None = None,
    initargs: tuple = (),
) -> Iterator[ProcessPoolExecutor]:
    """A pool of ``workers`` processes (``start_method``: ``"spawn"``, ``"fork"``, ...), shut
    down on exit; a worker's death while it is open raises :class:`WorkerDiedError`."""
    context = multiprocessing.get_context(start_method)
    executor = ProcessPoolExecutor(
        workers,
        mp_context=context,
        initializer=_start_worker,
        initargs=(os.getpid(), initializer, initargs),
    )
    try:
        yield executor
    except BrokenProcessPool:
        processes = _processes(executor)
        executor.shutdown(wait=True)  # every worker reaped: their exit codes are known
        raise WorkerDiedError(who_died(processes)) from None
    except BaseException:
        _stop(executor)
        _unstick(executor)
        raise
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


def run_tasks(
    function: Callable[[Any], Any],
    tasks: Sequence[Any],
    workers: int,
    *,
    start_method: StartMethod = None,
    on_progress: Callable[[int], object] | None = None,
) -> Iterator[Any]:
    """``function(task)`` for every task, yielded in the order they finish: in this process when
    ``workers`` is 1 or there is one task (no pool to start), else on a :func:`process_pool` of
    up to ``workers`` processes. A task reports its progress by calling :func:`report_progress`;
    the reports reach ``on_progress`` here, from this process or from the workers (through a
    queue, relayed while the tasks run). ``function`` must live at module level (spawn pickles it).
    """
    if workers <= 1 or len(tasks) <= 1:
        yield from _run_here(function, tasks, on_progress)
        return
    queue = None if on_progress is None else multiprocessing.get_context(start_method).SimpleQueue()
    with process_pool(min(workers, len(tasks)), start_method, _report_to, (queue,)) as pool:
        pending = {pool.submit(function, task) for task in tasks}
        while pending:
            # without reports to relay, wait for the next task; with them, look every 50 ms
            timeout = None if queue is None else 0.05
            done, pending = wait(pending, timeout=timeout, return_when=FIRST_COMPLETED)
            _relay(queue, on_progress)
            for future in done:
                yield future.result()  # a task's error, or a dead worker's, is raised here
        _relay(queue, on_progress)


def run_in_order(
    function: Callable[[Any], Any],
    tasks: Iterable[Any],
    workers: int,
    *,
    window: int | None = None,
    start_method: StartMethod = None,
    initializer: Callable[..., None] | None = None,
    initargs: tuple = (),
) -> Generator[Any, None, None]:
    """``function(task)`` for every task, yielded in the tasks' order, on a :func:`process_pool`
    of ``workers`` processes (each set up by ``initializer(*initargs)``, once).

    ``tasks`` may be a generator: it is read only ``window`` tasks (default: twice the workers)
    ahead of the result yielded next, so at most that many tasks and results are held at once,
    however many there are. A pool is started even for one worker (a caller with one worker
    may rather run the tasks itself).
    """
    window = max(1, 2 * workers if window is None else window)
    with process_pool(workers, start_method, initializer, initargs) as pool:
        pending: deque[Future[Any]] = deque()
        for task in tasks:
            pending.append(pool.submit(function, task))
            if len(pending) >= window:
                yield pending.popleft().result()  # a task's error, or a dead worker's, is raised here
        while pending:
            yield pending.popleft().result()


def release_free_memory() -> None:
    """Hand the memory freed in this process back to the system, where the C library can
    (glibc's ``malloc_trim``; elsewhere nothing). A large dict freed in a worker otherwise stays
    in its resident memory for as long as the worker lives: freed, but not returned."""
    global _malloc_trim
    if _malloc_trim is None:
        _malloc_trim = _find_malloc_trim()
    _malloc_trim()


def _find_malloc_trim() -> Callable[[], object]:
    if not sys.platform.startswith("linux"):
        return lambda: None
    import ctypes

    try:  # the C library this process already runs on (no search for it: no ldconfig)
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return lambda: None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return lambda: trim(0)


_malloc_trim: Callable[[], object] | None = None


def report_progress(amount: int) -> None:
    """Called by a task of :func:`run_tasks` when it has done ``amount`` (bytes, say) more."""
    if _reporter is not None:
        _reporter(amount)


_reporter: Callable[[int], object] | None = None  # where report_progress sends, in this process


def _report_to(queue: SimpleQueue[int] | None) -> None:
    """A worker's set-up: its reports go into ``queue`` (none when nobody listens)."""
    global _reporter
    _reporter = None if queue is None else queue.put


def _run_here(
    function: Callable[[Any], Any],
    tasks: Sequence[Any],
    on_progress: Callable[[int], object] | None,
) -> Iterator[Any]:
    global _reporter
    previous, _reporter = _reporter, on_progress
    try:
        for task in tasks:
            yield function(task)
    finally:
        _reporter = previous


def _relay(queue: SimpleQueue[int] | None, on_progress: Callable[[int], object] | None) -> None:
    if queue is None or on_progress is None:  # a queue is made only for an on_progress
        return
    while not queue.empty():
        on_progress(queue.get())


def who_died(processes: list[multiprocessing.process.BaseProcess]) -> str:
    """One line: which worker ended, how, and what to do about it."""
    ended = [(i, p) for i, p in enumerate(processes, 1) if p.exitcode is not None]
    # the executor terminates the others (SIGTERM) once one dies: prefer another ending
    first = [(i, p) for i, p in ended if p.exitcode != -signal.SIGTERM] or ended
    if not first:
        return "a pretokenization worker died; the run stopped (out of memory?)"
    index, process = first[0]
    code = process.exitcode
    who = f"pretokenization worker {index} of {len(processes)} (pid {process.pid})"
    if code == -getattr(signal, "SIGKILL", 9):
        return (
            f"{who} was killed by SIGKILL, most likely by the out-of-memory killer: the "
            "machine ran out of memory. Try fewer --workers, or a machine with more memory."
        )
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"{who} was killed by {name}; the run stopped"
    return f"{who} exited with status {code}; the run stopped (out of memory?)"


def exit_with_parent(
    parent: int | None = None,
    interval_s: float = 0.5,
    before_exit: Callable[[], None] | None = None,
) -> None:
    """End this process (and its group, if it leads one) once ``parent`` is gone.

    A process killed by SIGTERM or SIGKILL cannot stop its workers, and a pool worker waiting
    for its next task would wait forever. A daemon thread notices that the parent is gone (this
    process has a new parent, or ``parent`` no longer exists) and ends it. ``parent``: the pid as
    the parent gave it (by the time this runs, the parent may already be gone); default: ours now.
    ``before_exit``: called first, for what this process started outside its group (Voila's
    kernels, in sessions of their own); whatever it raises, the process still ends.
    """
    parent = os.getppid() if parent is None else parent
    first_parent = os.getppid()

    def watch() -> None:
        while os.getppid() == first_parent and _exists(parent):
            time.sleep(interval_s)
        if before_exit is not None:
            with contextlib.suppress(BaseException):
                before_exit()
        if hasattr(os, "killpg") and os.getpgrp() == os.getpid():
            os.killpg(os.getpid(), signal.SIGKILL)  # a benchmark worker: its own pool goes too
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="exit-with-parent").start()


def _exists(pid: int) -> bool:
    if sys.platform == "win32":  # there os.kill(pid, 0) would terminate it: rely on getppid
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: it exists
        return True
    return True


def _start_worker(parent: int, initializer: Callable[..., None] | None, initargs: tuple) -> None:
    # The pool's own Ctrl-C handling is the parent's: it kills the workers (see process_pool).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent(parent)
    if initializer is not None:
        initializer(*initargs)


def _processes(executor: ProcessPoolExecutor) -> list[multiprocessing.process.BaseProcess]:
    # Not public API: the executor keeps no other record of its workers. Without it, the message
    # still says that a worker died.
    return list((getattr(executor, "_processes", None) or {}).values())


def _stop(executor: ProcessPoolExecutor) -> None:
    """End the workers now: a pool left to finish its running chunks can take minutes."""
    for process in _processes(executor):
        if process.exitcode is None:
            process.kill()


def _unstick(executor: ProcessPoolExecutor, seconds: float = 10.0) -> None:
    """After :func:`_stop`: let the pool's manager thread end, so that shutting down cannot hang.

    A worker killed while it sent its result leaves part of a message in the result pipe; the
    manager thread, reading it, waits for the rest for ever (then so do ``shutdown`` and Python's
    exit, which join that thread). The rest is supplied here: bytes that cannot unpickle, so the
    thread finds the pool broken and ends. Not public API (the executor's manager thread and result
    queue); without them this does nothing.
    """
    thread = getattr(executor, "_executor_manager_thread", None)
    writer = getattr(getattr(executor, "_result_queue", None), "_writer", None)
    if thread is None or writer is None:
        return
    thread.join(0.2)
    try:
        fd = writer.fileno()
        os.set_blocking(fd, False)
    except (OSError, ValueError):  # closed: the thread is ending anyway
        return
    filler = b"\0" * 65536  # a zero byte is no pickle opcode: the message fails to load
    deadline = time.monotonic() + seconds
    while thread.is_alive() and time.monotonic() < deadline:
        with contextlib.suppress(BlockingIOError, InterruptedError):
            try:
                os.write(fd, filler)
            except OSError:
                return
        thread.join(0.02)
