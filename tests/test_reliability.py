"""The command line under faults and odd input: a mistake is one line on stderr and exit status 2
(checked before any work), a signal stops a run without tracebacks, nothing half-written is read
as whole, and a corpus folder that cannot be listed is refused, not skipped."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from bpe_course import BPEInputError, train_bpe
from bpe_course.__main__ import main

from .conftest import EOT, stdlib_corpus


@pytest.fixture
def corpus(tmp_path) -> Path:
    path = tmp_path / "c.txt"
    path.write_text("the cat sat" + EOT + "the cat ran\n" * 50, encoding="utf-8")
    return path


@pytest.fixture
def no_training(monkeypatch):
    """Training that must not start: the output is checked first."""

    def refuse(*args, **kwargs):
        raise AssertionError("training started before its output was checked")

    monkeypatch.setattr("bpe_course.api.train_bpe", refuse)


def one_line_error(capsys, code: int, message: str) -> str:
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("bpe-course: error: ") and message in err, err
    return err


# --- Item 11: -o checked before training -------------------------------------------------------


def test_output_that_is_a_file_is_refused_before_training(corpus, tmp_path, capsys, no_training):
    taken = tmp_path / "taken"
    taken.write_text("keep me")
    code = main(["train", str(corpus), "--vocab-size", "270", "-o", str(taken)])
    one_line_error(capsys, code, f"{taken} is a file, not a folder")
    assert taken.read_text() == "keep me"


def test_output_under_a_file_is_refused_before_training(corpus, tmp_path, capsys, no_training):
    taken = tmp_path / "taken"
    taken.write_text("keep me")
    code = main(["train", str(corpus), "--vocab-size", "270", "-o", str(taken / "tok")])
    one_line_error(capsys, code, f"{taken} is a file, not a folder")


def test_output_under_a_read_only_folder(corpus, tmp_path, capsys, monkeypatch, no_training):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    if os.geteuid() == 0:  # root writes anywhere: make the check see what a user would
        real_access = os.access
        monkeypatch.setattr(
            os, "access", lambda p, mode, **k: Path(p) != locked and real_access(p, mode, **k)
        )
    code = main(["train", str(corpus), "--vocab-size", "270", "-o", str(locked / "a" / "tok")])
    locked.chmod(0o700)
    one_line_error(capsys, code, f"cannot write into {locked}")


def test_output_vocab_json_that_is_a_folder(corpus, tmp_path, capsys, no_training) -> None:
    (tmp_path / "tok" / "vocab.json").mkdir(parents=True)
    code = main(["train", str(corpus), "--vocab-size", "270", "-o", str(tmp_path / "tok")])
    one_line_error(capsys, code, "vocab.json is a folder")


# --- Item 12: one line instead of a traceback --------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["data", "generate", "--size", "10KB", "--seed", "-1"], "--seed must be 0 or more"),
        (
            ["train", "{corpus}", "--vocab-size", "300", "--special-token", "<|\udcff|>"],
            "is not valid UTF-8",
        ),
        (["train", "{corpus}", "--vocab-size", "300", "--workers", "0"], "workers must be"),
        (
            ["data", "slice", "{latin1}", "--size", "40B"],
            "not valid UTF-8: byte 0xe9 at byte offset 3",
        ),
        (["bench", "--sizes", "10KB", "--vocab-sizes", "1e3"], "invalid int value"),
    ],
    ids=["negative-seed", "non-utf8-special", "zero-workers", "slice-latin1", "bad-vocab"],
)
def test_mistakes_are_one_line(data_folder, tmp_path, corpus, capsys, argv, message) -> None:
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes(b"caf\xe9 au lait" + EOT.encode() + b"\n" + b"more text " * 10)
    argv = [a.format(corpus=corpus, latin1=latin1) for a in argv]
    try:
        code = main(argv)
    except SystemExit as exit:  # argparse's own errors: one usage line and the message
        code = exit.code
        err = capsys.readouterr().err
        assert code == 2 and message in err and "Traceback" not in err
        return
    one_line_error(capsys, code, message)


def test_negative_seed_in_the_api(data_folder) -> None:
    from bpe_course.corpora.datasets import generated_corpus

    with pytest.raises(BPEInputError, match="seed must be"):
        generated_corpus("10KB", seed=-1)


# --- The benchmark's CSV cut mid-row -----------------------------------------------------------


def _cut_csv(tmp_path) -> Path:
    from bpe_course.bench.tables import append_row

    path = tmp_path / "bench.csv"
    row = {
        "corpus": "stories",
        "size_bytes": 1000,
        "size": "1KB",
        "vocab_size": 300,
        "version": "v5",
        "repeat": 0,
        "status": "ok",
        "merge_s": 0.25,
        "total_s": 0.5,
    }
    append_row(path, row)
    append_row(path, {**row, "repeat": 1, "merge_s": 0.125})
    data = path.read_bytes()
    path.write_bytes(data[: data.rindex(b"0.125") + 3])  # killed while writing: "...,0.1"
    return path


def test_cut_csv_is_repaired_when_resumed(tmp_path) -> None:
    from bpe_course.bench.tables import append_row, read_table

    path = _cut_csv(tmp_path)
    table = read_table(path)
    assert list(table["repeat"]) == [0]  # the cut row is not read as a row with a wrong value
    append_row(path, {**table.iloc[0].to_dict(), "repeat": 2})
    table = pd.read_csv(path)
    assert list(table["repeat"]) == [0, 2] and list(table["merge_s"]) == [0.25, 0.25]


def test_cut_csv_read_by_the_results_reader(tmp_path) -> None:
    from bpe_course.bench.results import load_results

    assert list(load_results([_cut_csv(tmp_path)])["repeat"]) == [0]


def test_unreadable_csv_is_one_line(tmp_path, capsys) -> None:
    path = tmp_path / "bad.csv"
    path.write_text('a,b\n1,"2\n')  # an unterminated quote: not a table
    one_line_error(capsys, main(["plot", str(path)]), f"cannot read {path} as a table")


# --- Corpus folders -----------------------------------------------------------------------------


def test_unreadable_subfolder_is_refused(tmp_path, monkeypatch) -> None:
    folder = tmp_path / "shards"
    (folder / "locked").mkdir(parents=True)
    (folder / "a.txt").write_text("some text here", encoding="utf-8")
    (folder / "locked" / "b.txt").write_text("more text here", encoding="utf-8")
    (folder / "locked").chmod(0)
    real_scandir = os.scandir

    def scandir(path="."):
        if Path(path) == folder / "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    if os.geteuid() == 0:  # root reads anything: make the listing fail as a user's would
        monkeypatch.setattr(os, "scandir", scandir)
    try:
        with pytest.raises(BPEInputError, match=r"cannot list .*locked: Permission denied"):
            train_bpe(folder, 270)
    finally:
        (folder / "locked").chmod(0o700)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="Linux's /proc")
def test_file_with_size_zero_but_content() -> None:
    with pytest.raises(BPEInputError, match="reports a size of 0 bytes but holds data"):
        train_bpe("/proc/self/status", 270)


# --- Signals: stop without tracebacks ----------------------------------------------------------


def _children(pid: int) -> list[int]:
    import psutil

    try:
        return [c.pid for c in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _start(argv: list[str], tmp_path: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "bpe_course", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        start_new_session=True,  # its own group: the test's signal reaches it as a terminal's
        # as from a terminal: a test run started in the background passes SIGINT on ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _wait_for_children(process: subprocess.Popen, count: int, limit_s: float = 60) -> None:
    deadline = time.monotonic() + limit_s
    while len(_children(process.pid)) < count:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the workers never started"
        time.sleep(0.1)
    time.sleep(0.5)  # let them start working


@pytest.fixture(scope="module")
def big_corpus(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("big") / "big.txt"
    text = stdlib_corpus(1_000_000)
    path.write_text(text * 24, encoding="utf-8")  # ~24 MB: the workers count for seconds
    return path


def test_sigterm_to_train_stops_it_in_one_line(big_corpus, tmp_path) -> None:
    argv = [
        "train",
        str(big_corpus),
        "--vocab-size",
        "300",
        "--special-token",
        EOT,
        "--version",
        "v3",
        "--workers",
        "2",
    ]
    process = _start(argv, tmp_path)
    _wait_for_children(process, 2)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert "Traceback" not in err and err.strip() == "bpe-course: terminated", err
    assert process.returncode == 128 + signal.SIGTERM


def test_ctrl_c_on_the_dask_path_is_one_line(big_corpus, tmp_path) -> None:
    pytest.importorskip("distributed")
    argv = [
        "train",
        str(big_corpus),
        "--vocab-size",
        "300",
        "--special-token",
        EOT,
        "--scheduler",
        "local",
        "--workers",
        "2",
    ]
    process = _start(argv, tmp_path)
    first = process.stderr.readline()  # printed once the cluster is up, before the counting
    assert first.startswith("Dask dashboard"), first + process.communicate()[1]
    time.sleep(0.5)
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole group
    _, err = process.communicate(timeout=60)
    assert "Traceback" not in err and err.strip() == "bpe-course: interrupted", err
    assert process.returncode == 130


# Ctrl-C (to the whole group, as a terminal sends it) while the local cluster starts: right after
# its workers are up, before the counting; or before the first worker is.
CTRL_C_AT_START = """
import os, signal, sys
import distributed

