"""Counting words on a Dask cluster: the same tasks as the process pool, run as a map-reduce.

Unlike the pool of :func:`bpe_course.counting.count_words`, the tasks run wherever a Dask
scheduler sends them: a ``LocalCluster`` of processes on 127.0.0.1 by default, or a running
cluster named by its address (``tcp://host:8786``). This module only plans and reduces: the
tasks are :func:`bpe_course.counting.plan.plan_tasks`'s and each is counted by
:func:`bpe_course.counting.tasks.count_task`, as on this machine, so the counts are the same.

- **Map.** About four tasks per worker thread (each at most ``TASK_BYTES``, so a dead worker's
  retry recounts little), each counting its chunks and returning a ``Counter`` of its words as
  UTF-8 bytes, the trainers' key.
- **Reduce.** As results finish, each is paired with the next one to finish and a task adding the
  two is submitted; the sums are paired in turn until one count is left. The adding runs on
  the workers and the client holds only futures, so no process holds more than a few partial
  counts at a time: a tree whose shape follows the order in which the tasks finish. Only the
  final counts travel to the client.
- **Faults.** A worker that dies (killed, out of memory) takes its running task and the partial
  counts it held with it; the scheduler runs them again elsewhere, from the byte ranges, which
  are still on disk. Results are exact because no task changes its inputs: a sum rerun from the
  same two partials gives the same sum. A task whose worker dies more than
  ``distributed.scheduler.allowed-failures`` times (3 by default) fails the run. Errors raised by
  a task (a shard gone, invalid UTF-8) are not retried: they would fail again, so the first one
  stops the run at once, with its message.

Workers open the files by the paths the client gives (absolute): on a real cluster, the shards
must sit on a filesystem every machine mounts at the same place. Task functions live at module
level, so a worker needs this package installed, never a notebook.

Dask is imported only when a function here runs: the core package never needs it. Install it
with the ``cluster`` extra: ``pip install 'bpe_course[cluster]'``."""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import signal
import socket
import struct
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bpe_course.bars import progress_bar
from bpe_course.counting.counters import choose_counter
from bpe_course.counting.plan import Task, effective_workers, plan_tasks
from bpe_course.counting.sources import Corpus, check_unchanged, file_states, resolve_sources
from bpe_course.counting.tasks import count_task
from bpe_course.errors import BPEInputError
from bpe_course.pretokenize import GPT2_PATTERN

# The largest task of plain text the planner makes: a task reads its text a few MB at a time, so
# this bounds not memory but what a dead worker's retry recounts, and the balance between workers.
TASK_BYTES = 256_000_000

if TYPE_CHECKING:
    from distributed import Client, Future

LOCAL = "local"  # the scheduler value that starts a cluster on this machine
INSTALL = "pip install 'bpe_course[cluster]'"
# A loaded machine can take a while to start worker processes or answer: generous, not tight.
CONNECT_TIMEOUT_S = 60
# A refused address answers at once; this bounds the wait for one that does not answer at all.
PROBE_TIMEOUT_S = 5


