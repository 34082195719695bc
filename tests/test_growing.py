"""The growing shape: the same bytes for the same seed, distinct words that follow the Heaps fit
it was given, made-up words that never repeat, and memory that grows with the distinct words,
not with the text."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from bpe_course.bench.heaps import fit_heaps, heaps_points
from bpe_course.corpora.generate import GENERATOR_VERSION, write_generated
from bpe_course.corpora.growing import HEAPS_BETA, HEAPS_K, Atoms, growing_blocks
from bpe_course.pretokenize import GPT2_REGEX

from .test_corpora import peak_rss_mb

pytestmark = pytest.mark.usefixtures("data_folder")

EOT = "<|endoftext|>"
# SHA-256 of the first 200 KB (whole documents) for seed 0: see test_corpora.PINNED.
PINNED = "21ac40be6d9d859f81407b32b3b22dd5f0b8fba689a6c3dc80984fd5b086ef59"

# How close the distinct pretokens of a sample must come to the fit: each point within 5% of
# K n^beta, and the exponent fitted on the sample within 0.02 of beta. The expected count is the
# fit itself; the rest is chance (a Bernoulli sum: its spread is about sqrt(W)), the few
# punctuation pretokens, and made-up words that happen to equal a lexicon form.
POINT_TOLERANCE = 0.05
BETA_TOLERANCE = 0.02


def test_same_seed_same_bytes(tmp_path) -> None:
    path = write_generated(tmp_path / "a.txt", 200_000, "growing", seed=0)
    data = path.read_bytes()
    assert hashlib.sha256(data).hexdigest() == PINNED
    assert 190_000 < len(data) <= 200_000 and data.endswith(f"\n{EOT}\n".encode())
    assert write_generated(tmp_path / "b.txt", 200_000, "growing", seed=1).read_bytes() != data
    small = write_generated(tmp_path / "c.txt", 50_000, "growing", seed=0).read_bytes()
    assert data.startswith(small)


def sample(megabytes: float, k: float = HEAPS_K, beta: float = HEAPS_BETA) -> str:
    blocks, size = [], 0
    for block in growing_blocks(0, GENERATOR_VERSION, k, beta):
        blocks.append(block)
        size += len(block)
        if size >= megabytes * 1e6:
            return b"".join(blocks).decode("utf-8")
    raise AssertionError("unreachable")


@pytest.mark.parametrize("k, beta", [(HEAPS_K, HEAPS_BETA), (20.0, 0.55)])
def test_distinct_pretokens_follow_the_fit(k, beta) -> None:
    text = sample(8, k, beta)
    pieces = (text[at : at + 100_000] for at in range(0, len(text), 100_000))
    points = heaps_points(pieces)
    points = points[points["n"] >= 100_000]
    assert len(points) >= 5
    expected = k * points["n"] ** beta
    assert ((points["W"] / expected - 1).abs() <= POINT_TOLERANCE).all(), points
    assert abs(fit_heaps(points["n"], points["W"])[1] - beta) <= BETA_TOLERANCE


def test_each_word_is_one_pretoken_and_made_up_words_differ() -> None:
    atoms = Atoms()
    for tier_start in (0, 1024**2 * 16):  # two syllables, then three
        u = np.arange(tier_start, tier_start + 300_000)
        words = atoms.join(atoms.made_up(u)).decode()
        pretokens = GPT2_REGEX.findall(words)
        assert len(pretokens) == len(u) == len(set(pretokens))
    text = sample(1)
    pretokens = GPT2_REGEX.findall(text.replace(EOT, ""))
    words = [p for p in pretokens if p.startswith(" ")]
    assert len(words) == len(text.replace(EOT, "").split())


@pytest.mark.slow
def test_generation_memory_grows_with_the_distinct_words_not_the_text(tmp_path) -> None:
    small = peak_rss_mb("20MB", "growing", tmp_path)
    large = peak_rss_mb("200MB", "growing", tmp_path)
    assert (
        tmp_path / f"generated-growing-200MB-seed0-g{GENERATOR_VERSION}.txt"
    ).stat().st_size > 199e6
    # A count per distinct word (8 bytes, the array doubling as it grows, and its running sum
    # while a step draws): at 200 MB under a million distinct words, so tens of MB more than at
    # 20 MB, and below the text itself (the lexicon and numpy weigh most of it).
    assert large < small + 40, (small, large)
    assert large < 200, (small, large)
