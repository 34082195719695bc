"""The longest word each version trains on (issue 37, part 2): the trainers whose merge loop holds
a word in a few dozen bytes per byte (sites, fast, shards) train words up to their registry
entry's ``max_word_bytes``; the others refuse a word over 1 MB in one line that names the version,
its limit and the versions that train longer words. Exactness is checked against V1 on a word
over a lowered default limit (V1 is too slow on megabytes), and the long-word versions against
each other on a 2 MB word."""

from __future__ import annotations

import dataclasses
import random

import pytest

from bpe_course import train_bpe
from bpe_course.cli import main
from bpe_course.counting import count_words, plan
from bpe_course.errors import WordTooLongError
from bpe_course.formats import load_gpt2
from bpe_course.trainers import ALL_TRAINERS, get_trainer

from .conftest import EOT

LONG = ["sites", "fast", "shards"]
LETTERS = "漢字かなカタ語文書名前長短時間人大小山川日月火水木金土abc"


def one_word(n_bytes: int, seed: int = 0) -> str:
    """Letters only, so the GPT-2 pattern makes one word of them: about ``n_bytes`` bytes."""
    rng = random.Random(seed)
    out, size = [], 0
    while size < n_bytes:
        letter = rng.choice(LETTERS)
        out.append(letter)
        size += len(letter.encode("utf-8"))
    return "".join(out)


def test_the_registry_says_who_trains_long_words() -> None:
    for name, trainer in ALL_TRAINERS.items():
        if name in LONG:
            assert trainer.word_limit > plan.MAX_WORD_BYTES
        else:
            assert trainer.word_limit == plan.MAX_WORD_BYTES, name


@pytest.fixture(scope="module")
def two_mb_word(tmp_path_factory):
    path = tmp_path_factory.mktemp("word") / "word.txt"
    path.write_text(one_word(2_000_000) + "\n", encoding="utf-8")
    return path


def test_fast_trains_a_2_mb_word_from_the_command_line(two_mb_word, tmp_path, capsys) -> None:
    out = tmp_path / "out"
    argv = [str(two_mb_word), "--vocab-size", "300", "--version", "fast", "--workers", "1"]
    assert main(["train", *argv, "-o", str(out)]) == 0, capsys.readouterr().err
    _, merges = load_gpt2(out / "vocab.json", out / "merges.txt")
    assert len(merges) == 300 - 256
    for version in ["sites", "shards"]:  # the same merges from the other long-word versions
        assert train_bpe(two_mb_word, 300, version=version, workers=1)[1] == merges, version


def test_v5_refuses_the_2_mb_word_in_one_line_naming_its_limit(two_mb_word, capsys) -> None:
    argv = [str(two_mb_word), "--vocab-size", "300", "--version", "v5", "--workers", "1"]
    assert main(["train", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert f"a word longer than {plan.MAX_WORD_BYTES} bytes covers byte offset 0" in err, err
    assert "; version v5 trains words of up to 1,000,000 bytes; sites and fast up to " in err, err


@pytest.fixture
def lowered(monkeypatch) -> int:
    """The default limit at 1000 bytes, the long-word versions' at 4000."""
    monkeypatch.setattr(plan, "MAX_WORD_BYTES", 1000)
    for name in LONG:
        trainer = dataclasses.replace(ALL_TRAINERS[name], max_word_bytes=4000)
        monkeypatch.setitem(ALL_TRAINERS, name, trainer)
    return 4000


def text_with(word: str) -> str:
    story = "Once upon a time there was a test. It had words.\n" + EOT + "\n"
    return story * 20 + word + "\n" + story * 20


@pytest.mark.parametrize("counter", ["pattern", "pieces"])
def test_every_long_word_version_equals_v1_over_the_default_limit(
    tmp_path, lowered, counter
) -> None:
    path = tmp_path / "c.txt"
    path.write_text(text_with(one_word(3000)), encoding="utf-8")
    counts = count_words(path, [EOT], counter=counter, max_word_bytes=lowered)
    assert max(map(len, counts)) > plan.MAX_WORD_BYTES  # over the default: counted all the same
    expected = get_trainer("v1").merge_loop(counts, 320, [EOT])[1]
    for version in LONG:
        assert train_bpe(path, 320, [EOT], version=version, workers=1)[1] == expected, version
    with pytest.raises(WordTooLongError, match="longer than 1000 bytes .* version v5 trains"):
        train_bpe(path, 320, [EOT], version="v5", workers=1)


@pytest.mark.parametrize("version", LONG)
def test_a_word_over_a_long_limit_is_refused_naming_it(tmp_path, lowered, version) -> None:
    path = tmp_path / "c.txt"
    path.write_text(text_with(one_word(lowered + 10)), encoding="utf-8")
    message = f"longer than {lowered} bytes .* version {version} trains words of up to 4,000 bytes$"
    with pytest.raises(WordTooLongError, match=message):
        train_bpe(path, 300, [EOT], version=version, workers=1)


def test_the_plan_finds_a_long_stretch_within_four_limits(tmp_path, lowered, monkeypatch) -> None:
    # a file much longer than a chunk, one word in all: refused by the plan, which reads at most
    # long_stretch_bytes(limit) past a cut it looks for
    monkeypatch.setattr(plan, "DOCUMENT_CHUNK_BYTES", 10_000)
    path = tmp_path / "c.txt"
    path.write_text("the cat " * 100 + "z" * 50_000 + " the end", encoding="utf-8")
    assert plan.long_stretch_bytes(lowered) == 4 * lowered + 64
    with pytest.raises(WordTooLongError, match=f"longer than {lowered} bytes covers"):
        plan.plan_tasks([path], [], "pattern", 4, max_word_bytes=lowered)
    plan.plan_tasks([path], [], "pattern", 4, max_word_bytes=60_000)  # under it: planned
