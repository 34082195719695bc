"""The ladder benchmark: every rung of :mod:`bpe_course.reference.ladder`, traced to a large vocab
size in fresh processes, interleaved, into a tidy CSV; and where each V5 rung crosses each V4 rung.

One traced run gives a rung's whole curve (time against vocab size), so the sweep costs one run
per rung, corpus and repeat. Repeats are interleaved (repeat 1 of every rung, then repeat 2, each
pass in a rotated order), so a change in the machine's load falls on every rung alike. A few
untraced runs check the traced times (``traced`` is False in their rows). Word counts are made
once per corpus and shared by every run: the merge loop alone is timed (pretokenization is the
same for every rung, so adding it moves no crossover). Resumes from its CSV.

    python -m bpe_course.bench.ladder --shapes stories wide --sizes 5MB 21.5MB --repeats 3 \\
        --csv notebooks/results/ladder.csv
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from tqdm.auto import tqdm

from bpe_course.bench.harness import run_worker
from bpe_course.bench.machine import context
from bpe_course.bench.tables import append_row, read_table
from bpe_course.corpora.datasets import course_corpus, parse_size, size_label
from bpe_course.counting import count_words
from bpe_course.errors import BPEInputError
from bpe_course.paths import data_dir
from bpe_course.pretokenize import END_OF_TEXT
from bpe_course.reference.ladder import MAIN_V5, RUNGS, corpora
from bpe_course.stats import below, crossover_vocab

# Where the time is read off a traced run: every 50 up to 3,000 (where the crossovers are), then
# every 250 up to 10,000.
POINTS = tuple(range(300, 3001, 50)) + tuple(range(3250, 10001, 250))
V5_VOCAB, V4_VOCAB = 10_000, 5_000
# Untraced runs that check the traced times: (rung, vocab size).
CHECKS = (("p5", 1000), ("p5", 5000), ("v5", 1000), ("v5", 5000), ("p4", 1000), ("top4", 3000))


def counts_path(shape: str, size: str) -> Path:
    """The word counts of the course corpus ``shape`` at ``size``, made once and kept in data/."""
    corpus = course_corpus(size, shape)
    path = data_dir() / "ladder" / f"{corpus.stem}.counts"
    if not path.exists():
        save_counts(count_words(corpus, [END_OF_TEXT], workers=None), path)
    return path


def save_counts(word_counts: dict[bytes, int], path: Path) -> None:
    """``hex count`` lines, written whole or not at all (a unique partial file, then a rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    with open(partial, "w", encoding="ascii") as out:
        out.writelines(f"{word.hex()} {count}\n" for word, count in word_counts.items())
    partial.replace(path)


def run_one(spec: dict, timeout_s: float) -> dict:
    """One run in a fresh process (``ladder_worker``); its JSON answer."""
    command = [sys.executable, "-m", "bpe_course.bench.ladder_worker", json.dumps(spec)]
    status, done = run_worker(command, timeout_s)  # Ctrl-C here kills the worker too
    if done is None:
        raise RuntimeError(f"rung {spec['rung']} ran past {timeout_s:.0f} s and was stopped")
    if done.returncode != 0:
        raise RuntimeError(f"rung {spec['rung']} failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def plan(
    shapes, sizes, rungs, repeats: int, checks=CHECKS, v5_vocab=V5_VOCAB, v4_vocab=V4_VOCAB
) -> list[dict]:
    """The runs in their interleaved order: for each repeat, each corpus, every rung (rotated),
    then the untraced checks."""
    runs = []
    for repeat in range(repeats):
        for shape in shapes:
            for size in sizes:
                shift = repeat % len(rungs)
                traced = [
                    (rung, True, v5_vocab if RUNGS[rung].kind == "v5" else v4_vocab)
                    for rung in rungs[shift:] + rungs[:shift]
                ]
                untraced = [(rung, False, vocab) for rung, vocab in checks if rung in rungs]
                runs += [
                    dict(shape=shape, size=size, rung=rung, repeat=repeat, traced=t, vocab_size=v)
                    for rung, t, v in traced + untraced
                ]
    return runs


def sweep(
    shapes,
    sizes,
    rungs,
    repeats: int,
    csv_path: Path,
    v4_budget_s: float,
    progress: bool = True,
    *,
    v5_vocab: int = V5_VOCAB,
    v4_vocab: int = V4_VOCAB,
    checks=CHECKS,
    modules: Sequence[str] = (),
) -> None:
    """Run every planned run not yet in ``csv_path``; stop if two rungs' merges ever differ.
    ``v5_vocab``, ``v4_vocab``: how far the rungs of each kind are traced; ``checks``: the
    untraced runs, ``(rung, vocab size)``; ``modules``: modules each run's fresh process imports
    first, by name (found from the current folder, as ``python -m`` finds them): a module that
    adds a rung to :data:`bpe_course.reference.ladder.RUNGS`, imported here too, makes that rung
    one ``sweep`` can run. They are imported here as well, so that the plan knows their rungs."""
    for name in modules:  # the plan looks every rung up here, before any run starts
        importlib.import_module(name)
    done, hashes = finished_runs(csv_path), {}
    runs = [
        r
        for r in plan(shapes, sizes, list(rungs), repeats, checks, v5_vocab, v4_vocab)
        if (
            r["shape"],
            r["size"],
            r["rung"],
            r["repeat"],
            r["traced"],
            0 if r["traced"] else r["vocab_size"],
        )
        not in done
    ]
    machine = context()
    for run in tqdm(runs, desc="ladder runs", disable=not progress):
        spec = dict(
            counts=str(counts_path(run["shape"], run["size"])),
            modules=list(modules),
            rung=run["rung"],
            vocab_size=run["vocab_size"],
            points=[p for p in POINTS if p <= max(v5_vocab, v4_vocab)],
            traced=run["traced"],
            budget_s=v4_budget_s if RUNGS[run["rung"]].kind == "v4" else None,
        )
        load = os.getloadavg()[0]
        answer = run_one(spec, timeout_s=3 * 3600)
        check_hashes(hashes, run, answer)
        for point in answer["points"]:
            append_row(csv_path, point_row(run, point, answer, load, machine))


def finished_runs(csv_path: Path) -> set[tuple]:
    """The runs ``csv_path`` holds already, keyed as :func:`sweep` keys its plan (an untraced
    run by its vocab size, a traced one by 0: it ran through every point)."""
    if not (csv_path.exists() and csv_path.stat().st_size):
        return set()
    old = read_table(csv_path)
    return set(
        zip(
            old["shape"],
            old["size"],
            old["rung"],
            old["repeat"],
            old["traced"],
            old["vocab_size"].where(~old["traced"], 0),
        )
    )


def check_hashes(hashes: dict, run: dict, answer: dict) -> None:
    """Every rung's merges on one corpus must equal the first rung's at each vocab size."""
    corpus_key = (run["shape"], run["size"])
    for vocab, digest in answer["hashes"].items():
        known = hashes.setdefault((*corpus_key, int(vocab)), (run["rung"], digest))
        if known[1] != digest:
            raise BPEInputError(
                f"rung {run['rung']} learned other merges than {known[0]} on "
                f"{run['shape']} {run['size']} by vocab {vocab}: not exact, no result"
            )


def point_row(run: dict, point: dict, answer: dict, load: float, machine: dict) -> dict:
    """One line of the ladder's table: a run's time and memory at one vocab size."""
    return {
        "shape": run["shape"],
        "size": run["size"],
        "rung": run["rung"],
        "kind": RUNGS[run["rung"]].kind,
        "repeat": run["repeat"],
        "traced": run["traced"],
        "vocab_size": point["vocab_size"],
        "seconds": point["seconds"],
        "cpu_s": point["cpu_s"],
        "heap_size": point.get("heap_size"),
        "compactions": point.get("compactions"),
        "stopped": answer["stopped"],
        "peak_rss_mb": answer["peak_rss_mb"],
        "load_before": round(load, 2),
        "machine": machine["machine"],
        "python": machine["python"],
        "date": datetime.date.today().isoformat(),
    }


# --- Reading the table ---------------------------------------------------------------------------


def crossover(
    table: pd.DataFrame, shape: str, size: str, v5: str, v4: str, metric: str = "cpu_s"
) -> dict:
    """Where rung ``v5`` gets ahead of rung ``v4`` on one corpus, with the spread of the repeats.

    ``v4_ahead_until``: the largest vocab size where every repeat of ``v4`` beat every repeat of
    ``v5`` (None: never); ``v5_ahead_from``: the smallest vocab size from which every repeat of
    ``v5`` beats every repeat of ``v4`` to the end of the common range (None: not by its end);
    ``repeats``: the crossover of each repeat's pair of curves (interpolated), for their range,
    of the ``pairs`` repeat pairs measured (a pair whose ``v5`` is ahead from the first vocab size,
    or never gets ahead, has none); ``first``, ``last``: the smallest and the largest vocab size
    both were traced to.
    """
    traced = table[table["traced"] & (table["shape"] == shape) & (table["size"] == size)]
    wide = traced[traced["rung"].isin([v5, v4])].pivot_table(
        index="vocab_size", columns=["rung", "repeat"], values=metric
    )
    if v5 not in wide.columns.get_level_values(0) or v4 not in wide.columns.get_level_values(0):
        return {
            "v4_ahead_until": None,
            "v5_ahead_from": None,
            "repeats": [],
            "pairs": 0,
            "last": None,
            "first": None,
        }
    wide = wide.dropna()
    fast, slow = wide[v5], wide[v4]
    v5_clear = below(fast.max(axis=1), slow.min(axis=1))  # every repeat of v5 ahead
    v4_clear = below(slow.max(axis=1), fast.min(axis=1))
    vocabs = list(wide.index)
    v4_until = max((v for v in vocabs if v4_clear[v]), default=None)
    v5_from = None
    for v in reversed(vocabs):
        if not v5_clear[v]:
            break
        v5_from = v
    per_repeat = []
    pairs = sorted(set(fast.columns) & set(slow.columns))
    for repeat in pairs:
        point = crossover_vocab(vocabs, list(fast[repeat] - slow[repeat]))
        if point is not None:
            per_repeat.append(point)
    return {
        "v4_ahead_until": v4_until,
        "v5_ahead_from": v5_from,
        "repeats": per_repeat,
        "pairs": len(pairs),
        "last": vocabs[-1] if vocabs else None,
        "first": vocabs[0] if vocabs else None,
    }


def describe_crossover(result: dict) -> str:
    """One cell of the ladder's table, in words: resolved interval, or why not."""
    until, start, last, first = (
        result.get(k) for k in ("v4_ahead_until", "v5_ahead_from", "last", "first")
    )
    if last is None:
        return "not measured"
    runs = f" ({repeats_crossing(result)})" if result["repeats"] else ""
    if start is None:
        return (f"V4 ahead to {last:,}" if until == last else f"none resolved to {last:,}") + runs
    if start == first:
        return f"V5 ahead from {first:,}"
    if until is None:
        return f"none resolved below {start:,}; V5 ahead from {start:,}" + runs
    return f"{until:,}-{start:,}" + runs


def repeats_crossing(result: dict) -> str:
    """``"3 of 3 repeats cross, at 349-360"``: how many repeat pairs of :func:`crossover`'s
    result cross, and where (the interpolated crossover of each pair's curves)."""
    spread = result["repeats"]
    if not spread:
        return f"0 of {result.get('pairs', 0)} repeats cross"
    low, high = min(spread), max(spread)
    where = f"{low:,.0f}" if round(low) == round(high) else f"{low:,.0f}-{high:,.0f}"
    return f"{len(spread)} of {result.get('pairs', len(spread))} repeats cross, at {where}"


def summary_cell(result: dict) -> str:
    """A short cell of :func:`crossover_summary`: the resolved interval or ``none``, and
    ``(k/n: a-b)``, the repeat pairs that cross and where."""
    until, start, last, first = (
        result.get(k) for k in ("v4_ahead_until", "v5_ahead_from", "last", "first")
    )
    if last is None:
        return "not measured"
    spread, pairs = result["repeats"], result.get("pairs", 0)
    crossing = f"{len(spread)}/{pairs}"
    if spread:
        low, high = min(spread), max(spread)
        crossing += f": {low:,.0f}" if round(low) == round(high) else f": {low:,.0f}-{high:,.0f}"
    if until is not None and start is not None:
        return f"{until:,}-{start:,} ({crossing})"
    if start is None and until == last:
        return f"V4 ahead to {last:,}"
    if start == first and not spread:
        return f"V5 ahead from {first:,} ({crossing})"
    return f"none ({crossing})"


def crossover_summary(
    table: pd.DataFrame, v4: str = "p4", rungs=MAIN_V5, metric: str = "cpu_s"
) -> pd.DataFrame:
    """Rows: the ``rungs`` measured; columns: the corpora; cells: :func:`summary_cell` of the
    rung against the V4 rung ``v4``. Short enough for a projected slide, nothing cut."""
    cells = {}
    measured = set(table["rung"])
    for name in rungs:
        if name not in measured:
            continue
        cells[name] = {
            f"{shape} {size}": summary_cell(crossover(table, shape, size, name, v4, metric))
            for shape, size in corpora(table)
        }
    out = pd.DataFrame(cells).T
    out.index.name = f"rung (against {v4})"
    return out


def against(
    table: pd.DataFrame, rung: str, v4: str, vocab_size: int, metric: str = "cpu_s"
) -> list[str]:
    """Rung ``rung`` against the V4 rung ``v4``, corpus by corpus, in one line each: how many
    repeat pairs cross and where, the time of ``rung`` over the time of ``v4`` at ``vocab_size``
    paired by repeat (median and range), and whether the ranges resolve a crossover."""
    lines = []
    at = table[table["traced"] & (table["vocab_size"] == vocab_size)]
    times = at.pivot_table(index=["shape", "size", "repeat"], columns="rung", values=metric)
    for shape, size in corpora(table):
        result = crossover(table, shape, size, rung, v4, metric)
        if result["last"] is None:
            continue
        ratio = (times[rung] / times[v4]).loc[(shape, size)].dropna()
        until, start = result["v4_ahead_until"], result["v5_ahead_from"]
        resolved = (
            f"the ranges resolve it at {until:,}-{start:,}"
            if until is not None and start is not None
            else "the ranges resolve no crossover"
        )
        lines.append(
            f"{shape} {size}: {repeats_crossing(result)}; {rung} / {v4} at vocab {vocab_size:,}, "
            f"paired by repeat: {ratio.median():.2f} ({ratio.min():.2f}-{ratio.max():.2f}); "
            f"{resolved}"
        )
    return lines


def step_ratio(table, rung: str, vocab_size: int, metric: str = "cpu_s", base: str | None = None):
    """Base time / rung time at ``vocab_size``, per corpus: (median, min, max) over repeat pairs.
    ``base`` defaults to the rung's own base; a partial ladder passes the last rung it measured."""
    base = base or RUNGS[rung].base
    at = table[table["traced"] & (table["vocab_size"] == vocab_size)]
    times = at.pivot_table(index=["shape", "size", "repeat"], columns="rung", values=metric)
    if base not in times or rung not in times:
        return {}
    ratio = (times[base] / times[rung]).dropna()
    return {
        corpus: (part.median(), part.min(), part.max())
        for corpus, part in ratio.groupby(level=["shape", "size"])
    }


def findings(table: pd.DataFrame, vocab_size: int = 1000, metric: str = "cpu_s") -> list[str]:
    """What the ladder shows, corpus by corpus, as sentences computed from the table: the post's
    crossover, then each step of the main V5 ladder (its speed-up at ``vocab_size`` and where it
    leaves the crossover with the post's V4), then the course's pair."""
    lines = []
    for shape, size in corpora(table):
        here = table[(table["shape"] == shape) & (table["size"] == size)]
        lines.append(f"{shape} {size}:")
        first = crossover(here, shape, size, "p5", "p4", metric)
        lines.append(f"  the post's V5 against the post's V4: {describe_crossover(first)}")
        # A partial ladder (the notebook's live run) skips rungs: compare each measured rung with
        # the last measured one and say so, rather than dropping the rung from the findings.
        measured = [rung for rung in MAIN_V5 if rung in set(here["rung"])]
        for before, rung in zip(measured, measured[1:]):
            ratio = step_ratio(here, rung, vocab_size, metric, base=before).get((shape, size))
            if ratio is None:
                continue
            what = "the step before" if before == RUNGS[rung].base else f"{before} (steps skipped)"
            where = describe_crossover(crossover(here, shape, size, rung, "p4", metric))
            lines.append(
                f"  + {RUNGS[rung].change}: runs {ratio[0]:.2f}x as fast ({ratio[1]:.2f}-{ratio[2]:.2f}) "
                f"as {what} at vocab {vocab_size:,}; against the post's V4: {where}"
            )
        ours = describe_crossover(crossover(here, shape, size, "v5", "top4", metric))
        lines.append(f"  the course's V5 against the course's V4 (top4): {ours}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bpe_course.bench.ladder", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--shapes", nargs="+", default=["stories", "wide"])
    parser.add_argument("--sizes", nargs="+", default=["5MB", "21.5MB"])
    parser.add_argument("--rungs", nargs="+", default=list(RUNGS), choices=list(RUNGS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--v4-budget",
        type=float,
        default=300.0,
        help="stop a V4 rung's traced run after this many seconds (default 300)",
    )
    parser.add_argument(
        "--no-checks", action="store_true", help="no untraced runs to check the traced times"
    )
    parser.add_argument("--csv", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        sweep(
            args.shapes,
            [size_label(parse_size(s)) for s in args.sizes],
            args.rungs,
            args.repeats,
            args.csv,
            args.v4_budget,
            checks=() if args.no_checks else CHECKS,
        )
    except (BPEInputError, RuntimeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(args.csv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
