"""A pool worker that dies (the out-of-memory killer sends SIGKILL) stops the run at once, with
one line naming the worker and the likely cause, instead of waiting forever for its lost task.
Each run is a fresh process in its own session, killed whole if it outlives its time."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

from .conftest import EOT, run_bounded

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and sessions: POSIX")

# Counts a file on 2 workers in many small chunks and SIGKILLs one worker when the first chunk
# is reported; prints the one line the run stopped with.
SCRIPT = """
import multiprocessing, os, signal, sys, time
from bpe_course.counting import count_words, counters, pieces, plan

# Every chunk takes a while (the workers are forked, so they share the change): the kill always
# falls while work is left.
multiprocessing.set_start_method("fork")
def slow(function):
    def slowly(*args, **kwargs):
        time.sleep(0.02)
        return function(*args, **kwargs)
    return slowly
counters.PatternCounter.add = slow(counters.PatternCounter.add)
pieces.PieceCounter.add = slow(pieces.PieceCounter.add)
plan.DOCUMENT_CHUNK_BYTES = plan.PIECE_CHUNK_BYTES = 20_000
how, path = sys.argv[1], sys.argv[2]
killed = []

def kill_one(size):
    if not killed:
        victim = multiprocessing.active_children()[0]
        killed.append(victim.pid)
        os.kill(victim.pid, signal.SIGKILL)

try:
    if how == "sources":
        count_words([path, path + ".2"], [], workers=2, min_bytes_per_worker=1,
                    on_counted=kill_one)
    else:
        count_words(path, ["<|endoftext|>"], workers=2, counter=how, min_bytes_per_worker=1,
                    on_counted=kill_one)
except Exception as err:
    print(f"{type(err).__name__}: {err}")
    print("killed", killed[0])
else:
    print("no error")
"""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("faults") / "stories.txt"
    text = ("Once upon a time a cat sat on a mat and looked at the snow. " * 40 + EOT) * 400
    path.write_text(text, encoding="utf-8")
    Path(f"{path}.2").write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("how", ["pattern", "pieces", "sources"])
def test_a_killed_worker_stops_the_run_with_one_line(corpus, how: str) -> None:
    done = run_bounded([sys.executable, "-c", SCRIPT, how, str(corpus)], timeout=60)
    assert done is not None, "the run hung after a worker was killed"
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("WorkerDiedError: "), done.stdout + done.stderr
    pid = lines[1].split()[1]
    assert f"pid {pid}" in lines[0] and "SIGKILL" in lines[0] and "memory" in lines[0]
    assert "Traceback" not in done.stderr


def test_the_line_names_the_worker_that_ended_first() -> None:
    from types import SimpleNamespace as Worker

    from bpe_course.pool import who_died

    # the executor terminates the others (SIGTERM) once one dies: the other ending is the cause
    line = who_died([Worker(pid=11, exitcode=-15), Worker(pid=12, exitcode=3)])
    assert line.startswith("pretokenization worker 2 of 2 (pid 12) exited with status 3")
    line = who_died([Worker(pid=11, exitcode=None), Worker(pid=12, exitcode=-int(signal.SIGSEGV))])
    assert "worker 2 of 2 (pid 12) was killed by SIGSEGV" in line
    assert "out of memory" in who_died([])
