"""Algorithm 1 of Sennrich et al. (2016) under both tie-breaks: the course's and the paper's code's."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bpe_course.reference.sennrich import (
    PAPER_EXAMPLE,
    first_met,
    greatest_pair,
    merge_pair,
    spell,
    steps,
)


def paper_order_by_scanning(word_counts: dict[str, int], merges: int) -> list[tuple[str, str]]:
    """The paper's order found another way: scan the words in order, left to right, and keep a
    pair only when its count is strictly greater than the best so far (so the first one met wins
    a tie), as ``max(pairs, key=pairs.get)`` does over a dict filled in that order."""
    words, chosen = spell(word_counts), []
    for _ in range(merges):
        totals: dict[tuple[str, str], int] = {}
        order: list[tuple[str, str]] = []
        for symbols, count in words.items():
            for pair in zip(symbols, symbols[1:]):
                if pair not in totals:
                    order.append(pair)
                totals[pair] = totals.get(pair, 0) + count
        if not order:
            break
        best = order[0]
        for pair in order:
            if totals[pair] > totals[best]:
                best = pair
        chosen.append(best)
        words = merge_pair(words, best)
    return chosen


def chosen(states) -> list[tuple[str, str]]:
    return [state.chosen for state in states if state.chosen]


def test_the_two_rules_on_the_papers_example() -> None:
    course = chosen(steps(PAPER_EXAMPLE, 10))
    paper = chosen(steps(PAPER_EXAMPLE, 10, choose=first_met))
    assert course[:3] == [("t", "</w>"), ("s", "t</w>"), ("e", "st</w>")]
    assert paper[:3] == [("e", "s"), ("es", "t"), ("est", "</w>")]
    assert paper == paper_order_by_scanning(PAPER_EXAMPLE, 10)


@given(
    st.dictionaries(st.text("abcde", min_size=1, max_size=6), st.integers(1, 5), max_size=6),
    st.integers(1, 12),
)
def test_first_met_is_the_papers_order(word_counts: dict[str, int], merges: int) -> None:
    assert chosen(steps(word_counts, merges, choose=first_met)) == paper_order_by_scanning(
        word_counts, merges
    )


def test_the_rules_differ_only_on_ties() -> None:
    counts = {("a", "b"): 2, ("c", "d"): 2, ("b", "a"): 1}
    assert greatest_pair(counts) == ("c", "d") and first_met(counts) == ("a", "b")
    unique = {("a", "b"): 1, ("c", "d"): 3}
    assert greatest_pair(unique) == first_met(unique) == ("c", "d")
