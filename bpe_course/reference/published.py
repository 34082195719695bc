"""Published figures the course compares itself against, each with its source.

These are numbers measured by other people on other machines, kept in one place so the notebooks,
plots and tests quote them identically. They are never used as expected results for our trainers.
"""

from __future__ import annotations

V1_V5_POST = "the V1-V5 post (five optimized BPE trainers; Apple M3 Max, Python 3.12, 4 workers)"
POST_WORKERS = 4  # the worker processes the V1-V5 post's V3 to V5 counted words with
FAST_MAX_POST = "the post 'From Hours to Seconds: Optimising BPE Tokeniser Training'"

# Corpus shape at each size of the V1-V5 post's benchmark corpus, from its tables. The post names
# it "TinyStories validation set" only: not which release, nor how the smaller sizes were cut.
# size in MB -> (unique pretokens W, unique byte pairs P, mean pretoken length L in bytes).
TINYSTORIES_SHAPE: dict[float, tuple[int, int, float]] = {
    1: (4_658, 647, 6.6),
    5: (8_126, 796, 6.8),
    10: (10_133, 856, 6.9),
    21.5: (13_109, 932, 6.9),
}

# End-to-end seconds from the V1-V5 post: (corpus MB, vocab size) -> {version: seconds}.
POST_SECONDS: dict[tuple[float, int], dict[str, float]] = {
    (1, 1000): {"v1": 76.4, "v2": 5.5, "v3": 4.5, "v4": 1.3, "v5": 1.3},
    (1, 2000): {"v1": 162.6, "v2": 10.1, "v3": 9.0, "v4": 2.3, "v5": 1.5},
    (1, 5000): {"v1": 422.1, "v2": 20.9, "v3": 20.7, "v4": 4.5, "v5": 1.7},
    (5, 1000): {"v1": 143.3, "v2": 15.8, "v3": 8.3, "v4": 2.6, "v5": 2.6},
    (5, 2000): {"v1": 305.9, "v2": 24.0, "v3": 17.0, "v4": 4.2, "v5": 2.8},
    (5, 5000): {"v1": 779.6, "v2": 45.0, "v3": 39.2, "v4": 8.4, "v5": 3.2},
    (10, 1000): {"v1": 188.4, "v2": 26.3, "v3": 10.7, "v4": 3.3, "v5": 3.4},
    (10, 2000): {"v1": 400.8, "v2": 37.0, "v3": 22.0, "v4": 5.2, "v5": 3.8},
    (10, 5000): {"v1": 1001.3, "v2": 65.0, "v3": 51.9, "v4": 10.7, "v5": 4.1},
    (21.5, 1000): {"v1": 269.8, "v2": 49.2, "v3": 14.6, "v4": 4.7, "v5": 4.9},
    (21.5, 2000): {"v1": 553.8, "v2": 63.9, "v3": 29.2, "v4": 6.9, "v5": 5.3},
    (21.5, 5000): {"v1": 1340.9, "v2": 104.9, "v3": 70.6, "v4": 14.0, "v5": 5.8},
}

# The V1-V5 post's crossover of V4 and V5 end-to-end time, in vocab size (5, 10 and 21 MB).
POST_CROSSOVER_RANGE = (1_100, 1_565)

# The V1-V5 post's "typical A" (words touched by one merge) by merge number. The post names no
# corpus for this table; its 50,000 words are "50% of W", so W is about 100,000 there.
POST_WORDS_TOUCHED = [
    ("1-100", 50_000),
    ("100-1000", 10_000),
    ("1000-5000", 1_000),
    ("5000-10000", 100),
]


def post_speedups(size_mb: float, vocab_size: int) -> dict[str, float]:
    """The V1-V5 post's speed-up of each version over V1 at one configuration."""
    seconds = POST_SECONDS[(size_mb, vocab_size)]
    return {version: seconds["v1"] / t for version, t in seconds.items()}
