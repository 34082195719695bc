"""What the course compares itself against: figures published in the posts, and the designs
of the paper and the posts reproduced (Sennrich et al.'s Algorithm 1).

The posts' trainers register themselves in the registry of :mod:`bpe_course.trainers` here, so
the arrows run from the references to the trainers, never back (``bpe_course`` imports this
package, so they are registered whatever one imports).
"""

from __future__ import annotations

from bpe_course.trainers import Trainer, register

# Not course versions: designs the course measures itself against, exact like the versions. In
# figures V0 stands below the ladder, the post's designs after the course's; the ablation grid runs
# the post's.
REFERENCE_TRAINERS: dict[str, Trainer] = {
    t.name: t
    for t in [
        Trainer(
            "v0", "V0 pretoken stream (as minbpe)", f"{__name__}.v0_stream", False,
            track="reference", color="#7f7f7f", order=0,
        ),
        Trainer(
            "post_v4", "V4 as in the V1-V5 post", f"{__name__}.post_v4", True, track="reference",
            label="post's V4", color="#17becf", order=100, grids=("ablation",),
        ),
        Trainer(
            "post_v5", "V5 as in the V1-V5 post", f"{__name__}.post_v5", True, track="reference",
            label="post's V5", color="#9467bd", order=110, grids=("ablation",),
        ),
        Trainer(
            "post_v5_nogc", "post's V5, GC off", f"{__name__}.post_v5", True,
            loop="merge_loop_gc_off", track="reference",
            label="post's V5, GC off", color="#c5b0d5", order=120, grids=("ablation",),
        ),
    ]
}  # fmt: skip
register(*REFERENCE_TRAINERS.values())
