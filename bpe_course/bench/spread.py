"""Timing inside a notebook, with its spread: the options in turn, several rounds, every round kept.

On a shared machine one run can be slowed by half by other work, so one run per option ranks
nothing. Here each round runs every option once, in turn, and every round is kept: the spread of
the rounds is drawn, the ratio of two options *within a round* (both saw about the same load) is
the number reported, and two options are ranked only where their ranges are apart. A notebook
sets beside this run the stored full-mode result, with its own range and the machine it came from
(:func:`stored_ratio_line`): "what you should see".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

import pandas as pd


def time_in_turn(
    runs: Mapping[str, Callable[[], object]], repeats: int = 3, warmup: bool = False
) -> pd.DataFrame:
    """Seconds of every option in ``runs``, in turn within each of ``repeats`` rounds.

    ``warmup``: one untimed round first (imports, caches and the first allocations of a process
    make a first run slower than the rest). Columns: ``option``, ``repeat``, ``seconds``.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, not {repeats}")
    if warmup:
        for run in runs.values():
            run()
    rows = []
    for repeat in range(repeats):
        for option, run in runs.items():
            start = time.perf_counter()
            run()
            rows.append(
                {"option": option, "repeat": repeat, "seconds": time.perf_counter() - start}
            )
    return pd.DataFrame(rows)


def spread(times: pd.DataFrame, value: str = "seconds") -> pd.DataFrame:
    """Median, min, max and number of rounds per option, options in their first order."""
    order = list(dict.fromkeys(times["option"]))
    table = times.groupby("option")[value].agg(["median", "min", "max", "count"]).loc[order]
    return table.rename(columns={"count": "repeats"})


def ratio_spread(times: pd.DataFrame, option: str, reference: str) -> dict[str, float]:
    """``option`` / ``reference`` within each round: median, min, max and the number of rounds."""
    wide = times.pivot(index="repeat", columns="option", values="seconds")
    ratio = (wide[option] / wide[reference]).dropna()
    return {
        "median": float(ratio.median()),
        "min": float(ratio.min()),
        "max": float(ratio.max()),
        "repeats": int(len(ratio)),
    }


def apart(times: pd.DataFrame, option: str, other: str) -> bool:
    """True when the two options' ranges of seconds do not overlap: only then rank them."""
    table = spread(times)
    a, b = table.loc[option], table.loc[other]
    return bool(a["max"] < b["min"] or b["max"] < a["min"])


def seconds_text(times: pd.DataFrame, option: str) -> str:
    """``0.18 s (0.17 to 0.19 s over 3 runs)``: the median and the range of one option."""
    row = spread(times).loc[option]
    return (
        f"{row['median']:.2f} s ({row['min']:.2f} to {row['max']:.2f} s over "
        f"{int(row['repeats'])} runs)"
    )


def ratio_text(times: pd.DataFrame, option: str, reference: str) -> str:
    """``0.35x (0.33 to 0.38x over 3 rounds)``: option / reference, round by round."""
    r = ratio_spread(times, option, reference)
    return f"{r['median']:.2f}x ({r['min']:.2f} to {r['max']:.2f}x over {r['repeats']} rounds)"


def ranking_text(times: pd.DataFrame) -> str:
    """The options fastest first, ``<`` between two whose ranges are apart and ``≈`` where they
    overlap (not ranked by this run)."""
    order = list(spread(times).sort_values("median").index)
    text = order[0]
    for faster, slower in zip(order, order[1:]):
        text += (" < " if apart(times, faster, slower) else " ≈ ") + slower
    return text


def stored_ratio_line(
    table: pd.DataFrame,
    version: str,
    reference: str,
    metric: str = "total_s",
    where: Mapping[str, object] | None = None,
) -> str:
    """What you should see, from a stored benchmark table: ``version`` / ``reference`` per repeat
    (runs made side by side), median and range, with the machine and date it was measured on.
    ``where`` picks the cells (``{"size": "1MB", "vocab_size": 3000}``); several cells give one
    line each. Says so when the table has no such runs, or fewer than 3 repeats."""
    from bpe_course.bench.beyond import paired_ratios

    rows = table
    for column, wanted in (where or {}).items():
        rows = rows[rows[column] == wanted]
    ratios = paired_ratios(rows, version, reference, metric)
    if ratios.empty:
        return f"(the stored table has no runs of both {version} and {reference} here)"
    first = rows.iloc[0]
    lines = []
    for r in ratios.itertuples():
        if r.repeats == 1:
            spread_text = "one run: not a ranking"
        else:
            spread_text = f"from {r.min:.2f} to {r.max:.2f}x over {r.repeats} repeats"
            spread_text += "" if r.repeats >= 3 else ", fewer than 3: not a ranking"
        lines.append(
            f"{r.corpus} {r.size}, vocab {int(r.vocab_size):,}: {version} took {r.median:.2f}x "
            f"{reference}'s {metric.removesuffix('_s').replace('_', ' ')} time ({spread_text})"
        )
    where_from = f"measured on {first['machine']}, {first['date']}, {int(first['workers'])} workers"
    return "; ".join(lines) + f" [{where_from}]"
