"""The sharded trainer returns exactly V1's vocab and merges, on its workers, at home after the
switch, and across it; a worker that dies stops the run with one line; workers end with their
parent. (Speed is measured in notebook 13, never asserted here.)"""

from __future__ import annotations

import subprocess
import sys
import time
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course.trainers import TRAINERS, shards, v1_naive

from .conftest import EOT, alive, run_bounded, tied_word_counts_strategy, word_counts_strategy

ALWAYS_PARALLEL = {"switch_sites": 0}  # never brought home
HOME_AT_ONCE = {"switch_sites": float("inf"), "window": 1}  # home after the first merge


def both(word_counts, vocab_size: int, special_tokens=(), **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = v1_naive.merge_loop(word_counts, vocab_size, special_tokens)
        got = shards.merge_loop(word_counts, vocab_size, special_tokens, workers=2, **options)
    return got, expected


def test_registered_as_a_version() -> None:
    assert TRAINERS["shards"].module is shards


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    word_counts=word_counts_strategy,
    merges=st.integers(min_value=1, max_value=120),
    switch=st.sampled_from(
        [ALWAYS_PARALLEL, HOME_AT_ONCE, {"switch_sites": 2, "window": 2}, {"switch_sites": 6}]
    ),
)
def test_matches_v1_on_generated_word_counts(word_counts, merges, switch) -> None:
    got, expected = both(word_counts, 256 + merges, **switch)
    assert got == expected


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(
    word_counts=tied_word_counts_strategy,
    switch=st.sampled_from([ALWAYS_PARALLEL, HOME_AT_ONCE]),
)
def test_ties_on_a_small_alphabet(word_counts, switch) -> None:
    # three letters, tiny counts: nearly every merge is decided by the tie-break, on two shards
    got, expected = both(word_counts, 256 + 40, **switch)
    assert got == expected


@pytest.mark.parametrize("switch", [ALWAYS_PARALLEL, HOME_AT_ONCE], ids=["parallel", "home"])
def test_special_tokens_take_their_ids(switch) -> None:
    word_counts = {b"low": 5, b"lower": 2, b"newest": 6, b"widest": 3, b"aaaa": 4, b"abab": 3}
    got, expected = both(word_counts, 256 + 2 + 12, [EOT, "<pad>"], **switch)
    assert got == expected
    assert got[0][256] == EOT.encode()


def test_one_word_and_more_workers_than_words() -> None:
    got, expected = both({b"aaaaaa": 3}, 256 + 4, **ALWAYS_PARALLEL)
    assert got == expected


def test_runs_under_spawn() -> None:
    word_counts = {b"the": 9, b"then": 4, b"there": 3, b"other": 5, b"ether": 2}
    got, expected = both(word_counts, 256 + 8, start_method="spawn", **ALWAYS_PARALLEL)
    assert got == expected


# Words enough for many merges; the callback runs in the parent between merges.
RUN = """
import multiprocessing, os, signal, sys, time
from bpe_course.trainers import shards
words = {{(chr(97 + i % 7) + chr(97 + i % 5) + chr(97 + i % 3) + "xyz").encode() * 3: i + 1
         for i in range(300)}}
def on_merge(event):
    {body}
try:
    shards.merge_loop(words, 256 + 60, on_merge=on_merge, workers=2, switch_sites=0)
except Exception as err:
    print(f"{{type(err).__name__}}: {{err}}")
else:
    print("no error")
"""

KILL_ONE = """if event.index == 3:
        victim = multiprocessing.active_children()[0]
        print("killed", victim.pid, flush=True)
        os.kill(victim.pid, signal.SIGKILL)"""

