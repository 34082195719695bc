"""Sennrich, Haddow and Birch (2016), Algorithm 1: BPE on characters with an end-of-word marker.

The course's trainers work on bytes inside GPT-2 pretokens; this is the original form, on words
spelled as space-separated symbols, kept small so notebook 03 can step through it merge by merge.

Which pair is merged when several share the highest count is a rule, and there are two here:
``greatest_pair``, the course's (CS336's: the lexicographically greatest pair), and ``first_met``,
what the paper's own code does (``max(pairs, key=pairs.get)`` returns the first pair at the highest
count in the dict's order, the order the pairs were first met reading the words). On a tie the two
can pick different merges; ``steps`` takes either.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

END_OF_WORD = "</w>"
PAPER_EXAMPLE = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


@dataclass(frozen=True)
class Step:
    """The state before a merge: each word's symbols, every pair's count, and the pair chosen."""

    words: dict[tuple[str, ...], int]
    pair_counts: dict[tuple[str, str], int]
    chosen: tuple[str, str] | None


PairCounts = dict[tuple[str, str], int]


def greatest_pair(counts: PairCounts) -> tuple[str, str]:
    """The course's rule (CS336's): the highest count, ties to the lexicographically greatest pair."""
    return max(counts, key=lambda pair: (counts[pair], pair))


def first_met(counts: PairCounts) -> tuple[str, str]:
    """The paper's code: the first pair at the highest count in ``counts``' order.

    ``max`` returns the first maximal item it meets, and a dict (Python 3.7+) keeps insertion
    order, which for :func:`pair_counts` (as for the paper's ``get_stats``) is the order in which
    each pair was first met, reading the words in order and each word left to right.
    """
    return max(counts, key=counts.__getitem__)


def spell(word_counts: dict[str, int]) -> dict[tuple[str, ...], int]:
    """``{"low": 5}`` -> ``{("l", "o", "w", "</w>"): 5}``."""
    return {(*word, END_OF_WORD): count for word, count in word_counts.items()}


def pair_counts(words: dict[tuple[str, ...], int]) -> PairCounts:
    """Each adjacent pair's count, weighted by the word's count, in the order first met."""
    counts: Counter[tuple[str, str]] = Counter()
    for symbols, count in words.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] += count
    return dict(counts)


def merge_pair(
    words: dict[tuple[str, ...], int], pair: tuple[str, str]
) -> dict[tuple[str, ...], int]:
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


def steps(
    word_counts: dict[str, int] = PAPER_EXAMPLE,
    merges: int = 10,
    choose: Callable[[PairCounts], tuple[str, str]] = greatest_pair,
) -> list[Step]:
    """The states of Algorithm 1 from the spelled words through ``merges`` merges (or until no
    pair is left), each pair chosen by ``choose``; the last step has ``chosen=None``."""
    words, states = spell(word_counts), []
    for _ in range(merges):
        counts = pair_counts(words)
        if not counts:
            break
        best = choose(counts)
        states.append(Step(words, counts, best))
        words = merge_pair(words, best)
    states.append(Step(words, pair_counts(words), None))
    return states
