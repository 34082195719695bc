"""``bpe-course check``: grade an exercise the student wrote (see :mod:`bpe_course.course.exercises.check`).

Exit status 0 when it passes, 1 when it does not (not written yet, wrong, too slow, not loadable);
``--all`` grades every exercise (a table, and what to do next); ``--hint`` adds the hint;
a mistake on the command line is one line on stderr and status 2, as for every command.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_check_command(commands) -> None:
    check = commands.add_parser(
        "check",
        help="grade an exercise you wrote against the course's own solution",
        description="Grade an exercise of notebooks 05-10 (default file: exercises/NAME.py in "
        "the current folder, else the course's notebooks/exercises/NAME.py; the report names "
        "the file graded). Exit status 0 when it passes, else 1.",
    )
    check.add_argument("name", nargs="?", metavar="NAME", help="the exercise (see --list)")
    check.add_argument("--list", action="store_true", help="list the exercises, one a line")
    check.add_argument(
        "--all",
        action="store_true",
        help="grade every exercise: a table of status and time, the files graded, and what to "
        "do next",
    )
    check.add_argument(
        "--hint", action="store_true", help="when it does not pass, add the exercise's hint"
    )
    which = check.add_mutually_exclusive_group()
    which.add_argument("--file", metavar="PATH", help="the file defining your function NAME")
    which.add_argument(
        "--folder",
        metavar="DIR",
        help="the folder holding your exercise files, NAME.py each (with NAME or --all)",
    )
    which.add_argument(
        "--solution", action="store_true", help="grade the course's own solution instead"
    )
    check.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how long one call of your function may take (default: 5 s; for train_bpe, scaled "
        "to each input: 10 s on a small text, more on the stories corpus; no grading takes "
        "over a minute)",
    )
    check.set_defaults(run=run_check)


def run_check(args: argparse.Namespace) -> int:
    from bpe_course.course.exercises.catalog import listing
    from bpe_course.course.exercises.check import check, check_all
    from bpe_course.errors import BPEInputError

    if args.list:
        print("\n".join(listing()))
        return 0
    if args.folder is not None and not Path(args.folder).is_dir():
        raise BPEInputError(f"--folder {args.folder}: no such folder")
    if args.all:
        if args.name is not None or args.file or args.solution:
            raise BPEInputError(
                "--all grades every exercise: give no NAME, --file or --solution (--folder DIR "
                "names where the files are)"
            )
        progress = check_all(args.folder, timeout=args.timeout)
        print(progress)
        return 0 if progress.passed else 1
    if args.name is None:
        raise BPEInputError(
            "name an exercise to check, or use --list to see them (--all grades them all)"
        )
    report = check(
        args.name,
        args.file or args.folder,
        solution=args.solution,
        timeout=args.timeout,
        hint=args.hint,
    )
    print(report)
    return 0 if report.passed else 1
