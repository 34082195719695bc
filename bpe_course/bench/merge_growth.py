"""How the fast merge loop's cost per merge changes as the vocabulary grows past 32,000.

    python -m bpe_course.bench.merge_growth CORPUS --vocab-size 50000 [--bucket 500] [--csv PATH]

Counts the words once (pieces, every core), then runs ``fast``'s merge loop in this process with a
callback that reads the CPU clock (``time.process_time``: the load of a shared machine does not
enter it) after every merge. One row per bucket of merges: the median CPU microseconds of a merge,
the mean of the distinct words it rewrote (``words_touched``), and the mean count of the merged
pair. A cost that stays flat while the words touched fall says the loop is bounded by a fixed cost
per merge (the heap, the bookkeeping), not by the rewriting.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

from bpe_course.corpora.datasets import resolve_corpus
from bpe_course.counting import count_words
from bpe_course.pretokenize import END_OF_TEXT
from bpe_course.trainers import fast


def per_merge_costs(word_counts: dict[bytes, int], vocab_size: int, bucket: int = 500):
    """The bucketed table described in the module docstring, for words already counted."""
    rows: list[tuple[int, float, int, int]] = []
    clock = [time.process_time()]

    def record(event) -> None:
        now = time.process_time()
        rows.append((event.index, now - clock[0], event.words_touched, event.count))
        clock[0] = time.process_time()  # the callback's own time is not charged to a merge

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a vocab larger than the corpus allows: fewer merges
        fast.merge_loop(word_counts, vocab_size, [END_OF_TEXT], on_merge=record)
    merges = pd.DataFrame(rows, columns=["merge", "cpu_s", "words_touched", "count"])
    merges["bucket"] = merges["merge"] // bucket * bucket
    table = merges.groupby("bucket").agg(
        merges=("merge", "size"),
        cpu_us_median=("cpu_s", lambda s: s.median() * 1e6),
        cpu_s_sum=("cpu_s", "sum"),
        words_touched_mean=("words_touched", "mean"),
        count_mean=("count", "mean"),
    )
    return table.reset_index().assign(words=len(word_counts))


def main(argv: list[str] | None = None) -> None:

    parser = argparse.ArgumentParser(
        prog="python -m bpe_course.bench.merge_growth", description=__doc__.split("\n")[0]
    )
    parser.add_argument("corpus", help="a text file, a dataset name, or a size like 21.5MB")
    parser.add_argument("--vocab-size", type=int, default=50_000)
    parser.add_argument("--bucket", type=int, default=500, help="merges per row")
    parser.add_argument("--workers", type=int, default=None, help="for counting (default: all)")
    parser.add_argument("--csv", default=None, metavar="PATH")
    args = parser.parse_args(argv)
    corpus = resolve_corpus(args.corpus)
    word_counts = count_words(corpus, [END_OF_TEXT], args.workers, counter="pieces")
    table = per_merge_costs(word_counts, args.vocab_size, args.bucket)
    arguments = sys.argv[1:] if argv is None else argv
    table["corpus"] = corpus.name
    table["command"] = shlex.join(["python", "-m", "bpe_course.bench.merge_growth", *arguments])
    print(table.drop(columns=["command"]).to_string(index=False))
    if args.csv:
        Path(args.csv).parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.csv, index=False)
        print(args.csv)


if __name__ == "__main__":
    main()
