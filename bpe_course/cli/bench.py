"""``bpe-course bench``, ``plot`` and ``trace``: measure, and draw what was measured."""

from __future__ import annotations

import argparse

from bpe_course.errors import BPEInputError


def add_bench_commands(commands) -> None:
    """``bench``, ``plot`` and ``trace``, each with its arguments."""
    add_bench_command(commands)
    add_plot_command(commands)
    add_trace_command(commands)


def add_bench_command(commands) -> None:
    from bpe_course.bench.grids import GRIDS

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
    add_grid_overrides(bench)
    bench.add_argument(
        "--corpus",
        choices=["tinystories", "stories", "wide"],
        help="default: BPE_COURSE_CORPUS, else TinyStories if downloaded, else stories",
    )
    bench.add_argument("--workers", type=int, default=2, help="pretokenization processes (V3+)")
    bench.add_argument(
        "--csv", default=None, metavar="PATH", help="default: build/bench/GRID-CORPUS.csv"
    )
    bench.add_argument("--rerun", action="store_true", help="rerun cells already in the CSV")
    bench.set_defaults(run=run_bench)


def add_grid_overrides(bench: argparse.ArgumentParser) -> None:
    """What a grid's runs can be changed by: versions, your trainer, sizes, vocabs, repeats."""
    from bpe_course.bench.libraries import LIBRARIES
    from bpe_course.trainers import ALL_TRAINERS

    bench.add_argument(
        "--versions",
        nargs="+",
        choices=[*ALL_TRAINERS, *LIBRARIES],
        help="override the versions (hf and rustbpe need the bench extra)",
    )
    bench.add_argument(
        "--trainer",
        action="append",
        metavar="MODULE:FUNCTION",
        help="also time your own train_bpe(input_path, vocab_size, special_tokens) (CS336's "
        "signature), importable from the current folder; repeat for several",
    )
    bench.add_argument("--sizes", nargs="+", metavar="SIZE", help="override the corpus sizes")
    bench.add_argument(
        "--vocab-sizes", nargs="+", type=int, metavar="N", help="override the vocab sizes"
    )
    bench.add_argument("--repeats", type=int, help="override the repeats")
    bench.add_argument("--timeout", type=float, help="seconds allowed per run")


def add_plot_command(commands) -> None:
    plot = commands.add_parser(
        "plot",
        help="draw every figure a benchmark CSV supports",
        description="Crossover and V5/V4 heat map (merge loop and end to end), speed-ups over V1 "
        "beside the V1-V5 post, time against corpus size: SVG and PNG, with the CSV they come from.",
    )
    plot.add_argument("csv", help="a CSV written by `bench` or by `trace`")
    plot.add_argument("-o", "--output", default=None, metavar="DIR", help="default: figures/")
    plot.set_defaults(run=run_plot)


def add_trace_command(commands) -> None:
    from bpe_course.trainers import ALL_TRAINERS

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
        "--versions",
        nargs="+",
        choices=list(ALL_TRAINERS),
        default=["v4", "v5"],
        help="default: v4 v5",
    )
    trace.add_argument(
        "--csv", default=None, metavar="PATH", help="default: build/bench/trace-CORPUS-VOCAB.csv"
    )
    trace.add_argument("-o", "--output", default=None, metavar="DIR", help="default: figures/")
    trace.set_defaults(run=run_trace)


def run_bench(args: argparse.Namespace) -> int:
    import os
    from dataclasses import replace
    from pathlib import Path

    from bpe_course.bench.harness import grid_by_name, run_grid, summarize
    from bpe_course.corpora.datasets import corpus_source
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
    changed = {k: v for k, v in overrides.items() if v is not None}
    # a grid changed by options is not the named one: its rows must not count as that grid's
    grid = replace(grid, **changed, name=grid.name if not changed else "custom")
    if args.trainer:
        import sys

        sys.path.insert(0, str(Path.cwd()))  # the reader's module sits where they run the command
        os.environ["PYTHONPATH"] = os.pathsep.join(
            [str(Path.cwd()), *filter(None, [os.environ.get("PYTHONPATH")])]
        )  # ... and the worker processes must find it too
        grid = replace(grid, versions=(*grid.versions, *args.trainer), name="custom")
    source = corpus_source(args.corpus)
    csv = Path(args.csv) if args.csv else build_dir() / "bench" / f"{name}-{source}.csv"
    table = run_grid(grid, csv, corpus=source, workers=args.workers, rerun=args.rerun)
    print(summarize(table).to_string())
    for line in outside_report(table):
        print(line)
    print(csv)
    return 0


def outside_report(table) -> list[str]:
    """One line per trainer from outside the course and cell: equal to ours, or where it differs."""
    if "merges_equal" not in table.columns:
        return []
    lines = []
    outside = table[table["merges_equal"].notna()]
    for row in outside.drop_duplicates(["corpus", "version", "size", "vocab_size"]).itertuples():
        where = f"{row.version} on {row.corpus} {row.size}, vocab {row.vocab_size}"
        if bool(row.merges_equal):
            lines.append(f"{where}: merges equal to the course's")
        else:
            lines.append(
                f"{where}: {int(row.same_prefix)} first merges equal, {int(row.same_set)} of "
                f"{int(row.merges)} shared; first difference at {row.first_difference}"
            )
    return lines


def run_plot(args: argparse.Namespace) -> int:
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")

    from bpe_course.bench.tables import check_benchmark_table, read_table, read_trace_table
    from bpe_course.plots import draw_all, plot_per_merge, save_figure

    path = Path(args.csv)
    if not path.is_file():
        raise BPEInputError(
            f"no CSV at {path}; write one with `bpe-course bench` or `bpe-course trace`"
        )
    table = read_table(path)
    if table.empty:
        raise BPEInputError(f"{path} holds no rows to draw")
    if TRACE_COLUMNS <= set(table.columns):
        table = read_trace_table(path)  # every value checked: one line for a hand's edit
        figures = {"per_merge_cost": plot_per_merge(table, path.stem)}
    else:
        needed = {"status", "version", "size_bytes", "vocab_size", "merge_s", "total_s", "corpus"}
        if not needed <= set(table.columns):
            raise BPEInputError(
                f"{path} is neither a benchmark nor a trace CSV "
                f"(missing {sorted(needed - set(table.columns))})"
            )
        table = check_benchmark_table(table, path)  # every value checked, as for traces
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
    from bpe_course.bench.trace import merge_trace
    from bpe_course.corpora.datasets import resolve_corpus
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
