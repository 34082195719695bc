"""Every notebook runs top to bottom in quick mode, and is committed without outputs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bpe_course.course.runner.execute import NotebookFailed, course_notebooks, run_notebook

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
    # `nbstripout --install --keep-id` once in a clone); --verify fails if it would change any
    # notebook. --keep-id: cell ids are names the slide table and the handout refer to, so they
    # must survive stripping (by default nbstripout renumbers them).
    done = subprocess.run(
        [sys.executable, "-m", "nbstripout", "--keep-id", "--verify", *map(str, NOTEBOOKS)],
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
    monkeypatch.setenv("BPE_COURSE_CORPUS", "stories")
    try:
        executed = run_notebook(path, tmp_path / "executed", timeout=180)  # a hang fails in minutes
    except NotebookFailed as failure:
        pytest.fail(f"{failure}\n{failure.details}", pytrace=False)
    assert executed.exists()
    assert list((tmp_path / "figures").glob("*.svg")), f"{path.name} wrote no figure"


def test_a_failing_notebook_names_its_cell_and_keeps_the_executed_part(tmp_path) -> None:
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# broken on purpose"),
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_code_cell("print('before')\nraise ValueError('the corpus is gone')"),
        nbformat.v4.new_code_cell("y = 2"),
    ]
    path = tmp_path / "99_broken.ipynb"
    nbformat.write(notebook, path)
    with pytest.raises(NotebookFailed) as failed:
        run_notebook(path, tmp_path / "out", timeout=120)
    message = str(failed.value)
    assert "\n" not in message
    assert "99_broken.ipynb failed in cell 3: ValueError: the corpus is gone" in message
    assert "Traceback" in failed.value.details or "ValueError" in failed.value.details
    executed = nbformat.read(tmp_path / "out" / "99_broken.ipynb", as_version=4)
    assert executed.cells[1].execution_count == 1
    assert executed.cells[2].outputs[-1].output_type == "error"
    assert executed.cells[3].execution_count is None  # not run after the error


def test_a_dying_kernel_is_one_line_too(tmp_path) -> None:
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("import os\nos._exit(1)")]
    path = tmp_path / "98_dies.ipynb"
    nbformat.write(notebook, path)
    with pytest.raises(NotebookFailed, match=r"98_dies.ipynb failed in cell 1: the kernel died"):
        run_notebook(path, tmp_path / "out", timeout=120)


def test_the_runner_tells_its_kernels_no_reader_is_there(tmp_path, monkeypatch) -> None:
    # Notebook 14 keeps its Dask cluster (and dashboard) open for a reader, and closes it at the
    # end only when the runner executes it; quick mode cannot tell the two apart.
    import nbformat

    monkeypatch.delenv("BPE_COURSE_UNATTENDED", raising=False)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("from bpe_course.course import unattended\nprint(unattended())")
    ]
    path = tmp_path / "97_unattended.ipynb"
    nbformat.write(notebook, path)
    executed = nbformat.read(run_notebook(path, tmp_path / "out", timeout=120), as_version=4)
    assert executed.cells[0].outputs[0]["text"].strip() == "True"
    from bpe_course.course import unattended

    assert not unattended()  # this process (a reader's kernel, say) is not told so


def test_notebook_14_closes_its_cluster_only_when_no_reader_is_there() -> None:
    import nbformat

    from bpe_course.paths import notebooks_dir

    cells = nbformat.read(notebooks_dir() / "14_beyond_one_machine.ipynb", as_version=4).cells
    code = [cell.source for cell in cells if cell.cell_type == "code"]
    closing = [i for i, source in enumerate(code) if "stack.close()" in source]
    assert closing == [len(code) - 1], "the cluster is closed before the notebook's last cell"
    assert "if unattended():" in code[-1]  # Run All in JupyterLab leaves the dashboard live
