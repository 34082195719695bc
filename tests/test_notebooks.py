"""Every notebook runs top to bottom in quick mode, and is committed without outputs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bpe_course.course import course_notebooks, run_notebook

NOTEBOOKS = course_notebooks()


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "no notebooks found in notebooks/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stripped(path) -> None:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None, (
                f"{path.name} has outputs"
            )


def test_nbstripout_finds_nothing_to_strip() -> None:
    # nbstripout is the tool people use to keep notebooks clean (also as a git filter: run
    # `nbstripout --install` once in a clone); --verify fails if it would change any notebook.
    done = subprocess.run(
        [sys.executable, "-m", "nbstripout", "--verify", *map(str, NOTEBOOKS)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_in_quick_mode(path, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("BPE_COURSE_QUICK", "1")
    monkeypatch.setenv("BPE_COURSE_FIGURES", str(tmp_path / "figures"))
    monkeypatch.setenv("BPE_COURSE_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("BPE_COURSE_CORPUS", "generated")
    executed = run_notebook(path, tmp_path / "executed", timeout=600)
    assert executed.exists()
    assert list((tmp_path / "figures").glob("*.svg")), f"{path.name} wrote no figure"
