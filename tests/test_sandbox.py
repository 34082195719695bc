"""The walls around the grader's child, tried as a hostile submission would try them (issue 34):
it cannot write outside its folder or touch the package, reach the network, signal the grader, or
run as root; its scratch folder goes whatever happens; no grading outlasts the cap; the package it
sees holds no answer to the exercise; without bubblewrap, one line says so. A property of
bubblewrap's walls is tested where bubblewrap runs (skipped, with the reason, elsewhere; CI
installs it). None asserts a wall time."""

from __future__ import annotations

import ast
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from bpe_course.course.exercises import judge
from bpe_course.course.exercises.catalog import EXERCISES
from bpe_course.course.exercises.check import check
from bpe_course.course.exercises.isolation import (
    INSIDE,
    SANDBOX_ENV,
    SCRATCH_PREFIX,
    nobody,
    passable,
    walls,
)
from bpe_course.course.exercises.view import (
    CHILD_MODULES,
    PACKAGE,
    allowed_imports,
    closure,
    write_view,
)
from tests.test_exercises import MERGE_LOOP, student_file

sandboxed = pytest.mark.skipif(
    walls().bwrap is None, reason=walls().note or "the grader runs without bubblewrap here"
)


def right_merge_word(before: str) -> str:
    """A right merge_word whose body first runs ``before`` (indented code)."""
    return (
        "def merge_word(word, pair, new_id):\n"
        + textwrap.indent(textwrap.dedent(before).strip("\n"), "    ")
        + "\n"
        + textwrap.dedent(MERGE_LOOP).split("\n", 2)[2]
    )


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- Writing, the network, who it runs as ---------------------------------------------------------


@sandboxed
def test_it_cannot_write_outside_its_folder_nor_touch_the_package(tmp_path) -> None:
    outside = tmp_path / "outside.txt"
    common = PACKAGE / "trainers" / "common.py"
    before = digest(common)
    source = right_merge_word(
        f"""
        import os
        from bpe_course.trainers import common
        for target in [{str(outside)!r}, common.__file__, {str(common)!r}, "/tmp/escaped",
                       os.path.expanduser("~/../../escaped"), "/escaped"]:
            try:
                with open(target, "a") as f:
                    f.write("# a submission was here\\n")
            except OSError:
                pass
        with open("mine.txt", "w") as f:  # its own folder: allowed
            f.write("mine")
        """
    )
    (tmp_path / "mine").mkdir()
    report = check("merge_word", student_file(tmp_path / "mine", "merge_word", source))
    assert report.passed, report.text  # writing in its own folder is fine
    assert not outside.exists() and digest(common) == before
    assert not Path("/tmp/escaped").exists() and not Path("/escaped").exists()
    assert not (tmp_path / "mine" / "mine.txt").exists()  # it wrote in its copy, in its box


@sandboxed
def test_it_cannot_reach_the_network(tmp_path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(0.5)
        port = server.getsockname()[1]
        source = f"""
            import socket

            def merge_word(word, pair, new_id):
                tried = []
                for address in [("127.0.0.1", {port}), ("1.1.1.1", 53)]:
                    try:
                        socket.create_connection(address, timeout=2).close()
                        tried.append("connected")
                    except OSError as err:
                        tried.append(type(err).__name__)
                raise RuntimeError("network: " + " ".join(tried))
            """
        report = check("merge_word", student_file(tmp_path, "merge_word", source))
        assert "network: " in report.text and "connected" not in report.text, report.text
        with pytest.raises(TimeoutError):
            server.accept()  # nothing came from the child


@sandboxed
@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="the grader is not root"
)
def test_a_root_grader_runs_the_child_as_nobody(tmp_path) -> None:
    source = """
        import os

        def merge_word(word, pair, new_id):
            raise RuntimeError(f"uid={os.getuid()} euid={os.geteuid()} groups={os.getgroups()}")
        """
    report = check("merge_word", student_file(tmp_path, "merge_word", source))
    uid, gid = nobody()
    assert f"uid={uid} euid={uid} groups=[]" in report.text, report.text


