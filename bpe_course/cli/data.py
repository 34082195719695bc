"""``bpe-course data``: list, download, generate and slice corpora."""

from __future__ import annotations

import argparse


def add_data_commands(commands) -> None:
    data = commands.add_parser(
        "data",
        help="list, download, generate and slice corpora",
        description="Corpora live in data/ (BPE_COURSE_DATA overrides). Each command prints the "
        "resulting file's path as its last line.",
    )
    actions = data.add_subparsers(title="actions", metavar="ACTION")
    listing = actions.add_parser("list", help="the datasets known, and what is in data/")
    listing.set_defaults(run=run_data_list)
    add_fetch_action(actions)
    add_generate_action(actions)
    add_dictionary_action(actions)
    add_slice_action(actions)
    data.set_defaults(run=lambda args: data.print_help() or 2)


def add_fetch_action(actions) -> None:
    fetch = actions.add_parser(
        "fetch", help="download a dataset into data/ (resumes, verifies, then renames)"
    )
    fetch.add_argument("name", help="a dataset name from `data list`")
    fetch.add_argument("--url", default=None, help="download from this URL instead (a mirror)")
    fetch.set_defaults(run=run_data_fetch)


def add_generate_action(actions) -> None:
    generate = actions.add_parser(
        "generate",
        help="write an offline corpus of real English words (no network needed)",
        description="Write a corpus generated from the package's word list: children's stories "
        "shaped like TinyStories (--shape stories, the default) or encyclopedic articles with "
        "many times the distinct words (--shape wide; notebook 04 measures how many), or text whose "
        "distinct words keep growing with its size as real text's do (--shape growing). Streamed "
        "in bounded memory with a progress bar; written to a .partial file, renamed when whole. "
        "The same seed gives the same bytes.",
    )
    generate.add_argument("--size", required=True, help="like 5MB, 21.5MB or 2.1GB (decimal units)")
    generate.add_argument(
        "--shape",
        default="stories",
        choices=["stories", "wide", "growing"],
        help="default: stories",
    )
    generate.add_argument("--seed", type=int, default=0, help="random seed, 0 or more (default: 0)")
    generate.set_defaults(run=run_data_generate)


def add_dictionary_action(actions) -> None:
    dictionary = actions.add_parser(
        "dictionary",
        help="real English from a dictd dictionary on this machine (no network needed)",
        description="Write the entries of a dictd dictionary, lines stripped, joined by "
        "<|endoftext|>, up to a size: real text with many distinct pieces (punctuation, "
        "capitals, numbers). Default: Debian's GNU Collaborative International Dictionary of "
        "English (apt-get install dict-gcide).",
    )
    dictionary.add_argument("--size", required=True, help="like 21MB (decimal units)")
    dictionary.add_argument(
        "--source",
        default=None,
        help="a dictd dictionary without its suffixes (default: /usr/share/dictd/gcide)",
    )
    dictionary.set_defaults(run=run_data_dictionary)


def add_slice_action(actions) -> None:
    slicing = actions.add_parser(
        "slice", help="a prefix of a corpus ending on a document boundary, cached in data/"
    )
    slicing.add_argument("corpus", help="a text file or a downloaded dataset's name")
    slicing.add_argument("--size", required=True, help="like 5MB or 21.5MB (decimal megabytes)")
    slicing.set_defaults(run=run_data_slice)


def run_data_list(args: argparse.Namespace) -> int:
    from bpe_course.corpora.datasets import DATASETS
    from bpe_course.paths import data_dir

    folder = data_dir()
    for dataset in DATASETS.values():
        here = (folder / dataset.filename).exists()
        size = f"{dataset.size / 1e6:.1f} MB" if dataset.size else "size not published"
        print(f"{dataset.name:<20} {size:<20} {'downloaded' if here else 'not downloaded'}")
        print(f"{'':<20} {dataset.url}\n{'':<20} licence: {dataset.licence}")
    from bpe_course.corpora.generate import SHAPES
    from bpe_course.corpora.lexicon import LICENCE, SOURCES

    for shape, (_, description) in SHAPES.items():
        print(f"{shape:<20} {'generated offline':<20} `data generate --shape {shape}`")
        print(f"{'':<20} {description}")
    print(f"{'':<20} words from: " + "; ".join(SOURCES))
    print(f"{'':<20} licence: {LICENCE}")
    files = sorted(p.name for p in folder.glob("*.txt")) if folder.exists() else []
    print(f"in {folder}: " + (", ".join(files) if files else "no corpus yet"))
    print(folder)
    return 0


def run_data_fetch(args: argparse.Namespace) -> int:
    import sys
    import warnings

    from bpe_course.corpora.download import fetch

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        path = fetch(args.name, url=args.url, progress=True)
    for warning in caught:
        print(f"bpe-course: warning: {warning.message}", file=sys.stderr)
    print(path)
    return 0


def run_data_generate(args: argparse.Namespace) -> int:
    import sys

    from bpe_course.corpora.datasets import generated_corpus

    print(generated_corpus(args.size, args.seed, args.shape, progress=sys.stderr.isatty()))
    return 0


def run_data_dictionary(args: argparse.Namespace) -> int:
    from pathlib import Path

    from bpe_course.corpora.datasets import _writable_data_dir, parse_size, size_label
    from bpe_course.corpora.dictd import GCIDE, write_dictd_corpus

    source = GCIDE if args.source is None else Path(args.source)
    size = parse_size(args.size)
    path = _writable_data_dir() / f"{source.name}-{size_label(size)}.txt"
    print(path if path.exists() else write_dictd_corpus(path, size, source))
    return 0


def run_data_slice(args: argparse.Namespace) -> int:
    from bpe_course.corpora.datasets import DATASETS, resolve_corpus, slice_corpus

    if args.corpus not in DATASETS:
        from bpe_course.api import check_corpus_path

        check_corpus_path(args.corpus)
    print(slice_corpus(resolve_corpus(args.corpus), args.size))
    return 0
