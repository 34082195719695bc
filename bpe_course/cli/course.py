"""``bpe-course course``: execute the notebooks headlessly (the main job)."""

from __future__ import annotations

import argparse
import sys


def add_course_command(commands) -> None:
    course = commands.add_parser(
        "course",
        help="execute the notebooks headlessly and write the figures (the main job)",
        description="Execute every notebook in a fresh kernel (quick mode unless --full); the "
        "executed copies go to build/notebooks/, the figures to figures/.",
    )
    course.add_argument(
        "--full",
        action="store_true",
        help="full mode: the course corpus sizes (1-21.5 MB) and the full benchmark grid",
    )
    course.add_argument(
        "--only", nargs="*", metavar="NAME", help="run only notebooks whose file names contain NAME"
    )
    course.set_defaults(run=run_course)


def run_course(args: argparse.Namespace) -> int:
    from bpe_course.course.runner.execute import run_course as execute

    execute(quick=not args.full, only=args.only, progress=sys.stderr.isatty())
    return 0
