"""``bpe-course site`` and ``slides`` execute only the notebooks with no fresh executed copy."""

from __future__ import annotations

import os
import shutil

from bpe_course.cli.publish import stale_notebooks
from bpe_course.course.runner.execute import course_notebooks


def test_only_missing_or_older_executed_copies_are_stale(tmp_path) -> None:
    notebooks = course_notebooks()
    fresh, old = notebooks[0], notebooks[1]
    shutil.copy(fresh, tmp_path / fresh.name)
    shutil.copy(old, tmp_path / old.name)
    # the executed copy of the second predates its notebook: an edit since the last run
    before = old.stat().st_mtime - 60
    os.utime(tmp_path / old.name, (before, before))
    stale = stale_notebooks(tmp_path)
    assert fresh.stem not in stale
    assert old.stem in stale
    assert set(stale) == {p.stem for p in notebooks[1:]}
