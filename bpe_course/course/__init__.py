"""The course around the package, one subpackage per job: ``runner`` (execute the notebooks),
``exercises`` (the exercises and their grader), ``widgets`` (what the notebooks show) and
``publish`` (the handout, the site, the slides); here, the switches notebooks read.

``quick_mode``, ``unattended`` and ``quiet_child`` live here because every notebook imports them
first.
"""

from __future__ import annotations

import os
import sys

QUICK_ENV = "BPE_COURSE_QUICK"
# Set by the course's runner (``bpe-course course``, the tests) for the kernels it starts: no reader
# is there, so a cell that keeps something open for one (notebook 14's Dask dashboard) closes it.
UNATTENDED_ENV = "BPE_COURSE_UNATTENDED"


def quick_mode() -> bool:
    """True unless ``BPE_COURSE_QUICK`` is set to 0 (the course runs quick unless asked for full)."""
    return os.environ.get(QUICK_ENV, "1").strip().lower() not in ("0", "false", "no", "full")


def unattended() -> bool:
    """True when the course's runner executes the notebook (``UNATTENDED_ENV`` set): no reader will
    look at a dashboard or close what was left open for them. Quick mode cannot tell: it is also
    the default for a reader in JupyterLab."""
    return os.environ.get(UNATTENDED_ENV, "").strip().lower() in ("1", "true", "yes")


def quiet_child() -> None:
    """A pool initializer for the notebooks' failure demos: the child's own traceback goes nowhere
    instead of to the terminal that runs the course (the notebook reports the failure itself)."""
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (open for the child's whole life)
