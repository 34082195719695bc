"""Where things live: one definition of the course's folders, each overridable by an environment
variable, and never taken from a notebook's own idea of its current folder.

The folders default to the course's root, which is one of:

- a student handout (written by ``bpe-course handout``) that holds the current folder: the
  nearest folder up from it with a ``HANDOUT_MARKER`` file. Its notebooks, ``exercises/`` and
  ``results/`` sit at its top, and ``data/``, ``figures/`` and ``build/`` are made there. Jupyter
  starts a notebook's kernel in the notebook's folder, so a handout's notebooks find their own
  stubs and results with the package installed from a wheel, no repository anywhere;
- else the repository the package runs from (an editable install of a checkout): ``notebooks/``,
  ``data/``, ``figures/``, ``build/`` at its top;
- else the current folder, laid out as a handout.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
HANDOUT_MARKER = ".bpe-course-handout"


def _folder(variable: str, default: Path) -> Path:
    value = os.environ.get(variable)
    return Path(value).expanduser().resolve() if value else default


def handout_root() -> Path | None:
    """The handout holding the current folder (the nearest with a ``HANDOUT_MARKER``), if any."""
    here = Path.cwd().resolve()
    return next((f for f in (here, *here.parents) if (f / HANDOUT_MARKER).is_file()), None)


def in_repository() -> bool:
    """True when the package runs from a checkout of the repository (not from a wheel)."""
    return (REPO_ROOT / "pyproject.toml").is_file() and (REPO_ROOT / "notebooks").is_dir()


def course_root() -> Path:
    """The folder the defaults below hang from (see the module's docstring)."""
    handout = handout_root()
    if handout is not None:
        return handout
    return REPO_ROOT if in_repository() else Path.cwd().resolve()


def data_dir() -> Path:
    """Corpora, downloaded or generated (``BPE_COURSE_DATA``, default ``data/``)."""
    return _folder("BPE_COURSE_DATA", course_root() / "data")


def figures_dir() -> Path:
    """Figures written by the course (``BPE_COURSE_FIGURES``, default ``figures/``)."""
    return _folder("BPE_COURSE_FIGURES", course_root() / "figures")


def notebooks_dir() -> Path:
    """The course's notebooks, with ``exercises/`` and ``results/`` beside them
    (``BPE_COURSE_NOTEBOOKS``; default ``notebooks/`` in the repository, a handout's top)."""
    root = course_root()
    default = root / "notebooks" if root == REPO_ROOT and in_repository() else root
    return _folder("BPE_COURSE_NOTEBOOKS", default)


def build_dir() -> Path:
    """Executed copies of the notebooks, with outputs (``BPE_COURSE_BUILD``, default ``build/``)."""
    return _folder("BPE_COURSE_BUILD", course_root() / "build")
