"""The registry of trainers: one entry per version of the course, driving the API, the tests, the
benchmark and the command line.

Every trainer is a pretokenizer (serial, or parallel from V3 on) followed by a merge loop. Two
tracks: the ladder, V1 to V5, each the previous version plus one change (and fast max, V4's other
way to find the best pair); then, beyond V5, trainers that change several things at once, each
change named in its title and measured version by version in notebook 13. The posts' designs
(:mod:`bpe_course.reference`) register themselves here with :func:`register`, so the API, the
benchmark and the tests run them alike; nothing here imports them.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from bpe_course.errors import BPEInputError
from bpe_course.trainers.common import MergeLoop

WordCounter = Callable[..., dict[bytes, int]]  # count_words(corpus, special_tokens, workers, ...)


@dataclass(frozen=True)
class Trainer:
    name: str  # what the API, the CLI and the benchmark call it
    title: str  # what a figure or a table calls it
    module_name: str  # where its merge loop lives, imported when first asked for (see below)
    parallel: bool  # pretokenize on several processes
    loop: str = "merge_loop"  # the merge loop's name in the module
    # how it counts words (bpe_course.counting.counters): "pattern" on every text, or "pieces"
    # first (the counts are the same; pieces are faster where they are exact)
    counter: str = "pattern"
    track: str = "ladder"  # "ladder" (one change a rung), "beyond V5" or "reference"

    @property
    def module(self) -> ModuleType:
        """The module of its merge loop (the notebooks show its source). Imported on first use,
        not with the registry: a run of one trainer loads that one and its dependencies (numpy
        only for the trainers that use it), which counts in a short run's start-up
        (``tests/test_startup.py`` checks what a run imports)."""
        return importlib.import_module(self.module_name)

    @property
    def count_words(self) -> WordCounter:
        """Its pretokenizer: :func:`bpe_course.counting.count_words` with its counter
        (``count_words(corpus, special_tokens, workers, ...)``)."""
        # imported when asked for, as the merge loop is: `bpe-course --help` lists the registry
        from bpe_course.counting import count_words

        return functools.partial(count_words, counter=self.counter)

    @property
    def merge_loop(self) -> MergeLoop:
        return getattr(self.module, self.loop)


def _here(module: str) -> str:
    return f"bpe_course.trainers.{module}"


_PIECES = "pieces"  # pieces counted before the pattern


TRAINERS: dict[str, Trainer] = {
    t.name: t
    for t in [
        Trainer("v1", "V1 naive", _here("v1_naive"), parallel=False),
        Trainer("v2", "V2 incremental", _here("v2_incremental"), parallel=False),
        Trainer("v3", "V3 parallel", _here("v3_parallel"), parallel=True),
        Trainer("v4", "V4 inverted index", _here("v4_inverted_index"), parallel=True),
        Trainer("v5", "V5 heap", _here("v5_heap"), parallel=True),
        Trainer("fastmax", "V4 + SortedDict (fast max)", _here("fast_max"), parallel=True),
        # Beyond V5: several changes each, named in the title (notebook 13 measures them in three
        # steps: pieces, then sites' merge loop, then fast's)
        Trainer(
            "sites",
            "V5 + merge sites, words as str, numpy index, pieces",
            _here("sites"),
            parallel=True,
            counter=_PIECES,
            track="beyond V5",
        ),
        Trainer(
            "fast",
            "sites + flat numpy arrays",
            _here("fast"),
            parallel=True,
            counter=_PIECES,
            track="beyond V5",
        ),
        Trainer(
            "shards",
            "fast + merge workers on word shards",
            _here("shards"),
            parallel=True,
            counter=_PIECES,
            track="beyond V5",
        ),
    ]
}

VERSIONS: tuple[str, ...] = tuple(TRAINERS)

# The course's trainers, then whatever registers itself (bpe_course.reference: the posts' designs,
# exact like the versions, run by the same API, benchmark and tests).
ALL_TRAINERS: dict[str, Trainer] = dict(TRAINERS)


def register(*trainers: Trainer) -> None:
    """Add trainers that are not course versions (so :func:`get_trainer` finds them)."""
    for trainer in trainers:
        if trainer.name in ALL_TRAINERS and ALL_TRAINERS[trainer.name] != trainer:
            raise ValueError(f"a trainer named {trainer.name!r} is already registered")
        ALL_TRAINERS[trainer.name] = trainer


def get_trainer(version: str) -> Trainer:
    """The trainer registered as ``version``, or a clear error listing the known names."""
    try:
        return ALL_TRAINERS[version]
    except (KeyError, TypeError):
        known = ", ".join(ALL_TRAINERS)
        raise BPEInputError(f"unknown version {version!r}; choose one of: {known}") from None
