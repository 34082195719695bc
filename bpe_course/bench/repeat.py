"""Time jobs several times, in turn, and summarise the runs as a median and a range.

One run of a short job on a shared machine says little: the first run pays for cold caches and
lazy imports, and a burst of load from elsewhere can slow one run and spare the next. So every
job runs once per round, in turn (a burst of load hits them alike), for ``warmup + repeats``
rounds, and only the last ``repeats`` are kept. The spread of the rounds is reported as the
median with the minimum and maximum; the ratio of two jobs is taken *within a round*; and two
jobs are ranked only where their ranges are apart (:func:`bpe_course.stats.ranges_apart`, the
one definition every ranking in the course uses). Beside a notebook's own run goes the stored
full-size result, with its range and the machine it came from: "what you should see"
(:func:`expect`, :func:`stored_ratio_line`).
"""

from __future__ import annotations

import gc
import os
import platform
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import pandas as pd

from bpe_course.bench.beyond import paired_ratios
from bpe_course.stats import LOAD_COLUMNS, ranges_apart, ranked, ranked_key, where_measured

T = TypeVar("T")


@dataclass(frozen=True)
class Spread:
    """The runs of one job that count (warm-ups dropped): median, minimum, maximum."""

    values: tuple[float, ...]

    @property
    def low(self) -> float:
        return min(self.values)

    @property
    def high(self) -> float:
        return max(self.values)

    @property
    def median(self) -> float:
        return float(pd.Series(self.values).median())

    def summary(self) -> dict[str, float]:
        """``median``, ``min``, ``max`` and the number of runs (``repeats``)."""
        return {"median": self.median, "min": self.low, "max": self.high, "repeats": len(self)}

    def __len__(self) -> int:
        return len(self.values)

    def apart_from(self, other: Spread) -> bool:
        """True when the two ranges do not overlap: only then does one clearly beat the other."""
        return bool(ranges_apart(self.low, self.high, other.low, other.high))

    def text(self, unit: str = "s", digits: int = 2) -> str:
        """``"0.23 s (0.21 s to 0.25 s, 3 runs)"``: the median, then the range and how many runs."""
        u = unit if unit in ("", "x", "%") else f" {unit}"  # 7.3x, 0.23 s
        m, lo, hi = (f"{v:.{digits}f}{u}" for v in (self.median, self.low, self.high))
        if len(self.values) == 1:
            return f"{m} (one run)"
        return f"{m} ({lo} to {hi}, {len(self.values)} runs)"

    def over_text(self, unit: str = "s", runs: str = "runs", digits: int = 2) -> str:
        """``"1.10 s (1.00 to 2.00 s over 3 runs)"``: the same, the unit said once at the end."""
        u = unit if unit in ("", "x", "%") else f" {unit}"
        m, lo, hi = (f"{v:.{digits}f}" for v in (self.median, self.low, self.high))
        return f"{m}{u} ({lo} to {hi}{u} over {len(self)} {runs})"


def kept_rounds(one_round: Callable[[], T], repeats: int = 3, warmup: int = 1) -> list[T]:
    """``one_round()`` run ``warmup + repeats`` times; what the last ``repeats`` returned, in
    order (the list index is the ``repeat``): the warm-up rounds are run and dropped."""
    if repeats < 1 or warmup < 0:
        raise ValueError(f"need repeats >= 1 and warmup >= 0, not {repeats} and {warmup}")
    return [one_round() for _ in range(warmup + repeats)][warmup:]


def timed(call: Callable[[], Any]) -> dict[str, float]:
    """``seconds`` (wall) and ``cpu_s`` (user + system of this process and of the children it
    has joined: CPU / wall is how many cores the call really had) of one call, after a garbage
    collection, so that one job's garbage is not collected on another's clock."""
    gc.collect()
    before, start = os.times(), time.perf_counter()
    call()
    seconds, after = time.perf_counter() - start, os.times()
    return {"seconds": seconds, "cpu_s": sum(after[:4]) - sum(before[:4])}


def time_in_turn(
    jobs: Mapping[Any, Callable[[], Any]], repeats: int = 3, warmup: int = 1, cpu: bool = False
) -> pd.DataFrame:
    """Run every job once per round, in turn, for ``warmup + repeats`` rounds; keep the last
    ``repeats``. One row per kept run: ``job``, ``repeat`` (0-based), ``seconds`` (and ``cpu_s``
    with ``cpu``)."""
    columns = ["job", "repeat", "seconds"] + (["cpu_s"] if cpu else [])
    rounds = kept_rounds(
        lambda: {name: timed(call) for name, call in jobs.items()}, repeats, warmup
    )
    rows = [
        {"job": name, "repeat": repeat} | clocks
        for repeat, one_round in enumerate(rounds)
        for name, clocks in one_round.items()
    ]
    return pd.DataFrame(rows, columns=columns)


