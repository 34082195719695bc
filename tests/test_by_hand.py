"""The traced examples of notebooks 05-10: the trainers' stages, run one at a time on the four
words, do what the merge loops do, and the printouts show what the notebooks say they show."""

from __future__ import annotations

from bpe_course.course.widgets.by_hand import (
    FOUR_WORDS,
    show_changes,
    show_count_to_pairs,
    show_heap,
    show_index,
)
from bpe_course.trainers import fast_max, v5_heap
from bpe_course.trainers.common import initial_vocab, record_merge, words_as_ids
from bpe_course.trainers.fast_max import best_pair, build_count_to_pairs, move_pairs
from bpe_course.trainers.v2_incremental import pair_count_changes
from bpe_course.trainers.v4_inverted_index import build_index, rewrite_words
from bpe_course.trainers.v5_heap import PairKeys, build_heap, pop_best, push_changes


def test_v5_stages_make_the_loops_merges_with_a_stale_pop_and_a_push_back() -> None:
    vocab, merges = initial_vocab(), []
    words, counts = words_as_ids(FOUR_WORDS)
    pair_counts, pair_to_words = build_index(words, counts)
    keys = PairKeys(vocab)
    heap = build_heap(pair_counts, keys)
    stats, shown = [], []
    for _ in range(3):
        shown.append(show_heap(heap, pair_counts, vocab))
        entry, stale, pushed_back = pop_best(heap, pair_counts)
        stats.append((stale, pushed_back))
        new_id = record_merge(vocab, merges, entry[2])
        keys.add_token(vocab[new_id])
        deltas, _ = rewrite_words(entry[2], new_id, words, counts, pair_to_words)
        push_changes(heap, pair_counts, deltas, keys)
    assert merges == v5_heap.merge_loop(FOUR_WORDS, 256 + 3)[1]
    assert stats == [(0, 0), (0, 0), (2, 1)]  # the third pop: one dropped, one pushed back
    assert "    8         (w, e)  stale: the live count is 2" in shown[2].splitlines()
    assert "    9         (e, s)  stale: the pair is gone" in shown[2].splitlines()
    header = shown[0].splitlines()[0].split()
    assert header[:2] == ["count", "pair"] and "stale" in header  # the columns are named


def test_heap_printouts_say_one_push_not_one_pushes() -> None:
    import re

    from bpe_course.course.widgets.by_hand import heap_states, plural

    assert [plural(n, "push", "pushes") for n in (0, 1, 2)] == ["0 pushes", "1 push", "2 pushes"]
    text = " ".join(state["merge"] for state in heap_states(merges=8, compaction_factor=1.5))
    assert "1 push " in text  # the four words have a merge with a single push
    assert not re.search(r"\b1 (pushes|words|stale entries)\b", text)
    assert "(s)" not in text and "(es)" not in text


def test_fast_max_stages_make_the_loops_merges() -> None:
    vocab, merges = initial_vocab(), []
    words, counts = words_as_ids(FOUR_WORDS)
    pair_counts, pair_to_words = build_index(words, counts)
    count_to_pairs = build_count_to_pairs(pair_counts)
    assert show_count_to_pairs(count_to_pairs, vocab).splitlines()[0] == "   9: (s, t) (e, s)"
    for _ in range(3):
        best, _ = best_pair(count_to_pairs, vocab)
        new_id = record_merge(vocab, merges, best)
        deltas, _ = rewrite_words(best, new_id, words, counts, pair_to_words)
        move_pairs(count_to_pairs, pair_counts, deltas)
    assert merges == fast_max.merge_loop(FOUR_WORDS, 256 + 3)[1]
    assert sorted(count_to_pairs.keys()) == sorted(set(pair_counts.values()))


def test_the_index_printout_marks_what_a_merge_changed() -> None:
    vocab = initial_vocab()
    words, counts = words_as_ids(FOUR_WORDS)
    _, pair_to_words = build_index(words, counts)
    before = {pair: set(ids) for pair, ids in pair_to_words.items()}
    s, t = ord("s"), ord("t")
    new_id = record_merge(vocab, [], (s, t))
    rewrite_words((s, t), new_id, words, counts, pair_to_words)
    lines = show_index(pair_to_words, words, vocab, before=before).splitlines()
    assert "*        (e, st) -> 2: n e w e st, 3: w i d e st" in lines
    assert "*         (s, t) -> gone" in lines
    assert "          (l, o) -> 0: l o w, 1: l o w e r" in lines


def test_the_overlapping_change_of_a_a_a() -> None:
    vocab = initial_vocab()
    a = ord("a")
    aa = record_merge(vocab, [], (a, a))
    changes = pair_count_changes((a, a, a), (a, a), aa, 1)
    assert show_changes(changes, vocab) == "(a, a) -2, (aa, a) +1"


def test_the_by_hand_drivers_make_the_loops_merges_and_print_each_stage() -> None:
    from bpe_course.course.widgets.by_hand import count_to_pairs_by_hand, heap_by_hand

    shown, merged = heap_by_hand(FOUR_WORDS, merges=3)
    assert merged == v5_heap.merge_loop(FOUR_WORDS, 256 + 3)[1]
    assert shown.count("pop_best:") == 3 and shown.count("push_changes:") == 3
    assert "2 stale entries popped, 1 of them pushed back" in shown  # the third merge
    shown, merged = count_to_pairs_by_hand(FOUR_WORDS, merges=3)
    assert merged == fast_max.merge_loop(FOUR_WORDS, 256 + 3)[1]
    assert shown.count("best_pair:") == 3 and "--- after three merges" in shown


def test_no_notebook_up_to_the_capstone_writes_out_its_loop() -> None:
    """The capstone (10) asks for the loop that calls V5's (or fast max's) stages once per merge:
    no code cell of notebooks 01-10 may call those stages itself (the by-hand printouts run their
    loops in ``widgets/by_hand.py``)."""
    import json

    from bpe_course.paths import notebooks_dir

    loops = (("pop_best(", "rewrite_words(", "push_changes("), ("best_pair(", "move_pairs("))
    for path in sorted(notebooks_dir().glob("[01][0-9]_*.ipynb")):
        if int(path.name[:2]) > 10:
            continue
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            source = "".join(cell["source"])
            if cell["cell_type"] == "code":
                for stages in loops:
                    assert not all(stage in source for stage in stages), (path.name, stages)
