"""``bpe-course check --all`` and ``check_all()``: every exercise graded, one row each, and what
to do next (the first exercise not passed yet, in the course's order)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from bpe_course.course.exercises.catalog import EXERCISES
from bpe_course.course.exercises.exercise import Report


@dataclass(frozen=True)
class Progress:
    """The six reports, shown as a table (a notebook cell ending in ``check_all()`` shows it),
    with the files they graded (as reports show paths), one per report."""

    reports: tuple[Report, ...]
    files: tuple[str, ...] = ()

    def file_of(self, name: str) -> str:
        files = dict(zip((r.name for r in self.reports), self.files))
        return files.get(name, f"exercises/{name}.py")

    def graded(self) -> str:
        """Which files were graded: one folder, or each file."""
        folders = {os.path.dirname(file) for file in self.files}
        if len(folders) == 1:
            folder = folders.pop() or "."
            return f"Graded: the files NAME.py in {folder}{os.sep}."
        return "Graded: " + ", ".join(self.files) + "."

    @property
    def passed(self) -> bool:
        return all(report.passed for report in self.reports)

    def next_step(self) -> str:
        for report in self.reports:
            if report.passed:
                continue
            notebook = EXERCISES[report.name].notebook
            if report.status == "not done":
                return (
                    f"Next: write {report.name} (notebook {notebook}), in "
                    f"{self.file_of(report.name)}, then run `bpe-course check {report.name}`."
                )
            return (
                f"Next: fix {report.name} (notebook {notebook}): `bpe-course check "
                f"{report.name}` names the input, and `--hint` adds the hint."
            )
        slow = [r.name for r in self.reports if r.fast_enough is False]
        if slow:
            return (
                f"Next: every exercise passes; make {slow[0]} fast enough, timing it with "
                "`bpe-course bench --trainer MODULE:train_bpe`."
            )
        return "Every exercise passes. Next: notebook 11, where the versions race."

    def __str__(self) -> str:
        width = max(len(report.name) for report in self.reports)
        rows = [f"{'exercise':<{width}}  {'status':<9}  {'seconds':>7}  speed"]
        for report in self.reports:
            seconds = "" if report.seconds is None else f"{report.seconds:.1f}"
            speed = {None: "", True: "fast enough", False: "too slow"}[report.fast_enough]
            rows.append(f"{report.name:<{width}}  {report.status:<9}  {seconds:>7}  {speed}")
        graded = [self.graded()] if self.files else []
        return "\n".join([*rows, "", *graded, self.next_step()])

    __repr__ = __str__
