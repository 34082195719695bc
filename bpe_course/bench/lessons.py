"""The timings notebooks 05, 06 and 08 teach from, with repeats, and their full-size runs stored.

Each notebook runs the quick-size version live and shows the stored full-size one beside it
(``notebooks/results/lessons.csv``), measured once by

    nice -n 10 python -m bpe_course.bench.lessons --repeats 3 --csv notebooks/results/lessons.csv

- ``v1_by_vocab`` (05): V1's merge loop, the time to reach each vocab size. Training to a vocab
  size is a prefix of training to a larger one, so one run to the largest size, with the clock
  read at each smaller one, gives the whole curve.
- ``v0_v1`` (05), ``v1_v2`` (06) and ``v2_v4`` (08): two merge loops on the same word counts,
  in turn.

With ``--csv``, rows of lessons not measured this time are kept from the file.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from bpe_course.bench.repeat import kept_rounds, machine_note, time_in_turn
from bpe_course.corpora.datasets import corpus_source, course_corpus
from bpe_course.counting import count_words
from bpe_course.files import replaced_whole
from bpe_course.paths import notebooks_dir
from bpe_course.pretokenize import END_OF_TEXT
from bpe_course.trainers import get_trainer

SPECIALS = (END_OF_TEXT,)
# The full-size settings of the notebooks (their full mode), which the stored table holds.
FULL = {
    "v0_v1": ("500KB", (500,), ("v0", "v1")),
    "v1_by_vocab": ("1MB", (500, 1000, 2000, 3000), ("v1",)),
    "v1_v2": ("1MB", (2000,), ("v1", "v2")),
    "v2_v4": ("21.5MB", (5000,), ("v2", "v4")),
}


def time_to_vocab_sizes(
    version: str, word_counts: Mapping[bytes, int], vocab_sizes: Sequence[int]
) -> dict[int, float]:
    """Seconds from the start of one merge loop to each vocab size in ``vocab_sizes``."""
    first = 256 + len(SPECIALS)
    marks = {size - first: size for size in vocab_sizes}  # merges made -> vocab size
    reached: dict[int, float] = {}
    start = time.perf_counter()

    def mark(event) -> None:
        if event.index + 1 in marks:
            reached[marks[event.index + 1]] = time.perf_counter() - start

    get_trainer(version).merge_loop(word_counts, max(vocab_sizes), SPECIALS, on_merge=mark)
    return reached


def by_vocab(
    version: str,
    word_counts: Mapping[bytes, int],
    vocab_sizes: Sequence[int],
    repeats: int = 3,
    warmup: int = 1,
) -> pd.DataFrame:
    """:func:`time_to_vocab_sizes`, ``warmup + repeats`` times, warm-ups dropped: one row per
    (``vocab_size``, ``repeat``) with ``seconds``."""
    rounds = kept_rounds(
        lambda: time_to_vocab_sizes(version, word_counts, vocab_sizes), repeats, warmup
    )
    return pd.DataFrame(
        [
            {"job": version, "vocab_size": v, "repeat": repeat, "seconds": s}
            for repeat, reached in enumerate(rounds)
            for v, s in reached.items()
        ]
    )


def per_merge_ms(table: pd.DataFrame) -> pd.DataFrame:
    """From :func:`by_vocab`: the milliseconds per merge between consecutive vocab sizes, per
    repeat (``interval`` like ``"300-400"``). The set-up before the first size is left out."""
    rows = []
    for repeat, part in table.sort_values("vocab_size").groupby("repeat"):
        sizes, seconds = list(part["vocab_size"]), list(part["seconds"])
        for (a, ta), (b, tb) in zip(zip(sizes, seconds), zip(sizes[1:], seconds[1:])):
            ms = (tb - ta) / (b - a) * 1e3
            rows.append({"interval": f"{a}-{b}", "repeat": repeat, "ms_per_merge": ms})
    return pd.DataFrame(rows)


def side_by_side(
    versions: Sequence[str],
    word_counts: Mapping[bytes, int],
    vocab_size: int,
    repeats: int = 3,
    warmup: int = 1,
) -> pd.DataFrame:
    """The merge loops of ``versions`` on the same word counts, in turn within each round:
    ``job`` (the version), ``repeat``, ``seconds``."""
    jobs = {
        v: (lambda v=v: get_trainer(v).merge_loop(word_counts, vocab_size, SPECIALS))
        for v in versions
    }
    return time_in_turn(jobs, repeats, warmup).assign(vocab_size=vocab_size)


def stored_lesson(name: str) -> pd.DataFrame:
    """The rows of ``notebooks/results/lessons.csv`` for one lesson (see ``FULL``)."""
    table = pd.read_csv(notebooks_dir() / "results" / "lessons.csv")
    return table[table["lesson"] == name]


def measure(name: str, repeats: int = 3) -> pd.DataFrame:
    """One lesson of ``FULL`` at its full size, with where it was measured."""
    size, vocab_sizes, versions = FULL[name]
    word_counts = count_words(course_corpus(size), SPECIALS)
    if name == "v1_by_vocab":
        table = by_vocab(versions[0], word_counts, vocab_sizes, repeats)
    else:
        table = side_by_side(versions, word_counts, vocab_sizes[0], repeats)
    table.insert(0, "size", size)
    table.insert(0, "corpus", corpus_source())
    table.insert(0, "lesson", name)
    return table.assign(words=len(word_counts), **machine_note())


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bpe_course.bench.lessons",
        description="Time the lessons of notebooks 05, 06 and 08 at full size, with repeats.",
    )
    parser.add_argument("--lessons", nargs="+", default=list(FULL), choices=list(FULL))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--csv", type=Path, help="write the table here")
    parser.add_argument("--note", default="", help="how the machine was shared, for the table")
    args = parser.parse_args(argv)
    command = shlex.join(["python", "-m", "bpe_course.bench.lessons", *sys.argv[1:]])
    tables = []
    for name in args.lessons:
        table = measure(name, args.repeats).assign(command=command, note=args.note)
        keys = ["job", "vocab_size"]
        print(name, table.groupby(keys)["seconds"].agg(["median", "min", "max"]), sep="\n")
        tables.append(table)
    if args.csv:
        if args.csv.exists():  # keep the lessons not measured this time
            kept = pd.read_csv(args.csv)
            tables.insert(0, kept[~kept["lesson"].isin(args.lessons)])
        with replaced_whole(args.csv) as partial:  # a crash keeps the stored table whole
            pd.concat(tables, ignore_index=True).to_csv(partial, index=False)


if __name__ == "__main__":
    main()
