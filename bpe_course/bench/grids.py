"""The benchmark grids by name: what ``bpe-course bench --grid`` runs.

Apart from :mod:`bpe_course.bench.harness` so that the command line can list them in its help
without importing pandas: every ``bpe-course`` command, ``train`` included, builds that help.
"""

from __future__ import annotations

from dataclasses import dataclass


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
GRIDS = {
    "quick": Grid(("v4", "v5"), ("200KB", "500KB"), (300, 500, 1000, 1500), 1, 120, "quick"),
    "crossover": Grid(
        ("v4", "v5"), ("1MB", "5MB", "10MB", "21.5MB"), CROSSOVER_VOCABS, 3, 600, "crossover"
    ),
    # V3's pool starts at 2 MB per worker: 21.5 MB is where parallel pretokenization shows.
    "versions": Grid(
        ("v1", "v2", "v3", "v4", "v5", "fastmax"),
        ("1MB", "21.5MB"),
        (1000, 5000),
        3,
        1800,
        "versions",
    ),
    # What made the post's crossover: its V4 and V5 as published (GC on and off) beside ours.
    "ablation": Grid(
        ("v4", "v5", "post_v4", "post_v5", "post_v5_nogc"),
        ("5MB",),
        ABLATION_VOCABS,
        3,
        1200,
        "ablation",
    ),
    "beyond": Grid(
        ("v5", "sites", "fast", "hf", "rustbpe"), ("21.5MB",), (5000, 10000), 5, 900, "beyond"
    ),
}
