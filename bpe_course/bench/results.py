"""Benchmark results as the explorer sees them: every CSV the harness wrote, on any machine, one
table; what a selection shows; which of its cells nobody has measured yet.

A *cell* is one (corpus, size, vocab size, version) point of a grid; its rows are its repeats,
possibly from several machines and grids. The ``runs`` column tells them apart (the grid and the
machine: "crossover grid, the course's VM ..."): repeats are pooled within one, never across two
unless the reader asks, so runs made under another load, on another machine or in another grid
never pass for repeats of a stored cell. Loading never changes a file: stored results are read,
never rewritten.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from bpe_course.bench.tables import check_benchmark_table, read_table
from bpe_course.errors import BPEInputError
from bpe_course.paths import build_dir, notebooks_dir

CELL = ["corpus", "size_bytes", "vocab_size", "version"]
NEEDED = {"corpus", "size_bytes", "size", "vocab_size", "version", "status", "merge_s", "total_s"}


def load_results(paths: Iterable[str | Path]) -> pd.DataFrame:
    """The rows of every benchmark CSV given (files that are not one are refused by name, and a
    value a table cannot hold by file, line and column), with a ``source`` column naming the
    file each row came from."""
    tables = []
    for path in map(Path, paths):
        if not path.is_file():
            raise BPEInputError(f"no results file at {path}")
        table = read_table(path)
        missing = NEEDED - set(table.columns)
        if missing:
            raise BPEInputError(
                f"{path} is not a benchmark table written by `bpe-course bench` "
                f"(missing {sorted(missing)})"
            )
        table = check_benchmark_table(table, path)  # a hand's edits: one line, file and line
        # rows written before rows named their grid: the grid the file's name says
        known = table["grid"] if "grid" in table.columns else pd.Series(None, table.index, object)
        table["grid"] = known.astype(object).fillna(grid_of_file(path))
        tables.append(table.assign(source=path.name))
    if not tables:
        return pd.DataFrame(columns=[*sorted(NEEDED), "machine", "grid", "runs", "source"])
    table = pd.concat(tables, ignore_index=True)
    table["machine"] = table.get("machine", pd.Series(dtype=str)).fillna("unknown machine")
    table["grid"] = table["grid"].fillna("custom")
    table["runs"] = runs_label(table)
    return table


def with_runs(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with its ``runs`` column (made from ``grid`` and ``machine``, "custom" and
    "unknown machine" where a table lacks them: one built by hand, a test's)."""
    if "runs" in table.columns:
        return table
    table = table.assign(
        grid=table["grid"] if "grid" in table.columns else "custom",
        machine=table["machine"] if "machine" in table.columns else "unknown machine",
    )
    return table.assign(runs=runs_label(table))


def runs_label(table: pd.DataFrame) -> pd.Series:
    """Which runs a row belongs to: its grid and its machine (repeats pool within one label)."""
    return table["grid"].astype(str) + " grid, " + table["machine"].astype(str)


YOURS = "yours: "  # what begins the runs label of a reader's own runs (build/bench)


