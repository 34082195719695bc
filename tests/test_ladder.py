"""The ladder (the post's V5 turned into the course's one change at a time): every rung is exact,
each rung differs from its base by one option, and the crossover is read off the repeats right."""

from __future__ import annotations

import dataclasses
import json
import random
import subprocess
import sys
import warnings

import pandas as pd
import pytest
from hypothesis import given, settings

from bpe_course.bench.ladder import (
    crossover,
    describe_crossover,
    findings,
    plan,
    save_counts,
    summary_cell,
)
from bpe_course.reference import post_v4, post_v5
from bpe_course.reference.ladder import RUNGS
from bpe_course.trainers import v1_naive

from .test_trainers_agree import SENNRICH, word_counts_strategy

EOT = "<|endoftext|>"


@settings(max_examples=60, deadline=None)
@given(word_counts=word_counts_strategy)
def test_every_rung_learns_v1s_merges(word_counts) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = v1_naive.merge_loop(word_counts, 256 + 1 + 50, [EOT])
        for name, rung in RUNGS.items():
            assert rung.merge_loop(word_counts, 256 + 1 + 50, [EOT]) == expected, name


def test_ties_and_overlaps_on_every_rung() -> None:
    # Equal counts everywhere, overlapping pairs ("aaaa"), a left token shared by tied pairs.
    word_counts = {b"aaaa": 2, b"ab": 3, b"az": 3, b"ay": 3, b"za": 3, b"aaa": 1}
    expected = v1_naive.merge_loop(word_counts, 256 + 8)
    for name, rung in RUNGS.items():
        assert rung.merge_loop(word_counts, 256 + 8) == expected, name
        assert rung.merge_loop(SENNRICH, 256 + 5) == v1_naive.merge_loop(SENNRICH, 256 + 5)


def design_of(rung) -> object:
    return rung.merge_loop.keywords["design"] if hasattr(rung.merge_loop, "keywords") else None


def test_each_rung_changes_one_option_of_its_base() -> None:
    for name, rung in RUNGS.items():
        if rung.base is None or name == "v5":
            continue
        mine, base = design_of(rung), design_of(RUNGS[rung.base])
        changed = [
            f.name
            for f in dataclasses.fields(mine)
            if getattr(mine, f.name) != getattr(base, f.name)
        ]
        assert len(changed) == 1, (name, changed)
    assert design_of(RUNGS["p5"]) == post_v5.PUBLISHED
    assert design_of(RUNGS["p4"]) == post_v4.PUBLISHED


def test_the_options_refuse_what_they_do_not_know() -> None:
    with pytest.raises(ValueError, match="push"):
        post_v5.Design(push="sometimes")
    with pytest.raises(ValueError, match="compaction_factor"):
        post_v5.Design(compaction_factor=0.5)
    with pytest.raises(ValueError, match="find"):
        post_v4.Design(find="min")
    with pytest.raises(ValueError, match="push_source"):
        post_v5.Design(push_source="changes")  # the post's push and rewrite make no changes to read
    with pytest.raises(ValueError, match="push_source"):
        post_v5.Design(push_source="elsewhere")


def test_compaction_threshold_changes_how_often_it_compacts() -> None:
    rng = random.Random(1)
    words = [bytes(rng.choice(b"abcdefgh") for _ in range(rng.randint(3, 12))) for _ in range(300)]
    word_counts = {word: rng.randint(1, 30) for word in words}
    for rule in ("valid", "live"):
        compactions, largest = {}, {}
        for factor in (1.5, 3.0, float("inf")):
            seen = []
            design = dataclasses.replace(
                post_v5.PUBLISHED, compaction=rule, compaction_factor=factor
            )
            post_v5.merge_loop(word_counts, 256 + 150, on_merge=seen.append, design=design)
            compactions[factor] = seen[-1].heap.compactions
            largest[factor] = max(event.heap.size for event in seen)
        assert compactions[float("inf")] == 0
        assert compactions[1.5] > compactions[3.0] > 0, rule
        assert largest[1.5] < largest[3.0] < largest[float("inf")], rule


def test_the_plan_interleaves_repeats_and_rotates_the_order() -> None:
    runs = plan(["stories"], ["5MB"], ["p5", "v5", "p4"], 2, checks=())
    assert [r["repeat"] for r in runs] == [0, 0, 0, 1, 1, 1]
    assert [r["rung"] for r in runs] == ["p5", "v5", "p4", "v5", "p4", "p5"]
    assert {r["vocab_size"] for r in runs if r["rung"] == "p4"} == {5000}


def curves(v5_times, v4_times, vocabs=(300, 500, 1000, 2000)) -> pd.DataFrame:
    rows = []
    for rung, per_repeat in (("a5", v5_times), ("a4", v4_times)):
        for repeat, times in enumerate(per_repeat):
            for vocab, seconds in zip(vocabs, times):
                rows.append(
                    dict(
                        shape="s",
                        size="5MB",
                        rung=rung,
                        repeat=repeat,
                        traced=True,
                        vocab_size=vocab,
                        seconds=seconds,
                        cpu_s=seconds,
                    )
                )
    return pd.DataFrame(rows)


