"""Reading a benchmark table the way notebook 13 does: ratios of runs made side by side, and what
each change from V5 to the fast trainer bought.

On a shared machine a burst of load can slow one run and spare the next; the harness runs the
versions in turn within each repeat, so the ratio of two versions *in the same repeat* is the
number to trust, and its median over the repeats is what the course reports (with the spread).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from bpe_course.counting import count_words

# The steps from V5 to the fast trainer, each one change: (name, the phase it swaps, the version
# that phase came from, the version it comes from after the step).
STEPS = (
    ("count pieces, then the pattern", "pretokenize_s", "v5", "fast"),
    ("merge sites, words as str", "merge_s", "v5", "sites"),
    ("fast's merge loop (its five changes)", "merge_s", "sites", "fast"),
)


def paired_ratios(table: pd.DataFrame, version: str, reference: str, metric: str = "total_s"):
    """``version`` time / ``reference`` time per repeat, in the same cell; median, min and max
    over the repeats, one row per (corpus, size, vocab)."""
    ok = table[table["status"] == "ok"]
    keys = ["corpus", "size_bytes", "size", "vocab_size", "repeat"]
    wide = ok.pivot_table(index=keys, columns="version", values=metric, aggfunc="first")
    if version not in wide or reference not in wide:
        return pd.DataFrame()
    ratio = (wide[version] / wide[reference]).dropna().rename("ratio").reset_index()
    grouped = ratio.groupby(["corpus", "size_bytes", "size", "vocab_size"])["ratio"]
    out = grouped.agg(["median", "min", "max", "count"]).reset_index()
    return out.rename(columns={"count": "repeats"})


def what_each_change_bought(table: pd.DataFrame, size_bytes: int, vocab_size: int) -> pd.DataFrame:
    """The waterfall from V5 to fast at one cell, from the medians of V5, sites and fast:

    V5 end to end; then the pieces' pretokenization (fast's) in place of the pattern's (V5's); then
    the sites merge loop in place of V5's; then the flat-array loop (fast's) in place of sites'.
    Columns: ``step``, ``seconds`` (the end-to-end time after the step), ``saved``, and the range
    of the saving, ``saved_low`` to ``saved_high``: the phase swapped out at its fastest run
    against the new one at its slowest, and the other way round (a ``saved_low`` at or below 0:
    the runs overlap, the step is not resolved).
    """
    ok = table[
        (table["status"] == "ok")
        & (table["size_bytes"] == size_bytes)
        & (table["vocab_size"] == vocab_size)
    ]
    phases = ok.groupby("version")[["pretokenize_s", "merge_s"]]
    median, low, high = phases.median(), phases.min(), phases.max()
    needed = {"v5", "sites", "fast"}
    if not needed <= set(median.index):
        return pd.DataFrame(columns=["step", "seconds", "saved", "saved_low", "saved_high"])
    current = {phase: median.loc["v5", phase] for phase in ("pretokenize_s", "merge_s")}
    rows = [("V5", sum(current.values()), 0.0, 0.0)]
    for step, phase, before, after in STEPS:
        current[phase] = median.loc[after, phase]
        saved_low = low.loc[before, phase] - high.loc[after, phase]
        saved_high = high.loc[before, phase] - low.loc[after, phase]
        rows.append((step, sum(current.values()), saved_low, saved_high))
    steps = pd.DataFrame(rows, columns=["step", "seconds", "saved_low", "saved_high"])
    steps.insert(2, "saved", -steps["seconds"].diff().fillna(0.0))
    return steps


def pretokenize_scaling(
    path: str | os.PathLike[str],
    workers: tuple[int, ...] = (1, 2),
    repeats: int = 3,
    special_tokens: Sequence[str] = ("<|endoftext|>",),
) -> pd.DataFrame:
    """Seconds to count a file's words by pieces with each number of workers, in turn within each
    repeat, plus the CPU seconds of this process and its workers (load shows as wall > CPU / n)."""

    rows = []
    for repeat in range(repeats):
        for n in workers:
            before, start = os.times(), time.perf_counter()
            count_words(path, list(special_tokens), workers=n, counter="pieces")
            seconds, after = time.perf_counter() - start, os.times()
            cpu = sum(after[:4]) - sum(before[:4])  # user + system, self and waited-for children
            rows.append({"workers": n, "repeat": repeat, "seconds": seconds, "cpu_s": cpu})
    return pd.DataFrame(rows)


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m bpe_course.bench.beyond FILE``: 1 worker against 2 on one file's pretokenization."""
    parser = argparse.ArgumentParser(
        prog="python -m bpe_course.bench.beyond",
        description="Time counting a file's words by pieces with 1 and with 2 workers, in turn "
        "within each repeat, and print the speed-up of 2 over 1 per repeat.",
    )
    parser.add_argument("file", type=Path, help="a UTF-8 text file (100 MB or more shows the pool)")
    parser.add_argument("--repeats", type=int, default=3, help="default: 3")
    args = parser.parse_args(argv)
    if not args.file.is_file():
        parser.error(f"{args.file} is not a file: give the path of a UTF-8 text corpus")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    table = pretokenize_scaling(args.file, repeats=args.repeats)
    wide = table.pivot(index="repeat", columns="workers", values="seconds")
    print(table.to_string(index=False))
    print(f"speed-up of 2 workers over 1, per repeat: {(wide[1] / wide[2]).round(2).tolist()}")


if __name__ == "__main__":
    main()