@sandboxed
def test_it_sees_its_folder_python_and_the_view_and_nothing_else(tmp_path) -> None:
    checkout = PACKAGE.parent
    source = f"""
        import os

        def merge_word(word, pair, new_id):
            seen = [os.getcwd(), sorted(os.listdir("/tmp")), os.path.exists({str(tmp_path)!r})]
            seen.append(sorted(os.listdir({str(checkout)!r})))
            raise RuntimeError(f"seen={{seen}}")
        """
    report = check("merge_word", student_file(tmp_path, "merge_word", source))
    # its current folder is its own; /tmp is empty; the student's own folder on the grader's
    # disk is not there (it runs a copy); of the repository, only the package's view, and the
    # Python environment it runs in when that lies in the checkout (make's .venv does)
    # (and in /tmp, the folder that leads to that environment when it lies under /tmp, as in a
    # fresh clone made by mktemp)
    visible = ["bpe_course"]
    environment = Path(sys.prefix).resolve()
    if environment.is_relative_to(checkout.resolve()):
        visible.append(environment.relative_to(checkout.resolve()).parts[0])
    leads = (environment, checkout.resolve())
    in_tmp = sorted({p.relative_to("/tmp").parts[0] for p in leads if p.is_relative_to("/tmp")})
    seen = f"seen=['{INSIDE}/work', {in_tmp}, False, {sorted(visible)}]"
    assert seen in report.text, report.text


# --- The grader's process ------------------------------------------------------------------------


@sandboxed
def test_it_cannot_signal_the_grader_and_one_line_says_what_happened(tmp_path) -> None:
    source = """
        import os, signal

        def merge_word(word, pair, new_id):
            tried = []
            for pid in (JUDGE, os.getppid()):
                try:
                    os.kill(pid, signal.SIGKILL)
                    tried.append("sent")
                except OSError as err:
                    tried.append(type(err).__name__)
            raise RuntimeError("kill: " + " ".join(tried))
        """
    path = student_file(tmp_path, "merge_word", source)
    code = textwrap.dedent(f"""
        import os
        from pathlib import Path
        from bpe_course.exercises import check
        path = Path({str(path)!r})
        path.write_text(path.read_text().replace("JUDGE", str(os.getpid())))
        print(check("merge_word", path))
        print("the grader lives on")
        """)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=180
    )
    assert result.returncode == 0, result.stderr
    report, after = result.stdout.splitlines()
    assert after == "the grader lives on"
    assert report.startswith("merge_word: your function raised RuntimeError: kill: ")
    # The grader's pid means nothing in the child's own PID namespace; its parent there is
    # bubblewrap's init, which ignores the signal.
    assert "kill: ProcessLookupError" in report or "kill: PermissionError" in report


@sandboxed
def test_killing_its_parent_is_one_line(tmp_path) -> None:
    source = right_merge_word("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)")
    report = check("merge_word", student_file(tmp_path, "merge_word", source), timeout=5)
    assert "\n" not in report.text and report.text.startswith("merge_word: ")


# --- The scratch folder ----------------------------------------------------------------------


def test_its_temp_folder_goes_however_the_grading_ends(tmp_path, monkeypatch) -> None:

    # The grader's temporary folder, a new one under /tmp (one nobody can pass through, for the
    # fallback as root): what is left in it after the gradings is what they left.
    temp = Path(tempfile.mkdtemp(prefix="bpe-course-test-temp-"))
    temp.chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    stale = temp / f"{SCRATCH_PREFIX}999999999-left"  # a grader killed before it could clean
    stale.mkdir()
    endless_trainer = """
        def train_bpe(input_path, vocab_size, special_tokens):
            while True:
                pass
        """
    report = check("train_bpe", student_file(tmp_path, "train_bpe", endless_trainer), timeout=1)
    assert report.status == "failed" and "stopped after 1 s" in report.text, report.text
    killer = right_merge_word(
        "import os, signal, tempfile\n"
        "open(os.path.join(tempfile.mkdtemp(), 'corpus.txt'), 'w').write('x')\n"
        "os.kill(os.getpid(), signal.SIGKILL)"
    )
    report = check("merge_word", student_file(tmp_path, "merge_word", killer))
    assert "killed (signal 9)" in report.text, report.text
    left = list(temp.iterdir())
    shutil.rmtree(temp, ignore_errors=True)
    assert left == []


# --- At most a minute ---------------------------------------------------------------------------


def test_no_input_s_limit_reaches_past_the_whole_gradings() -> None:
    for exercise in EXERCISES.values():
        assert judge.grading_seconds(exercise) <= judge.GRADING_SECONDS - judge.CLOSING_SECONDS
    capstone = EXERCISES["train_bpe"]
    big = (SimpleNamespace(text="x" * 100_000), 1000, ["<|endoftext|>"])
    assert capstone.case_seconds(big) > judge.GRADING_SECONDS  # the stories corpus at vocab 1000
    load = SimpleNamespace(shown="train_bpe.py", is_solution=False)
    grading = judge.Grading(capstone, None, load, None, time.monotonic() - 10)
    assert grading.seconds_for(big) <= judge.GRADING_SECONDS - judge.CLOSING_SECONDS - 10


