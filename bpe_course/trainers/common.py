"""What every merge loop shares: the vocabulary layout, the one tie-break rule, merging one word,
the per-merge event for instrumentation, and the checks run before any work starts.

A merge loop has one signature::

    merge_loop(word_counts, vocab_size, special_tokens=(), on_merge=None) -> (vocab, merges)

where ``word_counts`` is ``{word bytes: count}``, from the trainer's counter in the registry
(:mod:`bpe_course.counting`, by the pattern or by pieces: the same counts).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import Protocol, TypedDict, TypeVar

from bpe_course.errors import BPEInputError, VocabularyExhaustedWarning
from bpe_course.pretokenize import check_special_tokens

Pair = tuple[int, int]
Vocab = dict[int, bytes]
Merges = list[tuple[bytes, bytes]]
# What a word is made of, for merge_word: token ids in training, bytes in the tokenizer (it only
# compares them).
Token = TypeVar("Token")


@dataclass(frozen=True, slots=True)
class HeapStats:
    """V5's heap, seen after a merge: entries now held, and cumulative counts since the start."""

    size: int
    live_pairs: int
    pushes: int
    stale_pops: int
    compactions: int


@dataclass(frozen=True, slots=True)
class ScanStats:
    """V4's two stages, seen at a merge: what the search scanned and what the rewrite touched
    (counted only when asked, ``scan_stats=True``, outside the timed stages: the tie count is one
    more pass over the counts)."""

    live_pairs: int  # P: the pair counts scanned for the best
    tied: int  # pairs at the top count, which the tie-break compares
    word_work: int  # tokens in the words holding the pair, before the merge


@dataclass(frozen=True, slots=True)
class MergeEvent:
    """What one merge did, as shown to an ``on_merge`` callback (only built when one is given).

    ``find_s`` and ``rewrite_s`` time the merge's two stages: finding the best pair, then
    rewriting the words and updating the counts (and the heap). A loop reads the clock only when
    a callback is given, and the callback's own time falls in neither stage.
    """

    index: int  # 0 for the first merge
    token_id: int  # the id of the new token
    pair: tuple[bytes, bytes]  # the merged pair, as byte strings
    count: int  # how often the pair occurred in the corpus when merged
    words_touched: int  # distinct words rewritten (V1 rewrites every word)
    heap: HeapStats | None = None  # V5 only
    find_s: float | None = None  # seconds finding the best pair (None: a loop that does not time)
    rewrite_s: float | None = None  # seconds rewriting the words and updating the counts
    scan: ScanStats | None = None  # V4, when asked


OnMerge = Callable[[MergeEvent], None]


class StageTimes(TypedDict):
    """The two stages' seconds, named as :class:`MergeEvent`'s fields (``MergeEvent(..., **times)``)."""

    find_s: float
    rewrite_s: float


class StageClock:
    """The clock of a merge's two stages, read only when an ``on_merge`` callback listens: finding
    the best pair (:meth:`finding` to :meth:`found`), then everything after it until the callback
    (recording the merge, rewriting the words, updating the counts and any heap); work a loop
    does only for the callback is left out by :meth:`rewriting`."""

    __slots__ = ("on", "start", "found_at", "rewrite_start")

    def __init__(self, on: bool) -> None:
        self.on = on
        self.start = self.found_at = self.rewrite_start = 0.0

    def finding(self) -> None:
        if self.on:
            self.start = perf_counter()

    def found(self) -> None:
        if self.on:
            self.found_at = self.rewrite_start = perf_counter()

    def rewriting(self) -> None:
        """The rewrite starts now, not when the pair was found (untimed work in between)."""
        if self.on:
            self.rewrite_start = perf_counter()

    def times(self) -> StageTimes:
        """``find_s`` and ``rewrite_s`` for :class:`MergeEvent`."""
        return {
            "find_s": self.found_at - self.start,
            "rewrite_s": perf_counter() - self.rewrite_start,
        }


