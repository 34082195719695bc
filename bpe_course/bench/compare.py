"""Time every trainer on the same corpus and vocab size, side by side, and print ratios to V1.

    python -m bpe_course.bench.compare CORPUS --vocab-size 1000 5000 [--versions v1 v5] [--repeats 1]

CORPUS is a text file, a dataset name, or a size such as ``1MB`` for the course corpus. Each version is
timed end to end (pretokenization + merge loop) in this process, one after another, so the ratios
compare runs made on the same machine under the same load. The full benchmark (fresh processes,
memory, CSV, figures) is :mod:`bpe_course.bench.harness`.
"""

from __future__ import annotations

import argparse
import gc
import time
import warnings
from pathlib import Path

from bpe_course.api import train_bpe
from bpe_course.corpora.datasets import resolve_corpus
from bpe_course.pretokenize import END_OF_TEXT as EOT
from bpe_course.trainers import TRAINERS, VERSIONS


def time_versions(
    corpus: Path, vocab_size: int, versions: list[str], repeats: int = 1
) -> dict[str, float]:
    """Best-of-``repeats`` seconds per version; checks every version's merges against the first."""
    seconds: dict[str, float] = {}
    reference = None
    for version in versions:
        best = float("inf")
        for _ in range(repeats):
            gc.collect()
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = train_bpe(corpus, vocab_size, [EOT], version=version)
            best = min(best, time.perf_counter() - start)
        if reference is None:
            reference = result
        elif result != reference:
            raise AssertionError(f"{version} disagrees with {versions[0]}: a trainer is wrong")
        seconds[version] = best
    return seconds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bpe_course.bench.compare", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "corpus", help="a text file, a dataset name, or a size like 1MB for the course corpus"
    )
    parser.add_argument("--vocab-size", type=int, nargs="+", default=[1000])
    parser.add_argument("--versions", nargs="+", default=list(VERSIONS), choices=VERSIONS)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args(argv)
    corpus = resolve_corpus(args.corpus)
    size_mb = corpus.stat().st_size / 1e6
    print(f"corpus: {corpus.name} ({size_mb:.2f} MB)")
    header = f"{'vocab':>6} " + " ".join(f"{v:>16}" for v in args.versions)
    print(header)
    for vocab_size in args.vocab_size:
        seconds = time_versions(corpus, vocab_size, args.versions, args.repeats)
        base = seconds[args.versions[0]]
        cells = [f"{s:7.2f}s {base / s:6.1f}x" for s in seconds.values()]
        print(f"{vocab_size:>6} " + " ".join(f"{c:>16}" for c in cells), flush=True)
    print(f"ratios are to {TRAINERS[args.versions[0]].title}, same process, same run")


if __name__ == "__main__":
    main()
