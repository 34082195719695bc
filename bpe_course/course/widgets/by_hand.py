"""The trainers' data structures on notebook 03's four-word example, printed small enough to read.

The notebooks build the structures with the trainers' own functions and print them with these, so a
reader can follow one merge by hand and predict the next. Tokens are shown as their text (a space as
``␣``), pairs as ``(left, right)``, words as their tokens separated by spaces.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from bpe_course.reference.sennrich import PAPER_EXAMPLE
from bpe_course.trainers.common import (
    Pair,
    Vocab,
    initial_vocab,
    record_merge,
    tie_break_key,
    words_as_ids,
)
from bpe_course.trainers.fast_max import best_pair, build_count_to_pairs, move_pairs
from bpe_course.trainers.v4_inverted_index import build_index, rewrite_words
from bpe_course.trainers.v5_heap import PairKeys, build_heap, pop_best, push_changes

# Sennrich et al.'s example (notebook 03) as the byte-level trainers see it: bytes, no ``</w>``.
FOUR_WORDS: dict[bytes, int] = {
    word.encode("utf-8"): count for word, count in PAPER_EXAMPLE.items()
}


def token_text(token_id: int, vocab: Vocab) -> str:
    """A token as text: ``st`` for the merge of ``s`` and ``t``; a space shows as ``␣``."""
    return vocab[token_id].decode("utf-8", errors="replace").replace(" ", "␣")


def spell(word: Iterable[int], vocab: Vocab) -> str:
    """A word as its tokens separated by spaces: ``n e w e st``."""
    return " ".join(token_text(t, vocab) for t in word)


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 push``, ``2 pushes``: a count with its noun agreeing (``nouns`` if not noun + s)."""
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"


def pair_text(pair: Pair, vocab: Vocab) -> str:
    return f"({token_text(pair[0], vocab)}, {token_text(pair[1], vocab)})"


def in_merge_order(pairs: Iterable[Pair], counts: Mapping[Pair, int], vocab: Vocab) -> list[Pair]:
    """Pairs sorted as the trainers would pick them: highest count first, ties by the one rule."""
    return sorted(pairs, key=lambda p: (counts[p], tie_break_key(p, vocab)), reverse=True)


def show_pair_counts(pair_counts: Mapping[Pair, int], vocab: Vocab, top: int | None = None) -> str:
    """One line per pair, the next merge first."""
    ordered = in_merge_order(pair_counts, pair_counts, vocab)[:top]
    return "\n".join(f"{pair_text(p, vocab):>14} {pair_counts[p]:4}" for p in ordered)


def show_changes(deltas: Mapping[Pair, int], vocab: Vocab) -> str:
    """Count changes on one line: ``(e, s) -6, (s, t) -6, (e, st) +6``, losses first."""
    ordered = sorted((d, pair_text(p, vocab)) for p, d in deltas.items() if d)
    return ", ".join(f"{text} {delta:+d}" for delta, text in ordered) or "(none)"


def show_index(
    pair_to_words: Mapping[Pair, set[int]],
    words: list[tuple[int, ...]],
    vocab: Vocab,
    before: Mapping[Pair, set[int]] | None = None,
) -> str:
    """``pair -> the words holding it``; with ``before`` (an earlier copy), changed lines get a
    ``*`` and pairs no longer in the index are listed as gone."""

    def holders(ids: set[int]) -> str:
        return ", ".join(f"{i}: {spell(words[i], vocab)}" for i in sorted(ids))

    lines = []
    for pair in sorted(pair_to_words, key=lambda p: pair_text(p, vocab)):
        ids = pair_to_words[pair]
        if not ids:  # the trainer leaves an empty set behind; it means "no word"
            continue
        changed = before is not None and before.get(pair) != ids
        lines.append(f"{'*' if changed else ' '} {pair_text(pair, vocab):>14} -> {holders(ids)}")
    if before is not None:
        gone = [p for p in before if before[p] and not pair_to_words.get(p)]
        lines += [f"* {pair_text(p, vocab):>14} -> gone" for p in gone]
    return "\n".join(lines)


def show_heap(
    heap: Iterable[tuple[int, bytes, Pair]],
    pair_counts: Mapping[Pair, int],
    vocab: Vocab,
    top: int | None = None,
) -> str:
    """V5's heap in the order it would pop (the first ``top`` entries), each marked live or stale,
    under a header naming the columns: the count the entry holds, its pair, and whether that count
    is still the pair's live count."""
    entries = sorted(heap)
    lines = [f"{'count':>5} {'pair':>14}  live or stale"]
    for neg_count, _, pair in entries[:top]:
        live = pair_counts.get(pair, 0)
        if live == -neg_count:
            state = "live"
        elif live == 0:
            state = "stale: the pair is gone"
        else:
            state = f"stale: the live count is {live}"
        lines.append(f"{-neg_count:5} {pair_text(pair, vocab):>14}  {state}")
    if top is not None and len(entries) > top:
        lines.append(f"      ... and {plural(len(entries) - top, 'more entry', 'more entries')}")
    return "\n".join(lines)


def show_count_to_pairs(count_to_pairs: Mapping[int, set[Pair]], vocab: Vocab) -> str:
    """Fast max's sorted map, largest count first: ``9: (s, t) (e, s) (t, ...)``."""
    lines = []
    for count in sorted(count_to_pairs, reverse=True):
        pairs = sorted(count_to_pairs[count], key=lambda p: tie_break_key(p, vocab), reverse=True)
        lines.append(f"{count:4}: " + " ".join(pair_text(p, vocab) for p in pairs))
    return "\n".join(lines)


