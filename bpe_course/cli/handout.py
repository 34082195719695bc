"""``bpe-course handout``: write the student edition of the course, or with the answer key."""

from __future__ import annotations

import argparse


def add_handout_command(commands) -> None:
    handout = commands.add_parser(
        "handout",
        help="write the student edition (notebooks without answers, stubs, results, wheel)",
        description="Write the student edition into DIR: every notebook without its solutions "
        "(the cells tagged 'solution') and outputs, the exercise stubs, the stored results, the "
        "package as a wheel in DIR/wheels/ (built by pip) and a README whose install lines "
        "set up a virtual environment with that wheel. With --teacher, DIR/student/ and the "
        "answer key in DIR/answer_key/ (the full notebooks, the stubs' solutions).",
    )
    handout.add_argument("dir", metavar="DIR", help="an empty or new folder")
    handout.add_argument(
        "--teacher", action="store_true", help="write the answer key too (DIR/answer_key/)"
    )
    handout.add_argument("--force", action="store_true", help="replace DIR if it is not empty")
    handout.set_defaults(run=run_handout)


def run_handout(args: argparse.Namespace) -> int:
    from bpe_course.course.publish.handout import write_handout

    target = write_handout(args.dir, teacher=args.teacher, force=args.force)
    if args.teacher:
        print(f"student edition: {target / 'student'}\nanswer key: {target / 'answer_key'}")
    else:
        print(f"student edition: {target}")
    return 0
