"""Time short jobs several times, in turn, and summarise the runs as a median and a range.

One run of a short job on a shared machine says little: the first run pays for cold caches and
lazy imports, and a burst of load from elsewhere can slow any run by half. So the lessons time
every job ``warmup + repeats`` times, drop the warm-up rounds, and report the median with the
minimum and maximum of the rest. Jobs compared with each other run in turn within each round
(interleaved), so that a burst of load hits them alike, and their ratio is taken round by round.
Two jobs are ranked only when their ranges are apart.
"""

from __future__ import annotations

import gc
import os
import platform
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd


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

    def apart_from(self, other: Spread) -> bool:
        """True when the two ranges do not overlap: only then does one clearly beat the other."""
        return self.high < other.low or other.high < self.low

    def text(self, unit: str = "s", digits: int = 2) -> str:
        """``"0.23 s (0.21 s to 0.25 s, 3 runs)"``: the median, then the range and how many runs."""
        u = unit if unit in ("", "x", "%") else f" {unit}"  # 7.3x, 0.23 s
        m, lo, hi = (f"{v:.{digits}f}{u}" for v in (self.median, self.low, self.high))
        if len(self.values) == 1:
            return f"{m} (one run)"
        return f"{m} ({lo} to {hi}, {len(self.values)} runs)"


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds of one call (after a garbage collection, so that one job's garbage is not
    collected on another's clock) and what it returned."""
    gc.collect()
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def interleaved(
    jobs: Mapping[str, Callable[[], Any]], repeats: int = 3, warmup: int = 1
) -> pd.DataFrame:
    """Run every job once per round, in turn, for ``warmup + repeats`` rounds; keep the last
    ``repeats``. One row per kept run: ``job``, ``repeat`` (0-based), ``seconds``."""
    if repeats < 1 or warmup < 0:
        raise ValueError("need repeats >= 1 and warmup >= 0")
    rows = []
    for round_ in range(warmup + repeats):
        for name, call in jobs.items():
            seconds, _ = timed(call)
            if round_ >= warmup:
                rows.append({"job": name, "repeat": round_ - warmup, "seconds": seconds})
    return pd.DataFrame(rows, columns=["job", "repeat", "seconds"])


def spreads(table: pd.DataFrame, by: str | Sequence[str] = "job", value: str = "seconds") -> dict:
    """:class:`Spread` of ``value`` per group of ``by`` (a key, or a tuple of keys)."""
    return {key: Spread(tuple(part[value])) for key, part in table.groupby(by, sort=False)}


def ratio_spread(table: pd.DataFrame, slower: str, faster: str, value: str = "seconds") -> Spread:
    """``slower`` / ``faster`` round by round (same repeat), as a :class:`Spread` of ratios."""
    wide = table.pivot_table(index="repeat", columns="job", values=value, aggfunc="first")
    return Spread(tuple((wide[slower] / wide[faster]).dropna()))


def machine_note() -> dict[str, Any]:
    """Where a measurement was made, for a stored table: machine, cores, load, Python, date."""
    return {
        "machine": f"{platform.system()} {platform.machine()} ({platform.node()})",
        "cores": os.cpu_count(),
        "load_1min": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d"),
    }


def where_measured(table: pd.DataFrame) -> str:
    """A stored table's own account of where it was measured (columns of :func:`machine_note`):
    ``"Linux x86_64 (vm), 2 cores, load average 1.9 to 3.2, 2026-11-24"``."""
    first = table.iloc[0]
    load = table["load_1min"].dropna()
    span = (
        f"{load.min():.1f}" if load.min() == load.max() else f"{load.min():.1f} to {load.max():.1f}"
    )
    loads = f", load average {span}" if len(load) else ""
    return f"{first['machine']}, {first['cores']} cores{loads}, {first['date']}"


def compare(table: pd.DataFrame, slower: str, faster: str) -> str:
    """Two jobs run in turn: each one's spread, whether the ranges are apart, and the ratio
    ``slower / faster`` round by round (names as the table's ``job`` column, shown upper case)."""
    timing, ratio = spreads(table), ratio_spread(table, slower, faster)
    apart = "ranges apart" if timing[slower].apart_from(timing[faster]) else "ranges overlap"
    s, f = slower.upper(), faster.upper()
    return (
        f"{s} {timing[slower].text()}, {f} {timing[faster].text()} ({apart}); "
        f"{s} / {f} round by round: {ratio.text('x', 1)}"
    )


def expect(stored: pd.DataFrame, slower: str, faster: str) -> str:
    """The "what you should see" line of a comparison, from the stored full-size runs."""
    timing, ratio = spreads(stored), ratio_spread(stored, slower, faster)
    s, f = slower.upper(), faster.upper()
    if timing[slower].apart_from(timing[faster]):
        seen = (
            f"{f} ahead of {s}, the ranges apart, by a ratio near the stored {ratio.text('x', 1)}"
        )
    else:
        seen = f"no clear winner between {s} and {f}: the stored ranges overlap"
    return f"what you should see: {seen}; stored on {where_measured(stored)}"
