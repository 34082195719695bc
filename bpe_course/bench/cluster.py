"""What Dask costs: word counting on a Dask cluster against the process pool, on one machine.

Each measurement runs in a fresh process (``python -m bpe_course.bench.cluster --one '<json>'``),
so every peak of memory belongs to that run alone:

- ``pool``: the fast trainer's local path, :func:`bpe_course.counting.count_words` with pieces,
  on ``workers`` processes. Peaks: this process (the client) and the largest pool process
  (``RUSAGE_CHILDREN``).
- ``dask``: a scheduler and ``workers`` worker processes of one thread, started with Dask's own
  command lines on 127.0.0.1 (what ``LocalCluster`` starts, but with the scheduler in a process of
  its own, so its memory is told apart from the client's). Peaks: client, scheduler, the largest
  worker (each read from the process's own ``VmHWM``). It also measures what the paper estimate
  of notebook 14 needs: the start of the cluster, the cost of a task that does nothing, and the
  cost of one add of two partial counts of the corpus's size.

Both runs then learn the merges (V5) from their counts and hash them: the two paths must agree.
Run the grid with ``python -m bpe_course.bench.cluster 200MB 2.1GB --csv PATH``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from bpe_course.bench.harness import run_worker
from bpe_course.bench.machine import context
from bpe_course.bench.worker import exit_with_benchmark, peak_rss_mb
from bpe_course.corpora.datasets import generated_corpus, parse_size
from bpe_course.counting import count_words
from bpe_course.counting.cluster import TASK_BYTES, add_counts, map_reduce, plan_cluster_tasks
from bpe_course.counting.plan import ByteRange, Task
from bpe_course.counting.sources import resolve_sources
from bpe_course.files import partial_path
from bpe_course.pretokenize import END_OF_TEXT as EOT
from bpe_course.trainers import get_trainer

NOOP_TASKS = 200  # tasks that count zero bytes: the cost of a task itself, per task
MERGE_VOCAB = 10_000


# --- One measurement, in its own process ---------------------------------------------------------


def measure(spec: dict) -> dict:
    """One run (``spec``: path, corpus, workers, vocab_size), as a dict of numbers."""
    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    run = _measure_pool if spec["path"] == "pool" else _measure_dask
    row = run(spec)
    row["client_count_peak_mb"] = peak_rss_mb()  # before the merges, which need memory of their own
    row.update(_merges(row.pop("counts"), spec["vocab_size"]))
    row["client_peak_mb"] = peak_rss_mb()
    row["load_before"] = load_before
    row["cores"] = os.cpu_count()  # the estimate's "per core" is this machine's core
    row["load_after"] = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return row


def _measure_pool(spec: dict) -> dict:
    start = time.perf_counter()
    counts = count_words(spec["corpus"], [EOT], spec["workers"], counter="pieces")  # as fast counts
    count_s = time.perf_counter() - start
    return {"count_s": count_s, "counts": counts, "worker_peak_mb": _children_peak_mb()}


def _children_peak_mb() -> float:
    try:
        import resource
    except ImportError:  # Windows
        return float("nan")
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1e3  # KiB on Linux


def _measure_dask(spec: dict) -> dict:
    from distributed import Client  # the cluster extra: only for a Dask run

    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        processes, scheduler_file = _start_cluster(Path(folder), spec["workers"])
        try:
            with Client(scheduler_file=str(scheduler_file), timeout=120) as client:
                client.wait_for_workers(spec["workers"], timeout=120)
                start_s = time.perf_counter() - started

                start = time.perf_counter()
                paths = resolve_sources(spec["corpus"])
                threads = sum(client.nthreads().values())
                tasks = plan_cluster_tasks(paths, [EOT], threads, counter="pieces")
                totals = map_reduce(client, tasks)
                counts = dict(totals)
                count_s = time.perf_counter() - start

                # A task's own cost: ranges of zero bytes, through the same map and tree.
                empty = [Task((ByteRange(str(paths[0]), i, i),), (EOT,)) for i in range(NOOP_TASKS)]
                start = time.perf_counter()
                map_reduce(client, empty)
                task_ms = (time.perf_counter() - start) / (2 * NOOP_TASKS - 1) * 1e3

                add_s = _time_one_sum(client, totals)

                scheduler_peak = client.run_on_scheduler(peak_rss_mb)
                worker_peak = max(client.run(peak_rss_mb).values())
                client.shutdown()
        finally:
            _stop(processes)
    return {
        "count_s": count_s,
        "counts": counts,
        "tasks": len(tasks),
        "start_s": start_s,
        "task_ms": task_ms,
        "add_s": add_s,
        "scheduler_peak_mb": scheduler_peak,
        "worker_peak_mb": worker_peak,
    }


def _time_one_sum(client, counts) -> float:
    """Seconds for one sum of two partial counts held by two different workers: the transfer
    of one to the other, and the add."""
    from distributed import wait  # the cluster extra: only for a Dask run

    workers = list(client.nthreads())
    first, second = workers[0], workers[-1]  # two different workers, when there are two
    # In a list: a dict given alone is scattered as one piece of data per key (here, per word)
    [left] = client.scatter([counts], workers=[first], hash=False)
    [right] = client.scatter([counts], workers=[second], hash=False)
    start = time.perf_counter()
    wait(client.submit(add_counts, left, right, workers=[first], pure=False))
    return time.perf_counter() - start


def _start_cluster(folder: Path, workers: int) -> tuple[list[subprocess.Popen], Path]:
    scheduler_file = folder / "scheduler.json"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1"]
        + ["--port", "0", "--dashboard-address", "127.0.0.1:0"]
        + ["--scheduler-file", str(scheduler_file)],
        **quiet,
    )
    deadline = time.monotonic() + 120
    while not scheduler_file.exists():
        if scheduler.poll() is not None or time.monotonic() > deadline:
            _stop([scheduler])
            raise RuntimeError("the Dask scheduler did not start")
        time.sleep(0.05)
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "distributed.cli.dask_worker",
            "--scheduler-file",
            str(scheduler_file),
        ]
        + ["--nworkers", str(workers), "--nthreads", "1", "--host", "127.0.0.1"]
        + ["--no-dashboard"],
        **quiet,
    )
    return [worker, scheduler], scheduler_file


def _stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:  # ours alone, by their handles
        if process.poll() is None:
            process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _merges(counts: dict[bytes, int], vocab_size: int) -> dict:
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, merges = get_trainer("v5").merge_loop(counts, vocab_size, [EOT])
    return {
        "merge_s": time.perf_counter() - start,
        "words": len(counts),
        "merges_sha": hashlib.sha256(repr(merges).encode()).hexdigest()[:16],
    }


# --- The estimate on paper ----------------------------------------------------------------------


@dataclass(frozen=True)
class Costs:
    """What this machine measured: the inputs of :func:`estimate`."""

    core_mb_s: float  # counting throughput of one core (the pool at the largest size, per worker)
    start_s: float  # starting the cluster and connecting to it: paid once
    task_ms: float  # a task's own cost (scheduler, client, transfer), a task that counts nothing
    add_s: float  # one sum of two partial counts of the corpus's distinct words, with a transfer
    merge_s: float  # the merge loop on the word counts: one core, whatever the cluster
    words: int  # distinct words of the measured corpus, which add_s and merge_s depend on


def costs_from(table) -> Costs:
    """The inputs of the estimate, from a table of :func:`run_overhead` (its largest size; the
    median of each measurement over the repeats, when there are several)."""
    largest = table[table["size_bytes"] == table["size_bytes"].max()]
    pool = largest[largest["path"] == "pool"].median(numeric_only=True)
    dask = largest[largest["path"] == "dask"].median(numeric_only=True)
    return Costs(
        core_mb_s=float(pool["size_bytes"] / 1e6 / (pool["count_s"] * pool["workers"])),
        start_s=float(dask["start_s"]),
        task_ms=float(dask["task_ms"]),
        add_s=float(dask["add_s"]),
        merge_s=float(pool["merge_s"]),
        words=int(pool["words"]),
    )


def path_ratios(table):
    """Dask's counting time over the pool's, per size: within each repeat (the two paths ran in
    turn), then the median, min and max over the repeats, and the overheads Dask measured (start
    excluded: ``count_s`` does not include it) that a run of that many tasks pays."""
    # Not at the top: a measurement's own process (``--one``) imports this module, and its peak
    # memory, the client's, is measured; pandas is not part of what it measures.
    import pandas as pd

    rows = []
    with_repeat = table if "repeat" in table else table.assign(repeat=0)
    for size, group in with_repeat.groupby("size", sort=False):
        wide = group.pivot(index="repeat", columns="path", values="count_s")
        ratio = (wide["dask"] / wide["pool"]).dropna()
        dask = group[group["path"] == "dask"].median(numeric_only=True)
        pool = group[group["path"] == "pool"].median(numeric_only=True)
        tasks = int(dask["tasks"])
        rows.append(
            {
                "size": size,
                "pool_s": float(pool["count_s"]),
                "dask_s": float(dask["count_s"]),
                "median": float(ratio.median()),
                "min": float(ratio.min()),
                "max": float(ratio.max()),
                "repeats": int(len(ratio)),
                "tasks": tasks,
                "overheads_s": (2 * tasks - 1) * dask["task_ms"] / 1e3
                + math.ceil(math.log2(max(tasks, 2))) * dask["add_s"],
            }
        )
    return pd.DataFrame(rows)


def estimate(costs: Costs, corpus_bytes: float, cores: int) -> dict[str, float]:
    """Seconds to train on ``corpus_bytes`` of text with ``cores`` worker cores, term by term.

    - counting: the bytes divided among the cores at the measured per-core throughput (storage
      assumed to keep up, the cores as fast as these);
    - tasks: four tasks per core, at most ``TASK_BYTES`` each, plus one sum per task but one,
      each at the measured cost of a task that counts nothing;
    - reduce: after the last count, a chain of sums as deep as the tree, ``log2(tasks)``;
    - start and merge: once each, the merge loop on one core.

    Two totals, which differ only in the tasks' own cost: ``total_s`` charges it in full, one
    task after another, as if the scheduler handled every part of it alone (pessimistic: part of
    it is the workers' and is shared among them); ``lower_s`` shares it among the cores
    (``tasks_shared_s``), every other term being at its most favourable reading too.
    """
    tasks = max(math.ceil(corpus_bytes / TASK_BYTES), 4 * cores)
    terms = {
        "start_s": costs.start_s,
        "count_s": corpus_bytes / 1e6 / (cores * costs.core_mb_s),
        "tasks_s": (2 * tasks - 1) * costs.task_ms / 1e3,
        "reduce_s": math.ceil(math.log2(tasks)) * costs.add_s,
        "merge_s": costs.merge_s,
    }
    total = sum(terms.values())
    shared = terms["tasks_s"] / cores
    return (
        {"tasks": tasks}
        | terms
        | {"total_s": total, "tasks_shared_s": shared, "lower_s": total - terms["tasks_s"] + shared}
    )


# --- The grid ------------------------------------------------------------------------------------


def run_overhead(
    sizes: list[str],
    workers: int = 2,
    vocab_size: int = MERGE_VOCAB,
    progress: bool = True,
    timeout_s: float = 3600,
    repeats: int = 1,
    on_row=None,
):
    """Both paths at every size (generated stories), as a DataFrame; the merges must agree.
    With ``repeats``, every (size, path) cell runs once per round, the paths in turn within each
    round, so the ratio of the two paths in one round compares runs made side by side.
    ``on_row`` sees the table so far after each run (``main`` keeps it in a partial file)."""
    import pandas as pd  # not at the top: see path_ratios
    from tqdm.auto import tqdm

    rows = []
    cells = [(r, size, path) for r in range(repeats) for size in sizes for path in ("pool", "dask")]
    for repeat, size, path in tqdm(
        cells, desc="cluster overhead", unit="run", disable=not progress
    ):
        corpus = generated_corpus(size)
        spec = {"path": path, "corpus": str(corpus), "workers": workers, "vocab_size": vocab_size}
        row, attempts = _run_one(spec, timeout_s)
        rows.append(
            {"size": size, "size_bytes": parse_size(size), "path": path, "workers": workers}
            | {"repeat": repeat}
            | {"vocab_size": vocab_size}
            | row
            | {"attempts": attempts}
            | context()
        )
        if on_row is not None:
            on_row(pd.DataFrame(rows))
    table = pd.DataFrame(rows)
    for size, group in table.groupby("size"):
        if group["merges_sha"].nunique() != 1:
            raise RuntimeError(f"the pool and Dask learned different merges at {size}")
    return table


# A measurement that fails is run once more: on a loaded machine a Dask worker's connection can
# drop while the run reads the workers' peaks. The row records how many attempts it took.
ATTEMPTS = 2


def _run_one(spec: dict, timeout_s: float) -> tuple[dict, int]:
    """One measurement in a fresh process, as the harness runs a cell (:func:`run_worker`): in a
    session of its own with the scheduler and workers it starts, so a run past ``timeout_s``, or
    stopped, is killed with all of them; and it ends them itself if this process dies."""
    command = [sys.executable, "-m", "bpe_course.bench.cluster", "--one", json.dumps(spec)]
    for attempt in range(1, ATTEMPTS + 1):
        status, done = run_worker(command, timeout_s)
        if done is None:
            raise RuntimeError(
                f"the {spec['path']} run took more than {timeout_s:g} s and was stopped"
            )
        if done.returncode == 0:
            return json.loads(done.stdout.splitlines()[-1]), attempt
        last_line = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        print(f"the {spec['path']} run failed (attempt {attempt}): {last_line}", file=sys.stderr)
    raise RuntimeError(f"the {spec['path']} run failed {ATTEMPTS} times:\n{done.stderr[-2000:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bpe_course.bench.cluster", description=__doc__)
    parser.add_argument("sizes", nargs="*", default=["200MB", "2.1GB"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--vocab-size", type=int, default=MERGE_VOCAB)
    parser.add_argument("--csv", default=None, help="write the table here")
    parser.add_argument("--repeats", type=int, default=1, help="rounds of every cell (default: 1)")
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)  # one run, in this process
    args = parser.parse_args(argv)
    if args.one:
        exit_with_benchmark()  # and its scheduler and workers, in its group, with it
        print(json.dumps(measure(json.loads(args.one))))
        return 0
    # The runs so far go to a partial file of their own, kept if the grid stops, so an hour of
    # measurements is never lost; the CSV itself is replaced only by a whole grid.
    partial = partial_path(Path(args.csv)) if args.csv else None
    keep = None if partial is None else (lambda t: t.to_csv(partial, index=False))
    try:
        table = run_overhead(
            args.sizes, args.workers, args.vocab_size, repeats=args.repeats, on_row=keep
        )
    except BaseException:
        if partial is not None:
            print(f"the runs finished so far are in {partial}", file=sys.stderr)
        raise
    if partial is not None:
        os.replace(partial, args.csv)
    columns = ["size", "path", "count_s", "client_peak_mb", "worker_peak_mb", "load_before"]
    print(table[[c for c in columns if c in table]].to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
