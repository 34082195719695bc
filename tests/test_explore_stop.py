"""``bpe-course explore`` stopped by SIGTERM (as a service manager or ``kill`` stops it) stops Voila
and every kernel it started, and frees the port. No browser: a page request starts the kernel."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def port_free(port: int) -> bool:
    """Nothing listens on ``port``: a server could bind it now (as servers do, with SO_REUSEADDR,
    past the closed connections the kernel keeps for a while)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def wait_until(condition, what: str, timeout_s: float = 120) -> None:
    """Poll ``condition`` until it holds; fail naming ``what`` if it never does (a bound for a
    hung test, not a timing claim)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} within {timeout_s} s")
        time.sleep(0.25)


def test_sigterm_stops_voila_and_its_kernels_and_frees_the_port(tmp_path) -> None:
    psutil = pytest.importorskip("psutil")
    pytest.importorskip("voila", reason="the explore page needs the explore extra")
    port = free_port()
    env = {
        **os.environ,
        "BPE_COURSE_BUILD": str(tmp_path / "build"),
        "BPE_COURSE_DATA": str(tmp_path / "data"),
        "BPE_COURSE_FIGURES": str(tmp_path / "figures"),
    }
    command = [sys.executable, "-m", "bpe_course", "explore", f"--port={port}", "--no-browser"]
    explore = subprocess.Popen(
        command,
        env=env,
        start_new_session=True,  # so this test can clean up whatever the command leaves
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "explore.log", "wb"),
    )
    family: list = []
    try:
        wait_until(lambda: not port_free(port), "Voila did not listen")
        # Voila runs the page's notebook in a kernel while it answers the request
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=300).read()
        assert b"<html" in page.lower()
        family = psutil.Process(explore.pid).children(recursive=True)
        kernels = [p for p in family if "ipykernel" in " ".join(p.cmdline())]
        assert kernels, [" ".join(p.cmdline()) for p in family]

        os.kill(explore.pid, signal.SIGTERM)  # the command alone, as `kill PID` sends it
        explore.wait(timeout=120)
        wait_until(
            lambda: not [p for p in family if p.is_running() and p.status() != "zombie"],
            "Voila or a kernel outlived the command",
            timeout_s=60,
        )
        wait_until(lambda: port_free(port), "the port was not freed", timeout_s=30)
        from bpe_course.cli.explore import free_port as explore_port

        assert explore_port(port) == port  # a new `bpe-course explore` gets the same port
    finally:
        for process in [*family, psutil.Process(explore.pid) if explore.poll() is None else None]:
            if process is not None and process.is_running():
                process.kill()
        log = (tmp_path / "explore.log").read_text(errors="replace")
        if explore.returncode not in (0, None):
            print(log[-3000:])


def test_sigkill_of_the_command_stops_voila_and_its_kernels(tmp_path) -> None:
    # issue 36, item 10: SIGKILL cannot be caught, so the command cannot stop Voila itself; Voila
    # and its kernels were left running, reparented, holding the port. Voila now ends itself,
    # and every kernel it started, once the command that started it is gone.
    psutil = pytest.importorskip("psutil")
    pytest.importorskip("voila", reason="the explore page needs the explore extra")
    port = free_port()
    env = {
        **os.environ,
        "BPE_COURSE_BUILD": str(tmp_path / "build"),
        "BPE_COURSE_DATA": str(tmp_path / "data"),
        "BPE_COURSE_FIGURES": str(tmp_path / "figures"),
    }
    command = [sys.executable, "-m", "bpe_course", "explore", f"--port={port}", "--no-browser"]
    explore = subprocess.Popen(
        command,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "explore.log", "wb"),
    )
    family: list = []
    try:
        wait_until(lambda: not port_free(port), "Voila did not listen")
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=300).read()
        assert b"<html" in page.lower()
        family = psutil.Process(explore.pid).children(recursive=True)
        assert [p for p in family if "ipykernel" in " ".join(p.cmdline())], family

        os.kill(explore.pid, signal.SIGKILL)  # the command alone: nothing of it runs after this
        explore.wait(timeout=60)
        wait_until(
            lambda: not [p for p in family if p.is_running() and p.status() != "zombie"],
            "Voila or a kernel outlived the command killed by SIGKILL",
            timeout_s=60,
        )
        wait_until(lambda: port_free(port), "the port was not freed", timeout_s=30)
    finally:
        for process in family:
            if process.is_running():
                process.kill()
        if explore.poll() is None:
            explore.kill()


def test_sigkill_of_course_leaves_no_kernel(tmp_path) -> None:
    # the notebooks' kernels end with the command that started them however it dies: held
    # before issue 36 too (ipykernel's parent poller), checked here beside the explorer's case
    psutil = pytest.importorskip("psutil")
    env = {
        **os.environ,
        "BPE_COURSE_BUILD": str(tmp_path / "build"),
        "BPE_COURSE_DATA": str(tmp_path / "data"),
        "BPE_COURSE_FIGURES": str(tmp_path / "figures"),
    }
    command = [sys.executable, "-m", "bpe_course", "course", "--only", "01_start"]
    course = subprocess.Popen(
        command,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    kernels: list = []
    try:

        def kernel_started() -> bool:
            try:
                family = psutil.Process(course.pid).children(recursive=True)
                kernels[:] = [p for p in family if "ipykernel" in " ".join(p.cmdline())]
            except psutil.Error:  # it ended, or a child did while it was read
                pass
            return bool(kernels) or course.poll() is not None

        wait_until(kernel_started, "no kernel started")
        assert kernels, "the notebook ended before its kernel was seen"
        os.kill(course.pid, signal.SIGKILL)
        course.wait(timeout=60)
        wait_until(
            lambda: not [p for p in kernels if p.is_running() and p.status() != "zombie"],
            "a kernel outlived the course command killed by SIGKILL",
            timeout_s=60,
        )
    finally:
        for process in kernels:
            if process.is_running():
                process.kill()
        if course.poll() is None:
            course.kill()
