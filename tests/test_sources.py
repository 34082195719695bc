"""Corpora of many files: which files, cut where, counted exactly; bad shards are one clear error."""

from __future__ import annotations

import gzip
import os
from collections import Counter
from pathlib import Path

import pytest

from bpe_course import BPEInputError, train_bpe
from bpe_course.counting import count_words, plan
from bpe_course.counting.plan import ByteRange, Task, plan_tasks
from bpe_course.counting.sources import resolve_sources
from bpe_course.counting.tasks import count_task

from .conftest import EOT, stdlib_corpus


def documents(min_bytes: int) -> str:
    """Real text cut into many short documents (the stdlib's paragraphs), joined by EOT."""
    return EOT.join(stdlib_corpus(min_bytes).split("\n\n"))


def added(*counts: dict[bytes, int]) -> dict[bytes, int]:
    total: Counter[bytes] = Counter()
    for c in counts:
        total.update(c)
    return dict(total)


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of shards: two plain, two gzip (one of them multi-block), one in a subfolder, an
    empty one, and a hidden file that must be skipped."""
    folder = tmp_path_factory.mktemp("shards")
    pieces = documents(400_000).split(EOT)
    quarter = len(pieces) // 4
    parts = [EOT.join(pieces[i * quarter : (i + 1) * quarter]) for i in range(3)]
    parts.append(EOT.join(pieces[3 * quarter :]))
    (folder / "a.txt").write_text(parts[0], encoding="utf-8")
    with gzip.open(folder / "b.txt.gz", "wt", encoding="utf-8") as f:
        f.write(parts[1])
    (folder / "sub").mkdir()
    (folder / "sub" / "c.txt").write_text(parts[2], encoding="utf-8")
    with gzip.open(folder / "sub" / "d.gz", "wt", encoding="utf-8") as f:
        f.write(parts[3] + "café 你好 " + EOT)
    (folder / "empty.txt").write_bytes(b"")
    (folder / ".hidden.txt").write_text("never counted", encoding="utf-8")
    return folder


def per_file(folder: Path) -> dict[bytes, int]:
    """The definition: the counts of each file, added (a .gz counted from its decompressed text)."""
    counts = []
    for path in resolve_sources(folder):
        if path.name.endswith(".gz"):
            plain = path.with_name(path.name + ".plain")
            plain.write_bytes(gzip.decompress(path.read_bytes()))
            counts.append(count_words(plain, [EOT]))
            plain.unlink()
        else:
            counts.append(count_words(path, [EOT]))
    return added(*counts)


# --- Which files ---------------------------------------------------------------------------------


def test_a_directory_gives_its_files_sorted_hidden_skipped(shards) -> None:
    names = [p.relative_to(shards).as_posix() for p in resolve_sources(shards)]
    assert names == ["a.txt", "b.txt.gz", "empty.txt", "sub/c.txt", "sub/d.gz"]


def test_a_glob_and_a_list(shards) -> None:
    assert [p.name for p in resolve_sources(str(shards / "**" / "*.gz"))] == ["b.txt.gz", "d.gz"]
    listed = resolve_sources([shards / "sub" / "c.txt", shards / "a.txt", shards / "sub"])
    assert [p.name for p in listed] == ["c.txt", "a.txt", "d.gz"]  # c.txt once, in first place


@pytest.mark.parametrize(
    ("corpus", "message"),
    [
        (["a.txt", "missing.txt"], r"corpus file not found: .*missing\.txt"),
        ("nothing*.txt", r"no files match .*nothing\*\.txt"),
        ([], "the corpus names no files"),
        (42, "a corpus must be a path or a list of paths, not 42"),
    ],
)
def test_bad_corpora_are_one_clear_error(shards, corpus, message) -> None:
    if isinstance(corpus, list):
        corpus = [shards / name for name in corpus]
    elif isinstance(corpus, str):
        corpus = str(shards / corpus)
    with pytest.raises(BPEInputError, match=message):
        resolve_sources(corpus)


def test_an_empty_directory(tmp_path) -> None:
    with pytest.raises(BPEInputError, match="is a directory with no files to train on"):
        resolve_sources(tmp_path)


def test_a_gz_that_is_not_gzip_is_refused_before_any_work(tmp_path) -> None:
    (tmp_path / "fake.gz").write_text("plain text", encoding="utf-8")
    with pytest.raises(BPEInputError, match=r"fake\.gz ends in \.gz but is not gzip data"):
        resolve_sources(tmp_path)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root can read any file")
def test_an_unreadable_shard_is_named(shards, tmp_path) -> None:
    locked = tmp_path / "locked.txt"
    locked.write_text("secret", encoding="utf-8")
    locked.chmod(0)
    with pytest.raises(BPEInputError, match=r"cannot read .*locked\.txt"):
        resolve_sources([shards, locked])


# --- Cut where -----------------------------------------------------------------------------------


@pytest.mark.parametrize("counter", ["pattern", "pieces"])
@pytest.mark.parametrize("tasks", [1, 4, 13])
def test_ranges_cover_every_file_exactly_once(shards, tasks, counter) -> None:
    paths = resolve_sources(shards)
    planned = plan_tasks(paths, [EOT], counter, tasks)
    assert len(planned) <= tasks
    ranges = [r for task in planned for r in task.ranges]
    for path in paths:
        mine = sorted((r.start, r.end) for r in ranges if r.path == str(path))
        size = path.stat().st_size
        if size == 0:
            assert mine == []
        elif path.name.endswith(".gz"):
            assert mine == [(0, size)]  # a .gz is one task
        else:
            assert mine[0][0] == 0 and mine[-1][1] == size
            assert all(a[1] == b[0] for a, b in zip(mine, mine[1:]))
    plain = [r for r in ranges if not r.compressed]
    assert len(plain) >= min(tasks, 2)


# --- Counted exactly -----------------------------------------------------------------------------


@pytest.mark.parametrize("counter", ["pattern", "pieces"])
@pytest.mark.parametrize("workers", [1, 2])
def test_counts_are_each_file_counted_and_added(shards, workers, counter) -> None:
    got = count_words(shards, [EOT], workers, counter=counter, min_bytes_per_worker=1)
    assert got == per_file(shards)
    assert got[" 你好".encode()] == 1


def test_shards_cut_at_a_boundary_count_as_the_whole(tmp_path) -> None:
    # Cut one file into shards just before separators: the shards count exactly as the whole.
    data = documents(200_000).encode("utf-8")
    whole = tmp_path / "whole.txt"
    whole.write_bytes(data)
    first = data.index(EOT.encode(), len(data) // 3)
    second = data.index(EOT.encode(), 2 * len(data) // 3)
    (tmp_path / "shards").mkdir()
    (tmp_path / "shards" / "1.txt").write_bytes(data[:first])
    (tmp_path / "shards" / "2.txt.gz").write_bytes(gzip.compress(data[first:second]))
    (tmp_path / "shards" / "3.txt").write_bytes(data[second:])
    assert count_words(tmp_path / "shards", [EOT]) == count_words(whole, [EOT])


@pytest.mark.parametrize("counter", ["pattern", "pieces"])
@pytest.mark.parametrize("block", [5, 13, 64, 1000, 1 << 20])
def test_a_gz_streamed_in_blocks_counts_as_the_plain_file(
    tmp_path, monkeypatch, block, counter
) -> None:
    # Blocks smaller than the separator, just over it and larger: every cut must be a boundary.
    text = documents(30_000)[:30_000] + " ünïcode" + EOT + EOT + "tail"
    plain = tmp_path / "plain.txt"
    plain.write_text(text, encoding="utf-8")
    packed = tmp_path / "packed.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    monkeypatch.setattr(plan, "DOCUMENT_CHUNK_BYTES", block)
    monkeypatch.setattr(plan, "PIECE_CHUNK_BYTES", block)
    counted = count_task(Task((ByteRange(str(packed), 0, packed.stat().st_size),), (EOT,), counter))
    whole = Task((ByteRange(str(plain), 0, plain.stat().st_size),), (EOT,), counter)
    assert counted == count_task(whole)


@pytest.mark.parametrize("counter", ["pattern", "pieces"])
def test_invalid_utf8_in_a_gz_names_the_file_and_the_decompressed_offset(
    tmp_path, monkeypatch, counter
) -> None:
    good = ("a fine story" + EOT).encode() * 100
    path = tmp_path / "late.gz"
    path.write_bytes(gzip.compress(good + b"oops \xff"))
    monkeypatch.setattr(plan, "DOCUMENT_CHUNK_BYTES", 64)  # the bad byte in a later block
    monkeypatch.setattr(plan, "PIECE_CHUNK_BYTES", 64)
    with pytest.raises(BPEInputError) as raised:
        count_words(path, [EOT], counter=counter)
    message = str(raised.value)
    assert f"late.gz is not valid UTF-8: byte 0xff at byte offset {len(good) + 5} " in message
    assert "of the decompressed data" in message


def test_a_truncated_gz_is_named(tmp_path) -> None:
    path = tmp_path / "cut.gz"
    path.write_bytes(gzip.compress(("story" + EOT).encode() * 1000)[:-20])
    with pytest.raises(BPEInputError, match=r"cut\.gz is not a whole gzip file"):
        count_words(path, [EOT])


def test_a_shard_gone_after_planning_is_named(tmp_path) -> None:
    path = tmp_path / "gone.txt"
    path.write_text("soon gone", encoding="utf-8")
    [task] = plan_tasks([path], [EOT], "pattern", 1)
    path.unlink()
    with pytest.raises(BPEInputError, match=r"cannot read .*gone\.txt"):
        count_task(task)


def test_train_bpe_on_a_folder_learns_what_the_concatenation_does(tmp_path) -> None:
    data = documents(100_000).encode("utf-8")
    cut = data.index(EOT.encode(), len(data) // 2)
    (tmp_path / "whole.txt").write_bytes(data)
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "1.txt").write_bytes(data[:cut])
    (folder / "2.txt.gz").write_bytes(gzip.compress(data[cut:]))
    expected = train_bpe(tmp_path / "whole.txt", 400, [EOT], workers=1)
    for version in ("v1", "v5"):
        assert train_bpe(folder, 400, [EOT], version=version, workers=2) == expected


# --- A corpus that changes while it is counted ---------------------------------------------------


def _changing(path: Path, change) -> list[int]:
    """A progress callback that changes ``path`` once, after the first chunk is counted."""
    seen: list[int] = []

    def on_counted(amount: int) -> None:
        if not seen:
            change(path)
        seen.append(amount)

    return on_counted


@pytest.mark.parametrize("counter", ["pattern", "pieces"])
@pytest.mark.parametrize(
    "change",
    [
        lambda path: path.write_bytes(path.read_bytes()[: path.stat().st_size // 3]),  # truncated
        lambda path: path.write_bytes(path.read_bytes().upper()),  # rewritten, the same size
        lambda path: path.write_bytes(path.read_bytes() + b" more words"),  # grown
    ],
    ids=["truncated", "rewritten", "grown"],
)
def test_a_file_changed_while_counted_stops_the_run_with_one_line(
    tmp_path, monkeypatch, counter, change
) -> None:
    # The counts of a file that changed under the run are of no one text: a vocabulary learned
    # from them would look complete and be wrong.
    monkeypatch.setattr(plan, "DOCUMENT_CHUNK_BYTES", 2000)
    monkeypatch.setattr(plan, "PIECE_CHUNK_BYTES", 2000)
    path = tmp_path / "corpus.txt"
    path.write_text(documents(40_000), encoding="utf-8")
    with pytest.raises(BPEInputError, match=r"corpus\.txt changed while it was counted"):
        count_words(path, [EOT], counter=counter, on_counted=_changing(path, change))


def test_a_shard_replaced_while_counted_is_named(tmp_path) -> None:
    folder = tmp_path / "shards"
    folder.mkdir()
    for name in ("a.txt", "b.txt"):
        (folder / name).write_text(documents(20_000), encoding="utf-8")

    def replace(_: Path) -> None:
        swap = folder / "new.tmp"
        swap.write_text(documents(20_000).replace("the", "a"), encoding="utf-8")
        swap.replace(folder / "b.txt")  # a new file under the old name

    with pytest.raises(BPEInputError, match=r"b\.txt changed while it was counted"):
        count_words(folder, [EOT], on_counted=_changing(folder, replace))