# The parent prints its workers and waits to be killed (SIGKILL: no clean-up of its own runs).
WAIT_TO_BE_KILLED = """if event.index == 3:
        print(*[p.pid for p in multiprocessing.active_children()], flush=True)
        time.sleep(60)"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and sessions: POSIX")
def test_a_killed_worker_stops_the_run_with_one_line() -> None:
    done = run_bounded([sys.executable, "-c", RUN.format(body=KILL_ONE)], timeout=60)
    assert done is not None, "the run hung after a merge worker was killed"
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("killed "), done.stdout + done.stderr
    pid = lines[0].split()[1]
    assert len(lines) == 2, done.stdout
    assert lines[1].startswith("WorkerDiedError: merge worker "), done.stdout + done.stderr
    assert f"(pid {pid}) was killed by SIGKILL" in lines[1]
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and sessions: POSIX")
def test_workers_end_with_their_parent() -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", RUN.format(body=WAIT_TO_BE_KILLED)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        workers = [int(pid) for pid in process.stdout.readline().split()]
        assert len(workers) == 2
        process.kill()
        process.wait()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and any(alive(pid) for pid in workers):
            time.sleep(0.1)
        assert not any(alive(pid) for pid in workers), "a merge worker outlived its parent"
    finally:
        process.kill()
        process.stdout.close()


# --- The benchmark's model (bpe_course.bench.shards) ---------------------------------------------


def model_inputs():
    import pandas as pd

    # fast's trace: merge 1 (set-up inside), two big merges, then a summary row of small ones
    trace = pd.DataFrame(
        {
            "merge": [1, 2, 3, -1],
            "words_touched": [9000, 4000, 1000, 50],
            "seconds": [0.5, 0.004, 0.001, 0.02],
        }
    )
    costs = pd.DataFrame(
        {
            "corpus": ["", "", "w", "w"],
            "quantity": ["round_trip_s", "round_trip_s", "setup_s", "home_s"],
            "workers": [1, 2, 2, 2],
            "value": [30e-6, 60e-6, 0.1, 0.05],
        }
    )
    return trace, costs


def test_the_model_from_its_costs() -> None:
    from bpe_course.bench.shards import (
        free_round_trip_line,
        predict,
        round_trip_model,
        work_per_word,
    )

    trace, costs = model_inputs()
    assert round_trip_model(costs) == pytest.approx((0.0, 30e-6), abs=1e-9)
    # a line whose intercept falls below zero is fitted again through the origin, not clipped
    below = costs.assign(value=[25e-6, 60e-6, 0.1, 0.05])  # free line: -10 us + 35 us x N
    assert free_round_trip_line(below) == pytest.approx((-10e-6, 35e-6), abs=1e-9)
    assert round_trip_model(below) == pytest.approx((0.0, 145e-6 / 5), abs=1e-9)
    w = work_per_word(trace)
    assert w == pytest.approx(1e-6)  # merges 2 and 3: 0.005 s over 5000 words
    one_off = costs[costs["corpus"] == "w"]
    got = predict(trace, one_off, fast_merge_s=1.0, merges=3, cores=4, round_trip=(0.0, 30e-6))
    # each merge gains w t (1 - 1/4) - R(4) when positive, R(4) = 120 us
    gains = [max(0.0, w * t * 0.75 - 120e-6) for t in (9000, 4000, 1000)]
    assert got["merges_paying"] == 3  # merge 1 too: its set-up is not in w t
    assert got["merge_s"] == pytest.approx(1.0 - sum(gains) + 0.15)
    assert got["break_even_words"] == pytest.approx(120e-6 / (w * 0.75))


def test_round_trips_run_and_the_trace_is_compacted() -> None:
    from bpe_course.bench.shards import compact, round_trip_s, trace

    assert 0 < round_trip_s(2, merges=20) < 1
    word_counts = {b"the cat": 5, b"then": 3, b"other": 2, b"aaaa": 4}
    table = trace(word_counts, "shards", 256 + 1 + 6)
    assert list(table["merge"]) == list(range(1, 7))
    small = compact(table)
    assert small.iloc[-1]["merge"] == -1
    assert small.iloc[-1]["words_touched"] == 6  # every merge here rewrote under 20 words
