"""The course's main job: execute every notebook headlessly, in order, and keep the outputs.

The committed notebooks have no outputs. This runs each one top to bottom in a fresh kernel (with
nbclient, Jupyter's own executor), writes the executed copy to ``build/notebooks/`` and lets the
notebooks write their figures to ``figures/``. ``quick`` sets ``BPE_COURSE_QUICK=1`` for the
kernels, which shrinks corpora and grids.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from bpe_course.paths import build_dir, notebooks_dir

QUICK_ENV = "BPE_COURSE_QUICK"


def quick_mode() -> bool:
    """True unless ``BPE_COURSE_QUICK`` is set to 0 (the course runs quick unless asked for full)."""
    return os.environ.get(QUICK_ENV, "1").strip().lower() not in ("0", "false", "no", "full")


def course_notebooks(folder: Path | None = None) -> list[Path]:
    """The notebooks of the course, in reading order (``NN_name.ipynb``)."""
    folder = notebooks_dir() if folder is None else folder
    return sorted(p for p in folder.glob("[0-9][0-9]_*.ipynb"))


def run_notebook(path: Path, out_dir: Path, timeout: int = 1800) -> Path:
    """Execute one notebook in a fresh kernel started in its own folder; save the executed copy."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / path.name
    nbformat.write(notebook, target)
    return target


def run_course(
    quick: bool = True,
    only: list[str] | None = None,
    report: Callable[[str], None] = print,
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
        done.append(run_notebook(path, out_dir))
        report(f"ran {path.name} in {time.perf_counter() - start:.1f} s")
    report(f"executed notebooks are in {out_dir}")
    return done
