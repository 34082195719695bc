"""One very long word (issue 36, item 11): a line of Chinese with no punctuation, a run of one
character. The merge loops hold every word whole, at many times its bytes, so a word over the
version's limit (MAX_WORD_BYTES, or its registry entry's larger one: tests/test_word_limits.py)
is refused in one line: found while planning (a stretch with no safe cut), before
it is read whole, or in a chunk's counts; a .gz stream finds it in the text it holds back. A
word at the limit is counted, and a stretch with no safe cut made of special tokens is no word.
Peak memory (VmHWM) is read in a fresh process."""

from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path

import pytest

from bpe_course import train_bpe
from bpe_course.api import learn_merges
from bpe_course.counting import count_words, plan
from bpe_course.errors import BPEInputError
from bpe_course.trainers import ALL_TRAINERS

from .conftest import EOT, by_pattern, run_bounded

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="VmHWM is read from /proc (Linux)"
)

KANJI = "漢字かな"  # 12 bytes: letters all, no cut between them
WORD_MB = 16  # over long_stretch_bytes(): planning finds it (for the 1 MB limit)
# The whole run's peak (Python, numpy, the trainer's module, the planning's reads) when the word
# is refused before it is read: about a tenth of what the smallest trainer took for it.
BOUND_MB = 300

SCRIPT = """
import json, sys
from bpe_course.cli import main
code = main(sys.argv[1:])
peak = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({"code": code, "peak_mb": peak / 1024}))
"""


