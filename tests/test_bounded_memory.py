"""Memory bounded by the work: a corpus with no separator token, plain or ``.gz``, is streamed in
chunks (cut at safe cuts), whatever version counts it. Peak memory (VmHWM) is read in a fresh
process, with the chunk sizes made small so a few MB of text shows the difference."""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="VmHWM is read from /proc (Linux)"
)

# Russian words: no ASCII letter before a space, so no cut the pieces' ASCII rule would find.
WORDS = "кот сидел на ковре и смотрел в окно где шёл снег а собака спала у двери".split()
TEXT_BYTES = 6_000_000
CHUNK = 500_000
# Counting the whole 6 MB at once holds about a million pretokens as strings (over 60 MB); in
# chunks of 0.5 MB it holds a twelfth of that (measured: 41 to 74 MB before, 4 to 8 MB after).
BOUND_MB = 20

SCRIPT = """
import json, sys
from bpe_course import pretokenize
from bpe_course.counting import count_words, pieces, plan  # numpy loaded before the first peak

def peak_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024

plan.DOCUMENT_CHUNK_BYTES = plan.PIECE_CHUNK_BYTES = {chunk}
how, path, specials = sys.argv[1], sys.argv[2], sys.argv[3:]
calls = []
before = peak_mb()
if how == "text":  # a text already in memory (the API's count_words_in_text)
    text = open(path, encoding="utf-8").read()
    before = peak_mb()
    counts = pretokenize.count_words_in_text(text, specials)
elif how == "gz":
    counts = count_words(path, specials, workers=1)
else:
    counts = count_words(path, specials, workers=1, counter=how, on_counted=calls.append)
print(json.dumps({{"before": before, "grew_mb": peak_mb() - before, "chunks": len(calls), "words": sum(counts.values())}}))
"""


def corpus_text() -> str:
    rng = random.Random(7)
    words = rng.choices(WORDS, k=TEXT_BYTES // 9)
    return " ".join(words)  # one line: no newline either


@pytest.fixture(scope="module")
def russian(tmp_path_factory) -> tuple[Path, Path, int]:
    folder = tmp_path_factory.mktemp("bounded")
    text = corpus_text()
    plain = folder / "one_line.txt"
    plain.write_text(text, encoding="utf-8")
    packed = folder / "one_line.txt.gz"
    packed.write_bytes(gzip.compress(text.encode("utf-8"), compresslevel=6))
    return plain, packed, text.count(" ") + 1


def measure(how: str, path: Path, specials: list[str]) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(chunk=CHUNK), how, str(path), *specials],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


# No special token; or one that never occurs (the usual <|endoftext|>, on a corpus without it).
SPECIALS = pytest.mark.parametrize("specials", [[], ["<|endoftext|>"]], ids=["none", "absent"])


@SPECIALS
@pytest.mark.parametrize("how", ["pattern", "pieces"])
def test_a_file_without_a_separator_is_streamed(russian, how: str, specials) -> None:
    plain, _, words = russian
    result = measure(how, plain, specials)
    assert result["words"] == words  # every word counted once
    assert result["grew_mb"] < BOUND_MB, result
    assert result["chunks"] >= TEXT_BYTES // CHUNK // 2  # the progress bar moves per chunk


@SPECIALS
def test_a_gz_without_a_separator_is_streamed(russian, specials) -> None:
    _, packed, words = russian
    result = measure("gz", packed, specials)
    assert result["words"] == words
    assert result["grew_mb"] < BOUND_MB, result


def test_a_file_without_a_separator_is_planned_as_many_tasks(russian) -> None:
    # the ranges a Dask cluster (or a process pool) runs as tasks: one per file before
    from bpe_course.counting.plan import plan_tasks

    plain, _, _ = russian
    for counter in ("pattern", "pieces"):
        assert len(plan_tasks([plain], [], counter, tasks=8)) >= 8
        assert len(plan_tasks([plain], ["<|endoftext|>"], counter, tasks=8)) >= 8


def test_a_long_text_in_memory_is_pretokenized_in_parts(russian) -> None:
    # the text itself (6 MB) is the caller's; its pretokens are never all held at once
    plain, _, words = russian
    result = measure("text", plain, [])
    assert result["words"] == words
    assert result["grew_mb"] < BOUND_MB, result
