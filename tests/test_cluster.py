"""Counting on a Dask cluster: the same counts and merges as this machine's path, a killed worker
costs a retry and not the result, bad shards are one clear error, and the CLI flag works.

One LocalCluster of 2 worker processes on 127.0.0.1 serves the module; the tests start and close
it. No test times anything: on a loaded 2-core machine only the results are checked.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from bpe_course import BPEInputError, train_bpe
from bpe_course.cli import main
from bpe_course.counting import count_words, plan
from bpe_course.counting.counters import choose_counter
from bpe_course.counting.plan import plan_tasks
from bpe_course.counting.sources import resolve_sources

from .conftest import EOT, stdlib_corpus

pytest.importorskip(
    "distributed", reason="the cluster extra is not installed: pip install 'bpe_course[cluster]'"
)

from bpe_course.counting.cluster import (  # noqa: E402 (only once the extra is known to be there)
    add_counts,
    count_on_worker,
    count_words_on_cluster,
    dask_client,
    kill_worker,
    map_reduce,
    plan_cluster_tasks,
)

WORKERS = 2


@pytest.fixture(scope="module")  # on several workers, this module runs on one (conftest.py)
def client():
    with dask_client("local", WORKERS) as client:
        client.wait_for_workers(WORKERS, timeout=120)
        yield client


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three plain files and two .gz, many short documents each."""
    folder = tmp_path_factory.mktemp("shards")
    paragraphs = stdlib_corpus(600_000).split("\n\n")
    fifth = len(paragraphs) // 5
    for i, name in enumerate(["1.txt", "2.txt.gz", "3.txt", "4.gz", "5.txt"]):
        text = EOT.join(paragraphs[i * fifth : (i + 1) * fifth])
        if name.endswith(".gz"):
            (folder / name).write_bytes(gzip.compress(text.encode("utf-8")))
        else:
            (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def local_counts(shards) -> dict[bytes, int]:
    return count_words(shards, [EOT])


@pytest.mark.parametrize("tasks", [1, 5, 23])
def test_counts_equal_the_local_path(client, shards, local_counts, tasks) -> None:
    counts = count_words_on_cluster(shards, [EOT], client=client, tasks=tasks)
    assert counts == local_counts


def test_a_client_passed_in_counts_again_and_again_without_a_word_on_stderr(
    client, shards, local_counts, capsys
) -> None:
    # issue 35, part 7: notebook 14's watched loop printed the dashboard's address every round
    for _ in range(3):
        assert count_words_on_cluster(shards, [EOT], client=client, tasks=4) == local_counts
    assert "Dask dashboard" not in capsys.readouterr().err


def test_without_special_tokens_too(client, shards) -> None:
    # No separator: each plain file is one range, each .gz one task, counts still exact.
    expected = count_words(shards, [])
    assert count_words_on_cluster(shards, [], client=client, tasks=9) == expected


def test_plain_files_are_counted_with_pieces_many_chunks_a_task(
    client, shards, local_counts, monkeypatch
) -> None:
    monkeypatch.setattr(plan, "PIECE_CHUNK_BYTES", 20_000)  # many chunks a task
    tasks = plan_cluster_tasks(resolve_sources(shards), [EOT], 1, counter="pieces", tasks=4)
    assert len(tasks) == 4 and all(task.counter == "pieces" for task in tasks)
    plain = [r for task in tasks for r in task.ranges if not r.compressed]
    assert all(len(task.ranges) > 1 for task in tasks)
    assert len({r.path for r in plain}) == 3  # the three plain files, in chunks
    counts = count_words_on_cluster(shards, [EOT], client=client, tasks=4, counter="pieces")
    assert counts == local_counts


@pytest.mark.parametrize("token", ["<|end of text|>", "<|end\0|>"])
def test_a_special_token_pieces_cannot_count_is_counted_with_the_pattern(
    client, shards, token: str
) -> None:
    # a space: the chunks are cut at spaces, inside it; a NUL: pieces mark tokens with one
    assert choose_counter("pieces", [token]) == "pattern"
    counts = count_words_on_cluster(shards, [token], client=client, tasks=6, counter="pieces")
    assert counts == count_words(shards, [token])


def test_train_bpe_learns_the_same_merges(client, shards) -> None:
    address = client.scheduler.address
    expected = train_bpe(shards, 500, [EOT], workers=1)
    assert train_bpe(shards, 500, [EOT], scheduler=address) == expected
    assert train_bpe(shards, 500, [EOT], version="v2", scheduler=address) == expected


def test_an_added_partial_count_is_freed_on_its_worker(client, shards, local_counts) -> None:
    # The client lets go of two partial counts once their sum is submitted, so the workers keep
    # only the partial counts still to be added: by the last sum, not the 2n - 1 results of a run.
    held: list[int] = []

    def count_keys(future) -> None:
        held.append(sum(len(keys) for keys in client.has_what().values()))

    tasks = 24
    counts = count_words_on_cluster(shards, [EOT], client=client, tasks=tasks, on_done=count_keys)
    assert counts == local_counts
    assert len(held) == 2 * tasks - 1
    assert held[-1] < tasks // 2, held


def test_a_worker_killed_mid_run_costs_a_retry_not_the_result(client, shards, local_counts) -> None:
    before = set(client.run(os.getpid).values())
    killed: list[tuple[str, int]] = []

    def kill_the_first_holder(future) -> None:
        # The first partial count just finished: kill the worker holding it, with tasks to go.
        if not killed:
            killed.append((future.key, kill_worker(client, future)))

    counts = count_words_on_cluster(
        shards, [EOT], client=client, tasks=24, on_done=kill_the_first_holder
    )
    assert counts == local_counts
    key, pid = killed[0]
    assert pid in before
    # The lost partial was computed again: it reached memory twice.
    story = client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.story(key))
    assert (
        sum(1 for event in story if event[0] == key and event[1:3] == ("processing", "memory")) >= 2
    )
    client.wait_for_workers(WORKERS, timeout=120)  # the nanny starts a new worker process
    assert pid not in set(client.run(os.getpid).values())