def require_dask() -> None:
    """Import ``dask.distributed``, or say in one line what to install."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise BPEInputError(
            f"counting on a Dask cluster needs Dask's distributed scheduler: {INSTALL}"
        ) from None


def add_counts(left: Counter[bytes], right: Counter[bytes]) -> Counter[bytes]:
    """The sum of two partial counts, as a new ``Counter`` (a task of the reduce).

    Never changes its inputs: after a worker dies Dask may run a sum again on the same two
    partials, and a sum written into one of them would then count that partial twice.
    """
    big, small = (left, right) if len(left) >= len(right) else (right, left)
    total = Counter(big)
    total.update(small)
    return total


def count_on_worker(task: Task) -> Counter[bytes]:
    """The word counts of one task, as a ``Counter`` (a task of the map: module level, so any
    worker can import it). A ``Counter``, not a plain dict: Dask pickles a ``Counter`` whole but
    walks a plain dict item by item, and every sum of the reduce moves one."""
    return Counter(count_task(task))


def plan_cluster_tasks(
    paths: Sequence[Path],
    special_tokens: Sequence[str],
    threads: int,
    *,
    counter: str = "pattern",
    pattern: str = GPT2_PATTERN,
    tasks: int | None = None,
    max_word_bytes: int | None = None,
) -> list[Task]:
    """The tasks for a cluster of ``threads`` worker threads: ``tasks`` of them (default: four
    per thread), more where a task would hold over ``TASK_BYTES``."""
    wanted = tasks or 4 * threads
    return plan_tasks(
        paths,
        special_tokens,
        counter,
        wanted,
        pattern=pattern,
        max_task_bytes=TASK_BYTES,
        max_word_bytes=max_word_bytes,
    )


@contextlib.contextmanager
def dask_client(
    scheduler: str = LOCAL,
    workers: int | None = None,
    *,
    dashboard_address: str = "127.0.0.1:0",
    timeout: float = CONNECT_TIMEOUT_S,
) -> Iterator[Client]:
    """A ``Client`` of a new local cluster (``scheduler="local"``) or of a running scheduler.

    The local cluster has ``workers`` worker processes (``None``: one per core) of one thread
    each: the counting holds the GIL, so more threads per process would only take turns. It
    listens on 127.0.0.1 only, with the dashboard on a free port, and is closed on exit.
    """
    require_dask()
    from distributed import Client, LocalCluster

    if scheduler == LOCAL:
        cluster = None
        try:
            with _workers_ignore_ctrl_c():  # a Ctrl-C meanwhile is raised as it ends
                cluster = LocalCluster(
                    n_workers=workers or os.cpu_count() or 1,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=dashboard_address,
                    # Errors that matter reach the client as exceptions; a worker's own log of a
                    # peer it lost would repeat them as tracebacks on the terminal (the dashboard
                    # shows it all).
                    silence_logs=logging.CRITICAL,
                )
            with Client(cluster, timeout=timeout) as client:
                yield client
        finally:
            if cluster is not None:
                cluster.close()
        return
    if workers is not None:
        raise BPEInputError(
            f"workers sets the size of a local cluster; the cluster at {scheduler} has its own"
        )
    _check_reachable(scheduler)
    try:
        client = Client(scheduler, timeout=timeout)
    except (OSError, ValueError, TypeError) as err:
        raise BPEInputError(f"cannot reach a Dask scheduler at {scheduler!r}: {err}") from None
    with client:
        yield client


def _check_reachable(scheduler: str) -> None:
    """One TCP connection to the scheduler's address, and the first message a Dask scheduler
    sends on it (its handshake), read whole within ``PROBE_TIMEOUT_S`` in all: a refused or
    unknown address is one line at once (the client would retry it for its whole timeout), and
    so is a listener that never answers, one that sends a few bytes and goes silent (the client
    waits for the rest without end), or a service that speaks first but not Dask (an SSH
    server's banner, read by the client as the length of a message of exabytes)."""
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(scheduler)
        host, port = parse_host_port(location, 8786)
    except (ValueError, TypeError) as err:
        raise BPEInputError(f"{scheduler!r} is not a Dask scheduler address: {err}") from None
    if scheme in ("tcp", "tls") and not 0 < port < 65536:  # the system would wrap it silently
        raise BPEInputError(f"{scheduler!r} is not a Dask scheduler address: port out of 1-65535")
    if scheme not in ("tcp", "tls"):
        return  # other transports (inproc, ucx): left to the client
    deadline = time.monotonic() + PROBE_TIMEOUT_S
    try:
        with socket.create_connection((host, port), timeout=PROBE_TIMEOUT_S) as probe:
            # a Dask scheduler speaks first (its handshake) over plain tcp; over tls the client
            # does, and the TLS handshake is the client's to check
            if scheme == "tcp":
                _read_handshake(probe, deadline, scheduler)
    except TimeoutError:
        raise BPEInputError(
            f"something at {scheduler} took the connection but did not answer as a Dask "
            f"scheduler within {PROBE_TIMEOUT_S} s (is the address right?)"
        ) from None
    except OSError as err:
        reason = err.strerror or str(err) or type(err).__name__
        raise BPEInputError(
            f"cannot reach a Dask scheduler at {scheduler}: {reason} (is it running, and is "
            "the address right?)"
        ) from None


# A scheduler's handshake is a small message (its compression, Python and pickle protocol): far
# below this. What claims to be longer is not a handshake, and is never allocated.
HANDSHAKE_MAX_BYTES = 1 << 16


def _read_handshake(probe: socket.socket, deadline: float, scheduler: str) -> None:
    """Read the first message on ``probe`` as Dask's TCP comm frames it (8 bytes of length,
    then that many bytes of frames) and decode it, by ``deadline`` in all; or one line saying
    what answered instead (TimeoutError past the deadline, OSError if the connection closes)."""
    from distributed.protocol import loads
    from distributed.protocol.utils import unpack_frames

    head = _receive_exactly(probe, 8, deadline)
    (length,) = struct.unpack("Q", head)  # as Dask frames it: native order
    if length > HANDSHAKE_MAX_BYTES:
        probe.settimeout(0.2)  # whatever else it sent at once, to name it
        with contextlib.suppress(OSError):
            head += probe.recv(64)
        raise BPEInputError(
            f"something at {scheduler} answered, but not as a Dask scheduler does (it began "
            f"{_printable(head)}): is the address right?"
        )
    body = _receive_exactly(probe, length, deadline)
    try:
        frames, missing = unpack_frames(body, partial=True)
        message = loads(frames, deserialize=False) if not missing else None
    except Exception:  # whatever the bytes make the decoder raise: they are not a handshake
        message = None
    if not (isinstance(message, dict) and "pickle-protocol" in message):
        raise BPEInputError(
            f"something at {scheduler} answered, but not as a Dask scheduler does (it began "
            f"{_printable(head + body)}): is the address right?"
        )


def _receive_exactly(probe: socket.socket, size: int, deadline: float) -> bytes:
    data = b""
    while len(data) < size:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        probe.settimeout(left)
        block = probe.recv(size - len(data))
        if not block:
            raise ConnectionResetError("the connection was closed before a whole message came")
        data += block
    return data


def _printable(data: bytes, limit: int = 40) -> str:
    """The start of what a service sent, quoted, on one line (its control bytes escaped)."""
    return ascii(data[:limit].decode("latin-1"))


def local_workers(requested: int | None, tasks: int, corpus_bytes: int) -> int:
    """Worker processes for a local cluster: as asked (default: one per core), but never more
    than the cores, the tasks, or one per ``MIN_BYTES_PER_WORKER`` of text (as for a process
    pool): each worker costs a process and its memory (about 70 MB) even when it has no work."""
    cores = os.cpu_count() or 1
    by_size = effective_workers(corpus_bytes, requested)
    return max(1, min(requested or cores, cores, tasks, by_size))


@contextlib.contextmanager
def _workers_ignore_ctrl_c() -> Iterator[None]:
    """Start worker processes that never see a terminal's Ctrl-C, while this process still does.

    Ctrl-C in a terminal reaches every process of its group: each worker would die with a
    traceback of its own. So SIGINT is *blocked* in this thread while the workers start: the
    threads Dask starts them from are made meanwhile and inherit the block, and so do the
    workers (a process keeps its signal mask across fork and exec), which never see one. This
    process keeps a Ctrl-C that comes meanwhile pending and raises it (KeyboardInterrupt) as
    the block ends, so the caller closes the cluster on its way out. (Ignoring SIGINT instead,
    as this did, lost that Ctrl-C: the run went on.) Where signals cannot be blocked (Windows),
    SIGINT is ignored meanwhile; off the main thread, signals are not ours to change.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if hasattr(signal, "pthread_sigmask"):
        # multiprocessing's resource tracker, started on first need, unblocks SIGINT in the
        # thread that starts it (Dask's event loop, whose threads start the workers): started
        # here first, it is left running and the mask alone
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
        previous_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous_mask)  # a pending Ctrl-C: here
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def count_words_on_cluster(
    corpus: Corpus,
    special_tokens: Sequence[str] = (),
    *,
    scheduler: str = LOCAL,
    workers: int | None = None,
    client: Client | None = None,
    tasks: int | None = None,
    counter: str = "pattern",
    pattern: str = GPT2_PATTERN,
    progress: bool | None = None,
    on_counted: Callable[[int], object] | None = None,
    on_done: Callable[[Future], None] | None = None,
    max_word_bytes: int | None = None,
) -> dict[bytes, int]:
    """Word counts of a corpus (one file, a directory, a glob, a list; plain or ``.gz``), counted
    on a Dask cluster: ``{word bytes: count}``, the same as :func:`bpe_course.counting.count_words`
    counts here (which calls this when given a ``scheduler``).

    ``client``: a connected client to use (then ``scheduler`` and ``workers`` are not used, and it
    stays open); else one is made by :func:`dask_client`. ``tasks``: how many tasks to aim for
    (default: four per worker thread). ``counter`` and ``pattern``: as ``count_words`` takes
    them (pieces only where they count exactly:
    :func:`~bpe_course.counting.counters.choose_counter`), and ``max_word_bytes``. A client started here prints its
    dashboard's address on stderr; a client passed in prints nothing (its owner knows the address:
    notebook 14 says it once, then counts again and again on it). ``progress`` adds a tqdm bar over
    finished tasks; ``on_counted`` is called with the bytes of each task counted; ``on_done`` sees
    each finished future (the notebook and the tests kill a worker from it).
    """
    paths = resolve_sources(corpus)  # every shard checked here: a missing one fails before any task
    states = file_states(paths)
    require_dask()
    chosen = choose_counter(counter, special_tokens, pattern)
    plan = functools.partial(
        plan_cluster_tasks,
        paths,
        special_tokens,
        counter=chosen,
        pattern=pattern,
        tasks=tasks,
        max_word_bytes=max_word_bytes,
    )
    started_here = client is None
    with contextlib.ExitStack() as stack:
        if client is None and scheduler == LOCAL:
            threads = workers or os.cpu_count() or 1
            planned = plan(threads)
            if not planned:
                return {}
            size = sum(path.stat().st_size for path in paths)
            client = stack.enter_context(
                dask_client(LOCAL, local_workers(workers, len(planned), size))
            )
            _wait_for_threads(client)
        else:
            if client is None:
                client = stack.enter_context(dask_client(scheduler, workers))
            threads = _wait_for_threads(client)
            planned = plan(threads)
            if not planned:
                return {}
        if started_here:  # a caller's client is theirs to announce: a loop would repeat it
            link = client.dashboard_link
            print(f"Dask dashboard: {link or 'not served (bokeh missing)'}", file=sys.stderr)
        counts = map_reduce(
            client, planned, progress=progress, on_counted=on_counted, on_done=on_done
        )
    check_unchanged(paths, states)
    return dict(counts)


def _wait_for_threads(client: Client) -> int:
    try:
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
    except TimeoutError:
        scheduler = client.scheduler  # None only before a client connects, or once it closes
        address = "?" if scheduler is None else scheduler.address
        raise BPEInputError(f"the Dask scheduler at {address} has no workers") from None
    return sum(client.nthreads().values())


def map_reduce(
    client: Client,
    tasks: Sequence[Task],
    *,
    progress: bool | None = None,
    on_counted: Callable[[int], object] | None = None,
    on_done: Callable[[Future], None] | None = None,
) -> Counter[bytes]:
    """Count every task on the cluster and add the partial counts in a tree on the workers.

    The stages: submit one count per task; as each finishes, pair it with the previous unpaired
    one in a new sum (sums go first: priority 1), until one result is left; fetch it.
    """
    from distributed import KilledWorker, as_completed

    # pure=False: keys unique to this run, so a file changed since an earlier run is read again
    counting = {client.submit(count_on_worker, task, pure=False): task.size for task in tasks}
    bar = progress_bar(progress, 2 * len(counting) - 1, "count + add (Dask)", "task")
    finished = as_completed(list(counting))  # yields futures, never their results: nothing gathered
    # The futures this loop still holds: a result nobody holds is freed on its worker once the sum
    # that reads it is done, so the workers keep only the partial counts still to be added.
    waiting: set[Future] = set(counting)
    unpaired: Future | None = None
    try:
        for future in finished:
            if future.status in ("error", "cancelled"):
                future.result()  # raises the task's error here, on the client: the run stops
            if bar is not None:
                bar.update(1)
            size = counting.pop(future, None)
            if on_counted is not None and size is not None:
                on_counted(size)
            if on_done is not None:
                on_done(future)
            if unpaired is None:
                unpaired = future
                continue
            total = client.submit(add_counts, unpaired, future, priority=1, pure=False)
            waiting -= {unpaired, future}
            waiting.add(total)
            finished.add(total)
            unpaired = None
        assert unpaired is not None  # the loop ends on the one sum nothing else was added to
        return unpaired.result()
    except KilledWorker as err:
        raise RuntimeError(
            f"a counting task took down {err.allowed_failures + 1} workers in turn; "
            "see the workers' logs (out of memory?)"
        ) from None
    finally:
        client.cancel([f for f in waiting if not f.done()])
        if bar is not None:
            bar.close()


def kill_worker(client: Client, future: Future) -> int:
    """Kill, abruptly, the worker process holding ``future``'s result; return its process id.

    For the notebook's and the tests' fault demos: the partial counts on that worker are lost
    and the scheduler must compute them again. Only for workers on this machine.
    """
    holders = client.who_has([future]).get(future.key) or list(client.nthreads())
    pid = client.run(os.getpid, workers=[holders[0]])[holders[0]]
    os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
    return pid
