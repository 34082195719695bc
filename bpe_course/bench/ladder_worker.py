"""One run of a ladder rung, in a fresh process: ``python -m bpe_course.bench.ladder_worker SPEC``.

SPEC is JSON: ``counts`` (a word-counts file written by :func:`bpe_course.bench.ladder.save_counts`),
``modules`` (optional: modules to import first, by name, so that a rung a student adds to
:data:`bpe_course.reference.ladder.RUNGS` in a module of their own exists in this process too),
``rung``, ``vocab_size``, ``points`` (vocab sizes at which to record the time), ``traced`` and
``budget_s``. A traced run records the time since the merge loop started (index and heap building
included) at every point, as wall time and as the process's CPU time (the loop runs on one thread,
so its CPU time is its cost; on a shared machine, wall time adds the waits for a core), from an ``on_merge`` callback that only appends a clock reading: so one
run to the largest vocab size gives the whole curve, since training to a vocab size is a prefix of
training to a larger one. A run past ``budget_s`` of CPU time stops at the next merge. An untraced run calls
the loop with no callback and reports its time alone, to check the traced times against.
Prints one JSON line: the points, hashes of the merges at checkpoints (every rung must agree),
the peak memory.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
import time
from pathlib import Path

from bpe_course.bench.worker import exit_with_benchmark, peak_rss_mb
from bpe_course.pretokenize import END_OF_TEXT
from bpe_course.reference.ladder import get_rung

CHECKPOINTS = (1000, 3000, 5000, 10000)
FIRST_ID = 256 + 1  # the bytes, then <|endoftext|>: the id of the first merged token


class _OverBudget(Exception):
    """Raised from the callback to stop a traced run past its budget."""


def load_counts(path: Path) -> dict[bytes, int]:
    """Word counts from a file of ``hex count`` lines (no pickle: nothing runs from a file)."""
    counts: dict[bytes, int] = {}
    with open(path, encoding="ascii") as lines:
        for line in lines:
            word, count = line.split()
            counts[bytes.fromhex(word)] = int(count)
    return counts


def merges_hashes(merges: list[tuple[bytes, bytes]]) -> dict[int, str]:
    """A hash of the merges up to each checkpoint vocab size the run reached."""
    digest, out = hashlib.sha256(), {}
    for index, (left, right) in enumerate(merges):
        digest.update(len(left).to_bytes(2, "big") + left + right)
        vocab = FIRST_ID + index + 1
        if vocab in CHECKPOINTS:
            out[vocab] = digest.hexdigest()[:16]
    return out


def run(spec: dict) -> dict:
    """One run of a rung: untraced, timed whole; traced, timed at each of ``spec["points"]``."""
    for module in spec.get("modules", ()):  # they add their rungs to RUNGS as they load
        importlib.import_module(module)
    word_counts = load_counts(Path(spec["counts"]))
    rung = get_rung(spec["rung"])
    vocab_size = int(spec["vocab_size"])
    if not spec["traced"]:
        start, start_cpu = time.perf_counter(), time.process_time()
        _, merges = rung.merge_loop(word_counts, vocab_size, [END_OF_TEXT])
        seconds, cpu_s = time.perf_counter() - start, time.process_time() - start_cpu
        points = [{"vocab_size": vocab_size, "seconds": seconds, "cpu_s": cpu_s}]
        stopped = "done"
    else:
        merges, points, stopped = _traced(rung, word_counts, vocab_size, spec)
    return {
        "points": points,
        "hashes": merges_hashes(merges),
        "stopped": stopped,
        "peak_rss_mb": peak_rss_mb(),
    }


def _traced(rung, word_counts: dict[bytes, int], vocab_size: int, spec: dict):
    """The merges, the points reached (time, CPU time, the heap's state) and how the run ended:
    ``"done"``, or ``"budget"`` once its CPU time passed ``spec["budget_s"]``."""
    wanted = set(spec["points"])
    budget = spec.get("budget_s") or float("inf")
    clock, cpu_clock = time.perf_counter, time.process_time
    merges: list[tuple[bytes, bytes]] = []
    points: list[dict] = []

    def record(event) -> None:
        now, cpu_now = clock() - start, cpu_clock() - start_cpu
        merges.append(event.pair)
        vocab = FIRST_ID + event.index + 1
        if vocab in wanted:
            heap = event.heap
            points.append(
                {
                    "vocab_size": vocab,
                    "seconds": now,
                    "cpu_s": cpu_now,
                    "heap_size": heap.size if heap else None,
                    "live_pairs": heap.live_pairs if heap else None,
                    "compactions": heap.compactions if heap else None,
                }
            )
        if cpu_now > budget:
            raise _OverBudget

    stopped = "done"
    start, start_cpu = clock(), cpu_clock()
    try:
        rung.merge_loop(word_counts, vocab_size, [END_OF_TEXT], on_merge=record)
    except _OverBudget:
        stopped = "budget"
    return merges, points, stopped


if __name__ == "__main__":
    exit_with_benchmark()
    print(json.dumps(run(json.loads(sys.argv[1]))))
