"""``bpe-course train``: train a tokenizer on a corpus and save it in GPT-2's format."""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

from bpe_course.errors import BPEInputError


def add_train_command(commands) -> None:
    from bpe_course.trainers import ALL_TRAINERS

    train = commands.add_parser(
        "train", help="train a tokenizer on a text file and save it in GPT-2's format"
    )
    train.add_argument(
        "corpus",
        nargs="+",
        help="UTF-8 text files (or .gz), directories of them, glob patterns, a downloaded "
        "dataset's name, or a size like 5MB (course corpus); the words of all are counted together",
    )
    train.add_argument(
        "--vocab-size",
        type=int,
        required=True,
        help="total vocabulary size (256 bytes + special tokens + merges)",
    )
    train.add_argument(
        "--special-token",
        action="append",
        default=[],
        metavar="T",
        help="a special token; repeat for more (default: none)",
    )
    train.add_argument(
        "--version", default="v5", choices=list(ALL_TRAINERS), help="which trainer (default: v5)"
    )
    train.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes for pretokenization, or of a local Dask cluster (default: all cores)",
    )
    train.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="count the words on a Dask cluster: 'local' starts one here (--workers processes), "
        "an address like tcp://host:8786 uses a running one (needs the cluster extra: "
        "pip install 'bpe_course[cluster]')",
    )
    train.add_argument(
        "-o", "--output", default=None, metavar="DIR", help="write vocab.json and merges.txt here"
    )
    train.set_defaults(run=run_train)


def check_tokens_are_utf8(tokens: list[str]) -> None:
    """One line for a special token that is not UTF-8: the shell passes bytes, and Python keeps
    the bytes it cannot decode as surrogates, which fail only when encoded."""
    for token in tokens:
        try:
            token.encode("utf-8")
        except UnicodeEncodeError:
            raise BPEInputError(
                f"the special token {os.fsencode(token)!r} is not valid UTF-8"
            ) from None


def run_train(args: argparse.Namespace) -> int:
    from bpe_course.api import train_bpe
    from bpe_course.corpora.datasets import resolve_corpus
    from bpe_course.formats import check_output_folder, save_gpt2

    check_tokens_are_utf8(args.special_token)
    if args.output:
        check_output_folder(args.output)  # before training, not after it
    timings: dict[str, float] = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vocab, merges = train_bpe(
            [_resolve(item, resolve_corpus) for item in args.corpus],
            args.vocab_size,
            args.special_token,
            version=args.version,
            workers=args.workers,
            scheduler=args.scheduler,
            progress=sys.stderr.isatty(),
            timings=timings,
        )
    for warning in caught:
        print(f"bpe-course: warning: {warning.message}", file=sys.stderr)
    longest = sorted(vocab.values(), key=len, reverse=True)[:5]
    print(
        f"{len(merges)} merges with {args.version}; vocabulary of {len(vocab)} tokens; "
        f"pretokenize {timings['pretokenize_s']:.2f} s, merges {timings['merge_s']:.2f} s"
    )
    print(
        "longest tokens: " + ", ".join(repr(t.decode("utf-8", errors="replace")) for t in longest)
    )
    if args.output:
        for path in save_gpt2(vocab, merges, args.output):
            print(path)
    return 0


def _resolve(item: str, resolve_corpus) -> str | Path:
    """A glob pattern or a directory is passed on as it is; anything else as ``resolve_corpus``
    reads it (a file, a dataset name, a size)."""
    if Path(item).is_dir() or (not Path(item).exists() and set("*?[") & set(item)):
        return item
    return resolve_corpus(item)
