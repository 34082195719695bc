"""The benchmark tables on disk: append a row as a run finishes, read a table back (a line cut by a
killed run is dropped, never read as a row), and open the tables shipped with the course.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from bpe_course.errors import BPEInputError
from bpe_course.files import replaced_whole
from bpe_course.paths import notebooks_dir


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
