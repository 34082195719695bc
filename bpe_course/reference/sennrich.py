"""Sennrich, Haddow and Birch (2016), Algorithm 1: BPE on characters with an end-of-word marker.

The course's trainers work on bytes inside GPT-2 pretokens; this is the original form, on words
spelled as space-separated symbols, kept small so notebook 03 can step through it merge by merge.
Ties are broken as everywhere in the course (the greatest pair wins); the paper's own code takes
the first pair it meets, so on a tie the two can pick different merges.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

END_OF_WORD = "</w>"
PAPER_EXAMPLE = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


@dataclass(frozen=True)
class Step:
    """The state before a merge: each word's symbols, every pair's count, and the pair chosen."""

    words: dict[tuple[str, ...], int]
    pair_counts: dict[tuple[str, str], int]
    chosen: tuple[str, str] | None


def spell(word_counts: dict[str, int]) -> dict[tuple[str, ...], int]:
    """``{"low": 5}`` -> ``{("l", "o", "w", "</w>"): 5}``."""
    return {(*word, END_OF_WORD): count for word, count in word_counts.items()}


def pair_counts(words: dict[tuple[str, ...], int]) -> dict[tuple[str, str], int]:
    counts: Counter[tuple[str, str]] = Counter()
    for symbols, count in words.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] += count
    return dict(counts)


def merge_pair(words: dict[tuple[str, ...], int], pair: tuple[str, str]):
    """Every word with each occurrence of ``pair`` (left to right) replaced by one symbol."""
    merged = {}
    for symbols, count in words.items():
        out, i = [], 0
        while i < len(symbols):
            if symbols[i : i + 2] == pair:
                out.append(pair[0] + pair[1])
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        merged[tuple(out)] = count
    return merged


def steps(word_counts: dict[str, int] = PAPER_EXAMPLE, merges: int = 10) -> list[Step]:
    """The states of Algorithm 1 from the spelled words through ``merges`` merges (or until no
    pair is left); the last step has ``chosen=None``."""
    words, states = spell(word_counts), []
    for _ in range(merges):
        counts = pair_counts(words)
        if not counts:
            break
        best = max(counts, key=lambda pair: (counts[pair], pair))  # count, then greatest pair
        states.append(Step(words, counts, best))
        words = merge_pair(words, best)
    states.append(Step(words, pair_counts(words), None))
    return states