def test_crossover_resolved_between_clear_points() -> None:
    table = curves([[2, 3, 4, 5], [2.2, 3.1, 4.1, 5.2]], [[1, 2.5, 5, 9], [1.1, 2.6, 5.5, 9.5]])
    result = crossover(table, "s", "5MB", "a5", "a4")
    assert result["v4_ahead_until"] == 500 and result["v5_ahead_from"] == 1000
    assert describe_crossover(result) == "500-1,000 (2 of 2 repeats cross, at 632-667)"
    assert summary_cell(result) == "500-1,000 (2/2: 632-667)"


def test_overlapping_repeats_are_not_a_crossover() -> None:
    table = curves([[2, 3, 4, 5], [0.5, 1, 2, 3]], [[1, 2.5, 5, 9], [1.1, 2.6, 5.5, 9.5]])
    result = crossover(table, "s", "5MB", "a5", "a4")
    assert result["v4_ahead_until"] is None  # at 300 one V5 repeat beat one V4 repeat
    assert describe_crossover(result).startswith("none resolved below 1,000")
    never = crossover(curves([[2, 3, 6, 10]], [[1, 2, 5, 9]]), "s", "5MB", "a5", "a4")
    assert describe_crossover(never) == "V4 ahead to 2,000"
    assert summary_cell(never) == "V4 ahead to 2,000"
    ahead = crossover(curves([[0.5, 1, 2, 3]], [[1, 2, 5, 9]]), "s", "5MB", "a5", "a4")
    assert describe_crossover(ahead) == "V5 ahead from 300"
    assert summary_cell(ahead) == "V5 ahead from 300 (0/1)"


def test_worker_traces_a_run_and_hashes_its_merges(tmp_path) -> None:
    counts = tmp_path / "tiny.counts"
    save_counts({b"hello": 5, b" world": 3, b" help": 2, b"<": 1}, counts)
    spec = dict(
        counts=str(counts),
        rung="p5",
        vocab_size=262,
        points=[259, 261, 262],
        traced=True,
        budget_s=None,
    )
    out = subprocess.run(
        [sys.executable, "-m", "bpe_course.bench.ladder_worker", json.dumps(spec)],
        capture_output=True,
        text=True,
        check=True,
    )
    answer = json.loads(out.stdout)
    assert [p["vocab_size"] for p in answer["points"]] == [259, 261, 262]
    seconds = [p["seconds"] for p in answer["points"]]
    assert seconds == sorted(seconds)
    assert answer["stopped"] == "done"


def test_worker_imports_a_students_module_that_adds_a_rung(tmp_path) -> None:
    """Notebook 11's exercise 1: a rung added in a module of the student's own, named in the spec,
    exists in the worker's fresh process (found from the current folder, as python -m finds it)."""
    (tmp_path / "my_rungs.py").write_text(
        "from dataclasses import replace\n"
        "from functools import partial\n"
        "from bpe_course.reference import post_v5\n"
        "from bpe_course.reference.ladder import RUNGS, Rung\n"
        'design = replace(post_v5.PUBLISHED, push="grown")\n'
        'RUNGS["push-only"] = Rung("push-only", "v5", "push: only pairs whose count rose", "p5",'
        " False, partial(post_v5.merge_loop, design=design))\n",
        encoding="utf-8",
    )
    counts = tmp_path / "tiny.counts"
    save_counts({b"hello": 5, b" world": 3, b" help": 2, b"<": 1}, counts)
    answers = {}
    for rung in ("p5", "push-only"):
        spec = dict(counts=str(counts), rung=rung, vocab_size=262, points=[262], traced=True)
        spec |= dict(budget_s=None, modules=["my_rungs"])
        out = subprocess.run(
            [sys.executable, "-m", "bpe_course.bench.ladder_worker", json.dumps(spec)],
            capture_output=True,
            text=True,
            check=True,
            cwd=tmp_path,
        )
        answers[rung] = json.loads(out.stdout)
    for answer in answers.values():
        assert [p["vocab_size"] for p in answer["points"]] == [262]
        assert answer["stopped"] == "done"


def test_findings_keep_rungs_whose_base_was_not_measured() -> None:
    # The notebook's live ladder measures p5, bytes, grown and v5 only: grown's base (cached) is
    # missing, so grown is compared with bytes and named as such, and v5 still gets its line.
    rows = []
    for rung, scale in (("p5", 4.0), ("bytes", 2.0), ("grown", 1.0), ("v5", 0.5), ("p4", 1.5)):
        for repeat in range(3):
            for vocab in (300, 1000, 2000):
                rows.append(
                    dict(
                        shape="s",
                        size="5MB",
                        rung=rung,
                        repeat=repeat,
                        traced=True,
                        vocab_size=vocab,
                        cpu_s=scale * vocab / 1000 * (1 + repeat / 100),
                    )
                )
    lines = findings(pd.DataFrame(rows), vocab_size=1000)
    steps = [line for line in lines if line.startswith("  + ")]
    assert len(steps) == 3
    assert "as the step before" in steps[0]  # bytes after p5: its own base
    assert "2.00x as fast" in steps[1] and "bytes (steps skipped)" in steps[1]
    assert steps[2].startswith(f"  + {RUNGS['v5'].change}:")
