"""Nothing waits on a bad input: a FIFO (or any file that is not a regular file) is refused before
it is opened, a Dask scheduler address that refuses connections is one line at once, and a local
Dask cluster starts no more workers than there are tasks and cores. Runs that could hang run in a
fresh process with a time limit, killed whole past it."""

from __future__ import annotations

import os
import socket
import sys

import pytest

from .conftest import EOT, run_bounded

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs: POSIX")


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "corpus.fifo"
    os.mkfifo(path)  # no one ever writes: opening it for reading blocks forever
    return path


@posix_only
def test_a_fifo_as_the_corpus_is_refused_at_once(fifo) -> None:
    command = [sys.executable, "-m", "bpe_course", "train", str(fifo), "--vocab-size", "300"]
    done = run_bounded(command, timeout=60)
    assert done is not None, "train blocked on the FIFO"
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "not a regular file" in done.stderr, done.stderr


@posix_only
def test_the_api_refuses_a_fifo_in_a_list(fifo, tmp_path) -> None:
    from bpe_course import BPEInputError
    from bpe_course.counting.sources import resolve_sources

    good = tmp_path / "good.txt"
    good.write_text("a cat", encoding="utf-8")
    script = (
        "from bpe_course.counting.sources import resolve_sources\n"
        f"resolve_sources([{str(good)!r}, {str(fifo)!r}])\n"
    )
    done = run_bounded([sys.executable, "-c", script], timeout=60)
    assert done is not None, "resolve_sources blocked on the FIFO"
    assert "not a regular file" in done.stderr and "FIFO" in done.stderr
    with pytest.raises(BPEInputError, match="FIFO"):  # here too, now that it cannot block
        resolve_sources([good, fifo])


@posix_only
@pytest.mark.parametrize("named", ["folder", "glob"])
def test_a_fifo_inside_a_corpus_folder_or_glob_is_named_not_skipped(tmp_path, named) -> None:
    # Skipped in silence, the text someone meant to pipe in would be missing from the corpus.
    from bpe_course import BPEInputError
    from bpe_course.counting.sources import resolve_sources

    folder = tmp_path / "shards"
    folder.mkdir()
    (folder / "a.txt").write_text("a cat", encoding="utf-8")
    os.mkfifo(folder / "b.txt")
    corpus = folder if named == "folder" else folder / "*.txt"
    with pytest.raises(BPEInputError, match=r"b\.txt is not a regular file but a FIFO"):
        resolve_sources(corpus)


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed when the block ends: connections are refused


def test_a_refused_scheduler_address_is_one_line_at_once(tmp_path) -> None:
    pytest.importorskip("distributed")
    corpus = tmp_path / "c.txt"
    corpus.write_text("a cat" + EOT + "a dog", encoding="utf-8")
    address = f"tcp://127.0.0.1:{closed_port()}"
    command = [
        sys.executable, "-m", "bpe_course", "train", str(corpus), "--vocab-size", "300",
        "--scheduler", address,
    ]  # fmt: skip
    done = run_bounded(command, timeout=30)  # it used to wait 60 s
    assert done is not None, "train waited on a refused scheduler address"
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert address in done.stderr and "refused" in done.stderr


def test_a_local_cluster_on_a_tiny_file_starts_one_worker(tmp_path) -> None:
    pytest.importorskip("distributed")
    from bpe_course.counting.cluster import count_words_on_cluster

    corpus = tmp_path / "tiny.txt"
    corpus.write_text("once upon a time" + EOT + "the end", encoding="utf-8")
    seen: list[int] = []
    counts = count_words_on_cluster(
        corpus, [EOT], workers=4, on_done=lambda future: seen.append(len(future.client.nthreads()))
    )
    assert counts[b" upon"] == 1
    assert seen and max(seen) == 1  # one task: one worker, not four


@posix_only
def test_dev_stdin_as_the_corpus_is_refused_at_once(tmp_path) -> None:
    # a pipe that stays open and empty, as `some_command | bpe-course train /dev/stdin` when the
    # command is slow: the check must not block reading it
    import subprocess

    command = [sys.executable, "-m", "bpe_course", "train", "/dev/stdin", "--vocab-size", "300"]
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        _, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, 9)
        process.communicate()
        pytest.fail("train blocked reading /dev/stdin")
    assert process.returncode == 2 and "not a regular file" in err, err


@pytest.mark.slow
def test_a_scheduler_address_that_never_answers_is_one_line_soon(tmp_path) -> None:
    # something listens there (the kernel accepts the connection) but never speaks Dask
    pytest.importorskip("distributed")
    corpus = tmp_path / "c.txt"
    corpus.write_text("a cat" + EOT + "a dog", encoding="utf-8")
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        command = [
            sys.executable, "-m", "bpe_course", "train", str(corpus), "--vocab-size", "300",
            "--scheduler", address,
        ]  # fmt: skip
        done = run_bounded(command, timeout=45)  # it used to wait 60 s
    assert done is not None, "train waited a minute on a silent scheduler address"
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert address in done.stderr