def mark_yours(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` as a reader's own runs: its runs labels say so ("yours: explorer grid, ..."),
    so they are never taken for a stored grid, and the explorer never opens on them."""
    table = with_runs(table)
    return table.assign(runs=YOURS + table["runs"].astype(str))


def is_yours(runs: str) -> bool:
    return runs.startswith(YOURS)


def runs_dates(table: pd.DataFrame, runs: Iterable[str]) -> dict[str, str]:
    """When and under what load each runs label's rows were measured, as stored: one date, or
    the first and last, then the range of the one-minute load where the rows carry it."""
    table = with_runs(table)
    said = {}
    for label in runs:
        rows = table[table["runs"] == label]
        dates = sorted(str(d) for d in rows["date"].dropna().unique()) if "date" in rows else []
        text = (dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}") if dates else ""
        load = rows["load_1m"].dropna() if "load_1m" in rows else pd.Series(dtype=float)
        if not load.empty:
            text += f"{', ' if text else ''}load {load.min():.1f}-{load.max():.1f}"
        said[label] = text or "no date stored"
    return said


def grid_of_file(path: Path) -> str:
    """The grid a file's name says it holds: ``crossover_stories.csv`` and ``crossover-wide.csv``
    (as `bpe-course bench` names its files) hold the crossover grid."""
    return path.stem.replace("-", "_").split("_")[0] or "custom"


def stored_result_files() -> list[Path]:
    """The grids shipped with the course (``notebooks/results``) and the reader's own runs
    (``build/bench``): every CSV there that is a benchmark table (traces and others are not)."""
    found = []
    for folder in (notebooks_dir() / "results", build_dir() / "bench"):
        for path in sorted(folder.glob("*.csv")):
            try:
                columns = set(pd.read_csv(path, nrows=0).columns)
            except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError):
                continue
            if NEEDED <= columns:
                found.append(path)
    return found


@dataclass
class Selection:
    """What the explorer shows: a subset of cells, and how to draw them."""

    corpora: Sequence[str] = ()
    sizes: Sequence[int] = ()  # bytes
    vocab_range: tuple[int, int] = (0, 10**9)
    extra_vocabs: Sequence[int] = ()  # vocab sizes asked for outside the range (to measure)
    versions: Sequence[str] = ()
    runs: Sequence[str] = ()  # labels of the ``runs`` column; empty: all of them
    pool: bool = False  # pool the repeats of all the runs selected (else: a line per runs label)
    metric: str = "merge_s"
    ratio_to: str | None = None  # None: seconds; a version: each time divided by its time
    log_x: bool = False
    log_y: bool = False
    labels: dict = field(default_factory=dict)  # size_bytes -> label, for titles

    def vocabs_in(self, table: pd.DataFrame) -> list[int]:
        """The vocab sizes wanted: every one of the grids' (all of ``table``) in the range, and
        the extra ones. Never only those plotted: a cell measured does not shrink the grid."""
        low, high = self.vocab_range
        present = {int(v) for v in table["vocab_size"].unique() if low <= v <= high}
        return sorted(present | {int(v) for v in self.extra_vocabs})


def select(table: pd.DataFrame, selection: Selection) -> pd.DataFrame:
    """The finished or failed rows of ``table`` inside ``selection``."""
    if table.empty:
        return table
    table = with_runs(table)
    low, high = selection.vocab_range
    keep = (
        table["corpus"].isin(selection.corpora)
        & table["size_bytes"].isin(selection.sizes)
        & table["version"].isin(selection.versions)
        & (
            table["vocab_size"].between(low, high)
            | table["vocab_size"].isin(selection.extra_vocabs)
        )
    )
    if selection.runs:
        keep &= table["runs"].isin(selection.runs)
    return table[keep]


def missing_cells(table: pd.DataFrame, selection: Selection) -> list[tuple[str, int, int, str]]:
    """The cells of ``selection`` with no finished row in ``table`` among the runs selected: only
    these are measured on request (a cell already measured is never measured again by a click).
    The vocab sizes come from the grids (all of ``table``), not from what is plotted, so after a
    cancel the cells still missing are exactly those not measured yet."""
    shown = select(table, selection)
    done = {
        (corpus, int(size), int(vocab), version)
        for corpus, size, vocab, version in shown[shown["status"] == "ok"][CELL].itertuples(
            index=False, name=None
        )
    }
    wanted = [
        (corpus, int(size), int(vocab), version)
        for corpus in selection.corpora
        for size in selection.sizes
        for vocab in selection.vocabs_in(table)
        for version in selection.versions
    ]
    return [cell for cell in wanted if cell not in done]


def summary(table: pd.DataFrame, selection: Selection) -> pd.DataFrame:
    """Median, min and max over the repeats, per cell and runs label (or over all the runs
    selected, pooled, if the selection says so), in seconds or as a ratio to
    ``selection.ratio_to`` on the same cell and runs (cells without it are dropped)."""
    shown = select(table, selection)
    ok = shown[shown["status"] == "ok"]
    keys = [*CELL, "size", "runs"]
    if ok.empty:
        return pd.DataFrame(columns=[*keys, "median", "min", "max", "repeats"])
    if selection.pool:
        ok = ok.assign(runs="all the runs selected, pooled")
    stats = ok.groupby(keys)[selection.metric].agg(["median", "min", "max", "count"])
    stats = stats.rename(columns={"count": "repeats"}).reset_index()
    if selection.ratio_to:
        reference = stats[stats["version"] == selection.ratio_to].set_index(
            ["corpus", "size_bytes", "vocab_size", "runs"]
        )["median"]
        index = pd.MultiIndex.from_frame(stats[["corpus", "size_bytes", "vocab_size", "runs"]])
        base = reference.reindex(index).to_numpy()
        for column in ("median", "min", "max"):
            stats[column] = stats[column] / base
        stats = stats.dropna(subset=["median"])
    return stats
