"""Exercise of notebook 08 (V4): rewrite the words holding a pair, keeping ``pair_to_words`` current.

Graded on what the call leaves behind: the words, and the index with empty sets dropped (an empty
set and no entry both say "no word holds this pair"); on what it returns, the count changes (zeros
dropped) and the number of words rewritten; and on the work done: the words are handed over in a
list that counts which of them the function reads, so that one which rescans every word fails (it
is right, but it is V2's scan, not V4's index).
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

from bpe_course.course.exercises.cases import ids, named
from bpe_course.course.exercises.exercise import short
from bpe_course.trainers.v4_inverted_index import build_index, rewrite_words

NOTEBOOK = "08_v4_inverted_index"
SUMMARY = "rewrite the words holding a pair and keep pair_to_words current (V4)"
SOLUTION = rewrite_words  # the package's own: V4, V5 and fast max call it
PROMPT = (
    "V4's idea: rewrite the words holding a pair, found through the index, and keep the index "
    "current. It is the function the trainer above calls, `rewrite_words`, as the trace by hand "
    "used it."
)
HINT = (
    "The index already names the words to rewrite. For each of them, what changes in the index "
    "is decided by its pairs before and after the merge: which pairs can the word lose, and "
    "which can it gain? Compare the two lists of pairs of the word, old and new. The count "
    "changes are the ones V2 computed for one word."
)
# Every rule the stub's docstring states (tests/test_exercises.py breaks each alone).
RULES = {
    "words in place": "every word holding best is merged, changed in the list words itself",
    "through the index": "the words to rewrite are found in pair_to_words[best], not by a scan",
    "new pairs added": "afterwards, each new pair maps to the words that hold it",
    "lost pairs removed": "afterwards, a pair a word no longer holds no longer maps to it",
    "pairs still held kept": "a pair can still occur elsewhere in a word after the merge",
    "best removed": "no word holds best after the merge",
    "count changes": "it returns the changes to the pair counts, times each word's count",
    "words changed": "and how many words changed",
}


class CountingWords(list):
    """A list of words that notes which it was asked for (any scan notes them all)."""

    def __init__(self, words) -> None:
        super().__init__(words)
        self.read: set[int] = set()

    def everything(self) -> None:
        self.read.update(range(super().__len__()))

    def __getitem__(self, index):
        if isinstance(index, slice):
            self.read.update(range(*index.indices(super().__len__())))
        elif isinstance(index, int) and -super().__len__() <= index < super().__len__():
            self.read.add(index % super().__len__())
        return super().__getitem__(index)

    def __iter__(self):
        self.everything()
        return super().__iter__()

    def __reversed__(self):
        self.everything()
        return super().__reversed__()

    def __contains__(self, item) -> bool:
        self.everything()
        return super().__contains__(item)

    def index(self, *args):
        self.everything()
        return super().index(*args)

    def count(self, item) -> int:
        self.everything()
        return super().count(item)

    def copy(self) -> list:
        self.everything()
        return super().copy()


def index_case(corpus: list[tuple[int, ...]], pair: tuple[int, int], counts=None) -> tuple:
    """An input, in the call's order: the pair to merge, a fresh id, the words, their counts
    (default: 1 each), and their index as V4 builds it."""
    counts = [1] * len(corpus) if counts is None else list(counts)
    _, pair_to_words = build_index(corpus, counts)
    return pair, 4, corpus, counts, pair_to_words


@st.composite
def _inputs(draw):
    corpus = draw(
        st.lists(st.lists(ids, min_size=2, max_size=8).map(tuple), min_size=1, max_size=6)
    )
    counts = draw(st.lists(st.integers(1, 5), min_size=len(corpus), max_size=len(corpus)))
    _, pair_to_words = build_index(corpus, counts)
    return index_case(corpus, draw(st.sampled_from(sorted(pair_to_words))), counts)


def cases():
    return _inputs()


def fixed_cases() -> list:
    return [
        index_case([(0, 1, 2)], (1, 2)),
        index_case([(0, 0, 0)], (0, 0)),
        index_case([(0, 1, 0, 1), (1, 0)], (0, 1), [2, 3]),  # word 1 still holds (1, 0)
        index_case([(0, 1, 2, 0, 1)], (1, 2)),  # (0, 1) still occurs, after the merge site
        index_case([(3, 3), (3, 3, 3), (2, 3)], (3, 3), [1, 2, 5]),
    ]


def outcome(function, case: tuple) -> tuple:
    """The words and the index after the call, what it returned (count changes without zeros),
    and the words read that do not hold the pair."""
    pair, new_id, corpus, counts, pair_to_words = copy.deepcopy(case)
    holding = set(pair_to_words.get(pair, ()))
    words = CountingWords(corpus)
    returned = function(pair, new_id, words, counts, pair_to_words)
    needless = sorted(words.read - holding)
    after = [list.__getitem__(words, i) for i in range(list.__len__(words))]
    if isinstance(returned, tuple) and len(returned) == 2 and isinstance(returned[0], dict):
        returned = ({p: d for p, d in returned[0].items() if d != 0}, returned[1])
    if not isinstance(pair_to_words, dict):
        return after, pair_to_words, returned, needless
    index = {p: sorted(ids) for p, ids in sorted(pair_to_words.items(), key=repr) if ids}
    return after, index, returned, needless


def compare(case: Any, expected: tuple, actual: tuple) -> str | None:
    (words_wanted, index_wanted, returned_wanted, _) = expected
    (words_got, index_got, returned_got, needless) = actual
    if words_got != words_wanted:
        return f"The words afterwards: expected {short(words_wanted)}; yours {short(words_got)}."
    if index_got != index_wanted:
        return index_problem(case, index_wanted, index_got) + " " + index_before(case)
    if returned_got != returned_wanted:
        return (
            f"The words and the index are right, but it should return (count changes, words "
            f"rewritten) = {short(returned_wanted)}; yours returned {short(returned_got)}."
        )
    return work_problem(case, needless)


def index_before(case: tuple) -> str:
    return f"The index before the call: {short(case[4])}."


def work_problem(case: tuple, needless: list[int]) -> str | None:
    """Reading a word that does not hold the pair is the scan V4's index exists to avoid."""
    if not needless:
        return None
    pair, _, corpus, _, pair_to_words = case
    holding = len(pair_to_words.get(pair, ()))
    return (
        f"The words and the index are right, but your function read {len(needless) + holding} of "
        f"the {len(corpus)} words where only {holding} hold the pair (it read words[{needless[0]}] "
        f"= {short(corpus[needless[0]])}, which does not): find the words to rewrite in "
        f"pair_to_words[best], not by scanning every word. {index_before(case)}"
    )


def index_problem(case: tuple, index_wanted: dict, index_got) -> str:
    if not isinstance(index_got, dict):
        return f"pair_to_words must stay a dict; yours became {short(index_got)}."
    wrong = [
        f"pair_to_words[{pair}] expected {set(index_wanted.get(pair, ())) or 'no entry'}, "
        f"yours {set(index_got.get(pair, ())) or 'no entry'}"
        for pair in sorted(set(index_wanted) | set(index_got), key=repr)
        if index_wanted.get(pair) != index_got.get(pair)
    ]
    return f"The words are right, but {'; '.join(wrong[:3])}."


def show_case(case: tuple) -> str:
    pair, new_id, corpus, counts, _ = case
    shown = named(best=pair, new_id=new_id, words=corpus, counts=counts)
    return shown + " (pair_to_words built from the words)"


def show_result(result: tuple) -> str:
    corpus, index, returned, _ = result
    index = {pair: set(ids) for pair, ids in index.items()}
    return f"words {short(corpus)} and pair_to_words {short(index)}, returning {short(returned)}"
