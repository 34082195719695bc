"""The benchmark tables on disk: append a row as a run finishes, read a table back (a line cut by a
killed run is dropped, never read as a row), check what it holds, and open the tables shipped with
the course.

A table is a CSV a hand may have edited: :func:`read_benchmark_table` and :func:`read_trace_table`
check each column they know against its schema (:data:`BENCHMARK_COLUMNS`, :data:`TRACE_COLUMNS`)
and refuse the first value that breaks it in one line naming the file, the line and the column
(a header line repeated, text in a number's place, a time of NaN or 1e308), instead of letting
the benchmark rerun every cell or a figure fail with a traceback. Columns they do not know pass
as they are.
"""

from __future__ import annotations

import io
import math
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from bpe_course.errors import BPEInputError
from bpe_course.files import replaced_whole
from bpe_course.paths import notebooks_dir
from bpe_course.trainers import ALL_TRAINERS


def append_row(csv_path: Path, row: dict) -> None:
    """Append one row; when it brings columns the file lacks (a library's comparison columns),
    rewrite the file with all of them, so every line has the header's fields. A last line left
    unfinished by a run that was killed while writing it is dropped first (its cell runs again)."""
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    new = pd.DataFrame([row])
    if csv_path.exists():
        drop_unfinished_line(csv_path)
    if csv_path.exists() and csv_path.stat().st_size:
        header = read_table(csv_path, nrows=0).columns
        if set(new.columns) - set(header):  # rewritten whole: a crash keeps the old rows
            with replaced_whole(csv_path) as partial:
                pd.concat([read_table(csv_path), new]).to_csv(partial, index=False)
            return
        new = new.reindex(columns=header)
        new.to_csv(csv_path, mode="a", header=False, index=False)
        return
    new.to_csv(csv_path, index=False)


def drop_unfinished_line(csv_path: Path) -> None:
    """Cut ``csv_path`` after its last newline: a row is finished only with its line's end."""
    with open(csv_path, "r+b") as f:
        data = f.read()
        if data and not data.endswith(b"\n"):
            f.truncate(data.rfind(b"\n") + 1)


def read_table(csv_path: Path, **options) -> pd.DataFrame:
    """A benchmark CSV without its unfinished last line, if a killed run left one (never read
    as a row with a cut value); a file that is not a table is one clear error naming it."""
    try:
        data = Path(csv_path).read_bytes()
        if data and not data.endswith(b"\n"):
            data = data[: data.rfind(b"\n") + 1]
        return pd.read_csv(io.BytesIO(data), **options)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        reason = str(err).strip().splitlines()[-1] if str(err).strip() else type(err).__name__
        raise BPEInputError(f"cannot read {csv_path} as a table: {reason}") from None


def stored_results(name: str) -> pd.DataFrame:
    """A benchmark table shipped with the course (``notebooks/results/<name>.csv``), measured by its
    authors with this harness, so quick mode can show the full grid without rerunning it."""
    path = notebooks_dir() / "results" / f"{name}.csv"
    if not path.exists():
        raise BPEInputError(f"no stored results {path}; run `bpe-course bench` to measure them")
    return read_table(path)


# --- What a table holds, checked when it is read --------------------------------------------------


class Column(NamedTuple):
    """What one column holds: ``kind`` ``"text"``, ``"whole"`` (a whole number), ``"number"``
    (finite) or ``"flag"`` (True or False); numbers from ``low`` to ``high``; whether a row may
    leave it empty; the values a text may take (any, if empty)."""

    kind: str
    low: float | None = None
    high: float | None = None
    empty: bool = True
    values: tuple[str, ...] = ()


_SECONDS = Column("number", 0, 1e7)  # a run's time: never more than about four months
_MEGABYTES = Column("number", 0, 1e9)
_TEXT = Column("text", empty=False)
STATUSES = ("ok", "timeout", "cancelled")
BENCHMARK_COLUMNS: Mapping[str, Column] = {
    "corpus": _TEXT,
    "size_bytes": Column("whole", 1, None, empty=False),
    "size": _TEXT,
    "vocab_size": Column("whole", 257, None, empty=False),  # the 256 bytes and <|endoftext|>
    "version": _TEXT,
    "repeat": Column("whole", 0, None, empty=False),
    "workers": Column("whole", 1, None),
    "status": Column("text", empty=False, values=STATUSES),
    "timeout_s": Column("number", 0, math.inf),
    "pretokenize_s": _SECONDS,
    "merge_s": _SECONDS,
    "total_s": _SECONDS,
    "cpu_s": _SECONDS,
    "merge_cpu_s": _SECONDS,
    "load_1m": Column("number", 0, 1e6),
    "peak_rss_mb": _MEGABYTES,
    "peak_rss_children_mb": _MEGABYTES,
    "merges": Column("whole", 0),
    "words": Column("whole", 0),
    "merges_equal": Column("flag"),
    "same_prefix": Column("whole", 0),
    "same_set": Column("whole", 0),
}
TRACE_COLUMNS: Mapping[str, Column] = {
    "version": _TEXT,
    "merge": Column("whole", 1, None, empty=False),
    "words_touched": Column("whole", 0, None, empty=False),
    "seconds": Column("number", 0, 1e7, empty=False),
}


