"""The README's opening numbers come from the stored versions grid: recomputed here, so a grid
measured again cannot leave them stale."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from bpe_course.bench.beyond import paired_ratios
from bpe_course.bench.tables import stored_results

README = Path(__file__).resolve().parents[1] / "README.md"
VERSIONS = ("v2", "v3", "v4", "v5", "fastmax")
LABELS = {"v5": "V5", "fastmax": "fast max"}


def opening() -> str:
    """The README's first paragraph, on one line."""
    text = README.read_text(encoding="utf-8").split("\n\n")[1]
    return " ".join(text.split())


def grid() -> pd.DataFrame:
    table = pd.concat([stored_results("versions_stories"), stored_results("versions_wide")])
    return table[table["status"] == "ok"]


def best_over_v1(metric: str) -> pd.Series:
    """The cell and version with the largest median speed-up over V1 (paired by repeat, 3+ repeats)."""
    rows = pd.concat(
        [paired_ratios(grid(), "v1", v, metric).assign(version=v) for v in VERSIONS],
        ignore_index=True,
    )
    rows = rows[rows["repeats"] >= 3]
    return rows.loc[rows["median"].idxmax()]


def cell_text(best: pd.Series) -> str:
    size = best["size"].replace("MB", " MB")
    return f"{best['corpus']} corpus, {size}, vocab {int(best['vocab_size']):,}"


def test_the_best_speed_ups_over_v1_are_the_stored_ones() -> None:
    text = opening()
    total, merge = best_over_v1("total_s"), best_over_v1("merge_s")
    assert (
        f"trained {total['median']:.0f} times faster than V1 end to end at best "
        f"({LABELS[total['version']]}, {cell_text(total)}; "
        f"{total['min']:.0f} to {total['max']:.0f} times over the repeats)"
    ) in text
    assert (
        f"ran up to {merge['median']:.0f} times faster than V1's ({LABELS[merge['version']]}, "
        f"{merge['corpus']}, {merge['size'].replace('MB', ' MB')}, vocab "
        f"{int(merge['vocab_size']):,}; {merge['min']:.0f} to {merge['max']:.0f} times)"
    ) in text
    machines = set(grid()["machine"])
    assert all("2 cores" in m for m in machines) and "on a 2-core VM" in text


def test_v3_against_v2_is_the_stored_one() -> None:
    ratios = paired_ratios(grid(), "v2", "v3", "total_s")
    ratios = ratios[ratios["repeats"] >= 3]
    faster, slower = int((ratios["min"] > 1).sum()), int((ratios["max"] < 1).sum())
    assert (
        f"was faster than V2 in every repeat in {faster} of the {len(ratios)} cells and slower in "
        f"every repeat in {slower}."
    ) in opening()