real = distributed.LocalCluster

class CtrlCWhileStarting(real):
    def __init__(self, *args, **kwargs):
        if sys.argv[1] == "before":
            os.killpg(0, signal.SIGINT)
        super().__init__(*args, **kwargs)
        if sys.argv[1] == "after":
            os.killpg(0, signal.SIGINT)

distributed.LocalCluster = CtrlCWhileStarting
from bpe_course.__main__ import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("when", ["before", "after"])
def test_ctrl_c_while_the_dask_cluster_starts_stops_the_run(corpus, tmp_path, when) -> None:
    # issue 36, item 15: the start ignored SIGINT in this process too, and the run went on
    psutil = pytest.importorskip("psutil")
    pytest.importorskip("distributed")
    argv = ["train", str(corpus), "--vocab-size", "300", "--scheduler", "local", "--workers", "2"]
    process = subprocess.Popen(
        [sys.executable, "-c", CTRL_C_AT_START, when, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        out, err = process.communicate(timeout=180)
        deadline = time.monotonic() + 30  # a bound for a leak, not a timing claim
        while _in_session(psutil, process.pid) and time.monotonic() < deadline:
            time.sleep(0.25)
        left = [" ".join(p.cmdline()) for p in _in_session(psutil, process.pid)]
    finally:
        for p in _in_session(psutil, process.pid):
            p.kill()
    assert "Traceback" not in err and err.strip().endswith("bpe-course: interrupted"), err
    assert process.returncode == 130, (out, err)
    assert "merges" not in out  # no tokenizer was trained
    assert not left, left  # no worker outlived the run


def _in_session(psutil, session: int) -> list:
    """The live processes of ``session`` (zombies have ended)."""
    found = []
    for p in psutil.process_iter():
        try:
            if os.getsid(p.pid) == session and p.status() != psutil.STATUS_ZOMBIE:
                found.append(p)
        except (OSError, psutil.Error):
            continue
    return found


# --- Item 13: explore prints the address it serves ----------------------------------------------


def test_explore_with_its_port_taken_prints_the_port_served(monkeypatch, tmp_path, capsys):
    pytest.importorskip("voila")
    from bpe_course.cli import explore as explore_cli

    monkeypatch.setenv("BPE_COURSE_BUILD", str(tmp_path / "build"))
    commands = []
    # serve() runs Voila until it ends: here it only records the command it was given
    monkeypatch.setattr(
        explore_cli, "serve", lambda command, env=None: commands.append(command) or 0
    )
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["explore", "--port", str(port), "--no-browser"]) == 0
    printed = capsys.readouterr().out
    served = int(next(a for a in commands[0] if a.startswith("--port=")).split("=")[1])
    assert served != port and f"http://127.0.0.1:{served}/" in printed
    assert f":{port}" not in printed.replace(f"port {port}", "")
    assert "--Voila.port_retries=0" in commands[0]  # Voila may not move it again


def test_explore_port_out_of_range_is_one_line(monkeypatch, tmp_path, capsys) -> None:
    pytest.importorskip("voila")
    from bpe_course.cli import explore as explore_cli

    monkeypatch.setenv("BPE_COURSE_BUILD", str(tmp_path / "build"))
    monkeypatch.setattr(explore_cli, "serve", lambda command, env=None: 0)
    one_line_error(capsys, main(["explore", "--port", "-5"]), "--port must be from 1 to 65535")


# --- More of the same classes ------------------------------------------------------------------


def test_a_folder_under_a_file_is_one_line(tmp_path, capsys) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    one_line_error(capsys, main(["handout", str(blocker / "class")]), "File exists")


def test_bench_refuses_zero_workers(data_folder, capsys) -> None:
    argv = ["bench", "--sizes", "10KB", "--vocab-sizes", "300", "--versions", "v5"]
    one_line_error(capsys, main([*argv, "--workers", "0"]), "workers must be 1 or more")


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "No columns to parse"), (b"a,b\n\xe9,1\n", "can't decode byte 0xe9")],
    ids=["empty", "latin1"],
)
def test_plot_of_an_unreadable_csv_is_one_line(tmp_path, capsys, content, message) -> None:
    path = tmp_path / "t.csv"
    path.write_bytes(content)
    one_line_error(capsys, main(["plot", str(path)]), message)


