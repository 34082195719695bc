"""The registry of trainers: one entry per version of the course, driving the API, the tests, the
benchmark and the command line.

Every trainer is a pretokenizer (serial, or parallel from V3 on) followed by a merge loop. Two
tracks: the ladder, V1 to V5, each the previous version plus one change (and fast max, V4's other
way to find the best pair); then, beyond V5, trainers that change several things at once, each
change named in its title and measured version by version in notebook 13. The posts' designs
(:mod:`bpe_course.reference`) register themselves here with :func:`register`, so the API, the
benchmark and the tests run them alike; nothing here imports them.

Every entry also says how it is shown (:class:`Entry`): the label and colour every figure gives it,
its place in figures and lists, and the benchmark's named grids that run it. The libraries the
benchmark runs beside the course (:data:`LIBRARIES`, Hugging Face ``tokenizers`` and ``rustbpe``)
are no trainers of the package, but have entries of the same shape (:class:`Outside`), and a
reader's own trainer gets one made for it (:func:`shown`). So adding a version touches its module
and its entry here, and nothing else: the figures, the grids and the tests read them.
"""

from __future__ import annotations

import functools
import importlib
import math
import zlib
from collections.abc import Callable, Iterable
from dataclasses import KW_ONLY, dataclass
from types import ModuleType

from bpe_course.errors import BPEInputError
from bpe_course.trainers.common import MergeLoop

WordCounter = Callable[..., dict[bytes, int]]  # count_words(corpus, special_tokens, workers, ...)


# Colours for what no entry colours (a reader's trainer): light ones, none of them an entry's.
_PALETTE = ("#aec7e8", "#ffbb78", "#98df8a", "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5")


@dataclass(frozen=True)
class Entry:
    """What the benchmark runs by name, and how every figure, grid and list shows it."""

    name: str  # what the API, the CLI and the benchmark call it
    title: str  # what a table or a list calls it, in full
    _: KW_ONLY
    label: str = ""  # what a figure's legend calls it (default: the name, "V1" for "v1")
    color: str = ""  # its colour in every figure (default: one of _PALETTE, fixed by the name)
    order: float = math.inf  # its place in figures and grids (default: after all, by name)
    grids: tuple[str, ...] = ()  # the benchmark's named grids that run it (bench/grids.py)

    def __post_init__(self) -> None:
        if not self.label:
            label = self.name.upper() if self.name[:1] == "v" else self.name
            object.__setattr__(self, "label", label)
        if not self.color:
            color = _PALETTE[zlib.crc32(self.name.encode()) % len(_PALETTE)]
            object.__setattr__(self, "color", color)


@dataclass(frozen=True)
class Trainer(Entry):
    """A trainer of the package: its entry, and where its merge loop and pretokenizer live."""

    module_name: str  # where its merge loop lives, imported when first asked for (see below)
    parallel: bool  # pretokenize on several processes
    loop: str = "merge_loop"  # the merge loop's name in the module
    # how it counts words (bpe_course.counting.counters): "pattern" on every text, or "pieces"
    # first (the counts are the same; pieces are faster where they are exact)
    counter: str = "pattern"
    track: str = "ladder"  # "ladder" (one change a rung), "beyond V5" or "reference"
    # the longest word (pretoken) it trains on, in UTF-8 bytes; None: the counting's default,
    # bpe_course.counting.plan.MAX_WORD_BYTES (1 MB). Larger only for a merge loop whose memory
    # per byte of its longest word is small and bounded (measured in
    # notebooks/results/measurements.md, "the longest word a version trains")
    max_word_bytes: int | None = None

    @property
    def word_limit(self) -> int:
        """The longest word it trains on, in bytes."""
        from bpe_course.counting.plan import word_limit

        return word_limit(self.max_word_bytes)

    def word_limit_note(self) -> str:
        """What a refusal of a long word adds: this version's limit, and who trains longer."""
        longer = [t for t in ALL_TRAINERS.values() if t.word_limit > self.word_limit]
        note = f"version {self.name} trains words of up to {self.word_limit:,} bytes"
        if not longer:
            return note
        by_limit = {
            t.word_limit: [u.name for u in longer if u.word_limit == t.word_limit]
            for t in sorted(longer, key=lambda t: -t.word_limit)
        }
        rest = ", ".join(
            f"{' and '.join(names)} up to {limit:,}" for limit, names in by_limit.items()
        )
        return f"{note}; {rest} (--version)"

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

        return functools.partial(
            count_words, counter=self.counter, max_word_bytes=self.max_word_bytes
        )

    @property
    def merge_loop(self) -> MergeLoop:
        return getattr(self.module, self.loop)


# The longest word trained on by the versions whose merge loop holds a word in a bounded number of
# bytes per byte (sites, fast, shards), against 1 MB for the others (see Trainer.max_word_bytes):
# the largest of 4, 8 and 16 MB at which one word of real CJK letters peaked under 1 GB over all
# processes at vocab 300 and 5,000 (notebooks/results/measurements.md, "the longest word a version
# trains"): 16 MB for fast (719 MB) and sites (983 MB); 4 MB for shards (623 MB; 8 MB took 1.17 GB).
LONG_WORD_BYTES = 16_000_000
SHARDS_WORD_BYTES = 4_000_000


def _here(module: str) -> str:
    return f"bpe_course.trainers.{module}"


