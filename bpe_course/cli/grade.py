"""``bpe-course grade``: a teacher grades a class (see :mod:`bpe_course.course.exercises.gradebook`).

Exit status 0 once the gradebook is written, whatever the students' results; a mistake on the
command line is one line on stderr and status 2, as for every command.
"""

from __future__ import annotations

import argparse


def add_grade_command(commands) -> None:
    grade = commands.add_parser(
        "grade",
        help="grade a class's submissions, each in its own sandbox, into a CSV gradebook",
        description="Grade SUBMISSIONS_DIR: one folder or one .zip per student (named after the "
        "student) holding their exercise files (NAME.py, anywhere inside). Each file is graded "
        "as `bpe-course check` grades it, in a sandbox of its own. Writes the gradebook (CSV, "
        "one row per student and exercise) and one Markdown report per student.",
    )
    grade.add_argument("submissions", metavar="SUBMISSIONS_DIR", help="one folder or zip a student")
    grade.add_argument(
        "-o", "--output", required=True, metavar="CSV", help="the gradebook to write (CSV)"
    )
    grade.add_argument(
        "--exercises",
        nargs="+",
        metavar="NAME",
        help="the exercises to grade (default: all six; see `bpe-course check --list`)",
    )
    grade.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="grade N files at a time (default 1; each grading also takes a child process)",
    )
    grade.add_argument(
        "--reports",
        metavar="DIR",
        help="where the students' Markdown reports go (default: OUTPUT_reports/ beside the CSV)",
    )
    grade.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how long one call of a student's function may take (as for `check`)",
    )
    grade.set_defaults(run=run_grade)


def run_grade(args: argparse.Namespace) -> int:
    from collections import Counter

    from bpe_course.course.exercises.gradebook import grade_class
    from bpe_course.errors import BPEInputError

    if args.timeout is not None and not args.timeout > 0:
        raise BPEInputError(f"--timeout must be a positive number of seconds, not {args.timeout}")
    rows = grade_class(
        args.submissions,
        args.output,
        args.exercises,
        workers=args.workers,
        timeout=args.timeout,
        reports=args.reports,
    )
    counts = Counter(row.status for row in rows)
    students = len({row.student for row in rows})
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    print(f"{args.output}: {students} students, {len(rows)} rows ({summary})")
    return 0
