"""The course's main job: execute every notebook headlessly, in order, and keep the outputs.

The committed notebooks have no outputs. This runs each one top to bottom in a fresh kernel (with
nbclient, Jupyter's own executor), writes the executed copy to ``build/notebooks/`` and lets the
notebooks write their figures to ``figures/``. ``quick`` sets ``BPE_COURSE_QUICK=1`` for the
kernels, which shrinks corpora and grids; every kernel it starts has ``BPE_COURSE_UNATTENDED=1``
(no reader: nothing is kept open for one).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from tqdm.auto import tqdm
from traitlets.config import Config

from bpe_course.course import QUICK_ENV, UNATTENDED_ENV
from bpe_course.paths import build_dir, notebooks_dir


def course_notebooks(folder: Path | None = None) -> list[Path]:
    """The notebooks of the course, in reading order (``NN_name.ipynb``)."""
    folder = notebooks_dir() if folder is None else folder
    return sorted(p for p in folder.glob("[0-9][0-9]_*.ipynb"))


class NotebookFailed(RuntimeError):
    """A notebook raised: which one, which cell, the error, and where the executed part is.
    ``details`` holds the cell's traceback (the message stays one line)."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.details = details


def run_notebook(path: Path, out_dir: Path, timeout: int = 1800, progress: bool = False) -> Path:
    """Execute one notebook in a fresh kernel started in its own folder; save the executed copy.

    If a cell raises, the copy is saved up to that cell (its traceback included) and
    :class:`NotebookFailed` names the notebook, the cell and the error in one line.
    """
    notebook = nbformat.read(path, as_version=4)
    code_cells = sum(cell.cell_type == "code" for cell in notebook.cells)
    started: list[int] = []  # indices of the code cells begun, to name the one that failed
    bar = None
    if progress:
        bar = tqdm(total=code_cells, desc=path.name, unit="cell", leave=False)
    client = notebook_client(
        notebook,
        path,
        timeout,
        on_cell_start=lambda cell_index, **_: started.append(cell_index),
        on_cell_executed=None if bar is None else (lambda **_: bar.update(1)),
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / path.name
    try:
        client.execute(env={**os.environ, UNATTENDED_ENV: "1"})  # the kernel's alone
    except (CellExecutionError, CellTimeoutError, DeadKernelError) as error:
        nbformat.write(notebook, target)
        number = started[-1] + 1 if started else "?"
        what = _what_failed(error, timeout)
        raise NotebookFailed(
            f"{path.name} failed in cell {number}: {what} (executed part, with the traceback: "
            f"{target})",
            details=str(error),
        ) from None
    finally:
        if bar is not None:
            bar.close()
    nbformat.write(notebook, target)
    return target


def notebook_client(notebook, path: Path, timeout: int, on_cell_start, on_cell_executed):
    """An nbclient client for ``notebook`` read from ``path``: its kernel starts in the notebook's
    folder, with channels that notice a dead kernel (:func:`_client_config`)."""
    return NotebookClient(
        notebook,
        timeout=timeout,
        kernel_name="python3",
        config=_client_config(),
        resources={"metadata": {"path": str(Path(path).parent)}},
        on_cell_start=on_cell_start,
        on_cell_executed=on_cell_executed,
    )


def _what_failed(error: Exception, timeout: int) -> str:
    """A failed cell's error, a dead kernel or a cell past ``timeout``, in a few words."""
    if isinstance(error, CellExecutionError):
        return f"{error.ename}: {error.evalue}"
    if isinstance(error, DeadKernelError):
        return "the kernel died (out of memory, or killed)"
    return f"no reply within {timeout} s"


def _client_config():
    """Kernel clients whose channels re-check their socket every second (``kernel_client``)."""
    config = Config()
    config.AsyncKernelManager.client_class = (
        "bpe_course.course.runner.kernel_client.RecheckingKernelClient"
    )
    return config


def run_course(
    quick: bool = True,
    only: list[str] | None = None,
    report: Callable[[str], None] = print,
    progress: bool = False,
) -> list[Path]:
    """Execute the notebooks (those whose names contain one of ``only``, if given)."""
    os.environ[QUICK_ENV] = "1" if quick else "0"  # inherited by the kernels
    notebooks = course_notebooks()
    if only:
        notebooks = [p for p in notebooks if any(word in p.name for word in only)]
    if not notebooks:
        raise FileNotFoundError(f"no notebooks to run in {notebooks_dir()}")
    out_dir = build_dir() / "notebooks"
    done = []
    for path in notebooks:
        start = time.perf_counter()
        done.append(run_notebook(path, out_dir, progress=progress))
        report(f"ran {path.name} in {time.perf_counter() - start:.1f} s")
    report(f"executed notebooks are in {out_dir}")
    return done