def heap_by_hand(
    word_counts: Mapping[bytes, int] = FOUR_WORDS, merges: int = 3
) -> tuple[str, list[Pair]]:
    """V5's first ``merges`` merges with its own stages (``pop_best``, ``rewrite_words``,
    ``push_changes``), printed: the whole heap before each pop, in pop order, then what each stage
    did. Returns the printout and the merges made. The loop that drives the stages lives here, out
    of the notebook's sight: writing such a loop is notebook 10's capstone."""
    vocab, merged = initial_vocab(), []
    words, counts = words_as_ids(word_counts)
    pair_counts, pair_to_words = build_index(words, counts)
    keys = PairKeys(vocab)  # each pair's tie-break key, as bytes
    heap = build_heap(pair_counts, keys)
    lines = []
    for number in range(1, merges + 1):
        lines += [
            f"--- merge {number}: the heap, in pop order",
            show_heap(heap, pair_counts, vocab),
        ]
        entry, stale, pushed_back = pop_best(heap, pair_counts)
        best = entry[2]
        lines.append(
            f"pop_best: {plural(stale, 'stale entry', 'stale entries')} popped, {pushed_back} of "
            f"them pushed back; the best pair is {pair_text(best, vocab)} at {-entry[0]}"
        )
        new_id = record_merge(vocab, merged, best)
        keys.add_token(vocab[new_id])
        deltas, _ = rewrite_words(best, new_id, words, counts, pair_to_words)
        pushes = push_changes(heap, pair_counts, deltas, keys)
        lines.append(
            f"push_changes: {plural(pushes, 'new entry', 'new entries')}, one per pair whose "
            "count rose\n"
        )
    lines += ["--- after three merges" if merges == 3 else f"--- after {merges} merges"]
    lines.append(show_heap(heap, pair_counts, vocab))
    return "\n".join(lines), merged


def count_to_pairs_by_hand(
    word_counts: Mapping[bytes, int] = FOUR_WORDS, merges: int = 3
) -> tuple[str, list[Pair]]:
    """Fast max's first ``merges`` merges with its own stages (``best_pair``, ``rewrite_words``,
    ``move_pairs``), printed: the sorted map before each merge, largest count first, then the pair
    taken. Returns the printout and the merges made. As in :func:`heap_by_hand`, the loop stays
    out of the notebook: writing one is the capstone."""
    vocab, merged = initial_vocab(), []
    words, counts = words_as_ids(word_counts)
    pair_counts, pair_to_words = build_index(words, counts)
    count_to_pairs = build_count_to_pairs(pair_counts)
    lines = []
    for number in range(1, merges + 1):
        lines.append(f"--- merge {number}: count -> pairs, the largest count first")
        lines.append(show_count_to_pairs(count_to_pairs, vocab))
        best, count = best_pair(count_to_pairs, vocab)
        lines.append(f"best_pair: {pair_text(best, vocab)}, the greatest pair at count {count}\n")
        new_id = record_merge(vocab, merged, best)
        deltas, _ = rewrite_words(best, new_id, words, counts, pair_to_words)
        move_pairs(count_to_pairs, pair_counts, deltas)
    lines += ["--- after three merges" if merges == 3 else f"--- after {merges} merges"]
    lines.append(show_count_to_pairs(count_to_pairs, vocab))
    return "\n".join(lines), merged


def heap_states(
    word_counts: Mapping[bytes, int] = FOUR_WORDS, merges: int = 8, compaction_factor: float = 1.5
) -> list[dict]:
    """V5's heap before each merge and what the merge did to it, run with V5's own stages: for
    a stepper. Each state: ``heap`` (the printout), ``merge`` (what happened), running totals of
    ``pushes``, ``stale_pops`` and ``compactions``. A low ``compaction_factor`` makes the small
    example compact, so every event of the heap's life shows up in a few merges."""
    vocab, merged = initial_vocab(), []
    words, counts = words_as_ids(word_counts)
    pair_counts, pair_to_words = build_index(words, counts)
    keys = PairKeys(vocab)
    heap = build_heap(pair_counts, keys)
    totals = {"pushes": 0, "stale_pops": 0, "compactions": 0}
    states = []
    for number in range(1, merges + 1):
        before = show_heap(heap, pair_counts, vocab)
        entry, stale, pushed_back = pop_best(heap, pair_counts)
        if entry is None:
            states.append({"heap": before, "merge": "no pair left: training is over", **totals})
            break
        best = entry[2]
        new_id = record_merge(vocab, merged, best)
        keys.add_token(vocab[new_id])
        deltas, touched = rewrite_words(best, new_id, words, counts, pair_to_words)
        pushes = push_changes(heap, pair_counts, deltas, keys)
        totals["pushes"] += pushes + pushed_back
        totals["stale_pops"] += stale
        event = (
            f"merge {number}: popped {plural(stale, 'stale entry', 'stale entries')} "
            f"({pushed_back} pushed back at the live count), then {pair_text(best, vocab)} at "
            f"{-entry[0]}; {plural(touched, 'word')} rewritten; "
            f"{plural(pushes, 'push', 'pushes')} (pairs whose count rose)"
        )
        if len(heap) > compaction_factor * len(pair_counts):
            heap = build_heap(pair_counts, keys)
            totals["compactions"] += 1
            event += f"; compaction: more than {compaction_factor} entries per live pair, rebuilt"
        states.append({"heap": before, "merge": event, **totals})
    return states