class MergeLoop(Protocol):
    def __call__(
        self,
        word_counts: Mapping[bytes, int],
        vocab_size: int,
        special_tokens: Sequence[str] = (),
        on_merge: OnMerge | None = None,
    ) -> tuple[Vocab, Merges]: ...


# --- The vocabulary layout -----------------------------------------------------------------------


def initial_vocab(special_tokens: Sequence[str] = ()) -> Vocab:
    """The 256 single bytes (ids 0-255), then the special tokens in the order given.

    Merged tokens take the following ids, one per merge, in merge order.
    """
    vocab = {i: bytes([i]) for i in range(256)}
    for token in special_tokens:
        vocab[len(vocab)] = token.encode("utf-8")
    return vocab


def check_training_arguments(vocab_size: object, special_tokens: Sequence[str]) -> int:
    """Validate the arguments every trainer takes; return the number of merges to do.

    Called once per training, by the API (``train_bpe``, ``learn_merges``) before any work: the
    merge loops assume valid arguments and stay about the merges.
    """
    if special_tokens is None:
        raise BPEInputError("special_tokens must be a list of strings (empty for none), not None")
    check_special_tokens(special_tokens)
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise BPEInputError(f"vocab_size must be an integer, not {vocab_size!r}")
    floor = 256 + len(special_tokens)
    if vocab_size < floor:
        raise BPEInputError(
            f"vocab_size={vocab_size} is too small: the 256 byte tokens and "
            f"{len(special_tokens)} special token(s) already take {floor} ids. "
            f"Use vocab_size >= {floor}."
        )
    return vocab_size - floor


def warn_exhausted(done: int, wanted: int, vocab_size: int, stacklevel: int = 3) -> None:
    """Say, once, that the corpus ran out of pairs before the vocabulary was full (``stacklevel``:
    3 points at the caller of the merge loop; a loop one call deeper passes 4)."""
    warnings.warn(
        VocabularyExhaustedWarning(
            f"stopped after {done} of {wanted} merges: no pair of tokens is left in the corpus, so "
            f"the vocabulary has {vocab_size - (wanted - done)} entries instead of {vocab_size}. "
            "Use a larger corpus or a smaller vocab_size."
        ),
        stacklevel=stacklevel,
    )


# --- The tie-break rule: defined here and nowhere else ---------------------------------------------


def tie_break_key(pair: Pair, vocab: Vocab) -> tuple[bytes, bytes, int, int]:
    """Among pairs of equal count, the merge is the pair with the greatest key.

    The CS336 rule: the pair whose ``(left bytes, right bytes)`` is lexicographically greatest.
    The ids come last so that two different pairs never compare equal: the order is total for
    any merges list, and every trainer picks the same pair even where the bytes alone would tie
    (notebook 12's exercise 3 asks what that can change).
    """
    return (vocab[pair[0]], vocab[pair[1]], pair[0], pair[1])


def most_frequent_pair(pair_counts: Mapping[Pair, int], vocab: Vocab) -> Pair:
    """The pair to merge: highest count, ties broken by :func:`tie_break_key`. O(P): two passes
    over all P counts, the first (``max``) in C, the second (collecting the tied pairs) a
    Python-level comprehension; the Python tie-break key is called only for the tied pairs."""
    top = max(pair_counts.values())  # pass 1, in C: the top count
    tied = [pair for pair, count in pair_counts.items() if count == top]  # pass 2, in Python
    if len(tied) == 1:  # the tie-break key only for the tied pairs
        return tied[0]
    return max(tied, key=lambda pair: tie_break_key(pair, vocab))


# The heap of V5 needs the same order as plain bytes, cheaply: a heap compares its entries in C, so
# each pair gets one ``bytes`` key whose ascending order is the tie-break's descending order. Every
# byte b becomes two bytes (0, 255 - b), and the end of a token becomes (1, 0), which sorts after
# every byte: so "a" (a prefix of "ab", and smaller) gets the larger key, as a reversed order needs.
_REVERSED_BYTE = [bytes((0, 255 - b)) for b in range(256)]
_END_OF_TOKEN = b"\x01\x00"
_MAX_ID = (1 << 32) - 1


