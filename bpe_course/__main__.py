"""The command line: ``python -m bpe_course`` (also installed as ``bpe-course``).

Errors a user can cause are one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
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
    except RuntimeError as err:  # a benchmark mismatch or a failed run: not the user's doing
        print(f"bpe-course: failed: {err}", file=sys.stderr)
        return 1
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
    train.add_argument(
        "corpus",
        help="a UTF-8 text file, a downloaded dataset's name, or a size like 5MB (course corpus)",
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

    add_data_commands(commands)
    add_bench_commands(commands)

    course = commands.add_parser(
        "course",
        help="execute the notebooks headlessly and write the figures (the main job)",
        description="Execute every notebook in a fresh kernel (quick mode unless --full); the "
        "executed copies go to build/notebooks/, the figures to figures/.",
    )
    course.add_argument(
        "--full",
        action="store_true",
        help="full mode: the course corpus sizes (1-21.5 MB) and the full benchmark grid",
    )
    course.add_argument(
        "--only", nargs="*", metavar="NAME", help="run only notebooks whose file names contain NAME"
    )
    course.set_defaults(run=run_course)
    return parser


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
    fetch = actions.add_parser(
        "fetch", help="download a dataset into data/ (resumes, verifies, then renames)"
    )
    fetch.add_argument("name", help="a dataset name from `data list`")
    fetch.add_argument("--url", default=None, help="download from this URL instead (a mirror)")
    fetch.set_defaults(run=run_data_fetch)
    generate = actions.add_parser(
        "generate", help="write the offline corpus of generated stories (no network needed)"
    )
    generate.add_argument("--size", required=True, help="like 5MB or 21.5MB (decimal megabytes)")
    generate.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    generate.set_defaults(run=run_data_generate)
    slicing = actions.add_parser(
        "slice", help="a prefix of a corpus ending on a document boundary, cached in data/"
    )
    slicing.add_argument("corpus", help="a text file or a downloaded dataset's name")
    slicing.add_argument("--size", required=True, help="like 5MB or 21.5MB (decimal megabytes)")
    slicing.set_defaults(run=run_data_slice)
    data.set_defaults(run=lambda args: data.print_help() or 2)


def add_bench_commands(commands) -> None:
    from bpe_course.bench import GRIDS
    from bpe_course.trainers import VERSIONS

    bench = commands.add_parser(
        "bench",
        help="run a benchmark grid (each run in a fresh process) into a CSV",
        description="Run a grid of versions x corpus sizes x vocab sizes x repeats. Rows are "
        "appended to the CSV as they finish; rerunning the same command resumes. Grids: "
        + "; ".join(
            f"{name}: {', '.join(g.versions)} on {', '.join(g.sizes)}, vocab "
            f"{', '.join(map(str, g.vocab_sizes))}, {g.repeats} repeat(s)"
            for name, g in GRIDS.items()
        ),
    )
    which = bench.add_mutually_exclusive_group()
    which.add_argument("--quick", action="store_true", help="the quick grid (the default)")
    which.add_argument("--grid", choices=list(GRIDS), help="a named grid")
    bench.add_argument("--versions", nargs="+", choices=VERSIONS, help="override the versions")
    bench.add_argument("--sizes", nargs="+", metavar="SIZE", help="override the corpus sizes")
    bench.add_argument(
        "--vocab-sizes", nargs="+", type=int, metavar="N", help="override the vocab sizes"
    )
    bench.add_argument("--repeats", type=int, help="override the repeats")
    bench.add_argument("--timeout", type=float, help="seconds allowed per run")
    bench.add_argument(
        "--corpus", choices=["tinystories", "generated"], help="default: BPE_COURSE_CORPUS"
    )
    bench.add_argument("--workers", type=int, default=2, help="pretokenization processes (V3+)")
    bench.add_argument(
        "--csv", default=None, metavar="PATH", help="default: build/bench/GRID-CORPUS.csv"
    )
    bench.add_argument("--rerun", action="store_true", help="rerun cells already in the CSV")
    bench.set_defaults(run=run_bench)

    plot = commands.add_parser(
        "plot",
        help="draw every figure a benchmark CSV supports",
        description="Crossover and V5/V4 heat map (merge loop and end to end), speed-ups over V1 "
        "beside the V1-V5 post, time against corpus size: SVG and PNG, with the CSV they come from.",
    )
    plot.add_argument("csv", help="a CSV written by `bench` or by `trace`")
    plot.add_argument("-o", "--output", default=None, metavar="DIR", help="default: figures/")
    plot.set_defaults(run=run_plot)

    trace = commands.add_parser(
        "trace",
        help="record the cost of every merge (words touched, time) and draw it",
        description="Train each version once in this process, recording per merge the words it "
        "rewrote and the time it took: the cause of the crossover. Writes the CSV and the figure.",
    )
    trace.add_argument(
        "corpus", help="a UTF-8 text file, a downloaded dataset's name, or a size like 5MB"
    )
    trace.add_argument("--vocab-size", type=int, default=5000, help="default: 5000")
    trace.add_argument(
        "--versions", nargs="+", choices=VERSIONS, default=["v4", "v5"], help="default: v4 v5"
    )
    trace.add_argument(
        "--csv", default=None, metavar="PATH", help="default: build/bench/trace-CORPUS-VOCAB.csv"
    )
    trace.add_argument("-o", "--output", default=None, metavar="DIR", help="default: figures/")
    trace.set_defaults(run=run_trace)


def run_data_list(args: argparse.Namespace) -> int:
    from bpe_course.datasets import DATASETS
    from bpe_course.paths import data_dir

    folder = data_dir()
    for dataset in DATASETS.values():
        here = (folder / dataset.filename).exists()
        size = f"{dataset.size / 1e6:.1f} MB" if dataset.size else "size not published"
        print(f"{dataset.name:<20} {size:<20} {'downloaded' if here else 'not downloaded'}")
        print(f"{'':<20} {dataset.url}\n{'':<20} licence: {dataset.licence}")
    files = sorted(p.name for p in folder.glob("*.txt")) if folder.exists() else []
    print(f"in {folder}: " + (", ".join(files) if files else "no corpus yet"))
    print(folder)
    return 0


def run_data_fetch(args: argparse.Namespace) -> int:
    from bpe_course.datasets import fetch

    print(fetch(args.name, url=args.url, progress=True))
    return 0


def run_data_generate(args: argparse.Namespace) -> int:
    from bpe_course.datasets import generated_corpus

    print(generated_corpus(args.size, args.seed))
    return 0


def run_data_slice(args: argparse.Namespace) -> int:
    from bpe_course.datasets import DATASETS, resolve_corpus, slice_corpus

    if args.corpus not in DATASETS:
        from bpe_course.api import check_corpus_path

        check_corpus_path(args.corpus)
    print(slice_corpus(resolve_corpus(args.corpus), args.size))
    return 0


def run_bench(args: argparse.Namespace) -> int:
    from dataclasses import replace
    from pathlib import Path

    from bpe_course.bench import grid_by_name, run_grid, summarize
    from bpe_course.datasets import corpus_source
    from bpe_course.paths import build_dir

    name = args.grid or "quick"
    grid = grid_by_name(name)
    overrides = {
        "versions": tuple(args.versions) if args.versions else None,
        "sizes": tuple(args.sizes) if args.sizes else None,
        "vocab_sizes": tuple(args.vocab_sizes) if args.vocab_sizes else None,
        "repeats": args.repeats,
        "timeout_s": args.timeout,
    }
    grid = replace(grid, **{k: v for k, v in overrides.items() if v is not None})
    source = corpus_source(args.corpus)
    csv = Path(args.csv) if args.csv else build_dir() / "bench" / f"{name}-{source}.csv"
    table = run_grid(grid, csv, corpus=source, workers=args.workers, rerun=args.rerun)
    print(summarize(table).to_string())
    print(csv)
    return 0


def run_plot(args: argparse.Namespace) -> int:
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import pandas as pd

    from bpe_course.plots import draw_all, plot_per_merge, save_figure

    path = Path(args.csv)
    if not path.is_file():
        raise BPEInputError(
            f"no CSV at {path}; write one with `bpe-course bench` or `bpe-course trace`"
        )
    table = pd.read_csv(path)
    if table.empty:
        raise BPEInputError(f"{path} holds no rows to draw")
    if TRACE_COLUMNS <= set(table.columns):
        figures = {"per_merge_cost": plot_per_merge(table, path.stem)}
    else:
        needed = {"status", "version", "size_bytes", "vocab_size", "merge_s", "total_s", "corpus"}
        if not needed <= set(table.columns):
            raise BPEInputError(
                f"{path} is neither a benchmark nor a trace CSV "
                f"(missing {sorted(needed - set(table.columns))})"
            )
        figures = draw_all(table)
    if not figures:
        raise BPEInputError(f"{path} holds too few finished runs to draw anything")
    for name, fig in figures.items():
        for written in save_figure(fig, name, data=table, folder=args.output):
            print(written)
    return 0


TRACE_COLUMNS = {"version", "merge", "words_touched", "seconds"}


def run_trace(args: argparse.Namespace) -> int:
    import re
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")

    from bpe_course.api import check_corpus_path
    from bpe_course.bench import merge_trace
    from bpe_course.datasets import resolve_corpus
    from bpe_course.files import write_atomically
    from bpe_course.paths import build_dir
    from bpe_course.plots import plot_per_merge, save_figure
    from bpe_course.pretokenize import END_OF_TEXT
    from bpe_course.trainers.common import check_training_arguments

    check_training_arguments(args.vocab_size, [END_OF_TEXT])  # merge_trace's special token
    corpus = check_corpus_path(resolve_corpus(args.corpus))
    label = re.sub(r"[^A-Za-z0-9.]+", "_", corpus.stem)
    csv = (
        Path(args.csv)
        if args.csv
        else build_dir() / "bench" / f"trace-{label}-{args.vocab_size}.csv"
    )
    trace = merge_trace(corpus, args.vocab_size, tuple(args.versions))
    for version, part in trace.groupby("version"):
        print(
            f"{version}: {len(part)} merges, {part['seconds'].sum():.2f} s in the merge loop, "
            f"median {part['seconds'].median() * 1e6:.0f} µs and "
            f"{part['words_touched'].median():.0f} words per merge"
        )
    csv.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(csv, trace.to_csv(index=False))
    title = f"{corpus.name}, vocab {args.vocab_size}"
    for written in save_figure(
        plot_per_merge(trace, title), "per_merge_cost", data=trace, folder=args.output
    ):
        print(written)
    print(csv)
    return 0


def run_train(args: argparse.Namespace) -> int:
    from bpe_course.api import train_bpe
    from bpe_course.datasets import resolve_corpus
    from bpe_course.formats import save_gpt2

    timings: dict[str, float] = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vocab, merges = train_bpe(
            resolve_corpus(args.corpus),
            args.vocab_size,
            args.special_token,
            version=args.version,
            workers=args.workers,
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


def run_course(args: argparse.Namespace) -> int:
    from bpe_course.course import run_course as execute

    execute(quick=not args.full, only=args.only, progress=sys.stderr.isatty())
    return 0


if __name__ == "__main__":
    sys.exit(main())
