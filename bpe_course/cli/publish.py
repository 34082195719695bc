"""``bpe-course site`` and ``bpe-course slides``: the course as a static website and as decks.

Both read the executed notebooks in ``build/notebooks/`` (``bpe-course course`` writes them) and
execute, in quick mode, only those whose executed copy is missing or older than the notebook, so
``make course`` then ``make site`` runs each notebook once. Both publish the student edition (no
cell tagged ``solution``) into ``build/site/`` and ``build/slides/``; with ``--teacher``, the
teacher's notebooks into ``build/site-teacher/`` and ``build/slides-teacher/`` (another folder, so
a teacher's build never lands where the student edition is published from).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

TEACHER_HELP = "the teacher's notebooks, with the solutions (default: the student edition)"


def add_publish_commands(commands) -> None:
    site = commands.add_parser(
        "site",
        help="build the course as a static website into build/site/ (extra: site)",
        description="Build a static HTML book of the executed notebooks (Sphinx, MyST-NB, Sphinx "
        "Book Theme), with search, the references and the stored results; offline.",
    )
    site.add_argument(
        "--out", type=Path, help="output folder (default build/site, build/site-teacher)"
    )
    site.add_argument("--teacher", action="store_true", help=TEACHER_HELP)
    site.set_defaults(run=run_site)
    slides = commands.add_parser(
        "slides",
        help="export a reveal.js deck per notebook, and a walkthrough, into build/slides/",
        description="Export each notebook's slide cells as a static reveal.js deck, with "
        "reveal.js beside the decks (fetched once from npm into the virtual environment).",
    )
    slides.add_argument(
        "--out", type=Path, help="output folder (default build/slides, build/slides-teacher)"
    )
    slides.add_argument("--teacher", action="store_true", help=TEACHER_HELP)
    slides.add_argument("--reveal", type=Path, help="an unpacked reveal.js package to use")
    slides.add_argument(
        "--fetch-only", action="store_true", help="only fetch reveal.js (an install step)"
    )
    slides.set_defaults(run=run_slides)


def stale_notebooks(executed_dir: Path) -> list[str]:
    """The notebooks whose executed copy is missing or older than the notebook."""
    from bpe_course.course.runner.execute import course_notebooks

    stale = []
    for source in course_notebooks():
        executed = executed_dir / source.name
        if not executed.exists() or executed.stat().st_mtime < source.stat().st_mtime:
            stale.append(source.stem)
    return stale


def _executed() -> Path:
    from bpe_course.course.runner.execute import run_course
    from bpe_course.paths import build_dir

    executed_dir = build_dir() / "notebooks"
    stale = stale_notebooks(executed_dir)
    if stale:
        print(f"executing {len(stale)} notebook(s) with no fresh executed copy (quick mode)")
        run_course(quick=True, only=stale, progress=sys.stderr.isatty())
    return executed_dir


def run_site(args: argparse.Namespace) -> int:
    from bpe_course.course.publish.site import build_site
    from bpe_course.paths import build_dir

    executed_dir = _executed()
    out = args.out or build_dir() / ("site-teacher" if args.teacher else "site")
    start = time.perf_counter()
    build_site(executed_dir, out, teacher=args.teacher)
    print(f"site built in {time.perf_counter() - start:.0f} s: {out / 'index.html'}")
    return 0


def run_slides(args: argparse.Namespace) -> int:
    from bpe_course.course.publish.deck import build_slides, fetch_reveal
    from bpe_course.paths import build_dir

    reveal = args.reveal or fetch_reveal()
    if args.fetch_only:
        print(f"reveal.js is in {reveal}")
        return 0
    executed_dir = _executed()
    out = args.out or build_dir() / ("slides-teacher" if args.teacher else "slides")
    start = time.perf_counter()
    counts = build_slides(executed_dir, out, reveal, teacher=args.teacher)
    print(f"{len(counts)} decks built in {time.perf_counter() - start:.0f} s: {out / 'index.html'}")
    return 0
