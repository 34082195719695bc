"""The command line: ``python -m bpe_course`` (also installed as ``bpe-course``).

Errors a user can cause are one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

from bpe_course.errors import BPEInputError


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    try:
        return args.run(args) or 0
    except (BPEInputError, FileNotFoundError) as err:
        print(f"bpe-course: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bpe-course: interrupted", file=sys.stderr)
        return 130


def build_parser() -> argparse.ArgumentParser:
    from bpe_course.trainers import VERSIONS

    parser = argparse.ArgumentParser(
        prog="bpe-course", description="Train byte-level BPE tokenizers, and run the course."
    )
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    train = commands.add_parser(
        "train", help="train a tokenizer on a text file and save it in GPT-2's format"
    )
    train.add_argument("corpus", help="path of a UTF-8 text file")
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
        "--version", default="v5", choices=VERSIONS, help="which trainer (default: v5)"
    )
    train.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes for pretokenization (default: all cores)",
    )
    train.add_argument(
        "-o", "--output", default=None, metavar="DIR", help="write vocab.json and merges.txt here"
    )
    train.set_defaults(run=run_train)

    course = commands.add_parser(
        "course", help="execute the notebooks headlessly and write the figures"
    )
    course.add_argument(
        "--full",
        action="store_true",
        help="full mode: real corpus sizes and the full benchmark grid",
    )
    course.add_argument(
        "--only", nargs="*", metavar="NAME", help="run only notebooks whose file names contain NAME"
    )
    course.set_defaults(run=run_course)
    return parser


def run_train(args: argparse.Namespace) -> int:
    from bpe_course.api import train_bpe
    from bpe_course.formats import save_gpt2

    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vocab, merges = train_bpe(
            args.corpus,
            args.vocab_size,
            args.special_token,
            version=args.version,
            workers=args.workers,
            progress=sys.stderr.isatty(),
        )
    elapsed = time.perf_counter() - start
    for warning in caught:
        print(f"bpe-course: warning: {warning.message}", file=sys.stderr)
    longest = sorted(vocab.values(), key=len, reverse=True)[:5]
    print(
        f"{len(merges)} merges with {args.version} in {elapsed:.2f} s; vocabulary of {len(vocab)} tokens"
    )
    print(
        "longest tokens: " + ", ".join(repr(t.decode("utf-8", errors="replace")) for t in longest)
    )
    if args.output:
        for path in save_gpt2(vocab, merges, args.output):
            print(path)
    return 0


def run_course(args: argparse.Namespace) -> int:
    from bpe_course.course import run_course as execute

    execute(quick=not args.full, only=args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
