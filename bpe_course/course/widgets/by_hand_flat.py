"""The fast trainer's flat array on the four words, printed small enough to follow by hand.

:class:`~bpe_course.trainers.fast.FlatWords` keeps every distinct word in one array of token ids
(``tok``) with links to the next and previous live position (``nxt``, ``prv``; one sentinel
position after the last word, shown as ``·``), each position's word count (``weight``), and, for
each pair, the left positions where it was made (``site_positions``), never pruned.
:func:`flat_trace` runs the trainer's own stages (``WaitingPairs.pop_best``,
``FlatWords.merge``, ``WaitingPairs.push_made``) merge by merge and prints, for each, the
candidates, the sites kept, the pairs lost and made, the positions rewritten, and the position
lists with their stale entries marked.
"""

from __future__ import annotations

from collections.abc import Mapping

from bpe_course.course.widgets.by_hand import FOUR_WORDS, pair_text, token_text
from bpe_course.trainers.common import Vocab, initial_vocab, record_merge
from bpe_course.trainers.fast import FlatWords
from bpe_course.trainers.v5_heap import PairKeys, build_heap
from bpe_course.trainers.waiting import WaitingPairs


def _cell(value: int, flat: FlatWords, vocab: Vocab, token: bool) -> str:
    if token:
        return "·" if value < 0 else token_text(value, vocab)
    return "·" if value == flat.n else str(value)


def show_flat(flat: FlatWords, vocab: Vocab) -> str:
    """The array word by word: position, token (``·`` once merged away), next and previous live
    position (``·``: the sentinel, the word's end). Only the live positions of each word."""
    lines = []
    starts = flat.starts.tolist()
    for word, start in enumerate(starts):
        live, p = [], start
        while p != flat.n:
            live.append(p)
            p = flat.nxt[p]
        rows = {
            "pos": [str(p) for p in live],
            "tok": [_cell(flat.tok[p], flat, vocab, True) for p in live],
            "nxt": [_cell(flat.nxt[p], flat, vocab, False) for p in live],
            "prv": [_cell(flat.prv[p] if p != start else flat.n, flat, vocab, False) for p in live],
        }
        head = f"word {word} (count {flat.weight[start]})"
        for number, (name, cells) in enumerate(rows.items()):
            label = head if number == 0 else ""
            lines.append(f"{label:18} {name} " + " ".join(f"{c:>4}" for c in cells))
    return "\n".join(lines)


def show_site_positions(
    flat: FlatWords, pair_counts: Mapping[int, int], vocab: Vocab, only: set[int] | None = None
) -> str:
    """``site_positions``: each pair's count and the left positions where it was made. A position
    that no longer holds the pair is marked stale (``12x``): nothing removes it; its merge skips it."""
    lines = []
    codes = sorted(
        (code for code in flat.site_positions if only is None or code in only),
        key=lambda code: pair_text(divmod(code, flat.base), vocab),
    )
    for code in codes:
        a, b = divmod(code, flat.base)
        marked = [
            f"{p}" if flat.tok[p] == a and flat.tok[flat.nxt[p]] == b else f"{p}x"
            for p in flat.positions(code)
        ]
        text = pair_text((a, b), vocab)
        lines.append(f"{text:>14} count {pair_counts.get(code, 0):2}  at " + " ".join(marked))
    return "\n".join(lines)


def flat_trace(word_counts: Mapping[bytes, int] = FOUR_WORDS, merges: int = 3) -> list[str]:
    """The array before any merge, then one printout per merge, as ``fast.merge_loop`` makes
    them (the same pops, the same ``FlatWords.merge``)."""
    vocab_size = 256 + merges
    vocab, merged = initial_vocab(), []
    words = [word for word in word_counts if len(word) > 1]
    flat = FlatWords(words, [word_counts[w] for w in words], vocab_size)
    pair_counts = flat.pair_counts()
    keys = PairKeys(vocab)
    heap = build_heap(pair_counts, keys, ids=lambda pair: divmod(pair, vocab_size))
    waiting = WaitingPairs(heap, keys, vocab_size)
    blocks = [
        "the flat array before any merge (· in nxt/prv: the sentinel, position "
        f"{flat.n})\n{show_flat(flat, vocab)}\n\n"
        "site_positions: where each pair was made (left positions)\n"
        + show_site_positions(flat, pair_counts, vocab)
    ]
    for number in range(1, merges + 1):
        top, _, _ = waiting.pop_best(heap, pair_counts)
        if top is None:
            blocks.append(f"merge {number}: no pair left")
            break
        neg_count, _, best = top
        a, b = divmod(best, vocab_size)
        candidates = flat.positions(best)
        before = dict(pair_counts)
        tokens = (list(flat.tok), list(flat.nxt), list(flat.prv))
        new_id = record_merge(vocab, merged, (a, b))
        keys.add_token(vocab[new_id])
        made, sites = flat.merge(best, a, b, new_id, pair_counts)
        waiting.push_made(heap, pair_counts, best, made)
        changed = {c for c in pair_counts if c != best and pair_counts[c] != before.get(c)}
        blocks.append(
            _merge_text(number, flat, vocab, (a, b, -neg_count), candidates, sites)
            + "\n"
            + _count_changes(flat, vocab, changed, before, pair_counts)
            + "\n"
            + _rewritten(flat, vocab, tokens)
            + "\nsite_positions, for the pairs whose count changed:\n"
            + show_site_positions(flat, pair_counts, vocab, changed)
        )
    blocks.append(f"after {len(merged)} merges\n{show_flat(flat, vocab)}")
    return blocks


def _merge_text(number, flat, vocab, best, candidates, sites) -> str:
    a, b, count = best
    return (
        f"merge {number}: {pair_text((a, b), vocab)} at {count}; candidates (site_positions) "
        f"{candidates}, sites kept {[int(p) for p in sites]}"
    )


def _count_changes(flat, vocab, changed, before, pair_counts) -> str:
    """``(e, s) 9 -> 0`` for the pairs lost, ``(e, st) 0 -> 9`` for the pairs made."""
    ordered = sorted(changed, key=lambda code: pair_text(divmod(code, flat.base), vocab))
    lost = [c for c in ordered if pair_counts[c] < before.get(c, 0)]
    made = [c for c in ordered if pair_counts[c] > before.get(c, 0)]

    def text(codes):
        return ", ".join(
            f"{pair_text(divmod(c, flat.base), vocab)} {before.get(c, 0)} -> {pair_counts[c]}"
            for c in codes
        )

    return f"  pairs lost: {text(lost) or '(none)'}\n  pairs made: {text(made) or '(none)'}"


def _rewritten(flat: FlatWords, vocab: Vocab, old: tuple[list[int], ...]) -> str:
    """The positions whose token or links the merge wrote, old -> new."""
    tok, nxt, prv = old
    lines = []
    for p in range(flat.n):
        if flat.tok[p] < 0 <= tok[p]:
            lines.append(f"  position {p:2}: tok {token_text(tok[p], vocab)} -> ·, merged away")
            continue
        steps = []
        if flat.tok[p] != tok[p]:
            steps.append(f"tok {token_text(tok[p], vocab)} -> {token_text(flat.tok[p], vocab)}")
        for name, was, now in (("nxt", nxt[p], flat.nxt[p]), ("prv", prv[p], flat.prv[p])):
            if was != now and flat.tok[p] >= 0:
                steps.append(
                    f"{name} {_cell(was, flat, vocab, False)} -> {_cell(now, flat, vocab, False)}"
                )
        if steps:
            lines.append(f"  position {p:2}: " + ", ".join(steps))
    return "rewritten:\n" + "\n".join(lines)