def test_broken_link_in_a_corpus_folder_is_refused(tmp_path) -> None:
    folder = tmp_path / "shards"
    folder.mkdir()
    (folder / "a.txt").write_text("some text here", encoding="utf-8")
    (folder / "b.txt").symlink_to(tmp_path / "moved-away.txt")
    with pytest.raises(BPEInputError, match=r"b.txt is a link to .*moved-away.txt, which does not"):
        train_bpe(folder, 270)


def test_interrupted_figure_save_keeps_the_old_figure(tmp_path, monkeypatch) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bpe_course.plots import save_figure

    fig, ax = plt.subplots()
    ax.plot([1, 2], [3, 4])
    paths = save_figure(fig, "f", folder=tmp_path)
    before = {p.name: p.read_bytes() for p in paths}

    def cut_short(target, **kwargs):
        Path(target).write_bytes(b"<svg half")  # what a killed process leaves
        raise KeyboardInterrupt

    monkeypatch.setattr(fig, "savefig", cut_short)
    with pytest.raises(KeyboardInterrupt):
        save_figure(fig, "f", folder=tmp_path)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    plt.close(fig)


def test_interrupted_rewrite_of_the_bench_csv_keeps_its_rows(tmp_path, monkeypatch) -> None:
    from bpe_course.bench.tables import append_row

    path = tmp_path / "bench.csv"
    append_row(path, {"corpus": "stories", "version": "v5", "merge_s": 0.5})
    before = path.read_bytes()
    real_to_csv = pd.DataFrame.to_csv

    def cut_short(self, target=None, **kwargs):
        real_to_csv(self.head(0), target, **kwargs)  # the header written, then killed
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", cut_short)
    with pytest.raises(KeyboardInterrupt):  # a row with a new column: the file is rewritten
        append_row(path, {"corpus": "stories", "version": "hf", "merges_equal": True})
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["bench.csv"]


