"""Counting words on a Dask cluster: pretokenization as a map-reduce, on a real distributed engine.

Unlike :func:`~bpe_course.sources.count_sources` (a process pool on this machine), the tasks run
wherever a Dask scheduler sends them: a ``LocalCluster`` of processes on 127.0.0.1 by default, or
a running cluster named by its address (``tcp://host:8786``). The counts are the same either way.

- **Map.** Plain files are counted with pieces, as the local path of the fast trainers counts
  (:mod:`bpe_course.pieces`): each file is cut into chunks of a few MB at piece cuts, and a task
  takes a run of consecutive chunks (:func:`plan_piece_tasks`), counts its pieces chunk by
  chunk, and runs the pattern once per distinct piece at its end. A ``.gz`` file is one task,
  counted with the pattern as it streams (:func:`~bpe_course.sources.count_range`). Either way a
  task returns a ``Counter`` of its words as UTF-8 bytes, the trainers' key (Dask moves a
  ``Counter`` whole, a plain dict item by item: see :func:`count_task`). (With a special token
  that pieces cannot count, one that holds a space or a NUL, every task counts a range cut at
  document boundaries with the pattern, :func:`~bpe_course.sources.plan_ranges`.)
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
level here, so a worker needs this package installed, never a notebook.

Dask is imported only when a function here runs: the core package never needs it. Install it
with the ``cluster`` extra: ``pip install 'bpe_course[cluster]'``.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import signal
import socket
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bpe_course.errors import BPEInputError
from bpe_course.pretokenize import effective_workers
from bpe_course.sources import (
    GZIP_SUFFIX,
    ByteRange,
    Corpus,
    count_range,
    plan_ranges,
    resolve_sources,
)

# The largest task of plain text the planner makes: a task reads its text a few MB at a time, so
# this bounds not memory but what a dead worker's retry recounts, and the balance between workers.
TASK_BYTES = 256_000_000
# A task's work: a byte range (one ``.gz``, or plain text for the pattern), or one plain file's
# chunks for pieces.
Task = ByteRange | tuple[ByteRange, ...]

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


def count_task(task: Task, special_tokens: Sequence[str]) -> Counter[bytes]:
    """The word counts of one task (module level, so any worker can import it): a range is
    counted with the pattern (``.gz`` streamed), a tuple of one file's chunks with pieces.

    A ``Counter``, not a plain dict: Dask sends a plain dict between workers item by item but a
    ``Counter`` pickled whole (21,025 words: about 480 ms against 20 ms, measured), and every
    sum of the reduce moves one. Keys are the words' UTF-8 bytes, as the trainers take them, from
    the first task to the client: the pattern's ``str`` pretokens are encoded here, on the
    workers, and nothing is decoded or encoded again.
    """
    if isinstance(task, ByteRange):
        counts = count_range(task, special_tokens)
        return Counter({word.encode("utf-8"): count for word, count in counts.items()})
    from bpe_course.pieces import count_ranges

    path = task[0].path
    try:
        return Counter(count_ranges(path, [(r.start, r.end) for r in task], special_tokens))
    except OSError as err:
        raise BPEInputError(f"cannot read {path}: {err.strerror or err}") from None
    except UnicodeDecodeError:  # a piece that is not UTF-8: say where, as the local path does
        from bpe_course.pretokenize import read_text

        for r in task:
            read_text(path, r.start, r.end)  # raises naming the file and the offset
        raise


def plan_piece_tasks(
    paths: Sequence[Path], special_tokens: Sequence[str], tasks: int = 1
) -> list[Task]:
    """About ``tasks`` tasks over every file: plain files in chunks at piece cuts
    (:func:`bpe_course.pieces.find_cuts`), a run of consecutive chunks per task, a share of the
    tasks in proportion to size (and at most ``TASK_BYTES`` a task); a ``.gz`` file one range.
    With special tokens that pieces cannot count (:func:`~bpe_course.pieces.counted_by_pieces`),
    the pattern's ranges instead (:func:`~bpe_course.sources.plan_ranges`)."""
    from bpe_course.pieces import counted_by_pieces

    if not counted_by_pieces(special_tokens):
        return list(plan_ranges(paths, special_tokens, tasks))
    from bpe_course.cuts import plan_chunks

    sizes = {path: path.stat().st_size for path in paths}
    plain_bytes = sum(size for path, size in sizes.items() if not _gzip(path)) or 1
    planned: list[Task] = []
    for path, size in sizes.items():
        if size == 0:
            continue
        if _gzip(path):
            planned.append(ByteRange(str(path), 0, size))
            continue
        cuts = plan_chunks(path, special_tokens)
        chunks = [ByteRange(str(path), a, b) for a, b in zip(cuts, cuts[1:])]
        share = max(1, round(tasks * size / plain_bytes), math.ceil(size / TASK_BYTES))
        wanted = min(len(chunks), share)
        for i in range(wanted):  # consecutive runs of about equal length
            run = tuple(chunks[i * len(chunks) // wanted : (i + 1) * len(chunks) // wanted])
            planned.append(run)
    return planned


def _gzip(path: Path) -> bool:
    return path.name.endswith(GZIP_SUFFIX)


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
        with _workers_ignore_ctrl_c():
            cluster = LocalCluster(
                n_workers=workers or os.cpu_count() or 1,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=dashboard_address,
                # Errors that matter reach the client as exceptions; a worker's own log of a peer it
                # lost would repeat them as tracebacks on the terminal (the dashboard shows it all).
                silence_logs=logging.CRITICAL,
            )
        try:
            with Client(cluster, timeout=timeout) as client:
                yield client
        finally:
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
    """One TCP connection to the scheduler's address, given a few seconds: a refused or unknown
    address is one line at once (the client would retry it for its whole timeout), and so is a
    listener that never answers (the client would wait on it forever)."""
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(scheduler)
        host, port = parse_host_port(location, 8786)
    except (ValueError, TypeError) as err:
        raise BPEInputError(f"{scheduler!r} is not a Dask scheduler address: {err}") from None
    if scheme not in ("tcp", "tls"):
        return  # other transports (inproc, ucx): left to the client
    try:
        with socket.create_connection((host, port), timeout=PROBE_TIMEOUT_S) as probe:
            # a Dask scheduler speaks first (its handshake) over plain tcp; over tls the client
            # does. Something that listens but stays silent would hold the client forever.
            if scheme == "tcp" and not probe.recv(1):
                raise ConnectionResetError("the connection was closed at once")
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


def local_workers(requested: int | None, tasks: int, corpus_bytes: int) -> int:
    """Worker processes for a local cluster: as asked (default: one per core), but never more
    than the cores, the tasks, or one per ``MIN_BYTES_PER_WORKER`` of text (as for a process
    pool): each worker costs a process and its memory (about 70 MB) even when it has no work."""
    cores = os.cpu_count() or 1
    by_size = effective_workers(corpus_bytes, requested)
    return max(1, min(requested or cores, cores, tasks, by_size))


@contextlib.contextmanager
def _workers_ignore_ctrl_c() -> Iterator[None]:
    """Start worker processes that ignore SIGINT, then restore this process's handler.

    Ctrl-C in a terminal reaches every process of its group: each worker would die with a
    traceback of its own. Ignored there (a disposition that survives the start of a process),
    it stops this process only, which closes the cluster on its way out. A Ctrl-C while the
    workers start is ignored too.
    """
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: signals are not ours to change
        yield
        return
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
    progress: bool | None = None,
    on_done: Callable[[Future], None] | None = None,
) -> dict[bytes, int]:
    """Word counts of a corpus (one file, a directory, a glob, a list; plain or ``.gz``), counted
    on a Dask cluster: ``{word bytes: count}``, the same as :func:`~bpe_course.sources.count_sources`.

    ``client``: a connected client to use (then ``scheduler`` and ``workers`` are not used, and it
    stays open); else one is made by :func:`dask_client`. ``tasks``: how many tasks to aim for
    (default: four per worker thread; each reads its text a few MB at a time). The dashboard's address is printed
    on stderr; ``progress`` adds a tqdm bar over finished tasks. ``on_done`` sees each finished
    future (the notebook and the tests kill a worker from it).
    """
    paths = resolve_sources(corpus)  # every shard checked here: a missing one fails before any task
    require_dask()
    with contextlib.ExitStack() as stack:
        if client is None and scheduler == LOCAL:
            ranges = plan_piece_tasks(
                paths, special_tokens, tasks or 4 * (workers or os.cpu_count() or 1)
            )
            if not ranges:
                return {}
            size = sum(path.stat().st_size for path in paths)
            n_workers = local_workers(workers, len(ranges), size)
            client = stack.enter_context(dask_client(LOCAL, n_workers))
            _wait_for_threads(client)
        else:
            if client is None:
                client = stack.enter_context(dask_client(scheduler, workers))
            threads = _wait_for_threads(client)
            ranges = plan_piece_tasks(paths, special_tokens, tasks or 4 * threads)
            if not ranges:
                return {}
        link = client.dashboard_link
        print(f"Dask dashboard: {link or 'not served (bokeh missing)'}", file=sys.stderr)
        counts = map_reduce(client, ranges, special_tokens, progress=progress, on_done=on_done)
    return dict(counts)


def _wait_for_threads(client: Client) -> int:
    try:
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
    except TimeoutError:
        raise BPEInputError(
            f"the Dask scheduler at {client.scheduler.address} has no workers"
        ) from None
    return sum(client.nthreads().values())


def map_reduce(
    client: Client,
    ranges: Sequence[Task],
    special_tokens: Sequence[str],
    *,
    progress: bool | None = None,
    on_done: Callable[[Future], None] | None = None,
) -> Counter[bytes]:
    """Count every task on the cluster and add the partial counts in a tree on the workers.

    The stages: submit one count task per range (or run of chunks); as each task finishes, pair
    it with the previous unpaired one in a new sum task (sums go first: priority 1), until one
    result is left; fetch it.
    """
    from distributed import KilledWorker, as_completed

    tokens = tuple(special_tokens)
    # pure=False: keys unique to this run, so a file changed since an earlier run is read again
    submitted = [client.submit(count_task, task, tokens, pure=False) for task in ranges]
    bar = _bar(progress, total=2 * len(submitted) - 1)
    finished = as_completed(submitted)  # yields futures, never their results: nothing gathered
    unpaired: Future | None = None
    try:
        for future in finished:
            if future.status in ("error", "cancelled"):
                future.result()  # raises the task's error here, on the client: the run stops
            if bar is not None:
                bar.update(1)
            if on_done is not None:
                on_done(future)
            if unpaired is None:
                unpaired = future
                continue
            total = client.submit(add_counts, unpaired, future, priority=1, pure=False)
            submitted.append(total)
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
        client.cancel([f for f in submitted if not f.done()])
        if bar is not None:
            bar.close()


def _bar(enabled: bool | None, total: int) -> Any:
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="task", desc="count + add (Dask)", leave=False)


def kill_worker(client: Client, future: Future) -> int:
    """Kill, abruptly, the worker process holding ``future``'s result; return its process id.

    For the notebook's and the tests' fault demos: the partial counts on that worker are lost
    and the scheduler must compute them again. Only for workers on this machine.
    """
    holders = client.who_has([future]).get(future.key) or list(client.nthreads())
    pid = client.run(os.getpid, workers=[holders[0]])[holders[0]]
    os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
    return pid
