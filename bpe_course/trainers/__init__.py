"""The registry of trainers: one entry per version of the course, driving the API, the tests, the
benchmark and the command line.

Every trainer is a pretokenizer (serial, or parallel from V3 on) followed by a merge loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from bpe_course import pretokenize
from bpe_course.errors import BPEInputError
from bpe_course.reference import post_v4, post_v5, v0_stream
from bpe_course.trainers import (
    fast,
    fast_max,
    shards,
    sites,
    v1_naive,
    v2_incremental,
    v3_parallel,
    v4_inverted_index,
    v5_heap,
)
from bpe_course.trainers.common import MergeLoop


@dataclass(frozen=True)
class Trainer:
    name: str  # what the API, the CLI and the benchmark call it
    title: str  # what a figure or a table calls it
    module: ModuleType  # where its merge loop lives (the notebooks show its source)
    parallel: bool  # pretokenize on several processes
    loop: str = "merge_loop"  # the merge loop's name in the module

    @property
    def merge_loop(self) -> MergeLoop:
        return getattr(self.module, self.loop)

    @property
    def count_words(self) -> Callable[..., dict[bytes, int]]:
        """Its pretokenizer: the pattern on every chunk, unless the module brings its own."""
        return getattr(self.module, "count_words", pretokenize.count_words)


TRAINERS: dict[str, Trainer] = {
    t.name: t
    for t in [
        Trainer("v1", "V1 naive", v1_naive, parallel=False),
        Trainer("v2", "V2 incremental", v2_incremental, parallel=False),
        Trainer("v3", "V3 parallel", v3_parallel, parallel=True),
        Trainer("v4", "V4 inverted index", v4_inverted_index, parallel=True),
        Trainer("v5", "V5 heap", v5_heap, parallel=True),
        Trainer("fastmax", "V4 + SortedDict (fast max)", fast_max, parallel=True),
        Trainer("sites", "V5 + merge sites (words as str)", sites, parallel=True),
        Trainer("fast", "Fast (flat numpy sites, pieces)", fast, parallel=True),
        Trainer("shards", "Fast + merge workers on word shards", shards, parallel=True),
    ]
}

VERSIONS: tuple[str, ...] = tuple(TRAINERS)

# Not course versions: designs the course measures itself against (bpe_course.reference), exact
# like the versions, run by the same API, benchmark and tests.
REFERENCE_TRAINERS: dict[str, Trainer] = {
    t.name: t
    for t in [
        Trainer("v0", "V0 pretoken stream (as minbpe)", v0_stream, parallel=False),
        Trainer("post_v4", "V4 as in the V1-V5 post", post_v4, parallel=True),
        Trainer("post_v5", "V5 as in the V1-V5 post", post_v5, parallel=True),
        Trainer(
            "post_v5_nogc", "post's V5, GC off", post_v5, parallel=True, loop="merge_loop_gc_off"
        ),
    ]
}
ALL_TRAINERS: dict[str, Trainer] = {**TRAINERS, **REFERENCE_TRAINERS}


def get_trainer(version: str) -> Trainer:
    """The trainer registered as ``version``, or a clear error listing the known names."""
    try:
        return ALL_TRAINERS[version]
    except (KeyError, TypeError):
        known = ", ".join(ALL_TRAINERS)
        raise BPEInputError(f"unknown version {version!r}; choose one of: {known}") from None