def read_benchmark_table(csv_path: Path, required: Collection[str] = ()) -> pd.DataFrame:
    """A benchmark CSV (:func:`read_table`) checked by :func:`check_benchmark_table`."""
    return check_benchmark_table(read_table(csv_path), csv_path, required)


def check_benchmark_table(
    table: pd.DataFrame, path: Path, required: Collection[str] = ()
) -> pd.DataFrame:
    """``table`` (read from ``path``) with its columns checked (:data:`BENCHMARK_COLUMNS`),
    ``required`` among them; a finished run (``ok``) must give its end-to-end time, and one of
    the course's versions its merge loop's too (a library's or a reader's trainer has none)."""
    table = check_columns(table, BENCHMARK_COLUMNS, path, required)
    if "status" in table.columns:
        ok = table["status"] == "ok"
        checks = [("total_s", ok)]
        if "version" in table.columns:
            checks.append(("merge_s", ok & table["version"].isin(list(ALL_TRAINERS))))
        for name, rows in checks:
            if name in table.columns:
                _refuse_first(table, table[name].isna() & rows, name, path, "a finished run's time")
    return table


def read_trace_table(csv_path: Path) -> pd.DataFrame:
    """A trace CSV (``bpe-course trace``: the cost of every merge), its columns checked."""
    return check_columns(read_table(csv_path), TRACE_COLUMNS, csv_path, TRACE_COLUMNS)


def check_columns(
    table: pd.DataFrame,
    schema: Mapping[str, Column],
    path: Path,
    required: Collection[str] = (),
) -> pd.DataFrame:
    """``table`` with every column of ``schema`` it holds checked and given its type (numbers
    as numbers, flags as booleans), or one :class:`BPEInputError` naming the file, the line
    (the header is line 1; as an editor counts them where no line is blank) and the column of
    the first bad value."""
    missing = [name for name in required if name not in table.columns]
    if missing:
        raise BPEInputError(
            f"{path}: no column {', '.join(map(repr, missing))}, which every row of this table "
            "needs (its header line was edited?)"
        )
    table = table.copy()
    for name, column in schema.items():
        if name in table.columns:
            table[name] = _checked(table, name, column, path)
    return table


def _checked(table: pd.DataFrame, name: str, column: Column, path: Path) -> pd.Series:
    raw = table[name]
    empty = raw.isna() | (raw.astype(str).str.strip() == "")
    if not column.empty:
        _refuse_first(table, empty, name, path, "a value (every row has one)")
    if column.kind == "text":
        values = raw.where(empty, raw.astype(str))
        if column.values:
            _refuse_first(
                table, ~empty & ~values.isin(column.values), name, path, " or ".join(column.values)
            )
        return values
    if column.kind == "flag":
        text = raw.astype(str).str.strip().str.lower()
        flags = text.map(
            {"true": True, "false": False, "1": True, "0": False, "1.0": True, "0.0": False}
        )
        _refuse_first(table, ~empty & flags.isna(), name, path, "True or False")
        return flags.where(~empty, None).astype(object)
    numbers = pd.to_numeric(raw, errors="coerce")
    what = "a whole number" if column.kind == "whole" else "a number"
    bad = ~empty & (numbers.isna() | ~numbers.abs().lt(math.inf))  # text, NaN written out, inf
    if column.kind == "whole":
        bad |= ~empty & numbers.notna() & (numbers % 1 != 0)
    if column.low is not None:
        bad |= ~empty & (numbers < column.low)
    if column.high is not None and column.high != math.inf:
        bad |= ~empty & (numbers > column.high)
    if column.low is not None:
        what += f" from {column.low:g}" + (
            f" to {column.high:g}" if column.high not in (None, math.inf) else " up"
        )
    _refuse_first(table, bad, name, path, what)
    if column.kind == "whole" and not empty.any():
        return numbers.astype("int64")
    return numbers


def _refuse_first(table: pd.DataFrame, bad: pd.Series, name: str, path: Path, what: str) -> None:
    """One error for the first row where ``bad`` holds, if any."""
    if not bad.any():
        return
    position = int(bad.to_numpy().argmax())
    value = table[name].iloc[position]
    shown = "nothing" if pd.isna(value) or str(value).strip() == "" else repr(str(value)[:40])
    hint = " (a header line repeated?)" if str(value).strip() == name else ""
    raise BPEInputError(
        f"{path}, line {position + 2}, column {name}: {shown} where the table needs {what}{hint}"
    )
