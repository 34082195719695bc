"""The "growing" shape: text whose distinct words keep growing like real text's (Heaps' law).

The stories and the wide shape draw every word from the lexicon, so their distinct words reach a
ceiling: a scale test on them says nothing about a corpus that keeps meeting new words. Here the
words come from a Simon process (Simon 1955, as a model of word frequencies): each next word is
new with probability ``dW/dm`` of the target ``W(n) = K n^beta`` (``n`` the pretokens so far,
``m`` the words), and otherwise a copy of a word drawn in proportion to how often it has been
used so far, so the frequent words get more frequent, as in text. The expected number of
distinct words is then the target itself, at every size (``tests/test_growing.py`` counts it).

``K`` and ``beta`` default to the fit of ``python -m bpe_course.bench.heaps`` on the real text of
the course's machine, all kinds shuffled together (``mixed`` in
``notebooks/results/heaps_real_text.csv``; ``notebooks/results/measurements.md`` has the table).

A new word is the next form of the lexicon (all roles, the most frequent first, Latin letters
only)
and, once the lexicon is used up, a made-up word: two or three syllables and a final consonant
cluster, each taken from the lexicon's own words (a syllable is a run of consonants and the run
of vowels after it), the ``u``-th made-up word spelled from ``u`` by a bijection, so made-up
words differ from one another; one may equal a lexicon form. Each word is one GPT-2 pretoken
(a space and letters); after it comes nothing, a comma, a full stop, a full stop and a
paragraph break, or, now and then, a full stop and the end of the document.

Memory grows with the distinct words (a count per word: the process needs them), not with the
text; blocks are generated whole, vectorised, and the same seed gives the same bytes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache

import numpy as np

from bpe_course.corpora.grammar import Random
from bpe_course.corpora.lexicon import load_roles
from bpe_course.pretokenize import END_OF_TEXT

SHAPE_ID = 3
HEAPS_K = 2.689  # W = K n^beta: the `mixed` fit of heaps_real_text.csv (see the module docstring)
HEAPS_BETA = 0.707

# What follows a word, and how often (a document ends only after a full stop).
FOLLOW = (b"", b",", b".", b".\n\n", b".\n" + END_OF_TEXT.encode() + b"\n")
FOLLOW_P = np.array([0.84, 0.06, 0.075, 0.0235, 0.0015])
FOLLOW_PRETOKENS = np.array([0, 1, 1, 2, 2])  # "." then "\n\n" (special tokens not counted)
PRETOKENS_PER_WORD = 1 + float(FOLLOW_P @ FOLLOW_PRETOKENS)

BLOCK_WORDS = 1 << 17  # about a megabyte of text
SYLLABLES = 1024  # a power of two: made-up words are numbers written in syllables
CODAS = 16
_MASK64 = (1 << 64) - 1


@lru_cache(maxsize=1)
def lexicon_forms() -> tuple[str, ...]:
    """Every lexicon form made of Latin letters only, once, the most frequent first (ties by
    form). Forms in other scripts are left out: their weights come from other languages' word
    lists and would put them at the head of an English text."""
    weight: dict[str, int] = {}
    for forms, weights in load_roles().values():
        for form, w in zip(forms, weights.tolist()):
            latin = form.isalpha() and max(form) < "\u0250"
            if latin and w > weight.get(form, -1):
                weight[form] = w
    return tuple(sorted(weight, key=lambda f: (-weight[f], f)))


@lru_cache(maxsize=1)
def syllables_and_codas() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The most frequent syllables (consonants, then vowels) and final consonant clusters of the
    lexicon's lower-case ASCII forms, by how many forms hold them; the codas start with ""."""
    syllables: Counter[str] = Counter()
    codas: Counter[str] = Counter()
    for form in lexicon_forms():
        if form.isascii() and form.islower():
            syllables.update(re.findall(r"[^aeiouy]+[aeiouy]+", form))
            codas.update(re.findall(r"[^aeiouy]+$", form))
    top = sorted(syllables, key=lambda s: (-syllables[s], s))[:SYLLABLES]
    ends = sorted(codas, key=lambda s: (-codas[s], s))[: CODAS - 1]
    return tuple(top), ("", *ends)


