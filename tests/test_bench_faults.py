"""Stopping a benchmark never leaves its worker behind: Ctrl-C (SIGINT) or SIGTERM to the process
that runs it ends the worker too, with everything it started. The workers here do no work: a
reader's trainer that sleeps (``module:function``), a ladder worker reading a FIFO no one writes."""

from __future__ import annotations

import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest

from .conftest import alive, run_bounded

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="signals and sessions: POSIX")

SLEEPY = """
import os, subprocess, sys, time
from pathlib import Path

def train(path, vocab_size, special_tokens):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    Path(os.environ["PIDS_FILE"]).write_text(f"{os.getpid()} {child.pid}")
    time.sleep(300)
"""

# Runs one benchmark cell (or one ladder run) and sends itself a signal once the worker runs.
LAUNCHER = """
import os, signal, sys, threading, time
from pathlib import Path
from bpe_course.bench import harness, ladder

how, signame, ready = sys.argv[1], sys.argv[2], Path(sys.argv[3])
# A shell's background job starts its children with SIGINT ignored, and Python then installs no
# KeyboardInterrupt handler: a Ctrl-C would be lost. Restore it, as a terminal would have it.
signal.signal(signal.SIGINT, signal.default_int_handler)

def later():
    while not ready.exists():
        time.sleep(0.05)
    time.sleep(0.3)
    os.kill(os.getpid(), getattr(signal, signame))

threading.Thread(target=later, daemon=True).start()
try:
    if how == "cell":
        harness.run_cell(Path(sys.argv[4]), "sleepy:train", 300, 1, 120)
    else:
        ladder.run_one(dict(counts=sys.argv[4], rung="p5", vocab_size=300, points=[],
                            traced=False, budget_s=None), timeout_s=120)
except KeyboardInterrupt:
    print("interrupted")
"""


def pids_running(text: str) -> list[int]:
    """Processes whose command line holds ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def gone_soon(pids: list[int], seconds: float = 10) -> list[int]:
    """The pids still alive after ``seconds``; kills them then, so no test leaves them behind."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.1)
    left = [p for p in pids if alive(p)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_stopping_a_benchmark_cell_ends_its_worker(tmp_path, signame: str) -> None:
    (tmp_path / "sleepy.py").write_text(textwrap.dedent(SLEEPY))
    pids_file = tmp_path / "pids"
    corpus = tmp_path / "c.txt"
    corpus.write_text("a cat sat")
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "PIDS_FILE": str(pids_file)}
    done = run_bounded(
        [sys.executable, "-c", LAUNCHER, "cell", signame, str(pids_file), str(corpus)],
        timeout=60,
        env=env,
    )
    assert done is not None, "the launcher hung"
    pids = [int(p) for p in pids_file.read_text().split()]
    assert gone_soon(pids) == [], f"left behind after {signame}: {pids}"


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_stopping_a_ladder_run_ends_its_worker(tmp_path, signame: str) -> None:
    fifo = tmp_path / "never_written.counts"
    os.mkfifo(fifo)  # the worker blocks opening it: a run that never ends on its own
    ready = tmp_path / "ready"
    command = [sys.executable, "-c", LAUNCHER, "ladder", signame, str(ready), str(fifo)]
    workers = lambda: pids_running(f'{{"counts": "{fifo}"')  # noqa: E731
    try:
        launcher, seen = run_bounded_after(command, ready, workers)
        assert launcher is not None, "the launcher hung"
        assert seen, "the ladder worker never started"
        left = gone_soon(workers())
        assert left == [], f"ladder worker left behind after {signame}: {launcher}"
    finally:
        gone_soon(workers(), seconds=0)  # whatever happened, none is left running


def run_bounded_after(command, ready: Path, worker_pids) -> tuple[object, list[int]]:
    """Like run_bounded, touching ``ready`` once a worker shows up (the launcher then signals);
    also returns the workers seen."""
    import subprocess
    import threading

    seen: list[int] = []

    def mark() -> None:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not seen:
            seen.extend(worker_pids())
            time.sleep(0.05)
        ready.touch()

    threading.Thread(target=mark, daemon=True).start()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        return process.communicate(timeout=120), seen
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return None, seen


# As Jupyter interrupts a kernel: SIGINT to this process alone, which lives on afterwards.
SAMPLER = """
import os, signal, sys, threading, time
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in LAUNCHER
from pathlib import Path
from bpe_course.bench.memory import sample_run

ready = Path(sys.argv[1])

def later():
    while not ready.exists():
        time.sleep(0.05)
    time.sleep(0.3)
    os.kill(os.getpid(), signal.SIGINT)

threading.Thread(target=later, daemon=True).start()
spec = dict(corpus=sys.argv[2], version="sleepy:train", vocab_size=300, workers=1,
            special_tokens=[])
try:
    sample_run(spec)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    time.sleep(30)  # the kernel lives on
"""


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="sample_run reads /proc")
def test_interrupting_a_memory_sample_ends_its_worker(tmp_path) -> None:
    import subprocess

    (tmp_path / "sleepy.py").write_text(textwrap.dedent(SLEEPY))
    pids_file = tmp_path / "pids"
    corpus = tmp_path / "c.txt"
    corpus.write_text("a cat sat")
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "PIDS_FILE": str(pids_file)}
    sampler = subprocess.Popen(
        [sys.executable, "-c", SAMPLER, str(pids_file), str(corpus)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        import select

        assert select.select([sampler.stdout], [], [], 90)[0], "the sampler hung"
        assert sampler.stdout.readline().strip() == "interrupted"
        pids = [int(p) for p in pids_file.read_text().split()]
        assert gone_soon(pids) == [], "the sampled worker ran on after the interrupt"
    finally:
        os.killpg(sampler.pid, signal.SIGKILL)
        sampler.wait()


def test_a_ladder_run_past_its_time_is_one_line_and_ends_its_worker(tmp_path) -> None:
    from bpe_course.bench.ladder import run_one

    fifo = tmp_path / "never_written.counts"
    os.mkfifo(fifo)
    spec = dict(counts=str(fifo), rung="p5", vocab_size=300, points=[], traced=False, budget_s=None)
    with pytest.raises(RuntimeError, match="ran past 3 s"):
        run_one(spec, timeout_s=3)
    assert gone_soon(pids_running(f'{{"counts": "{fifo}"')) == []
