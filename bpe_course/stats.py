"""Statistics over repeated runs, which the benchmark and the figures both read: the minimum,
median and maximum of each cell's repeats, where two ranges are apart, rankings that claim an
order only there, and where one version crosses another.

A single run on a shared machine says little, so every reading of the course works on the spread
of the repeats: two versions are ranked, or said to cross, only where every run of one beat every
run of the other (:func:`ranges_apart`, the one definition every ranking uses). Plain numbers and
DataFrames in, plain numbers and DataFrames out; nothing here draws or runs anything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypedDict

import pandas as pd

# --- Ranges --------------------------------------------------------------------------------------


def below(high: Any, low: Any) -> Any:
    """True where a whole range (its ``high``) lies under another's ``low``: every run of the
    first took less than every run of the second. Scalars or pandas/numpy arrays, elementwise."""
    return high < low


def ranges_apart(low_a: Any, high_a: Any, low_b: Any, high_b: Any) -> Any:
    """True where the ranges ``[low_a, high_a]`` and ``[low_b, high_b]`` do not overlap: only
    there does one clearly beat the other. Scalars or pandas/numpy arrays, elementwise."""
    return below(high_a, low_b) | below(high_b, low_a)


def ranked_key(sign: str = "<") -> str:
    """The legend printed beside a :func:`ranked` chain: the signs compare neighbours only."""
    return (
        f"(neighbours only: {sign} where two side by side have ranges apart, ≈ where they overlap; "
        "the chain is not transitive: two not side by side may overlap across a "
        f"{sign} or be apart across a ≈)"
    )


def ranked(ranges: pd.DataFrame, sign: str = " < ", label: Callable[[Any], str] = str) -> str:
    """``ranges`` (columns ``min`` and ``max``) in its own order, best first, joined by ``sign``
    where two neighbours' ranges are apart and by ``≈`` where they overlap (not ranked). Only
    neighbours are compared: print :func:`ranked_key` beside the chain."""
    names = list(ranges.index)
    if not names:
        return ""
    text = label(names[0])
    for a, b in zip(names, names[1:]):
        lo_a, hi_a, lo_b, hi_b = (ranges.loc[n, c] for n in (a, b) for c in ("min", "max"))
        text += (sign if ranges_apart(lo_a, hi_a, lo_b, hi_b) else " ≈ ") + label(b)
    return text


def spread_by(rows: pd.DataFrame, keys: Sequence[str], metric: str) -> pd.DataFrame:
    """``min``, ``median``, ``max`` and ``count`` of ``metric`` over the rows of each group of
    ``keys``: one row per group, the keys as columns."""
    grouped = rows.groupby(list(keys))[metric]
    return grouped.agg(["min", "median", "max", "count"]).reset_index()


# --- Where a stored table was measured ------------------------------------------------------------

# The columns a stored table may give the load in: machine_note's, the harness's, the ladder's.
LOAD_COLUMNS = ("load_1min", "load_1m", "load_before")


def where_measured(table: pd.DataFrame) -> str:
    """A stored table's own account of where it was measured:
    ``"Linux x86_64 (vm), 2 cores, load average 1.9 to 3.2, 2026-11-24"``.

    Any table of the course's: the machine (and its cores, from a ``cores`` column or the
    machine's label), the 1-minute load average from whichever column holds it
    (:data:`LOAD_COLUMNS`), and the dates. What a table does not store is said, never guessed:
    ``cores not stored``, ``load not stored``."""
    machines = ", ".join(sorted(set(table["machine"].astype(str))))
    if "cores" in table.columns:
        cores = ", ".join(str(c) for c in sorted(set(table["cores"])))
        machines += f", {cores} cores"
    elif "cores" not in machines:
        machines += " (cores not stored)"
    column = next((c for c in LOAD_COLUMNS if c in table.columns), None)
    load = table[column].dropna() if column else pd.Series(dtype=float)
    if len(load):
        low, high = load.min(), load.max()
        span = f"{low:.1f}" if f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f} to {high:.1f}"
        loads = f", load average {span}"
    else:
        loads = ", load not stored"
    dates = sorted(set(table["date"].astype(str)))
    when = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
    return f"{machines}{loads}, {when}"


# --- The harness's table: one row per run of a (corpus size, vocab size, version) cell ----------

_CELL = ["size_bytes", "size", "vocab_size", "version"]


def _finished(table: pd.DataFrame) -> pd.DataFrame:
    """The runs that finished (``status`` ok): a timed-out run has no time to count."""
    return table[table["status"] == "ok"]


def median_times(table: pd.DataFrame, metric: str = "merge_s") -> pd.DataFrame:
    """Median of ``metric`` over repeats, per (size, vocab, version), finished runs only."""
    return _finished(table).groupby(_CELL)[metric].median().reset_index()


def repeat_ranges(table: pd.DataFrame, metric: str = "merge_s") -> pd.DataFrame:
    """Min, median and max of ``metric`` over the repeats, per (corpus size, vocab, version)."""
    return spread_by(_finished(table), _CELL, metric)


# --- The ladder's table: one row per rung, repeat and vocab size of a traced run ----------------


def bands(table: pd.DataFrame, metric: str = "cpu_s") -> pd.DataFrame:
    """Per corpus, rung and vocab size: the min, median and max time over the repeats (traced)."""
    traced = table[table["traced"]]
    return spread_by(traced, ["shape", "size", "rung", "kind", "vocab_size"], metric)


# --- Where two versions cross --------------------------------------------------------------------


def crossover_vocab(vocab_sizes: Sequence[float], slow_minus_fast: Sequence[float]) -> float | None:
    """Where ``slow_minus_fast`` (V5 time minus V4 time, by vocab size) first turns from >= 0 to
    < 0, by linear interpolation between grid points; None when it never does."""
    points = list(zip(vocab_sizes, slow_minus_fast))
    for (v0, d0), (v1, d1) in zip(points, points[1:]):
        if d0 >= 0 > d1:
            return v0 + (v1 - v0) * d0 / (d0 - d1)
    return None


class Crossover(TypedDict):
    """What :func:`clear_crossover` finds (see there)."""

    faster: list[int]
    slower: list[int]
    overlap: list[int]
    faster_from: int | None
    crossover: float | None


def clear_crossover(ranges: pd.DataFrame, slow: str, fast: str) -> Crossover:
    """Where ``fast`` overtakes ``slow`` on one corpus size, counting only clear differences.

    ``ranges`` is :func:`repeat_ranges` for one corpus size. At each vocab size the two are
    "apart" only when their min-max ranges over the repeats do not overlap. Returned: the vocab
    sizes where ``fast`` is clearly faster and clearly slower, ``faster_from`` (the smallest vocab
    size from which ``fast`` is clearly faster at every larger one measured), and ``crossover``:
    where the medians cross, interpolated, only when ``fast`` is clearly slower just before
    ``faster_from`` (else None: no crossover is resolved by the measurements).
    """
    by_version = {v: part.set_index("vocab_size") for v, part in ranges.groupby("version")}
    a, b = by_version.get(slow), by_version.get(fast)
    result = Crossover(faster=[], slower=[], overlap=[], faster_from=None, crossover=None)
    if a is None or b is None:
        return result
    vocabs = sorted(a.index.intersection(b.index))
    for vocab in vocabs:
        if below(b.loc[vocab, "max"], a.loc[vocab, "min"]):
            result["faster"].append(vocab)
        elif below(a.loc[vocab, "max"], b.loc[vocab, "min"]):
            result["slower"].append(vocab)
        else:
            result["overlap"].append(vocab)
    tail = []
    for vocab in reversed(vocabs):
        if vocab not in result["faster"]:
            break
        tail.append(vocab)
    if tail:
        faster_from = result["faster_from"] = min(tail)
        before = [v for v in vocabs if v < faster_from]
        if before and before[-1] in result["slower"]:
            low, high = before[-1], faster_from
            diffs = [b.loc[v, "median"] - a.loc[v, "median"] for v in (low, high)]
            result["crossover"] = crossover_vocab([low, high], diffs)
    return result
