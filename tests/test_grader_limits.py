"""The grader against code that tries to cheat or escape: a forged report through the pipe, "busy"
messages, a 20 GB allocation, a CPU hog, a double fork with setsid, the grader killed from
outside. (What the sandbox's walls stop, writing outside, the network, signalling the grader, is in
``tests/test_sandbox.py``.) Each test is bounded in time by itself (a subprocess with a timeout,
or a bounded wait), never by the grader alone; none asserts a wall time."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from bpe_course.course.exercises.check import check
from bpe_course.course.exercises.sandbox import MEMORY_BYTES, read_data

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's prctl and /proc")


def student_file(folder: Path, source: str, name: str = "merge_word") -> Path:
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def in_subprocess(code: str, seconds: float = 180) -> subprocess.CompletedProcess:
    """``code`` run by a separate Python, which the test waits for at most ``seconds``."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=seconds
    )


def check_in_subprocess(path: Path, timeout: float = 1, seconds: float = 180, extra: str = ""):
    """``check`` run by a separate Python, which the test waits for at most ``seconds``."""
    code = (
        "from bpe_course.exercises import check\n"
        f"{extra}\n"
        f"print(check('merge_word', {str(path)!r}, timeout={timeout}))\n"
    )
    return in_subprocess(code, seconds)


def gone(pid: int, within: float = 20.0) -> bool:
    """True once ``pid`` no longer runs (a zombie waiting for init to reap it counts as gone)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.1)
    return False


def test_a_forged_passed_report_sent_through_the_pipe_fails(tmp_path) -> None:
    forger = """
        import gc
        from multiprocessing.connection import Connection
        from bpe_course.course.exercises.exercise import Report

        def merge_word(word, pair, new_id):
            for thing in gc.get_objects():
                if isinstance(thing, Connection):
                    report = Report("merge_word", "passed", "merge_word: passed.")
                    for message in [("done", report), ("returned", 1, (), ""), report]:
                        try:
                            thing.send(message)
                        except Exception:
                            pass
            return ()
        """
    path = student_file(tmp_path, forger)
    report = check("merge_word", path)
    assert not report.passed and report.status == "failed"
    # the report names the file graded, whose folder's name holds "passed"
    said = report.text.replace(str(path), "FILE")
    assert "passed" not in said and "\n" not in report.text
    assert "wrote to the grader's own pipe" in report.text


def test_the_parent_reads_plain_data_only() -> None:
    import pickle

    from bpe_course.course.exercises.exercise import Report

    with pytest.raises(pickle.UnpicklingError):
        read_data(pickle.dumps(Report("merge_word", "passed", "passed")))
    assert read_data(pickle.dumps(("returned", 1, ((1, 2), {3: b"x"}, {4}), ""))) == (
        "returned",
        1,
        ((1, 2), {3: b"x"}, {4}),
        "",
    )


def test_busy_messages_do_not_extend_the_time_limit(tmp_path) -> None:
    busy = """
        import gc, threading, time
        from multiprocessing.connection import Connection

        def keep_busy():
            pipes = [t for t in gc.get_objects() if isinstance(t, Connection)]
            while True:
                for pipe in pipes:
                    try:
                        pipe.send(("busy", None))
                    except Exception:
                        pass
                time.sleep(0.05)

        def merge_word(word, pair, new_id):
            threading.Thread(target=keep_busy, daemon=True).start()
            while True:
                time.sleep(0.01)
        """
    result = check_in_subprocess(student_file(tmp_path, busy), timeout=2)
    out = result.stdout
    assert out.startswith("merge_word: ") and "passed" not in out, out + result.stderr
    assert "wrote to the grader's own pipe" in out or "stopped after 2 s" in out


def test_an_endless_loop_on_the_first_input_is_stopped_by_its_time_limit(tmp_path) -> None:
    endless = "def merge_word(word, pair, new_id):\n    while True:\n        pass\n"
    out = check_in_subprocess(student_file(tmp_path, endless), timeout=2).stdout
    assert out.startswith(
        "merge_word: stopped after 2 s without an answer on word=(0, 1, 2), pair=(1, 2), new_id=4."
    )
    assert "the time limit of one call" in out


@pytest.mark.slow
def test_an_endless_trainer_is_stopped_on_the_first_tiny_text_within_seconds(tmp_path) -> None:
    endless = (
        "def train_bpe(input_path, vocab_size, special_tokens):\n    while True:\n        pass\n"
    )
    path = student_file(tmp_path, endless, "train_bpe")
    code = f"from bpe_course.exercises import check\nprint(check('train_bpe', {str(path)!r}))\n"
    result = in_subprocess(code)
    # The first input is a small text: its limit is seconds (10), not the stories corpus's.
    assert result.stdout.startswith(
        "train_bpe: stopped after 10 s without an answer on text='low low low"
    ), result.stdout + result.stderr


@linux
def test_a_20_gb_allocation_is_stopped_by_the_memory_limit(tmp_path) -> None:
    greedy = """
        import resource

        def merge_word(word, pair, new_id):
            print("limit", resource.getrlimit(resource.RLIMIT_AS)[0])
            block = bytearray(20 * 2**30)
            return word
        """
    # A safety net of the test's own, above the grader's limit: the machine never gives 20 GB.
    net = "import resource; resource.setrlimit(resource.RLIMIT_AS, (12 * 2**30, 12 * 2**30))"
    out = check_in_subprocess(student_file(tmp_path, greedy), timeout=30, extra=net).stdout
    assert out.startswith("merge_word: stopped by the memory limit (4 GiB per process)"), out
    assert "MemoryError" in out
    assert f"limit {MEMORY_BYTES}" in out  # what it printed: the grader's limit, not the net


@pytest.mark.slow
@linux
def test_a_cpu_hog_is_stopped_by_the_cpu_limit(tmp_path) -> None:
    hog = "def merge_word(word, pair, new_id):\n    while True:\n        pass\n"
    path = student_file(tmp_path, hog)
    code = textwrap.dedent(f"""
        from bpe_course.course.exercises.catalog import EXERCISES
        from bpe_course.course.exercises.judge import grade
        from bpe_course.course.exercises.loading import StudentFile
        from bpe_course.course.exercises.sandbox import Limits

        load = StudentFile({str(path)!r}, "merge_word", "merge_word.py")
        print(grade(EXERCISES["merge_word"], load, 120, limits=Limits(cpu_seconds=4)))
        """)
    result = in_subprocess(code)
    assert result.stdout.startswith(
        "merge_word: stopped by the CPU-time limit (4 s of CPU per process) while your function "
        "worked on word=(0, 1, 2)"
    ), result.stdout + result.stderr


def marked(marker: str) -> list[int]:
    """The processes whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if state not in ("Z", "X") and marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except (OSError, IndexError):
                continue
    return found


