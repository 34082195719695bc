"""``bpe-course grade`` on a class of 26 submissions made here: right ones (in a folder, in the
handout's layout, in a zip, with a helper module beside them), wrong ones, slow ones, hostile ones
(writing outside, importing the answer, finding it through gc, killing the grader, forking an
orphan, the network, 20 GB) and malformed ones (a syntax error, a folder, a binary file, a sparse
1 GB file, no file, a broken zip, a link, a stray file). Every one is a row of the gradebook, with
its reason where it was not graded; each student gets a Markdown report."""

from __future__ import annotations

import csv
import hashlib
import os
import textwrap
import zipfile
from pathlib import Path

import pytest

from bpe_course.cli import main
from bpe_course.course.exercises.gradebook import COLUMNS, SOURCE_BYTES
from bpe_course.course.exercises.isolation import walls
from bpe_course.course.exercises.view import PACKAGE
from tests.test_exercises import MERGE_LOOP

RIGHT = textwrap.dedent(MERGE_LOOP)
OUTSIDE = "{outside}"  # replaced by a path outside every sandbox


def right_with(before: str) -> str:
    """The right merge_word, running ``before`` first on every call."""
    body = RIGHT.split("\n", 2)[2]
    head = "def merge_word(word, pair, new_id):\n"
    return head + textwrap.indent(textwrap.dedent(before).strip("\n"), "    ") + "\n" + body


# student -> (files of their folder, or "zip:" for a zip of them, the status wanted)
CLASS: dict[str, tuple[dict[str, str | bytes] | str, str]] = {
    "alice": ({"merge_word.py": RIGHT}, "passed"),
    "bob": ({"exercises/merge_word.py": RIGHT}, "passed"),
    "dan": (
        {"merge_word.py": "from helpers import merge_word\n", "helpers.py": RIGHT},
        "passed",
    ),
    "erin": (
        {
            "merge_word.py": """
def merge_word(word, pair, new_id):
    if len(word) < 2:
        return tuple(word)
    if tuple(word[:2]) == tuple(pair):
        return (new_id, *merge_word(word[2:], pair, new_id))
    return (word[0], *merge_word(word[1:], pair, new_id))
"""
        },
        "passed",
    ),
    "frank": ({"merge_word.py": RIGHT.replace("i += 2", "i += 1")}, "failed"),
    "grace": ({"merge_word.py": RIGHT.replace("return tuple(out)", "return out")}, "failed"),
    "heidi": (
        {"merge_word.py": RIGHT.replace("while i < len(word):", "while i < len(word) - 1:")},
        "failed",
    ),
    "ivan": (
        {"merge_word.py": "def merge_word(word, pair, new_id):\n    return tuple(word)\n"},
        "failed",
    ),
    "judy": ({"merge_word.py": right_with("import time\ntime.sleep(3)")}, "failed"),
    "ken": (
        {"merge_word.py": "def merge_word(word, pair, new_id):\n    while True:\n        pass\n"},
        "failed",
    ),
    "leo": (
        {
            "merge_word.py": right_with(
                f"""
                import os
                from bpe_course.trainers import common
                for target in [{OUTSIDE!r}, common.__file__, {str(PACKAGE / "trainers" / "common.py")!r}]:
                    try:
                        with open(target, "a") as f:
                            f.write("# leo was here\\n")
                    except OSError:
                        pass
                """
            )
        },
        "passed",  # right, once its writes failed
    ),
    "mallory": (
        {"merge_word.py": "from bpe_course.trainers.common import merge_word\n"},
        "not done",
    ),
    "nina": (
        {
            "merge_word.py": """
import gc
from bpe_course.trainers.common import Token

def merge_word(word, pair, new_id):
    for thing in gc.get_objects():
        if getattr(thing, "__name__", "") == "merge_word" and thing is not merge_word:
            return thing(word, pair, new_id)
    return ()
"""
        },
        "not done",
    ),
    # Behind bubblewrap its parent is the sandbox's init, which ignores the signal: it passes.
    "oscar": (
        {"merge_word.py": right_with("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)")},
        None,
    ),
    "peggy": (
        {
            "merge_word.py": """
import os, time

forked = []

def merge_word(word, pair, new_id):
    if not forked:
        forked.append(os.fork())
        if forked[0] == 0:
            os.setsid()
            time.sleep(3600)
            os._exit(0)
    return tuple(word)
"""
        },
        "failed",
    ),
    "quinn": (
        {
            "merge_word.py": right_with(
                "import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=1)"
            )
        },
        None,  # failed behind bubblewrap (no network); without it, the machine decides
    ),
    "rob": ({"merge_word.py": right_with("block = bytearray(20 * 2**30)")}, "failed"),
    "sam": ({"merge_word.py": "def merge_word(word, pair, new_id)\n    return word\n"}, "failed"),
    "trudy": ({"merge_word.py/README.txt": "a folder named like the file"}, "unreadable"),
    "uma": ({"merge_word.py": b"\x7fELF\x02\x01\x01\x00" + bytes(200)}, "unreadable"),
    "victor": ({"merge_word.py": "SPARSE"}, "unreadable"),
    "walter": ({"notes.txt": "I did not do it"}, "missing"),
    "xena": ("broken zip", "unreadable"),
    "yara": ({"merge_word.py": "LINK"}, "unreadable"),
    "zed.txt": ("a stray file", "unreadable"),
    "carol": ("zip:" + RIGHT, "passed"),
}