TRAINERS: dict[str, Trainer] = {
    t.name: t
    for t in [
        Trainer(
            "v1", "V1 naive", _here("v1_naive"), parallel=False,
            color="#8c564b", order=10, grids=("versions",),
        ),
        Trainer(
            "v2", "V2 incremental", _here("v2_incremental"), parallel=False,
            color="#e377c2", order=20, grids=("versions",),
        ),
        Trainer(
            "v3", "V3 parallel", _here("v3_parallel"), parallel=True,
            color="#bcbd22", order=30, grids=("versions",),
        ),
        Trainer(
            "v4", "V4 inverted index", _here("v4_inverted_index"), parallel=True,
            color="#1f77b4", order=40, grids=("quick", "crossover", "versions", "ablation"),
        ),
        Trainer(
            "v5", "V5 heap", _here("v5_heap"), parallel=True, color="#ff7f0e", order=50,
            grids=("quick", "crossover", "versions", "ablation", "beyond"),
        ),
        Trainer(
            "fastmax", "V4 + SortedDict (fast max)", _here("fast_max"), parallel=True,
            label="fast max", color="#2ca02c", order=60, grids=("versions",),
        ),
        # Beyond V5: several changes each, named in the title (notebook 13 measures them in three
        # steps: pieces, then sites' merge loop, then fast's)
        Trainer(
            "sites",
            "V5 + merge sites, words as str, numpy index, pieces",
            _here("sites"),
            parallel=True,
            counter="pieces",
            max_word_bytes=LONG_WORD_BYTES,
            track="beyond V5",
            color="#ff9896",
            order=70,
            grids=("beyond",),
        ),
        Trainer(
            "fast",
            "sites + flat numpy arrays",
            _here("fast"),
            parallel=True,
            counter="pieces",
            max_word_bytes=LONG_WORD_BYTES,
            track="beyond V5",
            color="#d62728",
            order=80,
            grids=("beyond",),
        ),
        Trainer(
            "shards",
            "fast + merge workers on word shards",
            _here("shards"),
            parallel=True,
            counter="pieces",
            max_word_bytes=SHARDS_WORD_BYTES,
            track="beyond V5",
            label="shards (merge workers)",
            color="#8c6d31",
            order=90,
        ),
    ]
}  # fmt: skip

VERSIONS: tuple[str, ...] = tuple(TRAINERS)

# The course's trainers, then whatever registers itself (bpe_course.reference: the posts' designs,
# exact like the versions, run by the same API, benchmark and tests).
ALL_TRAINERS: dict[str, Trainer] = dict(TRAINERS)


def register(*trainers: Trainer) -> None:
    """Add trainers that are not course versions (so :func:`get_trainer` finds them, and the
    figures and grids show them as their entries say)."""
    for trainer in trainers:
        taken = trainer.name in LIBRARIES
        if taken or (trainer.name in ALL_TRAINERS and ALL_TRAINERS[trainer.name] != trainer):
            raise ValueError(f"a trainer named {trainer.name!r} is already registered")
        ALL_TRAINERS[trainer.name] = trainer


def get_trainer(version: str) -> Trainer:
    """The trainer registered as ``version``, or a clear error listing the known names."""
    try:
        return ALL_TRAINERS[version]
    except (KeyError, TypeError):
        known = ", ".join(ALL_TRAINERS)
        raise BPEInputError(f"unknown version {version!r}; choose one of: {known}") from None


# --- From outside the package: drawn beside the course's trainers ------------------------------


@dataclass(frozen=True)
class Outside(Entry):
    """A trainer from outside the package, shown like the course's: a library the benchmark runs
    beside them (:data:`LIBRARIES`; :mod:`bpe_course.bench.libraries` runs it), or a reader's own
    ``module:function`` (:func:`shown` makes its entry)."""

    track: str = "library"  # "library", or "yours" (a reader's own trainer)
    package: str = ""  # what a library imports as (its Python package)


LIBRARIES: dict[str, Outside] = {
    o.name: o
    for o in [
        Outside(
            "hf", "Hugging Face tokenizers", package="tokenizers",
            label="HF tokenizers", color="#393b79", order=130, grids=("beyond",),
        ),
        Outside(
            "rustbpe", "rustbpe", package="rustbpe",
            color="#637939", order=140, grids=("beyond",),
        ),
    ]
}  # fmt: skip


def registered(name: str) -> Trainer | Outside | None:
    """The entry of the trainer or library registered as ``name``; None for any other name."""
    return ALL_TRAINERS.get(name) or LIBRARIES.get(name)


def shown(name: str) -> Trainer | Outside:
    """How figures and tables show ``name``: its entry, or for a name nothing registered (a
    reader's ``module:function``) one made for it: its name as its label, a colour that the same
    name always gets, a place after every registered one."""
    return registered(name) or Outside(name, f"yours: {name}", track="yours")


def in_order(names: Iterable[str]) -> list[str]:
    """``names`` in the order figures and grids list them: by their entries' ``order``, then by
    name (a reader's trainers, after every registered one)."""
    return sorted(names, key=lambda name: (shown(name).order, name))


def in_grid(grid: str) -> tuple[str, ...]:
    """The versions the benchmark's grid named ``grid`` runs: every registered trainer and library
    whose entry lists it, in order."""
    return tuple(
        in_order(e.name for e in [*ALL_TRAINERS.values(), *LIBRARIES.values()] if grid in e.grids)
    )
