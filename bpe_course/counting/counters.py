"""The two ways to count the words of a text, and the one place that chooses between them.

- ``"pattern"``: :class:`PatternCounter`, the pattern run over every text (V1 to V5, as the
  course teaches them). Exact for any pattern.
- ``"pieces"``: :class:`~bpe_course.counting.pieces.PieceCounter`, equal pieces counted first
  and the pattern run once per distinct piece (the trainers beyond V5). Exact only for GPT-2's
  pattern (its cuts and its ASCII form are derived from that pattern) and only for special
  tokens that it can tell apart from the text (none empty, none holding a NUL) and that the
  pieces' chunk cuts cannot cut (none holding a space).

Both give the same counts wherever pieces are allowed, so :func:`choose_counter` falls back to
the pattern where they are not: the choice changes the speed, never the counts. A counter takes
texts (UTF-8 bytes, each one that may be counted alone) with :meth:`add`, and gives the word
counts of all it was given with ``word_counts()``; ``full`` says when it should be emptied into
a total and started afresh, so memory follows the work, not the corpus.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from bpe_course.errors import BPEInputError
from bpe_course.pretokenize import GPT2_PATTERN, update_pretokens

if TYPE_CHECKING:  # imported when chosen (see counter_class)
    from bpe_course.counting.pieces import PieceCounter

COUNTERS = ("pattern", "pieces")


class WordCounter(Protocol):
    """What a task counts with (see the module docstring)."""

    @property
    def full(self) -> bool: ...

    def add(self, data: bytes) -> None: ...

    def word_counts(self) -> dict[bytes, int]: ...


class PatternCounter:
    """Word counts of many texts by the pattern: each text decoded, special tokens split out,
    the pattern's matches counted as strings; encoded to UTF-8 once, at the end."""

    full = False  # holds only distinct words: bounded by the work

    def __init__(self, special_tokens: Sequence[str] = (), pattern: str = GPT2_PATTERN) -> None:
        self.special_tokens = tuple(special_tokens)
        self.pattern = pattern
        self.counts: Counter[str] = Counter()

    def add(self, data: bytes) -> None:
        """Count one UTF-8 text (``UnicodeDecodeError`` if it is not UTF-8)."""
        update_pretokens(self.counts, data.decode("utf-8"), self.special_tokens, self.pattern)

    def word_counts(self) -> dict[bytes, int]:
        return {word.encode("utf-8"): count for word, count in self.counts.items()}


def pieces_count_exactly(special_tokens: Sequence[str], pattern: str = GPT2_PATTERN) -> bool:
    """Whether pieces count these arguments exactly (see the module docstring)."""
    if pattern != GPT2_PATTERN:
        return False
    return not any(not token or " " in token or "\0" in token for token in special_tokens)


def choose_counter(counter: str, special_tokens: Sequence[str], pattern: str = GPT2_PATTERN) -> str:
    """``counter`` where it counts exactly, else ``"pattern"`` (which always does)."""
    if counter not in COUNTERS:
        raise BPEInputError(f"unknown counter {counter!r}; choose one of: {', '.join(COUNTERS)}")
    if counter == "pieces" and not pieces_count_exactly(special_tokens, pattern):
        return "pattern"
    return counter


def counter_class(counter: str) -> type[PatternCounter] | type[PieceCounter]:
    """The class of the counter ``counter`` names (as :func:`choose_counter` chose it)."""
    if counter == "pieces":
        # numpy loads only where pieces count: a trainer of the ladder never needs it
        from bpe_course.counting.pieces import PieceCounter

        return PieceCounter
    return PatternCounter


def make_counter(counter: str, special_tokens: Sequence[str], pattern: str) -> WordCounter:
    """A new, empty counter of the kind ``counter`` names."""
    if counter == "pieces":
        return counter_class(counter)(special_tokens)
    return PatternCounter(special_tokens, pattern)
