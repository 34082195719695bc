"""Memory over time of one benchmark run, every process counted: the run and its workers.

    python -m bpe_course.bench.memory CORPUS --version fast --vocab-size 10000 [--workers 2]
        [--interval 0.2] [--csv PATH]

The run is the benchmark worker (:mod:`bpe_course.bench.worker`) in a fresh process; this one
samples the resident memory of that process and all its descendants from ``/proc`` (Linux only)
and writes one row per sample: ``seconds``, ``rss_mb`` (the sum over the processes alive then),
``main_rss_mb`` (the run's main process alone: the rest is its workers'), ``cpu_s`` (CPU seconds
used so far: on a shared machine, wall time over CPU time shows the load), ``processes``. The last row holds the run's own result (times, merges) in extra columns.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from bpe_course.bench.harness import kill_group
from bpe_course.bench.machine import machine_label
from bpe_course.bench.worker import PARENT_VARIABLE
from bpe_course.corpora.datasets import resolve_corpus
from bpe_course.errors import BPEInputError
from bpe_course.pretokenize import END_OF_TEXT

_PAGE_MB = (os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096) / 1e6
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def tree_usage(root: int) -> tuple[float, float, int, float]:
    """Resident memory (MB) and CPU seconds of ``root`` and every descendant (ended children that
    were waited for included in the CPU time), how many processes are alive, and the resident
    memory of ``root`` alone (the run's main process; the rest is its workers')."""
    stats: dict[int, list[bytes]] = {}
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        stats[int(entry.name)] = fields
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    rss, cpu, count, todo = 0.0, 0.0, 0, [root]
    root_rss = 0.0
    while todo:
        pid = todo.pop()
        found = stats.get(pid)
        if found is None:
            continue
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                own = int(f.read().split()[1]) * _PAGE_MB
        except OSError:
            continue
        rss += own
        if pid == root:
            root_rss = own
        count += 1
        cpu += sum(int(x) for x in found[11:15]) / _TICKS  # utime stime cutime cstime
        todo.extend(children.get(pid, []))
    return rss, cpu, count, root_rss


def sample_run(spec: dict, interval: float = 0.2) -> tuple[list[dict], dict]:
    """Run one benchmark cell in a fresh process, sampling its memory; return samples and result."""
    if not Path("/proc/self/statm").exists():
        raise BPEInputError("memory over time reads /proc: Linux only")
    command = [sys.executable, "-m", "bpe_course.bench.worker", json.dumps(spec)]
    # The run's output goes to files, not pipes: nothing reads a pipe until the run ends, and a
    # run that writes more than a pipe holds (64 kB: a result with many long merges, a library's
    # log) would block on it for ever.
    with tempfile.TemporaryFile("w+") as out_file, tempfile.TemporaryFile("w+") as err_file:
        start = time.perf_counter()
        process = subprocess.Popen(
            command,
            stdout=out_file,
            stderr=err_file,
            text=True,
            start_new_session=True,  # one group with its pool, killed whole if we stop
            env={**os.environ, PARENT_VARIABLE: str(os.getpid())},
        )
        samples = []
        try:
            while process.poll() is None:
                rss, cpu, count, main_rss = tree_usage(process.pid)
                if rss > 0:  # nothing once the run has ended (a zombie holds no pages)
                    seconds = time.perf_counter() - start
                    samples.append(
                        {
                            "seconds": seconds,
                            "rss_mb": rss,
                            "main_rss_mb": main_rss,
                            "cpu_s": cpu,
                            "processes": count,
                        }
                    )
                time.sleep(interval)
        except BaseException:  # an interrupt (Jupyter's leaves this process alive): stop the run
            kill_group(process)
            raise
        out_file.seek(0)
        err_file.seek(0)
        out, err = out_file.read(), err_file.read()
    if process.returncode != 0:
        raise RuntimeError(f"the run failed:\n{err[-2000:]}")
    result = json.loads(out.strip().splitlines()[-1])
    result.pop("merges_hex", None)
    return samples, result


# What a run records about itself beside its samples (tables stored before a column existed lack it).
RECORDED = (
    "load_1m",
    "peak_rss_mb",
    "peak_rss_children_mb",
    "workers",
    "machine",
    "date",
    "interval_s",
)


def summarize(samples) -> dict:
    """One run's row from its samples table (as :func:`main` writes it): size, phases, peak
    memory over all processes, CPU seconds of all of them, and the command (a library's run has
    no phases and no word count: NaN there)."""
    last = samples.iloc[-1]
    keys = ("corpus", "size_bytes", "pretokenize_s", "merge_s", "total_s", "words", "merges")
    return (
        {key: last.get(key, float("nan")) for key in keys}  # a library reports no phases, no words
        | {
            "peak_mb": float(samples["rss_mb"].max()),
            "cpu_s": float(samples["cpu_s"].max()),
            "processes": int(samples["processes"].max()),
            "command": last["command"],
        }
        | {key: last[key] for key in RECORDED if key in samples}
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bpe_course.bench.memory", description=__doc__.split("\n")[0]
    )
    parser.add_argument("corpus", help="a text file, a dataset name, or a size like 21.5MB")
    parser.add_argument("--version", default="fast")
    parser.add_argument("--vocab-size", type=int, default=10000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--interval", type=float, default=0.2, help="seconds between samples")
    parser.add_argument("--csv", default=None, metavar="PATH")
    parser.add_argument("--note", default="", help="a line about the corpus, kept in the CSV")
    args = parser.parse_args(argv)
    corpus = resolve_corpus(args.corpus)
    spec = {
        "corpus": str(corpus),
        "version": args.version,
        "vocab_size": args.vocab_size,
        "workers": args.workers,
        "special_tokens": [END_OF_TEXT],
    }
    load = os.getloadavg()[0]  # the libraries' runs do not record it themselves
    samples, result = sample_run(spec, args.interval)
    result.setdefault("load_1m", load)
    table = pd.DataFrame(samples)
    arguments = sys.argv[1:] if argv is None else argv
    command = shlex.join(["python", "-m", "bpe_course.bench.memory", *arguments])
    extra = {
        "version": args.version,
        "corpus": corpus.name,
        "command": command,
        "note": args.note,
        "workers": args.workers,
        "machine": machine_label(),  # where, and on how many cores, beside the load in the result
        "date": datetime.date.today().isoformat(),
        "interval_s": args.interval,  # a peak shorter than this can fall between two samples
    }
    for key, value in {**result, **extra}.items():
        table[key] = value
    table["size_bytes"] = corpus.stat().st_size
    peak = table["rss_mb"].max()
    print(
        f"{args.version} on {corpus.name}: {result['total_s']:.1f} s end to end "
        f"(pretokenize {result['pretokenize_s']:.1f} s), peak {peak:.0f} MB over all processes"
    )
    if args.csv:
        Path(args.csv).parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.csv, index=False)
        print(args.csv)


if __name__ == "__main__":
    try:
        main()
    except BPEInputError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