@linux
def test_a_double_fork_with_setsid_does_not_outlive_the_grader(tmp_path) -> None:
    marker = f"orphan-{tmp_path.name}"
    escaper = f"""
        import os, sys, time

        started = []

        def merge_word(word, pair, new_id):
            if started:
                return word
            started.append(True)
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    code = "import time\\nwhile True: time.sleep(1)"
                    os.execv(sys.executable, [sys.executable, "-c", code, {marker!r}])
                os._exit(0)
            os.wait()
            time.sleep(0.5)
            return word
        """
    report = check("merge_word", student_file(tmp_path, escaper))
    assert not report.passed
    deadline = time.monotonic() + 20
    while marked(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not marked(marker), "an orphan outlived the grader"


@linux
def test_killing_the_grader_kills_the_graded_code_with_it(tmp_path) -> None:
    from bpe_course.course.exercises.isolation import CHILD_CODE

    endless = "def merge_word(word, pair, new_id):\n    while True:\n        pass\n"
    code = (
        "from bpe_course.exercises import check\n"
        f"check('merge_word', {str(student_file(tmp_path, endless))!r}, timeout=120)\n"
    )
    grader = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 60
        children: list[int] = []
        while not children and time.monotonic() < deadline:
            time.sleep(0.2)
            children = [pid for pid in marked(CHILD_CODE) if pid != grader.pid]
        assert children, "the grading child never started"
        grader.kill()  # the grader dies without a chance to clean up
        grader.wait(30)
        assert all(gone(pid) for pid in children)  # ... and its child died with it
    finally:
        grader.kill()