def reversed_token_key(token: bytes) -> bytes:
    """A key whose ascending order is the descending order of ``token`` as bytes."""
    return b"".join([_REVERSED_BYTE[b] for b in token]) + _END_OF_TOKEN


def reversed_id_key(token_id: int) -> bytes:
    """A key whose ascending order is the descending order of token ids."""
    return (_MAX_ID - token_id).to_bytes(4, "big")


def heap_pair_key(
    left_key: bytes, right_key: bytes, left_id_key: bytes, right_id_key: bytes
) -> bytes:
    """The heap's tie-break key of a pair: ascending order here = descending :func:`tie_break_key`."""
    return left_key + right_key + left_id_key + right_id_key


# --- Merging one word ------------------------------------------------------------------------------


def merge_word(
    word: Sequence[Token], pair: tuple[Token, Token], new_id: Token
) -> tuple[Token, ...]:
    """``word`` with every occurrence of ``pair`` replaced by the single id ``new_id``.

    Scan left to right; occurrences do not overlap: after a merge the scan goes on after the
    two ids it merged. So ``(2, 2, 2)`` on the pair ``(2, 2)`` gives ``(9, 2)``, not ``(2, 9)``.

    >>> merge_word((1, 2, 2, 2, 3), (2, 2), 9)
    (1, 9, 2, 3)
    """
    ### BEGIN SOLUTION
    left, right = pair
    out: list[Token] = []
    i, n = 0, len(word)
    while i < n:
        if word[i] == left and i + 1 < n and word[i + 1] == right:
            out.append(new_id)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)
    ### END SOLUTION


def words_as_ids(word_counts: Mapping[bytes, int]) -> tuple[list[tuple[int, ...]], list[int]]:
    """Words as tuples of byte ids (single-byte words dropped: they hold no pair) and their counts."""
    words = [tuple(word) for word in word_counts if len(word) > 1]
    counts = [word_counts[word] for word in word_counts if len(word) > 1]
    return words, counts


def record_merge(vocab: Vocab, merges: Merges, pair: Pair) -> int:
    """Add the merged token to ``vocab`` and the pair to ``merges``; return the new token's id."""
    new_id = len(vocab)
    left, right = vocab[pair[0]], vocab[pair[1]]
    vocab[new_id] = left + right
    merges.append((left, right))
    return new_id


def count_pairs(words: Sequence[tuple[int, ...]], counts: Sequence[int]) -> dict[Pair, int]:
    """Count every adjacent pair over all words, each weighted by its word's count. O(W L)."""
    pair_counts: dict[Pair, int] = {}
    get = pair_counts.get
    for word, count in zip(words, counts):
        for pair in zip(word, word[1:]):
            pair_counts[pair] = get(pair, 0) + count
    return pair_counts


def add_word_change(
    deltas: dict[Pair, int], old_pairs: Sequence[Pair], new_pairs: Sequence[Pair], count: int
) -> None:
    """Record in ``deltas`` how the pair counts change when a word's pairs go from ``old_pairs`` to
    ``new_pairs`` (the callers have the pairs already, so they are built once per word).

    Pairs away from the merge appear once with -count and once with +count and cancel out.
    """
    get = deltas.get
    for pair in old_pairs:
        deltas[pair] = get(pair, 0) - count
    for pair in new_pairs:
        deltas[pair] = get(pair, 0) + count


def apply_deltas(pair_counts: dict[Pair, int], deltas: Mapping[Pair, int]) -> None:
    """Add ``deltas`` to ``pair_counts``, dropping pairs whose count falls to zero."""
    get = pair_counts.get
    for pair, delta in deltas.items():
        if delta:
            count = get(pair, 0) + delta
            if count:
                pair_counts[pair] = count
            else:
                del pair_counts[pair]
