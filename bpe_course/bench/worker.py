"""One benchmark run, in its own process: ``python -m bpe_course.bench.worker '<json>'``.

Prints one JSON line: phase times, peak resident memory, merges done, and a hash of the merges
(so the harness can check every version learned the same thing without shipping the merges; the
libraries and a reader's trainer ship theirs, to be compared with ours).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import time
import warnings

from bpe_course.pool import exit_with_parent
from bpe_course.trainers import ALL_TRAINERS, LIBRARIES, get_trainer


def peak_rss_mb() -> float:
    """This process's peak resident memory in MB (NaN where the system will not say)."""
    if sys.platform == "win32":
        return _windows_peak_working_set() / 1e6
    if sys.platform == "linux":
        # Not ru_maxrss: Linux carries it across exec, so a process started from a large one
        # (a notebook kernel, a test runner) reports its parent's peak. VmHWM starts afresh.
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024 / 1e6
    import resource  # Unix only

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1e6 if sys.platform == "darwin" else peak / 1e3  # bytes on macOS, KiB on Linux


def _windows_peak_working_set() -> float:
    import ctypes
    from ctypes import wintypes

    class Counters(ctypes.Structure):  # PROCESS_MEMORY_COUNTERS, psapi.h
        _fields_ = [("cb", wintypes.DWORD), ("PageFaultCount", wintypes.DWORD)] + [
            (name, ctypes.c_size_t)
            for name in (
                "PeakWorkingSetSize",
                "WorkingSetSize",
                "QuotaPeakPagedPoolUsage",
                "QuotaPagedPoolUsage",
                "QuotaPeakNonPagedPoolUsage",
                "QuotaNonPagedPoolUsage",
                "PagefileUsage",
                "PeakPagefileUsage",
            )
        ]

    try:
        counters = Counters(cb=ctypes.sizeof(Counters))
        process = ctypes.windll.kernel32.GetCurrentProcess()
        if ctypes.windll.psapi.GetProcessMemoryInfo(process, ctypes.byref(counters), counters.cb):
            return float(counters.PeakWorkingSetSize)
    except (AttributeError, OSError):
        pass
    return math.nan


def run(spec: dict) -> dict:
    """One run of a course version, a library (``hf``, ``rustbpe``) or a reader's ``module:function``.

    The course's versions report their two phases; the others only the whole call, and their merges
    (hex) so the harness can say how they compare with ours.
    """
    version = spec["version"]
    if version in ALL_TRAINERS:
        return _run_course_version(spec)
    # Not at the top: a course version's run, most of them, loads no more than its trainer, so
    # its start and its peak memory are the trainer's own.
    from bpe_course.bench import libraries

    if version in LIBRARIES:
        libraries.set_threads(spec["workers"])  # before the library starts its thread pool
        train = {"hf": libraries.train_hf, "rustbpe": libraries.train_rustbpe}[version]
    else:
        byo = libraries.load_trainer(version)

        def train(path, vocab_size, special_tokens):
            return byo(path, vocab_size, list(special_tokens))[1]

    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        merges = train(spec["corpus"], spec["vocab_size"], spec["special_tokens"])
    done = time.perf_counter()
    return {
        "pretokenize_s": math.nan,
        "merge_s": math.nan,
        "total_s": done - start,
        "peak_rss_mb": peak_rss_mb(),
        "peak_rss_children_mb": peak_rss_children_mb(),
        "merges": len(merges),
        "merges_sha": merges_sha(merges),
        "merges_hex": [[bytes(a).hex(), bytes(b).hex()] for a, b in merges],
    }


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and of its children that have ended: on a
    shared machine, the work done, which load does not inflate as it does wall time."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def _run_course_version(spec: dict) -> dict:
    trainer = get_trainer(spec["version"])
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan
    cpu = cpu_seconds()
    start = time.perf_counter()
    word_counts = trainer.count_words(
        spec["corpus"], spec["special_tokens"], workers=spec["workers"] if trainer.parallel else 1
    )
    pretokenized, cpu_pretokenized = time.perf_counter(), cpu_seconds()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, merges = trainer.merge_loop(word_counts, spec["vocab_size"], spec["special_tokens"])
    done = time.perf_counter()
    return {
        "pretokenize_s": pretokenized - start,
        "merge_s": done - pretokenized,
        "total_s": done - start,
        "cpu_s": cpu_seconds() - cpu,
        "merge_cpu_s": cpu_seconds() - cpu_pretokenized,
        "load_1m": load,  # the machine's load average as the run began
        "peak_rss_mb": peak_rss_mb(),
        "peak_rss_children_mb": peak_rss_children_mb(),
        "merges": len(merges),
        "words": len(word_counts),
        "merges_sha": merges_sha(merges),
    }


def merges_sha(merges) -> str:
    """A short hash of a merge list: equal lists, equal hashes."""
    as_bytes = [(bytes(a), bytes(b)) for a, b in merges]
    return hashlib.sha256(repr(as_bytes).encode()).hexdigest()[:16]


def peak_rss_children_mb() -> float:
    """The largest peak resident memory of any finished child process, in MB (0 without one).

    With n pool workers, everything together peaked below ``peak_rss_mb + n * this``.
    """
    if sys.platform == "win32":
        return math.nan
    import resource

    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return peak / 1e6 if sys.platform == "darwin" else peak / 1e3


PARENT_VARIABLE = "BPE_COURSE_BENCH_PARENT"  # the pid of the process that started a worker


def exit_with_benchmark() -> None:
    """End this worker, and the pool it may have started, if the benchmark that started it dies
    (in its own session, no Ctrl-C reaches it): see :func:`bpe_course.pool.exit_with_parent`."""
    exit_with_parent(int(os.environ.get(PARENT_VARIABLE) or os.getppid()))


if __name__ == "__main__":
    exit_with_benchmark()
    print(json.dumps(run(json.loads(sys.argv[1]))))