@pytest.mark.slow
def test_a_slow_function_is_stopped_by_the_whole_gradings_limit(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(judge, "GRADING_SECONDS", 12.0)
    slow = right_merge_word("import time\ntime.sleep(0.05)")
    report = check("merge_word", student_file(tmp_path, "merge_word", slow))
    assert "stopped by the time limit of the whole grading (7 s)" in report.text, report.text
    assert report.failing_input is not None


# --- The package the child sees ---------------------------------------------------------------


@pytest.mark.parametrize("name", list(EXERCISES))
def test_the_view_holds_no_answer(name, tmp_path) -> None:
    exercise = EXERCISES[name]
    root = write_view(exercise, tmp_path)
    modules = {
        ".".join(["bpe_course", *p.relative_to(root).with_suffix("").parts]).removesuffix(
            ".__init__"
        )
        for p in root.rglob("*.py")
    }
    allowed = closure([*allowed_imports(exercise), *CHILD_MODULES])
    packages = {m.rsplit(".", i)[0] for m in allowed for i in range(1, m.count(".") + 1)}
    assert modules == allowed | packages
    for unseen in (
        "api",
        "reference",
        "course/widgets",
        "course/publish",
        "course/exercises/cases",
    ):
        assert not (root / unseen).exists() and not (root / f"{unseen}.py").exists()
    for answer in exercise.answers():
        path = root.joinpath(*answer.__module__.split(".")[1:]).with_suffix(".py")
        if not path.exists():
            continue  # not in the view at all
        tree = ast.parse(path.read_text())
        [function] = [n for n in tree.body if getattr(n, "name", None) == answer.__name__]
        assert len(function.body) == 1 and isinstance(function.body[0], ast.Raise)
        assert "Withheld" in ast.unparse(function.body[0])


def test_the_grader_runs_from_a_package_found_from_the_current_folder_under_tmp() -> None:

    # A checkout under /tmp, imported from the current folder (not installed): the child finds
    # the package where the grader did, and /tmp's own walls do not hide it.
    repo = Path(tempfile.mkdtemp(prefix="bpe-course-test-repo-"))
    try:
        repo.chmod(0o755)  # readable by nobody, for the fallback as root
        shutil.copytree(PACKAGE, repo / "bpe_course", ignore=shutil.ignore_patterns("__pycache__"))
        (repo / "pyproject.toml").write_text("")
        student_file(repo, "mine", textwrap.dedent(MERGE_LOOP))
        code = (
            "import bpe_course\n"
            "from bpe_course.exercises import check\n"
            "print(bpe_course.__file__)\n"
            "print(check('merge_word', 'mine.py'))\n"
        )
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        result = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=180,
            cwd=repo,
            env=env,
        )
        where, report = result.stdout.splitlines()[:2]
        assert where == str(repo / "bpe_course" / "__init__.py"), result.stdout
        assert report.startswith("merge_word: passed."), result.stdout + result.stderr
    finally:
        shutil.rmtree(repo, ignore_errors=True)


# --- Without bubblewrap ------------------------------------------------------------------------


def test_without_bubblewrap_one_line_says_so_and_the_answers_stay_withheld(tmp_path) -> None:
    importer = "from bpe_course.trainers.common import merge_word\n"
    code = textwrap.dedent(f"""
        from bpe_course.exercises import check
        print(check("merge_word", {str(student_file(tmp_path, "merge_word", importer))!r}).status)
        print(check("merge_word", solution=True).status)
        """)
    env = {**os.environ, SANDBOX_ENV: "off"}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=180, env=env
    )
    assert result.stdout.split() == ["not", "done", "passed"], result.stdout + result.stderr
    said = [line for line in result.stderr.splitlines() if line.startswith("bpe-course:")]
    assert len(said) == 1 and "without a sandbox" in said[0], result.stderr


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="as root only")
def test_without_bubblewrap_a_temp_folder_nobody_cannot_pass_is_not_used() -> None:
    # A root grader's child runs as nobody; a system temporary folder of mode 0700 (as /tmp is on
    # some machines: 1700) would hide its box from it.
    locked = Path(tempfile.mkdtemp(prefix="bpe-course-test-locked-"))
    try:
        code = "from bpe_course.exercises import check; print(check('merge_word', solution=True))"
        env = {**os.environ, SANDBOX_ENV: "off", "TMPDIR": str(locked)}
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=180, env=env
        )
        assert result.stdout.startswith("merge_word: passed"), result.stdout + result.stderr
        if passable(Path(sys.prefix)) and passable(PACKAGE.parent):  # nobody can run Python
            assert "as nobody" in result.stderr, result.stderr  # not root for want of a box
        assert not list(locked.iterdir())
    finally:
        shutil.rmtree(locked, ignore_errors=True)
