"""The benchmark grids by name: what ``bpe-course bench --grid`` runs.

A named grid holds its corpus sizes, vocab sizes, repeats and time limit here; which versions it
runs is the registry's (:mod:`bpe_course.trainers`: every entry lists the grids that run it), read
each time a grid is asked for, so a trainer registered later runs in its grids too.

Apart from :mod:`bpe_course.bench.harness` so that the command line can list them in its help
without importing pandas: every ``bpe-course`` command, ``train`` included, builds that help.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace

from bpe_course.trainers import in_grid


@dataclass(frozen=True)
class Grid:
    versions: tuple[str, ...]
    sizes: tuple[str, ...]
    vocab_sizes: tuple[int, ...]
    repeats: int = 1
    timeout_s: float = 600.0
    name: str = "custom"  # written in every row: grids stay apart in the repeats they count


CROSSOVER_VOCABS = (300, 500, 750, 1000, 1250, 1500, 1750, 2000, 2500, 3000, 4000, 5000)
ABLATION_VOCABS = (300, 500, 750, 1000, 1500, 2000, 3000, 5000, 10000)
# The named grids, their versions left to the registry.
_WITHOUT_VERSIONS = {
    "quick": Grid((), ("200KB", "500KB"), (300, 500, 1000, 1500), 1, 120, "quick"),
    "crossover": Grid((), ("1MB", "5MB", "10MB", "21.5MB"), CROSSOVER_VOCABS, 3, 600, "crossover"),
    # V3's pool starts at 2 MB per worker: 21.5 MB is where parallel pretokenization shows.
    "versions": Grid((), ("1MB", "21.5MB"), (1000, 5000), 3, 1800, "versions"),
    # What made the post's crossover: its V4 and V5, made exact (GC on and off) beside ours.
    "ablation": Grid((), ("5MB",), ABLATION_VOCABS, 3, 1200, "ablation"),
    "beyond": Grid((), ("21.5MB",), (5000, 10000), 5, 900, "beyond"),
}


class _NamedGrids(Mapping[str, Grid]):
    """The named grids, each made when it is asked for, with the versions its entries name."""

    def __getitem__(self, name: str) -> Grid:
        return replace(_WITHOUT_VERSIONS[name], versions=in_grid(name))

    def __iter__(self) -> Iterator[str]:
        return iter(_WITHOUT_VERSIONS)

    def __len__(self) -> int:
        return len(_WITHOUT_VERSIONS)


GRIDS: Mapping[str, Grid] = _NamedGrids()