def test_writing_never_takes_another_runs_partial_file(tmp_path) -> None:
    from bpe_course.files import write_atomically

    path = tmp_path / "out.json"
    theirs = tmp_path / "out.json.partial"  # another run, still writing (the old shared name)
    theirs.write_text("half of their file")
    write_atomically(path, "mine")
    assert path.read_text() == "mine" and theirs.read_text() == "half of their file"


def test_linked_folders_are_counted_once_and_never_loop(tmp_path) -> None:
    from bpe_course.counting.sources import resolve_sources

    folder, elsewhere = tmp_path / "shards", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    (folder / "a.txt").write_text("some text here", encoding="utf-8")
    (elsewhere / "b.txt").write_text("more text here", encoding="utf-8")
    (folder / "linked").symlink_to(elsewhere)  # a shard folder linked in: its files count
    (folder / "loop").symlink_to(folder)  # a link back up: walked once, not forever
    assert resolve_sources(folder) == [folder / "a.txt", elsewhere / "b.txt"]


def test_interrupted_lessons_table_keeps_the_stored_one(tmp_path, monkeypatch) -> None:
    from bpe_course.bench import lessons

    path = tmp_path / "lessons.csv"
    pd.DataFrame({"lesson": ["kept", "redo"], "seconds": [1.0, 2.0]}).to_csv(path, index=False)
    before = path.read_bytes()
    measured = {"job": ["merges"], "vocab_size": [300], "seconds": [1.5]}
    monkeypatch.setattr(lessons, "measure", lambda name, repeats: pd.DataFrame(measured))
    real_to_csv = pd.DataFrame.to_csv

    def cut_short(self, target=None, **kwargs):
        real_to_csv(self.head(1), target, **kwargs)  # one row written, then killed
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", cut_short)
    name = next(iter(lessons.FULL))
    with pytest.raises(KeyboardInterrupt):
        lessons.main(["--lessons", name, "--repeats", "1", "--csv", str(path)])
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["lessons.csv"]
