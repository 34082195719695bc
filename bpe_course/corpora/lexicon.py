"""The word source of the offline corpora: real English words, with how often each is used.

``lexicon_en.tsv.gz`` is a snapshot built from wordfreq, WordNet, LemmInflect, the US Census name
files and a profanity list by :mod:`bpe_course.corpora.lexicon_build` (which names each source and
its licence). Each row is ``role<TAB>form<TAB>weight``: the generators fill a slot of a sentence
(an animal, a past-tense verb that takes an object, a surname...) with a form of that role, drawn
in proportion to its weight.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import numpy as np

LEXICON_PATH = Path(__file__).with_name("lexicon_en.tsv.gz")

# Credited wherever the corpora are described (README, `bpe-course data list`).
SOURCES = (
    "wordfreq 3.1 word frequencies (Robyn Speer; data CC BY-SA 4.0)",
    "WordNet 3.0 (Princeton University; WordNet licence)",
    "LemmInflect inflections (MIT; NLM SPECIALIST Lexicon)",
    "US Census 1990 name frequencies (public domain)",
)
LICENCE = (
    "word list derived from wordfreq data: CC BY-SA 4.0 (see bpe_course/corpora/lexicon_build.py)"
)


def load_roles(names: Iterable[str] | None = None) -> dict[str, tuple[tuple[str, ...], np.ndarray]]:
    """``role -> (forms, weights)`` for the roles named (default: all), forms from the most to the
    least frequent (ties by form). Only the roles asked for are kept: a generator of one shape
    holds its own words, not the other shape's."""
    wanted = None if names is None else set(names)
    rows: dict[str, list[tuple[int, str]]] = {}
    with gzip.open(LEXICON_PATH, "rt", encoding="utf-8") as f:
        for line in f:
            role, form, weight = line.rstrip("\n").split("\t")
            if wanted is None or role in wanted:
                rows.setdefault(role, []).append((-int(weight), form))
    missing = (wanted or set()) - set(rows)
    if missing:
        raise KeyError(f"the lexicon has no role {sorted(missing)}; rebuild it (lexicon_build)")
    lexicon = {}
    for role, entries in rows.items():
        entries.sort()
        forms = tuple(form for _, form in entries)
        weights = np.array([-w for w, _ in entries], dtype=np.int64)
        lexicon[role] = (forms, weights)
    return lexicon


@lru_cache(maxsize=1)
def lexicon_words() -> frozenset[str]:
    """Every form in the lexicon, as written there (names capitalised, words in lower case)."""
    return frozenset(form for forms, _ in load_roles().values() for form in forms)
