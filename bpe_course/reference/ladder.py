"""The ladder: the post's V5 turned into the course's V5 one change at a time, and its V4 into
the course's V4 the same way, so a timing can say which change moved the crossover.

Each rung is the rung above it plus one change (an option of
:class:`bpe_course.reference.post_v5.Design` or :class:`bpe_course.reference.post_v4.Design`);
side rungs change one factor of a ladder rung and go back (the collector with each kind of heap
entry, the compaction threshold, where the top rung's pushes come from). Every rung is exact: it
learns V1's merges (the tests check it). The last rungs run the course's own functions, and
``course V5`` is ``trainers/v5_heap.py`` itself, so the top of the ladder can be checked against
it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

from bpe_course.corpora.datasets import parse_size
from bpe_course.errors import BPEInputError
from bpe_course.reference import post_v4, post_v5
from bpe_course.trainers import v5_heap
from bpe_course.trainers.common import MergeLoop


@dataclass(frozen=True)
class Rung:
    name: str  # short, for tables and CSV files
    kind: str  # "v5" or "v4": which side of the crossover
    change: str  # what this rung changes, from the rung named in ``base``
    base: str | None  # the rung it changes (None: the start of a ladder)
    on_ladder: bool  # a step of the main ladder (False: a side rung, one factor off a step)
    merge_loop: MergeLoop


def _v5(design: post_v5.Design) -> MergeLoop:
    return partial(post_v5.merge_loop, design=design)


def _v4(design: post_v4.Design) -> MergeLoop:
    return partial(post_v4.merge_loop, design=design)


_P5 = post_v5.PUBLISHED
_BYTES = replace(_P5, entries="bytes")
_CACHED = replace(_BYTES, keys="cached")
_GROWN = replace(_CACHED, push="grown")
_LIVE = replace(_GROWN, compaction="live")
_TOP5 = replace(_LIVE, rewrite="course")
_P4 = post_v4.PUBLISHED
_REWRITE4 = replace(_P4, rewrite="course")
_TOP4 = replace(_REWRITE4, find="top_count")

RUNGS: dict[str, Rung] = {
    r.name: r
    for r in [
        # V5: the post's, then one change a step, up to the course's.
        Rung("p5", "v5", "the post's V5, made exact", None, True, _v5(_P5)),
        Rung("p5-gc", "v5", "collector off", "p5", False, _v5(replace(_P5, collector=False))),
        Rung("bytes", "v5", "entries: one bytes key, compared in C", "p5", True, _v5(_BYTES)),
        Rung(
            "bytes-gc", "v5", "collector off", "bytes", False, _v5(replace(_BYTES, collector=False))
        ),
        Rung("cached", "v5", "keys: built once per pair", "bytes", True, _v5(_CACHED)),
        Rung("grown", "v5", "push: only pairs whose count rose", "cached", True, _v5(_GROWN)),
        Rung("live", "v5", "compaction: against live pairs, no set", "grown", True, _v5(_LIVE)),
        Rung("rewrite", "v5", "words: the course's V4 rewrite", "live", True, _v5(_TOP5)),
        Rung(
            "rewrite-1.5x",
            "v5",
            "compaction at 1.5x",
            "rewrite",
            False,
            _v5(replace(_TOP5, compaction_factor=1.5)),
        ),
        Rung(
            "rewrite-10x",
            "v5",
            "compaction at 10x",
            "rewrite",
            False,
            _v5(replace(_TOP5, compaction_factor=10.0)),
        ),
        Rung(
            "rewrite-never",
            "v5",
            "compaction never",
            "rewrite",
            False,
            _v5(replace(_TOP5, compaction_factor=float("inf"))),
        ),
        Rung(
            "changes",
            "v5",
            "pushes read off the count changes",
            "rewrite",
            False,
            _v5(replace(_TOP5, push_source="changes")),
        ),
        Rung(
            "v5", "v5", "the course's V5 (trainers/v5_heap.py)", "rewrite", True, v5_heap.merge_loop
        ),
        # V4: the post's, then the course's rewrite, then the course's search for the max.
        Rung("p4", "v4", "the post's V4, made exact", None, True, _v4(_P4)),
        Rung("rewrite4", "v4", "words: the course's V4 rewrite", "p4", True, _v4(_REWRITE4)),
        Rung("top4", "v4", "max: top count in C, key for ties", "rewrite4", True, _v4(_TOP4)),
    ]
}


# The main ladders, bottom rung first: the steps, without the side rungs.
MAIN_V5 = tuple(name for name, r in RUNGS.items() if r.kind == "v5" and r.on_ladder)
MAIN_V4 = tuple(name for name, r in RUNGS.items() if r.kind == "v4" and r.on_ladder)


def corpora(table) -> list[tuple[str, str]]:
    """``(shape, size)`` pairs of a ladder table, stories first, smaller sizes first: the order
    the figures' panels and the findings read them in."""
    pairs = set(zip(table["shape"], table["size"]))
    return sorted(pairs, key=lambda pair: (pair[0] != "stories", parse_size(pair[1])))


def get_rung(name: str) -> Rung:
    """The rung called ``name``, or a clear error listing them."""
    try:
        return RUNGS[name]
    except (KeyError, TypeError):
        raise BPEInputError(f"unknown rung {name!r}; choose one of: {', '.join(RUNGS)}") from None