def test_a_missing_shard_fails_at_once_naming_it(client, shards) -> None:
    with pytest.raises(BPEInputError, match=r"corpus file not found: .*nowhere\.txt"):
        count_words_on_cluster([shards, shards / "nowhere.txt"], [EOT], client=client)


def test_a_shard_gone_after_planning_fails_the_run_naming_it(client, tmp_path) -> None:
    paths = []
    for name in ("stays.txt", "goes.txt"):
        paths.append(tmp_path / name)
        paths[-1].write_text(("a story" + EOT) * 2000, encoding="utf-8")
    tasks = plan_tasks(resolve_sources(paths), [EOT], "pattern", 6)
    paths[1].unlink()  # as if another machine could not see it
    with pytest.raises(BPEInputError, match=r"cannot read .*goes\.txt"):
        map_reduce(client, tasks)


def test_invalid_utf8_names_the_shard_and_the_offset(client, shards, tmp_path) -> None:
    good = ("a fine story" + EOT).encode() * 500
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(good + "café".encode("latin-1"))
    offset = len(good) + 3
    with pytest.raises(
        BPEInputError, match=rf"latin1\.txt is not valid UTF-8: .* offset {offset} "
    ):
        count_words_on_cluster([shards, bad], [EOT], client=client, tasks=8)


def test_a_word_too_long_names_the_shard_and_the_offset(client, shards, tmp_path) -> None:
    # issue 36, item 11: found in a task's counts on a worker, the run stops with its line
    from bpe_course.counting.plan import MAX_WORD_BYTES

    long = tmp_path / "long.txt"
    story = ("a fine story" + EOT).encode() * 500
    long.write_bytes(story + b"z" * (MAX_WORD_BYTES + 500_000) + b" " + story)
    with pytest.raises(
        BPEInputError, match=rf"long\.txt: a word longer than {MAX_WORD_BYTES} bytes covers "
    ):
        count_words_on_cluster([shards, long], [EOT], client=client, tasks=8)
    # under a larger limit (a long-word version's, issue 37): counted on the workers
    counts = count_words_on_cluster(
        [long], [EOT], client=client, tasks=8, max_word_bytes=2 * MAX_WORD_BYTES
    )
    assert max(map(len, counts)) == MAX_WORD_BYTES + 500_000


def test_the_cli_flag_with_an_address(client, shards, tmp_path, capsys) -> None:
    args = ["train", str(shards), "--vocab-size", "400", "--special-token", EOT, "-o"]
    assert main([*args, str(tmp_path / "here")]) == 0
    address = client.scheduler.address
    assert main([*args, str(tmp_path / "dask"), "--scheduler", address]) == 0
    assert "Dask dashboard: http://127.0.0.1:" in capsys.readouterr().err
    merges = (tmp_path / "dask" / "merges.txt").read_text(encoding="utf-8")
    assert merges == (tmp_path / "here" / "merges.txt").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_cli_flag_starts_a_local_cluster(shards, tmp_path, capsys) -> None:
    args = ["train", str(shards / "*.txt"), "--vocab-size", "300", "--special-token", EOT]
    assert main([*args, "-o", str(tmp_path / "here")]) == 0
    assert (
        main([*args, "-o", str(tmp_path / "dask"), "--scheduler", "local", "--workers", "1"]) == 0
    )
    merges = (tmp_path / "dask" / "merges.txt").read_bytes()
    assert merges == (tmp_path / "here" / "merges.txt").read_bytes()