def make_class(root: Path, outside: Path) -> None:
    root.mkdir()
    for student, (files, _) in CLASS.items():
        if isinstance(files, str):
            if files.startswith("zip:"):
                with zipfile.ZipFile(root / f"{student}.zip", "w") as zipped:
                    zipped.writestr(f"{student}/exercises/merge_word.py", files[4:])
            elif files == "broken zip":
                (root / f"{student}.zip").write_bytes(b"PK\x03\x04 not a zip at all")
            else:
                (root / student).write_text(files)
            continue
        for name, content in files.items():
            path = root / student / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if content == "SPARSE":
                with open(path, "wb") as f:
                    f.truncate(2**30)  # a 1 GB file that takes no disk: never read
            elif content == "LINK":
                path.symlink_to("/etc/passwd")
            elif isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(textwrap.dedent(content).replace(OUTSIDE, str(outside)))


@pytest.mark.slow
def test_a_class_is_graded_into_a_gradebook(tmp_path, capsys) -> None:
    assert len(CLASS) >= 20
    outside = tmp_path / "written-from-a-sandbox.txt"
    common = PACKAGE / "trainers" / "common.py"
    before = hashlib.sha256(common.read_bytes()).hexdigest()
    make_class(tmp_path / "class", outside)
    gradebook = tmp_path / "out" / "gradebook.csv"
    argv = ["grade", str(tmp_path / "class"), "-o", str(gradebook)]
    argv += ["--exercises", "merge_word", "--workers", "2", "--timeout", "1"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert f"{gradebook}: {len(CLASS)} students, {len(CLASS)} rows" in printed

    with open(gradebook, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == COLUMNS
        rows = {row["student"]: row for row in reader}
    assert not list(gradebook.parent.glob("*.partial"))
    names = {s.removesuffix(".zip") for s in CLASS}
    assert set(rows) == names
    for student, (_, wanted) in CLASS.items():
        row = rows[student]
        assert row["exercise"] == "merge_word"
        if wanted is not None:
            assert row["status"] == wanted, (student, row)
        assert (row["passed"] == "yes") == (row["status"] == "passed")
        assert row["reason"], student
    # wrong ones: the smallest input they fail on, a few ids
    assert rows["frank"]["smallest_failing_input"] == "word=(0, 0), pair=(0, 0), new_id=4"
    assert rows["heidi"]["smallest_failing_input"].startswith("word=(0,)")
    assert "stopped after 1 s" in rows["judy"]["reason"]
    assert "calls the course's own bpe_course.trainers.common.merge_word" in rows["nina"]["reason"]
    assert "memory limit" in rows["rob"]["reason"]
    assert "\n" not in rows["oscar"]["reason"] and rows["oscar"]["status"] in ("passed", "failed")
    assert "SyntaxError" in rows["sam"]["reason"]
    # malformed ones: one row each, with the reason, never a stop
    assert "is a folder, not a file" in rows["trudy"]["reason"]
    assert "binary file" in rows["uma"]["reason"]
    assert (
        f"{2**30:,} bytes" in rows["victor"]["reason"]
        and f"{SOURCE_BYTES:,}" in rows["victor"]["reason"]
    )
    assert "no merge_word.py" in rows["walter"]["reason"]
    assert "the zip cannot be opened" in rows["xena"]["reason"]
    assert "is a link" in rows["yara"]["reason"]
    assert "not a folder or a .zip" in rows["zed.txt"]["reason"]
    assert rows["alice"]["seconds"] and rows["alice"]["smallest_failing_input"] == ""
    # the hostile ones reached nothing
    assert hashlib.sha256(common.read_bytes()).hexdigest() == before
    if walls().bwrap is not None or os.geteuid() == 0:  # behind bubblewrap, or as nobody
        assert not outside.exists()
    if walls().bwrap is not None:
        assert rows["quinn"]["status"] == "failed"

    reports = gradebook.parent / "gradebook_reports"
    assert sorted(p.name for p in reports.iterdir()) == sorted(f"{s}.md" for s in names)
    alice = (reports / "alice.md").read_text()
    assert alice.startswith("# alice\n\n1 of 1 exercises passed")
    assert "merge_word: passed. Your function agreed with" in alice
    frank = (reports / "frank.md").read_text()
    assert "merge_word: not right yet, on word=(0, 0), pair=(0, 0), new_id=4" in frank
