"""``bpe-course encode``: a corpus to a ``.npy`` array of token ids, with a trained tokenizer."""

from __future__ import annotations

import argparse
import sys

from bpe_course.cli.train import check_tokens_are_utf8
from bpe_course.errors import BPEInputError


def add_encode_command(commands) -> None:
    encode = commands.add_parser(
        "encode",
        help="encode a corpus into a .npy array of token ids with a saved tokenizer",
        description="Encode text files (or .gz, directories, glob patterns) with the tokenizer "
        "saved in a folder (vocab.json and merges.txt, as `train -o` writes them) into one .npy "
        "array of ids, the files one after the other: uint16 when the vocabulary fits, else "
        "uint32. The ids equal Tokenizer.encode's (and tiktoken's) for every file, for any "
        "number of workers. Prints the compression ratio and the throughput.",
    )
    encode.add_argument("corpus", nargs="+", help="UTF-8 text files (or .gz), folders, globs")
    encode.add_argument(
        "--tokenizer", required=True, metavar="DIR", help="folder holding vocab.json, merges.txt"
    )
    encode.add_argument(
        "-o", "--output", required=True, metavar="IDS.npy", help="the .npy file to write"
    )
    encode.add_argument(
        "--special-token",
        action="append",
        default=None,
        metavar="T",
        help="a special token; repeat for more (default: the entries of vocab.json that no "
        "merge makes, such as <|endoftext|>)",
    )
    encode.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    encode.set_defaults(run=run_encode)


def run_encode(args: argparse.Namespace) -> int:
    from bpe_course.encoding import encode_corpus
    from bpe_course.tokenizer import Tokenizer

    check_tokens_are_utf8(args.special_token or [])
    if args.workers is not None and args.workers < 1:
        raise BPEInputError(f"--workers must be at least 1, not {args.workers}")
    tokenizer = Tokenizer.from_folder(args.tokenizer, args.special_token)
    report = encode_corpus(
        args.corpus,
        tokenizer,
        args.output,
        workers=args.workers,
        progress=sys.stderr.isatty(),
    )
    fits = (
        "the vocabulary fits in 16 bits"
        if report.dtype == "uint16"
        else (f"ids up to {max(tokenizer.vocab)} need more than 16 bits")
    )
    specials = ", ".join(tokenizer.special_tokens) or "none"
    print(
        f"{report.text_bytes:,} bytes -> {report.tokens:,} tokens: "
        f"{report.bytes_per_token:.2f} bytes per token"
    )
    print(
        f"{report.seconds:.2f} s, {report.megabytes_per_second:.1f} MB/s on {report.workers} "
        f"worker(s); special tokens: {specials}"
    )
    print(f"ids as {report.dtype} ({fits}); vocabulary of {report.vocab_size:,} tokens")
    print(report.path)
    return 0
