"""A pool's workers never outlive the process that started them: SIGTERM (or SIGKILL) to a
process counting words on several workers ends its workers too, and Ctrl-C ends them at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from .test_bench_faults import alive, gone_soon
from .test_worker_faults import SCRIPT, corpus  # noqa: F401 (a fixture)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="signals and sessions: POSIX")


def children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    if int(stat.read().split(")")[-1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, ValueError):
                continue
    return found


def pool_workers(parent: int, at_least: int, seconds: float = 60) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        # the resource tracker is a child too, but not a pool worker: it exits on its own
        found = [p for p in children(parent) if "resource_tracker" not in cmdline(p)]
        if len(found) >= at_least:
            return found
        time.sleep(0.05)
    return []


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().decode(errors="replace")
    except OSError:
        return ""


@pytest.mark.parametrize("how", ["pattern", "pieces"])
@pytest.mark.parametrize("signame", ["SIGTERM", "SIGKILL", "SIGINT"])
def test_stopping_the_parent_ends_its_pool(corpus, how: str, signame: str) -> None:  # noqa: F811
    # the script of test_worker_faults, without its kill: a slow count on two workers
    script = SCRIPT.replace("if not killed:", "if False:")
    process = subprocess.Popen(
        [sys.executable, "-c", script, how, str(corpus)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        workers = pool_workers(process.pid, 2)
        assert workers, "no pool started"
        os.kill(process.pid, getattr(signal, signame))
        process.wait(timeout=60)
        left = gone_soon(workers)
        assert left == [], f"pool workers left running after {signame}"
    finally:
        if alive(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@pytest.mark.parametrize("how", ["pattern", "pieces"])
def test_ctrl_c_stops_a_pool_without_worker_tracebacks(corpus, how: str) -> None:  # noqa: F811
    # Ctrl-C in a terminal: SIGINT to the whole foreground group, the workers included
    # Each chunk sleeps 0.05 s (1.25 s a worker at least), so the count outlasts the wait below.
    script = (
        SCRIPT.replace("if not killed:", "if False:")
        .replace("time.sleep(0.02)", "time.sleep(0.05)")
        .replace(
            "except Exception as err:",
            "except KeyboardInterrupt:\n    print('interrupted')\nexcept Exception as err:",
        )
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script, how, str(corpus)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        workers = pool_workers(process.pid, 2)
        assert workers, "no pool started"
        # A worker shows in /proc before the parent has run its after-fork hooks, and CPython
        # prints and drops a KeyboardInterrupt raised inside one (it "ignores" it): a Ctrl-C in
        # that instant is lost whatever the pool does. Wait until forking is long over.
        time.sleep(0.3)
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=60)
        assert out.startswith("interrupted"), out + err
        assert "Traceback" not in err, err
        assert gone_soon(workers) == []
    finally:
        if alive(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()


HALF_SENT = """
import struct, sys, time
from bpe_course.pool import process_pool

def send_half():
    # What a worker killed while it sent a large result leaves: the length of a message and only
    # part of it, in the pool's result pipe (found in the worker's own frames).
    frame = sys._getframe()
    while "result_queue" not in frame.f_locals:
        frame = frame.f_back
    writer = frame.f_locals["result_queue"]._writer
    writer._send(struct.pack("!i", 1_000_000) + b"x" * 10)
    print("half sent", flush=True)
    time.sleep(600)

try:
    with process_pool(1, "fork") as pool:
        pool.submit(send_half)
        time.sleep(1.5)  # the pool's manager thread now waits for the rest of the message
        raise KeyboardInterrupt
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


def test_stopping_a_pool_whose_worker_died_mid_message_does_not_hang() -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", HALF_SENT],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(timeout=60)
        assert out.split() == ["half", "sent", "interrupted"], out + err
        assert process.returncode == 0 and "Traceback" not in err, err
    finally:
        if alive(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
