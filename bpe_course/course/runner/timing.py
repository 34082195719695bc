"""How long each notebook takes in class: every code cell's wall time, and the prose's reading time.

The teacher's guide (``TEACHING.md``) plans sessions from these figures, so the next person can
measure them again on their own machine with one command instead of trusting ours::

    python -m bpe_course.course.runner.timing notebooks/05_v1_naive.ipynb notebooks/06_*.ipynb
    python -m bpe_course.course.runner.timing notebooks/[0-9]*.ipynb \\
        --csv notebooks/results/notebook_minutes.csv --cells-csv notebooks/results/notebook_cells.csv

Each notebook runs top to bottom in a fresh kernel started in its own folder, as ``make course``
runs it (quick mode unless ``--full``); a cell's seconds are the wall time between the client
sending it and its reply, what a class waits for. Reading time is the markdown's word count at
:data:`WORDS_PER_MINUTE`, a common figure for reading technical prose.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import sys
import time
from pathlib import Path

import nbformat
import pandas as pd
from nbclient.exceptions import CellExecutionError

from bpe_course.bench.machine import machine_label
from bpe_course.course import QUICK_ENV
from bpe_course.course.runner.execute import notebook_client

WORDS_PER_MINUTE = 200


def time_notebook(
    path: Path, quick: bool = True, timeout: int = 1800, out_dir: Path | None = None
) -> pd.DataFrame:
    """Execute one notebook and return one row per code cell: ``cell`` (its index among all the
    notebook's cells, markdown ones too, from 0), ``first_line`` and ``seconds``. With
    ``out_dir``, the executed copy is written there too (what the class will see).

    A cell that raises stops the run with :class:`RuntimeError` naming the notebook and the cell.
    """
    notebook = nbformat.read(path, as_version=4)
    started: dict[int, float] = {}
    rows: list[dict] = []

    def on_start(cell, cell_index: int, **_) -> None:
        started[cell_index] = time.perf_counter()

    def on_executed(cell, cell_index: int, **_) -> None:
        seconds = time.perf_counter() - started[cell_index]
        rows.append({"cell": cell_index, "first_line": first_line(cell.source), "seconds": seconds})

    client = notebook_client(notebook, path, timeout, on_start, on_executed)
    # The switch goes to the kernel alone, so timing never changes this process's environment.
    env = {**os.environ, QUICK_ENV: "1" if quick else "0"}
    try:
        client.execute(env=env)
    except CellExecutionError as error:
        number = max(started) if started else "?"
        raise RuntimeError(f"{Path(path).name} failed in cell {number}: {error.ename}") from None
    if out_dir is not None:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, Path(out_dir) / Path(path).name)
    return pd.DataFrame(rows, columns=["cell", "first_line", "seconds"])


def first_line(source: str) -> str:
    """The cell's first line that is not blank, cut to 60 characters: enough to find it again."""
    for line in source.splitlines():
        if line.strip():
            return line.strip()[:60]
    return ""


def markdown_words(path: Path) -> int:
    """Words in the notebook's markdown cells (HTML tags and link targets not counted)."""
    notebook = nbformat.read(path, as_version=4)
    text = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    # <details>, </summary>, <br/>: markup, not words; a bare "<" of prose ("0 < x") is no tag
    text = re.sub(r"</?[A-Za-z][^<>]*>", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)  # [title](https://...): read the title only
    return len(re.findall(r"[\w`'’]+", text))


def machine() -> str:
    """The machine, as the benchmark tables name it (its core count included)."""
    return machine_label()


def summary_row(path: Path, cells: pd.DataFrame, quick: bool = True) -> dict:
    """One notebook's line of ``notebook_minutes.csv``."""
    words = markdown_words(path)
    return {
        "notebook": Path(path).stem,
        "cells": len(cells),
        "live_s": round(float(cells["seconds"].sum()), 1),
        "slowest_cell": int(cells.loc[cells["seconds"].idxmax(), "cell"]) if len(cells) else -1,
        "slowest_s": round(float(cells["seconds"].max()), 1) if len(cells) else 0.0,
        "markdown_words": words,
        "reading_min": round(words / WORDS_PER_MINUTE, 1),
        "mode": "quick" if quick else "full",
        # Shared cores slow every cell: the load when the notebook ended says how shared they were.
        "load_1min": round(os.getloadavg()[0], 1) if hasattr(os, "getloadavg") else None,
        "date": datetime.date.today().isoformat(),
        "machine": machine(),
    }


def markdown_table(minutes: pd.DataFrame) -> str:
    """The minutes table of ``TEACHING.md``, from ``notebook_minutes.csv``, with a total line."""
    lines = [
        "| notebook | code cells | live s (all cells) | slowest cell: index, s | reading min |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in minutes.itertuples():
        lines.append(
            f"| `{row.notebook}` | {row.cells} | {row.live_s:.1f} | {row.slowest_cell}: "
            f"{row.slowest_s:.1f} | {row.reading_min:.1f} |"
        )
    lines.append(
        f"| all {len(minutes)} | {minutes['cells'].sum()} | {minutes['live_s'].sum():.1f} | | "
        f"{minutes['reading_min'].sum():.1f} |"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bpe_course.course.runner.timing",
        description="Execute notebooks one at a time and print every code cell's wall time.",
    )
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--full", action="store_true", help="full size (default: quick mode)")
    parser.add_argument("--csv", type=Path, help="write one line per notebook here")
    parser.add_argument("--cells-csv", type=Path, help="write one line per code cell here")
    parser.add_argument("--out", type=Path, help="write the executed notebooks to this folder")
    parser.add_argument(
        "--table", type=Path, help="print this notebook_minutes.csv as TEACHING.md's table, no run"
    )
    args = parser.parse_args(argv)
    if args.table:
        print(markdown_table(pd.read_csv(args.table)))
        return 0
    if not args.notebooks:
        parser.error("name the notebooks to time, or --table CSV")
    summaries, all_cells = [], []
    for path in args.notebooks:
        cells = time_notebook(path, quick=not args.full, out_dir=args.out)
        print(f"\n{path.name}")
        print(cells.to_string(index=False, float_format=lambda s: f"{s:.2f}"))
        summaries.append(summary_row(path, cells, quick=not args.full))
        all_cells.append(cells.assign(notebook=path.stem))
    table = pd.DataFrame(summaries)
    print()
    print(table.drop(columns=["date", "machine"]).to_string(index=False))
    print(f"\n{summaries[0]['machine']}, {summaries[0]['mode']} mode, {summaries[0]['date']}")
    print(markdown_table(table))
    if args.csv:
        table.to_csv(args.csv, index=False)
    if args.cells_csv:
        cells = pd.concat(all_cells)[["notebook", "cell", "first_line", "seconds"]]
        cells.round({"seconds": 2}).to_csv(args.cells_csv, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
