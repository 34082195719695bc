"""Where merge workers pay: the sharded trainer beside fast and V5, and the costs that explain it.

``python -m bpe_course.bench.shards grid`` runs the harness's grid (both corpus shapes, 21.5 MB
and 500 MB, four vocab sizes, 3 repeats) into ``notebooks/results/shards.csv``.
``python -m bpe_course.bench.shards costs`` measures what notebook 13's model needs, into
``notebooks/results/shards_costs.csv`` and ``shards_trace.csv``:

- the round trip of one merge message to ``N`` workers and back, timed on merges no shard holds
  (so no work is done: what is left is pickling, the pipes and the wake-ups);
- per merge, the words it rewrote and its wall time, in fast and in shards on 2 workers that never
  switch (traces of the merge loop, like :func:`bpe_course.bench.trace.merge_trace`); a line
  fitted through them gives the work per word rewritten;
- the one-off costs of shards: starting and indexing the shards, and bringing them home.
Each row records the load average: the machine is shared, and load inflates every wall time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd

from bpe_course.bench.grids import Grid
from bpe_course.bench.harness import run_grid
from bpe_course.bench.tables import append_row
from bpe_course.corpora.datasets import course_corpus, parse_size, size_label
from bpe_course.counting import count_words
from bpe_course.paths import notebooks_dir
from bpe_course.pretokenize import END_OF_TEXT as EOT
from bpe_course.trainers import fast, shards

GRID = Grid(("shards", "fast", "v5"), ("21.5MB", "500MB"), (1000, 5000, 10000, 32768), 3, 900)
CORPORA = ("stories", "wide")
TRACE_VOCAB = 32768  # every smaller vocab's merges are a prefix of these
TRACE_MIN_WORDS = 20  # merges rewriting fewer words are stored as one summary row
ROUND_TRIP_WORKERS = (1, 2, 4)


def load() -> float:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def round_trip_s(workers: int, merges: int = 2000) -> float:
    """Median wall seconds of one merge message to ``workers`` workers and back, doing no work."""
    words = [bytes([97 + i % 26, 98]) for i in range(workers)]  # one word per worker
    with shards.WordShards(words, [1] * workers, 512, workers) as held:
        pair_counts = held.pair_counts()
        times = []
        for _ in range(merges):
            start = time.perf_counter()
            held.merge(-1, 0, 0, 511, pair_counts, False)  # no shard holds pair -1
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def trace(word_counts: dict[bytes, int], version: str, vocab_size: int) -> pd.DataFrame:
    """Per merge: words rewritten and wall seconds (merge 1's include the set-up before it:
    building the index, or starting and indexing the shards)."""
    rows, clock = [], [time.perf_counter()]

    def record(event) -> None:
        now = time.perf_counter()
        rows.append((event.index + 1, event.words_touched, now - clock[0]))
        clock[0] = time.perf_counter()

    if version == "fast":
        fast.merge_loop(word_counts, vocab_size, [EOT], on_merge=record)
    else:
        shards.merge_loop(word_counts, vocab_size, [EOT], on_merge=record, switch_sites=0)
    return pd.DataFrame(rows, columns=["merge", "words_touched", "seconds"])


def one_off_costs(word_counts: dict[bytes, int], workers: int = 2) -> dict[str, float]:
    """Seconds to start and index the shards, and to bring them all home (before any merge, when
    they hold the most: the upper bound of the switch's cost)."""
    words = [w for w in word_counts if len(w) > 1]
    start = time.perf_counter()
    held = shards.WordShards(words, [word_counts[w] for w in words], TRACE_VOCAB, workers)
    with held:
        held.pair_counts()
        indexed = time.perf_counter()
        held.bring_home()
        home = time.perf_counter()
    return {"setup_s": indexed - start, "home_s": home - indexed}


def compact(table: pd.DataFrame) -> pd.DataFrame:
    """The merges that rewrote at least ``TRACE_MIN_WORDS`` words, and one row (``merge`` -1)
    summing the others: their count in ``words_touched`` and their seconds."""
    big = table[table["words_touched"] >= TRACE_MIN_WORDS]
    small = table[table["words_touched"] < TRACE_MIN_WORDS]
    rest = pd.DataFrame(
        [{"merge": -1, "words_touched": len(small), "seconds": small.seconds.sum()}]
    )
    return pd.concat([big, rest], ignore_index=True)


def measure_costs(results: Path, sizes: tuple[str, ...] = GRID.sizes) -> None:
    costs_csv, trace_csv = results / "shards_costs.csv", results / "shards_trace.csv"
    for workers in ROUND_TRIP_WORKERS:
        row = {"corpus": "", "size": "", "quantity": "round_trip_s", "workers": workers}
        append_row(costs_csv, {**row, "load_1m": load(), "value": round_trip_s(workers)})
    for size in sorted(sizes, key=parse_size):
        for corpus in CORPORA:
            word_counts = count_words(course_corpus(size, corpus), [EOT], 2, counter="pieces")
            where = {"corpus": corpus, "size": size_label(parse_size(size))}
            for quantity, value in one_off_costs(word_counts).items():
                row = {**where, "quantity": quantity, "workers": 2, "load_1m": load()}
                append_row(costs_csv, {**row, "value": value})
            for version in ("fast", "shards"):
                began = load()
                table = compact(trace(word_counts, version, TRACE_VOCAB))
                table.insert(0, "version", version)
                for key, value in reversed(where.items()):
                    table.insert(0, key, value)
                table["load_1m"] = round(began, 2)
                table["seconds"] = table["seconds"].round(7)  # 0.1 us: far below the noise
                header = not trace_csv.exists()
                table.to_csv(trace_csv, mode="a", header=header, index=False)


def per_word_fit(trace: pd.DataFrame) -> tuple[float, float]:
    """``seconds ~ fixed + per_word * words_touched`` by least squares over the traced merges."""
    merges = trace[trace["merge"] > 1]  # not the summary row, nor merge 1 (it holds the set-up)
    per_word, fixed = np.polyfit(merges["words_touched"], merges["seconds"], 1)
    return float(fixed), float(per_word)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["grid", "costs"])
    parser.add_argument("--sizes", nargs="+", default=list(GRID.sizes))
    parser.add_argument("--repeats", type=int, default=GRID.repeats)
    parser.add_argument("--vocab-sizes", type=int, nargs="+", default=list(GRID.vocab_sizes))
    parser.add_argument("--versions", nargs="+", default=list(GRID.versions))
    args = parser.parse_args(argv)
    results = notebooks_dir() / "results"
    if args.what == "costs":
        measure_costs(results, tuple(args.sizes))
        return
    # Each size on both shapes before the next size; V5 on 500 MB at the smallest vocab only, last
    # (its pattern, the same at every vocab size, is what its time there is made of).
    vocabs = tuple(args.vocab_sizes)
    for size in sorted(args.sizes, key=parse_size):
        big = parse_size(size) > parse_size("100MB")
        versions = tuple(v for v in args.versions if not (big and v == "v5"))
        grid = Grid(versions, (size,), vocabs, args.repeats, GRID.timeout_s)
        for corpus in CORPORA:
            run_grid(grid, results / "shards.csv", corpus=corpus, workers=2)
    for size in [s for s in args.sizes if parse_size(s) > parse_size("100MB")]:
        if "v5" not in args.versions:
            break
        grid = Grid(("v5",), (size,), vocabs[:1], args.repeats, GRID.timeout_s)
        for corpus in CORPORA:
            run_grid(grid, results / "shards.csv", corpus=corpus, workers=2)