def spreads(table: pd.DataFrame, by: str | Sequence[str] = "job", value: str = "seconds") -> dict:
    """:class:`Spread` of ``value`` per group of ``by`` (a key, or a tuple of keys), in the
    order the groups first appear."""
    return {key: Spread(tuple(part[value])) for key, part in table.groupby(by, sort=False)}


def spread(table: pd.DataFrame, value: str = "seconds") -> pd.DataFrame:
    """:func:`spreads` as a table: ``median``, ``min``, ``max``, ``repeats`` per job."""
    rows = {job: s.summary() for job, s in spreads(table, value=value).items()}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("job")


def ratio_spread(table: pd.DataFrame, job: str, reference: str, value: str = "seconds") -> Spread:
    """``job`` / ``reference`` round by round (same repeat), as a :class:`Spread` of ratios."""
    wide = table.pivot_table(index="repeat", columns="job", values=value, aggfunc="first")
    return Spread(tuple((wide[job] / wide[reference]).dropna()))


def apart(table: pd.DataFrame, job: str, other: str) -> bool:
    """True when the two jobs' ranges of seconds do not overlap: only then rank them."""
    timing = spreads(table)
    return timing[job].apart_from(timing[other])


def seconds_text(table: pd.DataFrame, job: str, digits: int = 2) -> str:
    """``0.18 s (0.17 to 0.19 s over 3 runs)``: the median and the range of one job, with
    ``digits`` decimals (more where two ranked jobs' ranges differ only in the third)."""
    return spreads(table)[job].over_text("s", "runs", digits)


def ratio_text(table: pd.DataFrame, job: str, reference: str) -> str:
    """``0.35x (0.33 to 0.38x over 3 rounds)``: job / reference, round by round."""
    return ratio_spread(table, job, reference).over_text("x", "rounds")


def ranking_text(table: pd.DataFrame) -> str:
    """The jobs fastest first, ``<`` between two whose ranges are apart and ``≈`` where they
    overlap (not ranked by this run); neighbours only, so print :func:`ranking_key` beside it."""
    return ranked(spread(table).sort_values("median"), " < ")


def ranking_key() -> str:
    """The legend of :func:`ranking_text`: neighbours only, the chain not transitive."""
    return ranked_key("<")


def compare(table: pd.DataFrame, slower: str, faster: str) -> str:
    """Two jobs run in turn: each one's spread, whether the ranges are apart, and the ratio
    ``slower / faster`` round by round (names as the table's ``job`` column, shown upper case)."""
    timing, ratio = spreads(table), ratio_spread(table, slower, faster)
    verdict = "ranges apart" if apart(table, slower, faster) else "ranges overlap"
    s, f = slower.upper(), faster.upper()
    return (
        f"{s} {timing[slower].text()}, {f} {timing[faster].text()} ({verdict}); "
        f"{s} / {f} round by round: {ratio.text('x', 1)}"
    )


# --- What you should see: the stored runs ------------------------------------------------------


def machine_note() -> dict[str, Any]:
    """Where a measurement was made, for a stored table: machine, cores, load, Python, date."""
    return {
        "machine": f"{platform.system()} {platform.machine()} ({platform.node()})",
        "cores": os.cpu_count(),
        "load_1min": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d"),
    }


def expect(
    stored: pd.DataFrame,
    slower: str,
    faster: str,
    this_run: Mapping[str, object] | None = None,
) -> str:
    """The "what you should see" line of a comparison, from the stored full-size runs.

    ``this_run``: the live run's settings, as columns of ``stored`` (``{"size": "200KB",
    "vocab_size": 600}``). Where one differs from the stored runs', the line names both settings
    and expects the stored order, not the stored ratio: a ratio measured on another
    configuration is no yardstick for this one."""
    ratio = ratio_spread(stored, slower, faster)
    s, f = slower.upper(), faster.upper()
    first, here = stored.iloc[0], dict(this_run or {})
    differ = [key for key, value in here.items() if str(first[key]) != str(value)]
    if not apart(stored, slower, faster):
        seen = f"no clear winner between {s} and {f}: the stored ranges overlap"
    elif not differ:
        seen = (
            f"{f} ahead of {s}, the ranges apart, by a ratio near the stored {ratio.text('x', 1)}"
        )
    else:
        stored_at = ", ".join(f"{key.replace('_', ' ')} {first[key]}" for key in differ)
        here_at = ", ".join(f"{key.replace('_', ' ')} {here[key]}" for key in differ)
        seen = (
            f"{f} ahead of {s}, the ranges apart; the stored ratio, {ratio.text('x', 1)}, is for "
            f"{stored_at}, this run's for {here_at}: another configuration, so expect a ratio of "
            "its own (full mode runs the stored configuration)"
        )
    return f"what you should see: {seen}; stored on {where_measured(stored)}"


