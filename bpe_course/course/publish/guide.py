"""The teacher's guide (``TEACHING.md``): every figure and table in it, made from the stored results.

The guide plans sessions from the measured minutes of each notebook and tells a teacher what the
stored benchmark tables show. Typed into the prose, those figures went stale each time a table
was measured again or a notebook changed. So the guide's figures live only in regions marked
``<!-- generated: NAME -->`` ... ``<!-- end generated -->``, and this module writes each region
from ``notebooks/results/`` with the same package functions the notebooks print with (medians and
ranges over repeats, rankings only where the ranges are apart). The prose around the regions
states no measured figure; where a notebook's own run prints one, the guide names the cell.
``tests/test_teaching_guide.py`` fails while a region differs from what this module writes now,
and while a measured figure is typed outside the regions.

To write the regions again after measuring (or to see what changed)::

    python -m bpe_course.course.publish.guide            # rewrite TEACHING.md's regions in place
    python -m bpe_course.course.publish.guide --check    # exit 1 and name the stale regions

(``make guide`` runs the first.) The minutes come from ``python -m
bpe_course.course.runner.timing``; a notebook whose cells or prose changed since it was timed is
named in the guide itself (the ``minutes-source`` region) and on standard error, so you know which
to time again.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import textwrap
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pandas as pd

from bpe_course.bench.beyond import paired_ratios
from bpe_course.bench.cluster import path_ratios
from bpe_course.bench.ladder import crossover as ladder_crossover
from bpe_course.bench.lessons import per_merge_ms, stored_lesson
from bpe_course.bench.memory import summarize
from bpe_course.bench.repeat import (
    Spread,
    compare,
    load_sign,
    ratio_spread,
    spreads,
    where_measured,
)
from bpe_course.bench.tables import stored_results
from bpe_course.corpora.datasets import parse_size
from bpe_course.course.runner.timing import (
    WORDS_PER_MINUTE,
    first_line,
    markdown_table,
    markdown_words,
)
from bpe_course.paths import REPO_ROOT, notebooks_dir
from bpe_course.plots import version_label
from bpe_course.plots.scaling import ranking, speedup_ranges
from bpe_course.stats import clear_crossover, repeat_ranges

REGION = re.compile(
    r"(?P<open><!-- generated: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(?P<close><!-- end generated -->)",
    re.S,
)

# --- The session plan: our choices, not measurements ---------------------------------------------

EXERCISE_MINUTES = 15  # planning allowance for each graded exercise done in class (ours)
DISCUSSION_MINUTES = 10  # planning allowance for the closing questions (ours)


@dataclass(frozen=True)
class Session:
    """One session of the core path: its name, its notebooks (by number), its length in minutes
    and how many graded exercises the class does in it."""

    name: str
    notebooks: tuple[str, ...]
    minutes: int
    exercises: int


SESSIONS = (
    Session("1 bytes", ("01", "02"), 75, 0),
    Session("2 the algorithm", ("03", "04"), 75, 0),
    Session("3 V1 and V2", ("05", "06"), 75, 2),
    Session("4 V3 and V4", ("07", "08"), 75, 2),
    Session("5 V5 and fast max", ("09", "10"), 75, 1),
    Session("6 measuring", ("11",), 75, 0),
    Session("7 using the tokenizer", ("12",), 75, 0),
    Session("8 (optional) beyond", ("13", "14"), 90, 0),
)


# --- Reading the stored results ------------------------------------------------------------------


def results_dir() -> Path:
    return notebooks_dir() / "results"


def timed() -> pd.DataFrame:
    """``notebook_minutes.csv`` as stored: one line per notebook (``python -m
    bpe_course.course.runner.timing``)."""
    return pd.read_csv(results_dir() / "notebook_minutes.csv")


def minutes() -> pd.DataFrame:
    """The stored minutes, with each notebook's words and reading minutes counted in the notebook
    as it is now: reading time follows from the prose alone, so a change of prose never leaves it
    stale. The seconds, and everything else, are the timing run's."""
    table = timed()
    for index, name in table["notebook"].items():
        path = notebooks_dir() / f"{name}.ipynb"
        if path.exists():
            words = markdown_words(path)
            table.loc[index, "markdown_words"] = words
            table.loc[index, "reading_min"] = round(words / WORDS_PER_MINUTE, 1)
    return table