@pytest.fixture(scope="module")
def one_word_of(tmp_path_factory):
    """A file of one word over long_stretch_bytes() for a version's limit (one file per size)."""
    made: dict[int, Path] = {}

    def make(version: str) -> Path:
        mb = word_mb(version)
        if mb not in made:
            made[mb] = tmp_path_factory.mktemp("long") / f"one_word_{mb}.txt"
            made[mb].write_text(KANJI * (mb * 1_000_000 // 12) + "\n", encoding="utf-8")
        return made[mb]

    return make


def word_mb(version: str) -> int:
    """MB of one word over long_stretch_bytes() for ``version``'s limit: planning (or the .gz
    stream) finds it before it is read whole."""
    return max(WORD_MB, 4 * ALL_TRAINERS[version].word_limit // 1_000_000 + 4)


@pytest.fixture(scope="module")
def one_word_gz_of(tmp_path_factory):
    def make(version: str) -> Path:
        mb = word_mb(version)
        path = tmp_path_factory.mktemp("long") / f"one_word_{mb}.txt.gz"
        path.write_bytes(gzip.compress((KANJI * (mb * 1_000_000 // 12)).encode("utf-8")))
        return path

    return make


def train_in_a_fresh_process(corpus: Path, version: str, tmp_path: Path) -> tuple[dict, str]:
    argv = ["train", str(corpus), "--vocab-size", "300", "--version", version, "--workers", "1"]
    argv += ["-o", str(tmp_path / "out")]
    done = run_bounded([sys.executable, "-c", SCRIPT, *argv], 600)
    assert done is not None, f"{version} was still training after 600 s"
    assert done.stdout.strip(), done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("version", list(ALL_TRAINERS))
def test_one_very_long_word_is_refused_before_memory_grows(one_word_of, tmp_path, version) -> None:
    result, err = train_in_a_fresh_process(one_word_of(version), version, tmp_path)
    assert result["code"] == 2 and err.count("\n") == 1, err[-3000:]
    limit = ALL_TRAINERS[version].word_limit
    assert f"a word longer than {limit} bytes covers byte offset" in err, err
    assert result["peak_mb"] < BOUND_MB, result
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
@pytest.mark.parametrize("version", ["v5", "fast"])
def test_one_very_long_word_in_a_gz_is_refused_while_streamed(one_word_gz_of, tmp_path, version):
    result, err = train_in_a_fresh_process(one_word_gz_of(version), version, tmp_path)
    assert result["code"] == 2 and err.count("\n") == 1, err[-3000:]
    assert "of the decompressed data (" in err and "a word longer than" in err, err
    assert result["peak_mb"] < BOUND_MB, result


# --- The limit itself, made small so a test can cross it ---------------------------------------


@pytest.fixture
def limit(monkeypatch) -> int:
    monkeypatch.setattr(plan, "MAX_WORD_BYTES", 1000)
    return 1000


def text_with(word: str) -> str:
    story = "Once upon a time there was a test. It had words.\n" + EOT + "\n"
    return story * 40 + word + "\n" + story * 40


@pytest.mark.parametrize("counter", ["pattern", "pieces"])
@pytest.mark.parametrize("letter", ["a", "字", "7", "!", " "])
def test_a_word_over_the_limit_in_a_chunk_is_refused_naming_its_offset(
    tmp_path, limit, counter, letter
) -> None:
    path = tmp_path / "c.txt"
    text = text_with(letter * (limit + 1))
    path.write_text(text, encoding="utf-8")
    offset = len(text[: text.index(letter * (limit + 1))].encode("utf-8"))
    if letter == " ":  # the newline before a run of spaces is the first character of its word
        offset -= 1
    with pytest.raises(BPEInputError, match=f"{path}: a word longer than 1000 bytes covers byte "):
        count_words(path, [EOT], counter=counter)
    try:
        count_words(path, [EOT], counter=counter)
    except BPEInputError as err:
        assert f"covers byte offset {offset} (" in str(err)  # where it begins


@pytest.mark.parametrize("counter", ["pattern", "pieces"])
def test_a_word_at_the_limit_is_counted(tmp_path, limit, counter) -> None:
    path = tmp_path / "c.txt"
    text = text_with("b" * limit)
    path.write_text(text, encoding="utf-8")
    counts = count_words(path, [EOT], counter=counter)
    assert counts == {w.encode(): n for w, n in by_pattern(text, [EOT]).items()}
    assert counts[b"b" * limit] == 1


def covered(message: str) -> int:
    return int(re.search(r"covers byte offset (\d+)", message).group(1))


def test_a_long_stretch_is_found_while_planning(tmp_path, limit, monkeypatch) -> None:
    # a file much longer than a chunk, one word in all: refused by the plan, before any task
    monkeypatch.setattr(plan, "DOCUMENT_CHUNK_BYTES", 10_000)
    path = tmp_path / "c.txt"
    path.write_text("the cat " * 100 + "z" * 50_000 + " the end", encoding="utf-8")
    with pytest.raises(BPEInputError, match=r"longer than 1000 bytes covers byte offset") as err:
        plan.plan_tasks([path], [], "pattern", 4)
    assert 800 <= covered(str(err.value)) < 50_800


def test_a_long_word_in_a_gz_is_found_as_it_streams(tmp_path, limit, monkeypatch) -> None:
    monkeypatch.setattr(plan, "DOCUMENT_CHUNK_BYTES", 10_000)
    path = tmp_path / "c.txt.gz"
    path.write_bytes(gzip.compress(("z" * 50_000 + " the end").encode()))
    with pytest.raises(BPEInputError, match="of the decompressed data") as err:
        count_words(path, [])
    assert covered(str(err.value)) < 10_000  # in the first block read, not after all of it


def test_special_tokens_packed_against_symbols_are_no_long_word(tmp_path, limit, monkeypatch):
    # no safe cut in 50 kB (">" then "!" are symbols both; inside a token no cut is taken), and
    # every word is short: counted, exactly, not refused
    monkeypatch.setattr(plan, "DOCUMENT_CHUNK_BYTES", 10_000)
    path = tmp_path / "c.txt"
    text = "the cat " * 100 + "!!<pad>" * 8000 + " the end"
    path.write_text(text, encoding="utf-8")
    specials = [EOT, "<pad>"]
    counts = count_words(path, specials)
    assert counts == {w.encode(): n for w, n in by_pattern(text, specials).items()}


def test_merges_from_counts_refuse_a_word_over_the_limit(limit) -> None:
    with pytest.raises(BPEInputError, match="a word of 1001 bytes is longer than 1000"):
        learn_merges("v5", {b"x" * 1001: 1, b"the": 5}, 300)
    learn_merges("v5", {b"x" * 1000: 1, b"the": 5}, 260)  # at the limit: trained on


def test_every_version_trains_on_a_word_at_the_limit(tmp_path, limit) -> None:
    path = tmp_path / "c.txt"
    path.write_text(text_with("漢字" * 166), encoding="utf-8")  # 996 bytes
    first = None
    for version in ALL_TRAINERS:
        merges = train_bpe(path, 300, [EOT], version=version, workers=1)[1]
        first = first or merges
        assert merges == first, version
