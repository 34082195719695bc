"""Safe cuts (bpe_course.safe_cuts): cutting a text there never changes its pretokens."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import safe_cuts as safe_cuts_module
from bpe_course.counting import count_words, plan
from bpe_course.counting.plan import refine
from bpe_course.pretokenize import count_words_in_text, pretokenize, split_on_special_tokens
from bpe_course.safe_cuts import next_safe_cut, safe_cuts, split_long

from .conftest import EOT

# Letters (Latin, Cyrillic, Han), digits (ASCII, Arabic-Indic), symbols, the apostrophe and the
# contraction letters, combining marks, and whitespace of several kinds (NBSP, ideographic space).
ALPHABET = "abstdlmvre'\"A9٣.,!<|>-кт中\u0301 \n\t\r\u00a0\u3000"
SPECIALS = [EOT, "<|a|>", "ab", "'s"]


def pretokens_with_cuts(text: str, cuts: list[int]) -> list[str]:
    edges = [0, *cuts, len(text)]
    return [t for a, b in zip(edges, edges[1:]) for t in pretokenize(text[a:b])]


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=60))
def test_every_safe_cut_keeps_the_pretokens(text: str) -> None:
    cuts = safe_cuts(text)
    assert pretokens_with_cuts(text, cuts) == pretokenize(text)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from([*ALPHABET, *SPECIALS, "<|", "|>"]), max_size=40))
def test_safe_cuts_keep_special_tokens_whole(parts: list[str]) -> None:
    text = "".join(parts)
    specials = [EOT, "<|a|>", "ab"]
    cuts = safe_cuts(text, specials)
    edges = [0, *cuts, len(text)]
    cut_pieces = [split_on_special_tokens(text[a:b], specials) for a, b in zip(edges, edges[1:])]
    whole = split_on_special_tokens(text, specials)
    assert [t for p in cut_pieces for t in p[1::2]] == whole[1::2]  # the same special tokens
    cut_words = [w for p in cut_pieces for piece in p[::2] for w in pretokenize(piece)]
    assert cut_words == [w for piece in whole[::2] for w in pretokenize(piece)]


def test_unsafe_places_are_not_cuts() -> None:
    # whitespace before a non-space, inside a class, after an apostrophe, inside a special token
    assert safe_cuts(" cat") == []
    assert safe_cuts("\n cat") == [] and safe_cuts("ab12") == [2]
    assert safe_cuts("x's") == [1]
    assert safe_cuts("a<|endoftext|>b", [EOT]) == [1, 14]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=200), st.integers(1, 20))
def test_split_long_keeps_the_pretokens(text: str, limit: int) -> None:
    parts = list(split_long(text, limit))
    assert "".join(parts) == text
    assert [t for part in parts for t in pretokenize(part)] == pretokenize(text)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=ALPHABET, min_size=1, max_size=300), st.integers(1, 40))
def test_refined_file_ranges_are_safe_and_whole_characters(tmp_path_factory, text, step) -> None:
    path = tmp_path_factory.mktemp("cuts") / "t.txt"
    data = text.encode("utf-8")
    path.write_bytes(data)
    edges = refine(path, [0, len(data)], step, [EOT])
    assert edges[0] == 0 and edges[-1] == len(data) and edges == sorted(set(edges))
    pieces = [data[a:b].decode("utf-8") for a, b in zip(edges, edges[1:])]  # whole characters
    assert [t for p in pieces for t in pretokenize(p)] == pretokenize(text)


def test_next_safe_cut_across_read_blocks(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(safe_cuts_module, "_SCAN_BLOCK", 8)
    path = tmp_path / "t.txt"
    path.write_bytes(("кот" * 20 + " " + "x" * 5).encode("utf-8"))
    with open(path, "rb") as f:
        assert next_safe_cut(f, 1) == len(("кот" * 20).encode("utf-8"))
        assert next_safe_cut(f, 122) is None  # after the last cut


@pytest.mark.parametrize("counter", ["pattern", "pieces"])
@pytest.mark.parametrize("specials", [[], [EOT]])
def test_files_cut_small_count_as_whole(tmp_path, monkeypatch, counter, specials) -> None:
    rng = random.Random(3)
    text = "".join(rng.choice(ALPHABET + "xyz ") for _ in range(20_000)) + EOT + "tail"
    path = tmp_path / "mixed.txt"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(plan, "DOCUMENT_CHUNK_BYTES", 300)
    monkeypatch.setattr(plan, "PIECE_CHUNK_BYTES", 300)
    seen: list[int] = []
    got = count_words(path, specials, workers=1, counter=counter, on_counted=seen.append)
    assert got == count_words_in_text(text, specials)
    assert len(seen) > 20  # many chunks, each reported


@settings(max_examples=600, deadline=None)
@given(text=st.text(alphabet=ALPHABET + "\ud800", max_size=40), data=st.data())
def test_cuts_found_run_by_run_are_the_patterns(text: str, data) -> None:
    # cut_positions finds SAFE_CUT's positions a run at a time (fast where a stretch has no
    # cut); from any start, with lone surrogates (invalid bytes) among the symbols
    pos = data.draw(st.integers(0, len(text)))
    expected = [match.start() for match in safe_cuts_module.SAFE_CUT.finditer(text, pos)]
    assert list(safe_cuts_module.cut_positions(text, pos)) == expected


def test_a_long_run_is_searched_in_one_match() -> None:
    # one run of letters without a cut, then a digit: the only cut, found at the run's end
    text = "中" * 200_000 + "7"
    assert list(safe_cuts_module.cut_positions(text, 5)) == [200_000]
    assert list(split_long(text, 1000)) == ["中" * 200_000, "7"]
