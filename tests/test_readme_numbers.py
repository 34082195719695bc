"""The README's opening numbers come from the stored versions grid: recomputed here, so a grid
measured again cannot leave them stale."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from bpe_course.bench.beyond import paired_ratios
from bpe_course.bench.tables import stored_results
from bpe_course.counting.plan import MIN_BYTES_PER_WORKER, effective_workers

README = Path(__file__).resolve().parents[1] / "README.md"
VERSIONS = ("v2", "v3", "v4", "v5", "fastmax")
LABELS = {"v5": "V5", "fastmax": "fast max"}


def opening() -> str:
    """The README's paragraph of the stored runs' numbers (under its short start), on one line."""
    paragraphs = README.read_text(encoding="utf-8").split("\n\n")
    text = next(p for p in paragraphs if p.startswith("In the stored runs"))
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


def test_the_repeats_a_cell_are_the_stored_ones() -> None:
    table = grid()
    repeats = table.groupby(["corpus", "size", "version"])["repeat"].nunique()
    few = repeats[repeats < 3]
    # the only cells with fewer than three repeats: the wide corpus at 21.5 MB, one run each
    assert set(few.index.droplevel("version")) == {("wide", "21.5MB")} and set(few) == {1}
    assert "v1" not in set(
        table[(table["corpus"] == "wide") & (table["size"] == "21.5MB")]["version"]
    )
    assert (repeats[repeats >= 3] == 3).all()
    assert (
        "three repeats a cell, except the wide corpus at 21.5 MB: one run a version, and no V1"
    ) in opening()


def test_v3_against_v2_is_the_stored_one() -> None:
    """Only cells large enough for a second worker can show V3's change: below that V3 counts in
    one process, with V2's code, and a difference between the two is noise."""
    ratios = paired_ratios(grid(), "v2", "v3", "total_s")
    ratios = ratios[ratios["repeats"] >= 3]
    workers = grid().groupby("size_bytes")["workers"].max()
    parallel = ratios[
        [effective_workers(int(b), int(workers[b])) > 1 for b in ratios["size_bytes"]]
    ]
    faster, slower = int((parallel["min"] > 1).sum()), int((parallel["max"] < 1).sum())
    smallest = 2 * MIN_BYTES_PER_WORKER / 1e6
    assert all(b >= 2 * MIN_BYTES_PER_WORKER for b in parallel["size_bytes"])
    assert (
        f"starts a second worker only from {smallest:g} MB of text "
        f"({MIN_BYTES_PER_WORKER / 1e6:g} MB a worker), so only {len(parallel)} of the "
        f"{len(ratios)} cells with three repeats can show its change (at 1 MB it runs V2's code); "
        f"in those {len(parallel)} it was slower than V2 in every repeat in {slower} and faster in "
        f"every repeat in {faster}."
    ) in opening()
    assert set(ratios["size_bytes"]) - set(parallel["size_bytes"]) == {1_000_000}


def test_the_readme_does_not_answer_notebook_01s_first_exercise() -> None:
    """Students read the README first; 01's exercise 1 asks how the wide corpus differs from the
    stories (many more distinct words), so the README names the corpus without the answer."""
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert "01's exercise 1 asks you to find" in text
    assert "times the stories' distinct words" not in text


def test_the_speed_ups_say_their_statistic() -> None:
    """paired_ratios: per repeat V1's time over the version's, median over a cell's repeats."""
    assert (
        "Each speed-up is one cell's median, over its three repeats, of V1's time divided by the "
        "version's time in the same repeat"
    ) in opening()


def test_the_crossover_grid_minutes_are_the_stored_ones() -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())
    tables = {c: stored_results(f"crossover_{c}") for c in ("stories", "wide")}
    total = {c: t["total_s"].sum() / 60 for c, t in tables.items()}
    v4 = {c: t[t["version"] == "v4"]["total_s"].sum() / 60 for c, t in tables.items()}
    runs = {c: len(t) for c, t in tables.items()}
    assert (
        f"training times sum to {total['stories']:.1f} minutes on the stories (4 corpus sizes, "
        f"{runs['stories']} runs) and {total['wide']:.1f} minutes on the wide corpus at 1, 5 and "
        f"21.5 MB ({runs['wide']} runs), V4's runs {v4['stories']:.1f} and {v4['wide']:.1f} of them"
    ) in text
    assert all(t["status"].eq("ok").all() for t in tables.values())


def test_the_v3_counts_say_what_the_grid_cannot_decide() -> None:
    """The spread of the counting times at 21.5 MB, beside what a second worker saved in the
    stored pretokenization runs: the figures that say the V3 counts decide nothing."""
    text = opening()
    big = grid()[(grid()["corpus"] == "stories") & (grid()["size"] == "21.5MB")]
    v1 = big[big["version"] == "v1"]["pretokenize_s"]
    runs = stored_results("parallel_pretokenize")
    medians = runs[runs["size"] == "21.5MB"].groupby("job")["seconds"].median()
    saved = medians["1 worker"] - medians["2 workers"]
    assert "load" not in " ".join(grid().columns) and "the grid stores no load" in text
    assert (
        f"at 21.5 MB counting the same stories (`pretokenize_s`) took from "
        f"{big['pretokenize_s'].min():.2f} to {big['pretokenize_s'].max():.2f} s across the "
        f"versions and repeats (V1's alone {v1.min():.2f} to {v1.max():.2f} s), a spread many "
        f"times the {saved:.2f} s that a second worker saved"
    ) in text
    assert big["pretokenize_s"].max() - big["pretokenize_s"].min() > 5 * saved


def test_the_minutes_of_make_course_are_the_stored_ones() -> None:
    """The README gives the cells' stored seconds, and notebook 14's wait that make course skips,
    not a total nobody measured."""
    text = " ".join(README.read_text(encoding="utf-8").split())
    minutes = stored_results("notebook_minutes")
    watch = minutes.set_index("notebook").loc["14_beyond_one_machine", "slowest_s"]
    assert (
        f"their cells ran for {minutes['live_s'].sum():.1f} s in all "
        f"(`notebooks/results/notebook_minutes.csv`), {watch:.1f} s of it notebook 14's watched "
        "cluster job"
    ) in text
    assert "about three minutes" not in text