def test_workers_cannot_resize_a_running_cluster(client, shards, capsys) -> None:
    address = client.scheduler.address
    code = main(
        ["train", str(shards), "--vocab-size", "300", "--scheduler", address, "--workers", "3"]
    )
    assert code == 2
    assert "workers sets the size of a local cluster" in capsys.readouterr().err


@pytest.mark.slow
def test_the_overhead_benchmark_runs_both_paths_and_checks_their_merges(tmp_path, monkeypatch):
    from bpe_course.bench.cluster import costs_from, run_overhead

    monkeypatch.setenv("BPE_COURSE_DATA", str(tmp_path))
    table = run_overhead(["300KB"], workers=2, vocab_size=400, progress=False)
    assert sorted(table["path"]) == ["dask", "pool"]
    assert table["merges_sha"].nunique() == 1 and table["words"].nunique() == 1
    dask = table[table["path"] == "dask"].iloc[0]
    for column in ("scheduler_peak_mb", "worker_peak_mb", "client_peak_mb", "task_ms", "add_s"):
        assert dask[column] > 0, column
    costs = costs_from(table)
    assert costs.core_mb_s > 0 and costs.words == dask["words"]


def test_one_sum_is_timed_on_two_whole_counts(client) -> None:
    from bpe_course.bench.cluster import _time_one_sum

    counts = {f"word{i}".encode(): i for i in range(20_000)}
    seen: list[int] = []
    real_submit = client.submit

    def submit(function, left, right, **kwargs):
        seen.extend(type(x).__name__ for x in (left, right))
        return real_submit(function, left, right, **kwargs)

    client.submit = submit
    try:
        assert _time_one_sum(client, counts) > 0
    finally:
        del client.submit
    assert seen == ["Future", "Future"]  # one future per count, not a dict of one per word


def test_partial_counts_are_counters_so_dask_moves_them_whole(shards) -> None:
    # Dask sends a plain dict between workers item by item (hundreds of ms for 20,000 words),
    # a Counter pickled whole: every sum of the reduce moves one.
    from collections import Counter

    tasks = plan_cluster_tasks(resolve_sources(shards), [EOT], 1, counter="pieces", tasks=4)
    counted = [count_on_worker(task) for task in tasks[:2]]
    assert all(type(c) is Counter for c in counted)
    assert type(add_counts(*counted)) is Counter


@pytest.mark.slow
def test_the_overhead_benchmark_killed_leaves_no_scheduler_or_worker(tmp_path, monkeypatch):
    # issue 36, item 10's class: a run of the Dask overhead benchmark started a scheduler and
    # workers that lived on when the benchmark was killed (and a run past its time limit was
    # killed alone, its cluster left running). Its scheduler is frozen here (SIGSTOP), so the
    # run could not end on its own: whatever is gone soon after the kill was ended by it.
    import json
    import signal
    import subprocess
    import sys
    import time

    psutil = pytest.importorskip("psutil")
    from bpe_course.corpora.datasets import generated_corpus

    monkeypatch.setenv("BPE_COURSE_DATA", str(tmp_path))
    spec = {"path": "dask", "corpus": str(generated_corpus("300KB")), "workers": 1}
    spec["vocab_size"] = 300
    script = "import json, sys\nfrom bpe_course.bench.cluster import _run_one\n"
    script += "_run_one(json.loads(sys.argv[1]), 600)"
    bench = subprocess.Popen(
        [sys.executable, "-c", script, json.dumps(spec)],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    family: list = []
    try:
        deadline = time.monotonic() + 120  # a bound for a hung start, not a timing claim
        scheduler = None
        while scheduler is None:
            assert time.monotonic() < deadline and bench.poll() is None, "no scheduler started"
            for process in psutil.Process(bench.pid).children(recursive=True):
                try:
                    if "dask_scheduler" in " ".join(process.cmdline()):
                        scheduler = process
                except psutil.Error:
                    pass
            time.sleep(0.05)
        scheduler.suspend()  # the run now waits on it for as long as its client's timeout
        time.sleep(1)  # its worker process too, started meanwhile
        family = psutil.Process(bench.pid).children(recursive=True)
        os.kill(bench.pid, signal.SIGKILL)
        bench.wait()
        deadline = time.monotonic() + 60
        while [p for p in family if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]:
            if time.monotonic() > deadline:
                left = [" ".join(p.cmdline())[:80] for p in family if p.is_running()]
                pytest.fail(f"outlived the benchmark killed 60 s ago: {left}")
            time.sleep(0.25)
    finally:
        for process in family:
            try:
                process.kill()
            except psutil.Error:
                pass
        if bench.poll() is None:
            bench.kill()