def cells() -> pd.DataFrame:
    """``notebook_cells.csv``: one line per code cell, with its wall time."""
    return pd.read_csv(results_dir() / "notebook_cells.csv")


def _of(table: pd.DataFrame, numbers: Iterable[str]) -> pd.DataFrame:
    """The rows of the notebooks whose names start with these numbers ("05", ...)."""
    wanted = tuple(f"{n}_" for n in numbers)
    return table[table["notebook"].str.startswith(wanted)]


def _number(notebook: str) -> str:
    return notebook.split("_", 1)[0]


def _list(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _span(values: Iterable[float], digits: int = 1) -> str:
    """``1.8`` or ``1.8 to 1.9``: the lowest and the highest, once if they are equal."""
    values = list(values)
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return low if low == high else f"{low} to {high}"


def _cell(row: pd.Series) -> str:
    """A code cell of ``notebook_cells.csv`` as a reader finds it: notebook, index, first line,
    and the section it sits in when the notebook still holds that line at that index."""
    section = _section(row["notebook"], int(row["cell"]), row["first_line"])
    where = f", in *{section}*" if section else ""
    return f"{_number(row['notebook'])}'s cell {row['cell']} (`{row['first_line']}`{where})"


def _section(notebook: str, index: int, line: str) -> str | None:
    """The heading above cell ``index`` of the notebook as it is now, if that cell still starts
    with ``line`` (else the notebook changed since it was timed, and the index says no
    more than the table does)."""
    path = notebooks_dir() / f"{notebook}.ipynb"
    if not path.exists():
        return None
    cells = nbformat.read(path, as_version=4).cells
    if index >= len(cells) or first_line(cells[index].source) != line:
        return None
    for cell in reversed(cells[:index]):
        headings = [
            line.lstrip("#").strip()
            for line in cell.source.splitlines()
            if cell.cell_type == "markdown" and line.startswith("##")
        ]
        if headings:
            return headings[-1]
    return None


# --- Minutes per notebook, and the session plan --------------------------------------------------


def minutes_table() -> str:
    return markdown_table(minutes())


def minutes_source() -> str:
    """Where and when the minutes were measured, from the table's own columns."""
    table = timed()
    groups = []
    for (date, machine), part in table.groupby(["date", "machine"], sort=False):
        names = [_number(n) for n in part["notebook"]]
        which = (
            f"notebooks {names[0]} to {names[-1]}"
            if len(names) > 2
            else "notebooks " + _list(names)
            if len(names) > 1
            else f"notebook {names[0]}"
        )
        groups.append(
            f"{which} on {date} on {machine}, with a 1-minute load average of "
            f"{_span(part['load_1min'])} when each notebook ended"
        )
    modes = _list(sorted(set(table["mode"])))
    stale = stale_timings()
    changed = (
        "\n\n**Changed since they were timed**, so their live seconds above, and the slowest cells "
        "this guide names for them, describe an older version (time them again; their reading "
        "minutes are counted now):\n\n" + _bullets(stale)
        if stale
        else ""
    )
    return (
        f"The figures were measured in {modes} mode, one run per notebook: "
        + "; ".join(groups)
        + " (the `date`, `machine` and `load_1min` columns). *Reading min* is the markdown's "
        f"word count at {WORDS_PER_MINUTE} words a minute, counted in the notebooks as they are "
        "now, not when they were timed (the timing script's count; HTML tags and link targets are "
        "not words)." + changed
    )


def planning() -> str:
    """The totals of the minutes table and its slowest cells."""
    table, by_cell = minutes(), cells()
    top = by_cell.sort_values("seconds", ascending=False).reset_index(drop=True)
    first, second, third = top.iloc[0], top.iloc[1], top.iloc[2]
    return (
        f"All {table['cells'].sum()} code cells together ran for {table['live_s'].sum():.1f} s "
        f"in quick mode; the slowest, {_cell(first)}, took {first['seconds']:.1f} s, then "
        f"{_cell(second)} {second['seconds']:.1f} s, and no other more than "
        f"{third['seconds']:.1f} s. The prose takes {table['reading_min'].sum():.0f} minutes to "
        f"read. The session plans below budget the walkthrough at that reading time plus "
        f"the live seconds, rounded up, and add a planning allowance (ours, not measured) of "
        f"{EXERCISE_MINUTES} minutes for each graded exercise done in class and "
        f"{DISCUSSION_MINUTES} for the closing questions."
    )


def _session_numbers(session: Session) -> dict[str, float]:
    part = _of(minutes(), session.notebooks)
    reading, live = float(part["reading_min"].sum()), float(part["live_s"].sum())
    used = math.ceil(reading + live / 60)
    allowances = EXERCISE_MINUTES * session.exercises + DISCUSSION_MINUTES
    return {"reading": reading, "live": live, "left": session.minutes - used - allowances}


def sessions_table() -> str:
    lines = [
        "| session | notebooks | reading, from the words now (min) | live cells, measured (s) | graded "
        "exercises in class | left for explaining and for the source listings (min) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for s in SESSIONS:
        n = _session_numbers(s)
        lines.append(
            f"| {s.name} ({s.minutes} min) | {', '.join(s.notebooks)} | {n['reading']:.1f} | "
            f"{n['live']:.0f} | {s.exercises} | {n['left']:.0f} |"
        )
    return "\n".join(lines)


def slowest(numbers: Sequence[str]) -> str:
    """Each notebook's slowest cell, from ``notebook_cells.csv``."""
    by_cell = _of(cells(), numbers)
    parts = []
    for _, part in by_cell.groupby("notebook", sort=True):
        row = part.loc[part["seconds"].idxmax()]
        parts.append(f"{_cell(row)}, {row['seconds']:.1f} s")
    return "Slowest cell in the minutes table: " + "; ".join(parts) + "."


def stale_timings() -> list[str]:
    """Notebooks whose code cells or prose changed since ``notebook_minutes.csv`` timed them:
    their minutes (and cell indices) in the guide describe an older version."""
    stale = []
    for row in timed().itertuples():
        path = notebooks_dir() / f"{row.notebook}.ipynb"
        if not path.exists():
            stale.append(f"{row.notebook}: no such notebook any more")
            continue
        notebook = nbformat.read(path, as_version=4)
        code = sum(c.cell_type == "code" for c in notebook.cells)
        words = markdown_words(path)
        if code != row.cells or words != row.markdown_words:
            stale.append(
                f"{row.notebook}: {code} code cells and {words:,} words now, "
                f"{row.cells} and {row.markdown_words:,} when timed on {row.date}"
            )
    return stale


# --- Stored benchmark results, session by session ------------------------------------------------


def _bullets(lines: Iterable[str]) -> str:
    return "\n".join(f"- {line}" for line in lines)


def _machine(names: pd.Series) -> str:
    """The machines a table names, and a word when they do not say how many cores they had."""
    machines = _list(sorted(set(names)))
    return machines if "core" in machines else f"{machines}, the cores not recorded"


def _harness_source(table: pd.DataFrame) -> str:
    """Where a harness table (one row per run, no load column) was measured."""
    dates = sorted(set(table["date"]))
    when = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
    load = ""
    if "load_1m" in table and table["load_1m"].notna().any():
        load = f", load average {_span(table['load_1m'].dropna())}"
    else:
        load = "; the table records no load"
    return f"{_machine(table['machine'])}, Python {table['python'].iloc[0]}, {when}{load}"


def _ratio(spread: Spread, unit: str = "x") -> str:
    return f"{spread.median:.2f}{unit} ({spread.low:.2f} to {spread.high:.2f}{unit}, {len(spread)} runs)"


def _paired(table: pd.DataFrame, version: str, reference: str, metric: str) -> list[str]:
    """``version`` / ``reference`` per repeat, each cell of the table: median and range."""
    out = []
    for r in paired_ratios(table, version, reference, metric).itertuples():
        runs = "one run" if r.repeats == 1 else f"{r.min:.2f} to {r.max:.2f}x, {r.repeats} repeats"
        line = f"{r.corpus} {r.size}, vocab {int(r.vocab_size):,}: {r.median:.2f}x ({runs})"
        signs = (load_sign(table, v, r.corpus, r.size, r.vocab_size) for v in (version, reference))
        sign = next((found for found in signs if found), None)
        out.append(line if sign is None else f"{line}, not resolved: {sign}")
    return out


def stored_05() -> str:
    by_vocab = stored_lesson("v1_by_vocab")
    cost = spreads(per_merge_ms(by_vocab), "interval", "ms_per_merge")
    first, last = list(cost)[0], list(cost)[-1]
    early, late = cost[first], cost[last]
    if not early.apart_from(late):
        verdict = "the ranges overlap"
    else:
        verdict = "late merges cheaper, the ranges apart" if late.high < early.low else "dearer"
    v0 = stored_lesson("v0_v1")
    return _bullets(
        [
            f"05, *What it costs* (stored, `lessons.csv`, V1 on the {by_vocab['corpus'].iloc[0]} "
            f"{by_vocab['size'].iloc[0]}; {where_measured(by_vocab)}): {early.text('ms')} per merge "
            f"between vocab {first}, {late.text('ms')} between {last}: {verdict}.",
            f"05, *Before V1* (stored, {v0['corpus'].iloc[0]} {v0['size'].iloc[0]}, vocab "
            f"{v0['vocab_size'].iloc[0]:,}; {where_measured(v0)}): {compare(v0, 'v0', 'v1')}.",
        ]
    )


def stored_06() -> str:
    lesson = stored_lesson("v1_v2")
    return _bullets(
        [
            f"06, *It is right* (stored, {lesson['corpus'].iloc[0]} {lesson['size'].iloc[0]}, "
            f"vocab {lesson['vocab_size'].iloc[0]:,}, merge loops in turn; "
            f"{where_measured(lesson)}): {compare(lesson, 'v1', 'v2')}."
        ]
    )


# A run had the cores it asked for when its CPU time over its wall time reached this share of its
# workers (ours): below it, the machine's load, not the workers, set the wall time.
CORES_FLOOR = 0.8


def stored_07() -> str:
    stored = stored_results("parallel_pretokenize")
    lines = []
    for size, part in stored[stored["job"].isin(["1 worker", "2 workers"])].groupby(
        "size", sort=False
    ):
        gain = ratio_spread(part, "1 worker", "2 workers")
        had = {
            job: Spread(tuple(run["cpu_s"] / run["seconds"])) for job, run in part.groupby("job")
        }
        short = [job for job, cores in had.items() if cores.low < CORES_FLOOR * int(job[0])]
        if short:
            lines.append(
                f"{size}: not resolved: some runs did not get the cores they asked for ("
                + ", ".join(f"{job} {had[job].low:.2f} to {had[job].high:.2f} cores" for job in had)
                + ", CPU time over wall time), so the machine's load set their times; "
                f"1 worker's time over 2 workers' ran from {gain.low:.2f} to {gain.high:.2f}x"
            )
            continue
        lines.append(
            f"{size}: 1 worker's time over 2 workers' {_ratio(gain)}, the runs having "
            f"{had['1 worker'].median:.1f} and {had['2 workers'].median:.1f} cores (CPU time "
            "over wall time)"
        )
    return _bullets(
        [
            f"07, *What it buys* (stored, `parallel_pretokenize.csv`, the "
            f"{stored['corpus'].iloc[0]} corpus; {where_measured(stored)}): "
            + "; ".join(lines)
            + "."
        ]
    )


def stored_08() -> str:
    lesson = stored_lesson("v2_v4")
    return _bullets(
        [
            f"08, *What it bought* (stored, {lesson['corpus'].iloc[0]} {lesson['size'].iloc[0]}, "
            f"vocab {lesson['vocab_size'].iloc[0]:,}, merge loops in turn; "
            f"{where_measured(lesson)}): {compare(lesson, 'v2', 'v4')}."
        ]
    )


TRAP_VOCABS = (1000, 10000)  # the vocab sizes notebook 09 prints from the ablation grids


def stored_09() -> str:
    tables = [stored_results("ablation_stories"), stored_results("ablation_wide")]
    ratios = [
        line
        for t in tables
        for line in _paired(
            t[t["vocab_size"].isin(TRAP_VOCABS)], "post_v5", "post_v5_nogc", "merge_s"
        )
    ]
    return _bullets(
        [
            "09, *Trap 2* (stored, `ablation_*.csv`: the post's V5 with the collector on, its "
            "merge loop's time over its time with the collector off, in the same repeat; "
            f"{_harness_source(pd.concat(tables))}): " + "; ".join(ratios) + "."
        ]
    )


def stored_10() -> str:
    versions = stored_results("versions_stories")
    return _bullets(
        [
            "10, *It is right, and how fast* (stored, `versions_stories.csv`: fast max's merge "
            "loop over V5's, per repeat; "
            f"{_harness_source(versions)}): "
            + "; ".join(_paired(versions, "fastmax", "v5", "merge_s"))
            + "."
        ]
    )


def _grid_phrase(found: dict) -> str:
    """What :func:`bpe_course.stats.clear_crossover` found, in words, for the course's pair:
    where V5 is faster in every repeat, where V4 is, and where the repeats overlap."""

    def sizes(vocabs: Iterable[int]) -> str:
        return ", ".join(f"{v:,}" for v in vocabs)

    start = found["faster_from"]
    if start is None:
        parts = [f"V5 faster in every repeat at {sizes(found['faster']) or 'no vocab size'}"]
    else:
        below = [v for v in found["faster"] if v < start]
        parts = [
            f"V5 faster in every repeat from vocab {start:,} on"
            + (f" and at {sizes(below)}" if below else "")
        ]
    parts.append(f"V4 faster in every repeat at {sizes(found['slower']) or 'no vocab size'}")
    if found["overlap"]:
        parts.append(f"the repeats overlap at {sizes(found['overlap'])}")
    return "; ".join(parts)


def stored_11_total() -> str:
    """How long the stored runs of notebook 11's tables took, added up (each run's own time)."""
    ladder = stored_results("ladder")
    ladder_s = ladder.groupby(["shape", "size", "rung", "repeat", "traced"])["seconds"].max().sum()
    grids = [
        stored_results(f"{k}_{s}") for k in ("crossover", "versions") for s in ("stories", "wide")
    ]
    grid_s = sum(float(t["total_s"].sum()) for t in grids)
    return (
        f"- The runs of these tables alone, without starting their processes, add up to "
        f"{grid_s / 60:.0f} minutes for the four grids and {ladder_s / 60:.0f} for the ladder."
    )


def stored_11_grids() -> str:
    lines = []
    for shape in ("stories", "wide"):
        table = stored_results(f"crossover_{shape}")
        repeats = table.groupby(["size", "vocab_size", "version"])["repeat"].nunique()
        ranges = repeat_ranges(table, "merge_s")
        sizes = [
            f"{size}: {_grid_phrase(dict(clear_crossover(part, 'v4', 'v5')))}"
            for (_, size), part in ranges.groupby(["size_bytes", "size"])
        ]
        lines.append(
            f"- Section 2, `crossover_{shape}.csv` ({len(table)} runs, {repeats.min()} repeats a "
            f"cell, wall time; {_harness_source(table)}), the course's V4 against its V5, merge "
            "loop:\n" + "\n".join(f"  - {line}." for line in sizes)
        )
    return "\n".join(lines)


def _ladder_phrase(found: dict, repeats: int) -> str:
    """What :func:`bpe_course.bench.ladder.crossover` found, in words."""
    until, start, last, first = (
        found.get(k) for k in ("v4_ahead_until", "v5_ahead_from", "last", "first")
    )
    parts = [
        f"V4 faster in every repeat last at vocab {until:,}"
        if until
        else "V4 faster in every repeat at no vocab size"
    ]
    if start is None:
        parts.append(f"V5 not faster in every repeat by vocab {last:,}")
    elif start == first:
        parts.append(f"V5 faster in every repeat from the first vocab size, {first:,}")
    else:
        parts.append(f"V5 faster in every repeat from {start:,} on")
    crossed = found["repeats"]
    if crossed:
        low, high = f"{min(crossed):,.0f}", f"{max(crossed):,.0f}"
        at = low if low == high else f"{low}-{high}"
        parts.append(
            f"the two curves of a repeat cross in {len(crossed)} of {repeats} repeats, at {at}"
        )
    return ", ".join(parts)


def stored_11_ladder() -> str:
    ladder = stored_results("ladder")
    traced = ladder[ladder["traced"]]
    runs = traced.groupby(["shape", "size", "rung", "repeat"]).ngroups
    per_rung = traced.groupby(["shape", "size", "rung"])["repeat"].nunique()
    corpora = sorted(
        set(zip(traced["shape"], traced["size"])), key=lambda c: (c[0], parse_size(c[1]))
    )
    lines = []
    for v5, v4, who in (
        ("p5", "p4", "the post's V5 against the post's V4"),
        ("v5", "top4", "the course's V5 against the course's V4 (`top4`)"),
    ):
        per = [
            f"{shape} {size}: "
            + _ladder_phrase(
                ladder_crossover(ladder, shape, size, v5, v4),
                int(min(per_rung[(shape, size, v5)], per_rung[(shape, size, v4)])),
            )
            for shape, size in corpora
        ]
        lines.append(f"  - {who}:\n" + "\n".join(f"    - {line}." for line in per))
    return (
        f"- Section 3, `ladder.csv` ({runs} traced runs, {per_rung.min()} or more repeats a rung, "
        f"the merge loop's CPU time; {_machine(ladder['machine'])}, Python "
        f"{ladder['python'].iloc[0]}, {_list(sorted(set(ladder['date'])))}, load average "
        f"{_span(ladder['load_before'])} before the runs):\n" + "\n".join(lines)
    )


def stored_11_versions() -> str:
    lines = []
    for shape in ("stories", "wide"):
        table = stored_results(f"versions_{shape}")
        for size_bytes in sorted(set(table["size_bytes"])):
            ranges = speedup_ranges(table, "total_s", size_bytes, 5000)
            size = table[table["size_bytes"] == size_bytes]["size"].iloc[0]
            if ranges.empty:
                cell = table[(table["size_bytes"] == size_bytes) & (table["vocab_size"] == 5000)]
                runs = int(cell.groupby("version")["repeat"].nunique().min())
                lines.append(
                    f"{shape} {size}: V1 not run at this size; "
                    + ("one run a cell" if runs == 1 else f"{runs} runs a cell")
                )
                continue
            values = ", ".join(
                f"{version_label(v)} {r['median']:.1f}x ({r['min']:.1f} to {r['max']:.1f})"
                for v, r in ranges.iterrows()
            )
            ranked = (
                f"; neighbours ranked where the ranges are apart (not transitive): {ranking(ranges)}"
                if ranges["count"].min() >= 3
                else f"; {int(ranges['count'].min())} run(s) a cell, not ranked"
            )
            lines.append(f"{shape} {size}: {values}{ranked}")
    both = pd.concat([stored_results("versions_stories"), stored_results("versions_wide")])
    return (
        "- Section 5, `versions_*.csv` (each version's speed-up over V1 in the same repeat, end "
        f"to end, vocab 5,000; {_harness_source(both)}):\n"
        + "\n".join(f"  - {line}." for line in lines)
    )


def stored_13() -> str:
    beyond = stored_results("beyond")
    ok = beyond[beyond["status"] == "ok"]
    lines = [
        f"13, sections 3 and 4 (stored, `beyond.csv`, {len(ok)} runs; {_harness_source(ok)}), "
        "fast's time over another's in the same repeat, end to end: "
        + "; ".join(
            f"over {name}, " + ", ".join(_paired(ok, "fast", ref, "total_s"))
            for ref, name in (("v5", "V5"), ("hf", "Hugging Face"), ("rustbpe", "rustbpe"))
        )
        + "."
    ]
    memory = pd.read_csv(results_dir() / "memory_stories_2.1GB.csv")
    run = summarize(memory)
    lines.append(
        f"13, section 5 (stored, `memory_stories_2.1GB.csv`, one run, load average "
        f"{_span(memory['load_1m'])}): {run['size_bytes'] / 1e9:.2f} GB of generated stories in "
        f"{run['total_s']:.1f} s end to end, {run['pretokenize_s']:.1f} s of it pretokenization; "
        f"{int(run['words']):,} distinct words; a highest sample of {run['peak_mb']:,.0f} MB over all its "
        f"processes (at most {run['processes']} at once; a sample is a lower bound on the peak)."
    )
    large = sorted(
        (pd.read_csv(p) for p in results_dir().glob("memory_wide_*.csv")),
        key=lambda t: t["size_bytes"].iloc[-1],
    )
    rows = [summarize(t) for t in large]
    loads = pd.concat([t["load_1m"] for t in large])
    lines.append(
        "13, *OpenWebText's size, on generated text* (stored, `memory_wide_*.csv`, fast on the "
        f"generated wide text, one run a size, load average {_span(loads)}): "
        + "; ".join(
            f"{r['size_bytes'] / 1e9:.3g} GB, {int(r['words']):,} distinct words, "
            f"{r['cpu_s'] / (r['size_bytes'] / 1e9):.0f} CPU seconds per GB, merge loop "
            f"{r['merge_s']:.1f} s, highest sample {r['peak_mb']:,.0f} MB over all processes"
            for r in rows
        )
        + ". The generated text's distinct words barely grow with its size: these runs do not "
        "show what the many more distinct words of real web text would cost."
    )
    sharded = stored_results("shards")
    sharded = sharded[sharded["status"] == "ok"]
    r = paired_ratios(sharded, "shards", "fast", "merge_s")
    lines.append(
        f"13, section 6b (stored, `shards.csv`, {len(sharded)} runs; {_harness_source(sharded)}): "
        f"the merge workers' merge loop over fast's, per repeat: faster in every repeat in "
        f"{int((r['max'] < 1).sum())} of {len(r)} cells, slower in every repeat in "
        f"{int((r['min'] > 1).sum())}."
    )
    return _bullets(lines)


def stored_14() -> str:
    table = stored_results("cluster_overhead")
    first = table.iloc[0]
    loads = pd.concat([table["load_before"], table["load_after"]])
    per = [
        f"{r.size}: {r.median:.2f}x ({r.min:.2f} to {r.max:.2f}x, {r.repeats} rounds)"
        for r in path_ratios(table).itertuples()
    ]
    dask = table[table["path"] == "dask"]
    return _bullets(
        [
            f"14, *What Dask costs* (stored, `cluster_overhead.csv`; {first['machine']}, Python "
            f"{first['python']}, {first['date']}, load average {_span(loads)}): Dask's counting "
            f"time over the pool's, within a round: {'; '.join(per)}; starting the cluster, not "
            f"in those times, {_span(dask['start_s'].dropna())} s."
        ]
    )


REGIONS: dict[str, Callable[[], str]] = {
    "minutes-table": minutes_table,
    "minutes-source": minutes_source,
    "planning": planning,
    "sessions-table": sessions_table,
    **{f"slowest-{s.name.split()[0]}": (lambda s=s: slowest(s.notebooks)) for s in SESSIONS},
    "stored-05-06": lambda: stored_05() + "\n" + stored_06(),
    "stored-07-08": lambda: stored_07() + "\n" + stored_08(),
    "stored-09-10": lambda: stored_09() + "\n" + stored_10(),
    "stored-11": lambda: "\n".join(
        [stored_11_grids(), stored_11_ladder(), stored_11_versions(), stored_11_total()]
    ),
    "stored-13-14": lambda: stored_13() + "\n" + stored_14(),
}


# --- Writing the regions -------------------------------------------------------------------------

WIDTH = 100  # the prose's line length in TEACHING.md


def wrap(markdown: str) -> str:
    """Paragraphs and bullets wrapped at :data:`WIDTH` (a bullet's lines indented under its
    text); table rows, which must stay one line each, as they are."""
    out = []
    for line in markdown.splitlines():
        if line.startswith("|") or len(line) <= WIDTH:
            out.append(line)
            continue
        bullet = re.match(r"(\s*- )", line)
        indent = " " * len(bullet.group(1)) if bullet else ""
        out.extend(
            textwrap.wrap(
                line,
                WIDTH,
                subsequent_indent=indent,
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
    return "\n".join(out)


def guide_path() -> Path:
    return REPO_ROOT / "TEACHING.md"


def render(text: str) -> str:
    """``text`` with every generated region written anew. An unknown region name, or a region
    of :data:`REGIONS` missing from the text, is an error: no figure is dropped in silence."""
    found = [m.group("name") for m in REGION.finditer(text)]
    unknown = sorted(set(found) - set(REGIONS))
    missing = sorted(set(REGIONS) - set(found))
    if unknown or missing:
        raise ValueError(
            f"TEACHING.md's generated regions: unknown {unknown or 'none'}, missing "
            f"{missing or 'none'}"
        )
    made = {name: wrap(make().rstrip("\n")) for name, make in REGIONS.items()}
    return REGION.sub(
        lambda m: m.group("open") + made[m.group("name")] + "\n" + m.group("close"), text
    )


def stale_regions(text: str) -> list[str]:
    """The names of the regions whose text differs from what :func:`render` writes now."""
    fresh = {m.group("name"): m.group("body") for m in REGION.finditer(render(text))}
    return [
        m.group("name") for m in REGION.finditer(text) if fresh[m.group("name")] != m.group("body")
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bpe_course.course.publish.guide",
        description="Write TEACHING.md's generated regions from notebooks/results/.",
    )
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    parser.add_argument("--path", type=Path, help="the guide (default: TEACHING.md)")
    args = parser.parse_args(argv)
    path = args.path or guide_path()
    text = path.read_text(encoding="utf-8")
    for line in stale_timings():
        print(f"timed before it changed (time it again): {line}", file=sys.stderr)
    stale = stale_regions(text)
    if args.check:
        print("stale: " + ", ".join(stale) if stale else f"{path.name} is up to date")
        return 1 if stale else 0
    path.write_text(render(text), encoding="utf-8")
    print(f"rewrote {len(stale)} stale region(s) of {path}: {', '.join(stale) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