def stored_ratio_line(
    table: pd.DataFrame,
    version: str,
    reference: str,
    metric: str = "total_s",
    where: Mapping[str, object] | None = None,
) -> str:
    """What you should see, from a stored benchmark table (the harness's, one row per version and
    repeat): ``version`` / ``reference`` per repeat, median and range, with the machine and date.
    ``where`` picks the cells (``{"size": "1MB", "vocab_size": 3000}``); several cells give one
    line each. Says so when the table has no such runs, or fewer than 3 repeats; gives the load
    where the table stores it; and marks a cell not resolved where its runs show the machine's
    load rather than the code (:func:`load_sign`)."""
    rows = table
    for column, wanted in (where or {}).items():
        rows = rows[rows[column] == wanted]
    ratios = paired_ratios(rows, version, reference, metric)
    if ratios.empty:
        return f"(the stored table has no runs of both {version} and {reference} here)"
    lines = []
    for r in ratios.itertuples():
        if r.repeats == 1:
            spread_text = "one run: not a ranking"
        else:
            spread_text = f"from {r.min:.2f} to {r.max:.2f}x over {r.repeats} repeats"
            spread_text += "" if r.repeats >= 3 else ", fewer than 3: not a ranking"
        cell = rows[
            (rows["corpus"] == r.corpus)
            & (rows["size"] == r.size)
            & (rows["vocab_size"] == r.vocab_size)
        ]
        spread_text += cell_load_text(cell)
        line = (
            f"{r.corpus} {r.size}, vocab {int(r.vocab_size):,}: {version} took {r.median:.2f}x "
            f"{reference}'s {metric.removesuffix('_s').replace('_', ' ')} time ({spread_text})"
        )
        signs = [
            load_sign(table, name, r.corpus, r.size, r.vocab_size) for name in (version, reference)
        ]
        sign = next((s for s in signs if s), None)
        lines.append(line if sign is None else f"{line}, not resolved: {sign}")
    first = rows.iloc[0]
    where_from = f"measured on {first['machine']}, {first['date']}, {int(first['workers'])} workers"
    if not any(column in table.columns for column in LOAD_COLUMNS):
        where_from += ", load not stored"
    return "; ".join(lines) + f" [{where_from}]"


def cell_load_text(cell: pd.DataFrame) -> str:
    """``", load average 3.8 to 16.3"`` from whichever load column a stored table has, or ``""``."""
    column = next((c for c in LOAD_COLUMNS if c in cell.columns), None)
    load = cell[column].dropna() if column else pd.Series(dtype=float)
    if load.empty:
        return ""
    low, high = load.min(), load.max()
    span = f"{low:.1f}" if f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f} to {high:.1f}"
    return f", load average {span}"


def load_sign(
    table: pd.DataFrame, version: str, corpus: str, size: str, vocab_size: int
) -> str | None:
    """Why the stored runs of ``version`` in one cell (corpus, size, vocab) show the machine's load
    rather than the code, if they do; else None. The sign: its merge loop slower here, in every
    repeat (the ranges apart), than at a larger vocab of the same corpus and size, whose loop
    makes these same merges and more. The pretokenization of both cells (the same work at every
    vocab) is quoted beside it."""
    ok = table[
        (table["status"] == "ok")
        & (table["version"] == version)
        & (table["corpus"] == corpus)
        & (table["size"] == size)
    ]
    if "merge_s" not in ok.columns:
        return None
    ok = ok[ok["merge_s"].notna()]  # a library's run records no merge loop of its own
    here = ok[ok["vocab_size"] == vocab_size]
    for larger, there in ok[ok["vocab_size"] > vocab_size].groupby("vocab_size"):
        if here.empty or here["merge_s"].min() <= there["merge_s"].max():
            continue
        sign = (
            f"{version}'s merge loop took {_span(here['merge_s'])} here and "
            f"{_span(there['merge_s'])} at vocab {int(larger):,}, which makes these merges and "
            "more: load on the machine set these times"
        )
        if "pretokenize_s" in ok.columns:
            sign += (
                f" (its pretokenization, the same work at both: {_span(here['pretokenize_s'])} "
                f"here, {_span(there['pretokenize_s'])} there)"
            )
        return sign
    return None


def _span(seconds: pd.Series) -> str:
    return f"{seconds.min():.2f} to {seconds.max():.2f} s"