class Atoms:
    """Byte strings in one array (``data``, with ``start`` and ``length`` per atom), so a block is
    one gather: the lexicon forms after a space, the syllables, the codas, a space, what follows
    a word, and an empty atom."""

    def __init__(self) -> None:
        syllables, codas = syllables_and_codas()
        self.lexicon = len(lexicon_forms())
        pieces = [f" {f}".encode() for f in lexicon_forms()]
        self.syllable = len(pieces)
        pieces += [s.encode() for s in syllables]
        self.coda = len(pieces)
        pieces += [c.encode() for c in codas]
        self.space = len(pieces)
        pieces.append(b" ")
        self.follow = len(pieces)
        pieces += list(FOLLOW)
        self.empty = len(pieces)
        pieces.append(b"")
        self.length = np.array([len(p) for p in pieces], dtype=np.int64)
        self.start = np.concatenate([[0], np.cumsum(self.length)[:-1]])
        self.data = np.frombuffer(b"".join(pieces), dtype=np.uint8)

    def made_up(self, u: np.ndarray) -> np.ndarray:
        """Atoms of the ``u``-th made-up words, one row each: space, syllables, coda (unused
        columns empty). Two syllables for the first ``SYLLABLES**2 * CODAS`` words, then three."""
        rows = np.full((len(u), 5), self.empty, dtype=np.int64)
        rows[:, 0] = self.space
        two = SYLLABLES**2 * CODAS
        long = u >= two
        v = np.where(long, u - two, u).astype(np.uint64)
        bits = np.where(long, 34, 24).astype(np.uint64)  # log2 of the words of each length
        v = _scramble(v, bits)
        rows[:, 4] = self.coda + (v % np.uint64(CODAS)).astype(np.int64)
        v //= np.uint64(CODAS)
        for column in (1, 2, 3):
            rows[:, column] = self.syllable + (v % np.uint64(SYLLABLES)).astype(np.int64)
            v //= np.uint64(SYLLABLES)
        rows[~long, 3] = self.empty
        return rows

    def join(self, rows: np.ndarray) -> bytes:
        """The bytes of the atoms of ``rows``, in order."""
        atoms = rows.ravel()
        atoms = atoms[atoms != self.empty]
        lengths = self.length[atoms]
        ends = np.cumsum(lengths)
        offset = np.repeat(self.start[atoms] - (ends - lengths), lengths)
        return self.data[offset + np.arange(int(ends[-1]))].tobytes()


def _scramble(v: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """A bijection of ``[0, 2**bits)`` (odd multiplications and xor-shifts modulo ``2**bits``), so
    consecutive made-up words share no syllables."""
    mask = (np.uint64(1) << bits) - np.uint64(1)
    with np.errstate(over="ignore"):
        for multiplier in (0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9):
            v = (v * np.uint64(multiplier & _MASK64)) & mask
            v ^= v >> (bits // np.uint64(2))
    return v


class SimonWords:
    """The state of the process: how often each word so far was used (the ``m``-th word is new
    with probability ``W'(m)``, ``W(m) = K (r m)^beta``, ``r`` pretokens per word)."""

    def __init__(self, k: float = HEAPS_K, beta: float = HEAPS_BETA) -> None:
        self.k = k * PRETOKENS_PER_WORD**beta
        self.beta = beta
        self.counts = np.zeros(1 << 16, dtype=np.int64)
        self.distinct = 0
        self.words = 0

    def expected_distinct(self, m: np.ndarray) -> np.ndarray:
        return np.minimum(m, self.k * m.astype(np.float64) ** self.beta)

    def draw(self, rng: Random, n: int) -> np.ndarray:
        """The word ids of the next ``n`` words (new words numbered in order of first use). Within
        the step, copies are drawn from the counts at its start (see :func:`step_words`)."""
        m = self.words + np.arange(n + 1, dtype=np.int64)
        p_new = np.diff(self.expected_distinct(m))
        new = rng.uniform(n) < p_new
        if self.words == 0:
            new[0] = True
        ids = np.empty(n, dtype=np.int64)
        fresh = int(new.sum())
        ids[new] = self.distinct + np.arange(fresh)
        old = ~new
        if old.any():
            cumulative = np.cumsum(self.counts[: self.distinct])
            # new words in this block cannot be copied yet: draw a copy of an earlier one
            picks = (rng.uniform(int(old.sum())) * cumulative[-1]).astype(np.int64)
            ids[old] = np.searchsorted(cumulative, picks, side="right")
        self.distinct += fresh
        if self.distinct > len(self.counts):
            grown = np.zeros(max(2 * len(self.counts), self.distinct), dtype=np.int64)
            grown[: len(self.counts)] = self.counts
            self.counts = grown
        np.add.at(self.counts, ids, 1)
        self.words += n
        return ids


def step_words(words_so_far: int) -> int:
    """How many words the next step of the process draws at once: one at first, then at most a
    thirtieth of the words so far (so copies see counts close to the current ones)."""
    return int(min(BLOCK_WORDS, max(1, words_so_far // 32)))


def growing_blocks(
    seed: int, version: int, k: float = HEAPS_K, beta: float = HEAPS_BETA
) -> Iterator[bytes]:
    """Blocks of text of about ``BLOCK_WORDS`` words, forever, each ending with the end of a
    document; the same seed gives the same blocks."""
    rng = Random(version, SHAPE_ID, seed)
    atoms = Atoms()
    process = SimonWords(k, beta)
    follow_cumulative = np.cumsum(FOLLOW_P)
    while True:
        steps, n = [], 0
        while n < BLOCK_WORDS:
            steps.append(process.draw(rng, step_words(process.words)))
            n += len(steps[-1])
        ids = np.concatenate(steps)
        rows = np.full((n, 6), atoms.empty, dtype=np.int64)
        known = ids < atoms.lexicon
        rows[known, 0] = ids[known]
        rows[~known, :5] = atoms.made_up(ids[~known] - atoms.lexicon)
        follow = np.searchsorted(follow_cumulative, rng.uniform(n), side="right")
        follow = np.minimum(follow, len(FOLLOW) - 1)
        follow[-1] = len(FOLLOW) - 1  # a block ends with the end of a document
        rows[:, 5] = atoms.follow + follow
        yield atoms.join(rows)
