"""The command line: ``python -m bpe_course`` (also installed as ``bpe-course``).

One module per command group; this one assembles the parser and turns errors into one line.
Errors a user can cause are one line on stderr and exit status 2, never a traceback.

Start-up: every command's parser is built for ``--help``, so a command module imports at its top
only what its parser needs, and what a command runs (the API, the benchmark, pandas, Jupyter)
inside the function that runs it: ``bpe-course train`` then loads what training uses and no more
(``tests/test_startup.py`` checks it).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys

from bpe_course.errors import BPEInputError


class Terminated(BaseException):
    """SIGTERM arrived: unwind like Ctrl-C, so pools and clusters are closed on the way out."""


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    previous = _catch_sigterm()
    try:
        return _run(args)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _catch_sigterm():
    """Turn SIGTERM into :class:`Terminated` in this process; return the handler it replaces.

    Without it the process dies at once and its pool's workers, orphaned, print a traceback each
    when they find the pipe to it broken. A worker forked from here inherits the handler, and
    dies as SIGTERM would have it (silently) when its pool is terminated.
    """
    main_pid = os.getpid()

    def on_sigterm(signum, frame):
        if os.getpid() != main_pid:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        raise Terminated

    try:
        return signal.signal(signal.SIGTERM, on_sigterm)
    except ValueError:  # not the main thread (an embedding program): leave signals alone
        return None


def _run(args: argparse.Namespace) -> int:
    try:
        return args.run(args) or 0
    except Terminated:
        print("bpe-course: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except (BPEInputError, FileNotFoundError) as err:
        print(f"bpe-course: error: {err}", file=sys.stderr)
        return 2
    except OSError as err:  # the machine's: a folder under a file, a full disk, no permission
        where = f": {err.filename}" if err.filename else ""
        print(f"bpe-course: error: {err.strerror or err}{where}", file=sys.stderr)
        return 2
    except RuntimeError as err:  # a benchmark mismatch or a failed run: not the user's doing
        print(f"bpe-course: failed: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("bpe-course: interrupted", file=sys.stderr)
        return 130


def build_parser() -> argparse.ArgumentParser:
    from bpe_course.cli.bench import add_bench_commands
    from bpe_course.cli.check import add_check_command
    from bpe_course.cli.course import add_course_command
    from bpe_course.cli.data import add_data_commands
    from bpe_course.cli.encode import add_encode_command
    from bpe_course.cli.explore import add_explore_command
    from bpe_course.cli.grade import add_grade_command
    from bpe_course.cli.handout import add_handout_command
    from bpe_course.cli.publish import add_publish_commands
    from bpe_course.cli.train import add_train_command

    parser = argparse.ArgumentParser(
        prog="bpe-course", description="Train byte-level BPE tokenizers, and run the course."
    )
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    add_train_command(commands)
    add_encode_command(commands)
    add_data_commands(commands)
    add_bench_commands(commands)
    add_course_command(commands)
    add_check_command(commands)
    add_grade_command(commands)
    add_explore_command(commands)
    add_handout_command(commands)
    add_publish_commands(commands)
    return parser
