"""``python -m bpe_course``: the command line (see :mod:`bpe_course.cli`)."""

import sys

from bpe_course.cli import main

if __name__ == "__main__":
    sys.exit(main())