if __name__ == "__main__":
    main()


# --- The model: where would merge workers pay on N cores? ---------------------------------------


def round_trip_model(costs: pd.DataFrame) -> tuple[float, float]:
    """``R(N) = fixed + per_worker * N``, fitted to the measured round trips (the parent pickles
    and sends N messages, then reads N answers, one after another). A line whose intercept comes
    out below zero (a round trip cannot cost less than nothing) is fitted again through the
    origin, ``fixed = 0``: :func:`free_round_trip_line` gives the line before that."""
    fixed, per_worker = free_round_trip_line(costs)
    if fixed >= 0:
        return fixed, per_worker
    trips = costs[costs["quantity"] == "round_trip_s"]
    workers = trips["workers"].astype(float).to_numpy()
    values = trips["value"].astype(float).to_numpy()
    return 0.0, float((workers * values).sum() / (workers * workers).sum())


def free_round_trip_line(costs: pd.DataFrame) -> tuple[float, float]:
    """``(fixed, per_worker)`` of the least-squares line through the measured round trips, with
    nothing imposed on the intercept."""
    trips = costs[costs["quantity"] == "round_trip_s"]
    per_worker, fixed = np.polyfit(trips["workers"].astype(float), trips["value"], 1)
    return float(fixed), float(per_worker)


def work_per_word(trace: pd.DataFrame, min_words: int = 500) -> float:
    """Seconds per word rewritten in fast's big merges (at least ``min_words`` words, merge 1 and
    its set-up left out): the work a worker would share."""
    big = trace[(trace["merge"] > 1) & (trace["words_touched"] >= min_words)]
    return float(big["seconds"].sum() / big["words_touched"].sum())


def predict(
    trace: pd.DataFrame,
    costs: pd.DataFrame,
    fast_merge_s: float,
    merges: int,
    cores: int,
    round_trip: tuple[float, float] | None = None,
) -> dict[str, float]:
    """The sharded merge loop's time on ``cores`` workers, from fast's trace of one workload.

    Assumptions: a merge of ``t`` words costs fast ``w t`` (:func:`work_per_word`), and on ``N``
    workers ``R(N) + w t / N``: the work splits evenly, the parent's share is nothing, nothing
    else runs on the machine. The switch is ideal: a merge goes to the workers only when that
    saves time. Paid once: starting and indexing the shards and bringing them home, as measured
    on this workload with 2 workers (fast's own index, inside its time, is not taken off).
    """
    fixed, per_worker = round_trip or round_trip_model(costs)
    trip = fixed + per_worker * cores
    w = work_per_word(trace)
    words = trace[(trace["merge"] >= 1) & (trace["merge"] <= merges)]["words_touched"]
    saved = (w * words * (1 - 1 / cores) - trip).clip(lower=0)
    paying = int((saved > 0).sum())
    one_off = costs[costs["quantity"].isin(["setup_s", "home_s"])]["value"].sum() if paying else 0
    predicted = fast_merge_s - float(saved.sum()) + float(one_off)
    return {
        "cores": cores,
        "round_trip_s": trip,
        "break_even_words": trip / (w * (1 - 1 / cores)),
        "merges_paying": paying,
        "saved_s": float(saved.sum()),
        "one_off_s": float(one_off),
        "merge_s": predicted,
        "speedup": fast_merge_s / predicted,
    }
