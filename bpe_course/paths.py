"""Where things live: one definition of the repository's folders, each overridable by an
environment variable, and never taken from a notebook's current working directory."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def _folder(variable: str, default: Path) -> Path:
    value = os.environ.get(variable)
    return Path(value).expanduser().resolve() if value else default


def data_dir() -> Path:
    """Corpora, downloaded or generated (``BPE_COURSE_DATA``, default ``data/``)."""
    return _folder("BPE_COURSE_DATA", REPO_ROOT / "data")


def figures_dir() -> Path:
    """Figures written by the course (``BPE_COURSE_FIGURES``, default ``figures/``)."""
    return _folder("BPE_COURSE_FIGURES", REPO_ROOT / "figures")


def notebooks_dir() -> Path:
    """The course's notebooks (``BPE_COURSE_NOTEBOOKS``, default ``notebooks/``)."""
    return _folder("BPE_COURSE_NOTEBOOKS", REPO_ROOT / "notebooks")


def build_dir() -> Path:
    """Executed copies of the notebooks, with outputs (``BPE_COURSE_BUILD``, default ``build/``)."""
    return _folder("BPE_COURSE_BUILD", REPO_ROOT / "build")
