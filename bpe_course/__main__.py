"""``python -m bpe_course``: the command line (see :mod:`bpe_course.cli`)."""

import os
import sys

from bpe_course.cli import main


def run() -> None:
    """The installed ``bpe-course`` command (and ``python -m bpe_course``): :func:`main`, exiting
    with its status.

    After ``train`` the files are written and closed and nothing is left to clean up, so the
    process ends at once (``os._exit``) instead of tearing the interpreter down: freeing numpy's,
    regex's and the package's modules is time the user waits for and nothing needs (measured:
    ``notebooks/results/measurements.md``).
    """
    code = main()
    if sys.argv[1:2] == ["train"]:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    run()
