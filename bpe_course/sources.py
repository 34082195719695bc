"""Corpora of many files: which files a corpus names, how they are cut into tasks, and counting them.

Unlike :func:`~bpe_course.pretokenize.count_words`, which counts one file, this module takes what
large corpora come as: a directory of shards, a glob pattern, or a list of paths, each file plain
UTF-8 text or gzip (``.gz``). Counting a set of files is counting each file and adding the counts:
a document never spans two files, so the end of a file is a document boundary too.

The work is cut into *byte ranges*, the unit a process pool or a Dask cluster runs as one task:

- a plain file is cut at document boundaries (or, where there are none, at safe cuts of
  :mod:`bpe_course.cuts`), exactly as ``count_words`` cuts one file, so the counts are identical
  for any number of tasks;
- a ``.gz`` file is one task. gzip has no index: the byte at a given offset of the text can only
  be reached by decompressing everything before it, so a task starting in the middle of a ``.gz``
  would decompress the file up to its start, and a file cut in k tasks would be decompressed about
  k/2 times over. Large corpora are published as many shards (the parallelism comes from their
  number), so one task per file costs nothing there; one huge ``.gz`` is one task, and the way
  to spread it is to decompress it (or split it into shards) first. Inside its task the file is
  streamed in blocks cut at document boundaries or safe cuts, so memory stays bounded whatever
  its size.

Every file is checked before any work starts, so a missing or unreadable shard fails the run at
once, with its name (and a FIFO, a socket or a device is refused before it is opened: reading a
FIFO no one writes would block forever); invalid UTF-8 is reported with the file and the byte offset, as for one file.
"""

from __future__ import annotations

import glob
import gzip
import io
import math
import os
import stat
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from bpe_course.cuts import next_safe_cut
from bpe_course.errors import BPEInputError
from bpe_course.pretokenize import (
    MAX_CHUNK_BYTES,
    MIN_BYTES_PER_WORKER,
    _add_up,
    _count_strings,
    _encode_keys,
    count_chunk,
    cut_file,
    decode_utf8,
    effective_workers,
    pick_split_token,
)

PathLike = str | os.PathLike[str]
# What a caller may name as a corpus: one path (a file, a directory, a glob) or a list of them.
Corpus = PathLike | Sequence[PathLike]

GZIP_SUFFIX = ".gz"
_GZIP_MAGIC = b"\x1f\x8b"
_GLOB_CHARACTERS = frozenset("*?[")
_TAIL_BLOCK = 1 << 16  # where a .gz block looks for its last safe cut: 2 of these from its end


class ByteRange(NamedTuple):
    """One task: bytes ``start`` to ``end`` of the file at ``path`` (a ``.gz``: the whole file)."""

    path: str
    start: int
    end: int

    @property
    def compressed(self) -> bool:
        return self.path.endswith(GZIP_SUFFIX)


# --- Which files ---------------------------------------------------------------------------------


def resolve_sources(corpus: Corpus) -> list[Path]:
    """The files a corpus names, each checked readable, in a stable order, each once.

    A directory gives its files and those of its subdirectories (names starting with a dot
    skipped), sorted; a pattern with ``*``, ``?`` or ``[`` gives the files it matches (``**``
    crosses directories), sorted; a list gives the union of its items, in order.
    """
    items = [corpus] if isinstance(corpus, (str, os.PathLike)) else corpus
    if not isinstance(items, Iterable) or isinstance(items, (bytes, bytearray)):
        raise BPEInputError(f"a corpus must be a path or a list of paths, not {corpus!r}")
    files: dict[Path, None] = {}  # ordered and without repeats: a file named twice counts once
    for item in items:
        for path in _expand(item):
            files.setdefault(_canonical(path), None)
    if not files:
        raise BPEInputError("the corpus names no files")
    return [_check_size_known(check_file(path)) for path in files]


def _check_size_known(path: Path) -> Path:
    """Refuse a file that reports 0 bytes but holds some (``/proc/self/status``, other virtual
    files): its work is planned from its size, so its text would be skipped, not counted."""
    info = path.stat()
    if stat.S_ISREG(info.st_mode) and info.st_size == 0:
        try:
            with open(path, "rb") as f:
                holds_data = bool(f.read(1))
        except OSError:
            return path  # check_file has read it; this is only about its size
        if holds_data:
            raise BPEInputError(
                f"{path} reports a size of 0 bytes but holds data (a virtual file, as in /proc); "
                f"copy it to a regular file first: cp {path} corpus.txt"
            )
    return path


def _canonical(path: Path) -> Path:
    """``path`` resolved, so a file named twice counts once; but a link that resolves to no path
    (``/dev/stdin`` to ``pipe:[1234]``) stays as named, so the check can say what it is."""
    resolved = path.resolve()
    return resolved if resolved.exists() or not path.exists() else path.absolute()


def _expand(item: PathLike) -> list[Path]:
    if not isinstance(item, (str, os.PathLike)):
        raise BPEInputError(f"a corpus must be a path or a list of paths, not {item!r}")
    path = Path(item)
    if path.is_dir():
        found = _files_under(path)
        if not found:
            raise BPEInputError(f"{path} is a directory with no files to train on")
        return found
    if not path.exists() and _GLOB_CHARACTERS & set(str(item)):
        found = sorted(Path(p) for p in glob.glob(str(item), recursive=True) if Path(p).is_file())
        if not found:
            raise BPEInputError(f"no files match {item}")
        return found
    return [path]


def _files_under(folder: Path) -> list[Path]:
    """The files under ``folder``, sorted, names starting with a dot skipped; a subfolder that
    cannot be listed is an error, never skipped in silence (its files would be missing). Links
    to folders are followed (shards are often linked in), each folder walked once."""

    def refuse(err: OSError) -> None:
        raise BPEInputError(
            f"cannot list {err.filename}: {err.strerror}; its files would be left out of the "
            "corpus. Make it readable, or name the files to train on."
        )

    found = []
    seen: set[tuple[int, int]] = set()  # folders walked: a link back up would loop forever
    for root, folders, names in os.walk(folder, onerror=refuse, followlinks=True):
        info = os.stat(root)
        if (info.st_dev, info.st_ino) in seen:
            folders[:] = []
            continue
        seen.add((info.st_dev, info.st_ino))
        folders[:] = [name for name in folders if not name.startswith(".")]
        for name in names:
            path = Path(root) / name
            if name.startswith("."):
                continue
            if path.is_file():
                found.append(path)
            elif path.is_symlink() and not path.exists():  # a shard its link lost: say so
                raise BPEInputError(
                    f"{path} is a link to {os.readlink(path)}, which does not exist"
                )
    return sorted(found)


def check_file(path: Path) -> Path:
    """``path`` if it is a regular file this process can read, else one clear error naming it."""
    if not path.exists():
        raise BPEInputError(f"corpus file not found: {path}")
    if path.is_dir():
        raise BPEInputError(f"{path} is a directory; give the path of a text file")
    kind = _special_kind(path)
    if kind:  # refused before it is opened: opening a FIFO no one writes blocks forever
        raise BPEInputError(
            f"{path} is not a regular file but {kind}; give the path of a text file"
        )
    try:
        with open(path, "rb") as f:
            head = f.read(2)
    except OSError as err:
        raise BPEInputError(f"cannot read {path}: {err.strerror}") from None
    if path.name.endswith(GZIP_SUFFIX) and head and head != _GZIP_MAGIC:
        raise BPEInputError(f"{path} ends in {GZIP_SUFFIX} but is not gzip data")
    return path


def _special_kind(path: Path) -> str | None:
    """What ``path`` is when it is not a regular file (``"a FIFO"``, ...), else None."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None  # open() then says what is wrong
    if stat.S_ISREG(mode):
        return None
    kinds = {stat.S_ISFIFO: "a FIFO (named pipe)", stat.S_ISSOCK: "a socket"}
    kinds |= {stat.S_ISCHR: "a character device", stat.S_ISBLK: "a block device"}
    return next((name for test, name in kinds.items() if test(mode)), "not a file")


def describe(paths: Sequence[Path]) -> str:
    """``"corpus.txt"`` or ``"3 files (a.txt ... c.txt.gz)"``: a corpus named in one message."""
    if len(paths) == 1:
        return str(paths[0])
    return f"{len(paths)} files ({paths[0].name} ... {paths[-1].name})"


# --- Cutting them into tasks ---------------------------------------------------------------------


def plan_ranges(
    paths: Sequence[Path], special_tokens: Sequence[str], tasks: int = 1
) -> list[ByteRange]:
    """Byte ranges covering every file, about ``tasks`` of them (never more than 32 MB of plain
    text each), cut at document boundaries; a ``.gz`` file is one range.

    A plain file gets a share of the tasks in proportion to its size, at least one.
    """
    plain = [path for path in paths if not path.name.endswith(GZIP_SUFFIX)]
    plain_bytes = sum(path.stat().st_size for path in plain)
    ranges = []
    for path in paths:
        size = path.stat().st_size
        if size == 0:
            continue
        if path.name.endswith(GZIP_SUFFIX):
            ranges.append(ByteRange(str(path), 0, size))
            continue
        wanted = max(round(tasks * size / plain_bytes), math.ceil(size / MAX_CHUNK_BYTES), 1)
        boundaries = cut_file(path, wanted, special_tokens)
        ranges.extend(ByteRange(str(path), a, b) for a, b in zip(boundaries, boundaries[1:]))
    return ranges


# --- Counting one range, and a whole corpus ------------------------------------------------------


def count_range(byte_range: ByteRange, special_tokens: Sequence[str]) -> Counter[str]:
    """The pretoken counts of one byte range (a task: module level, so any worker can import it).

    A file that vanished or became unreadable since it was checked is one clear error, naming it.
    """
    path, start, end = byte_range
    try:
        if byte_range.compressed:
            return _count_gzip(path, special_tokens)
        return count_chunk(path, start, end, special_tokens)
    except OSError as err:  # gzip.BadGzipFile is an OSError too
        reason = err.strerror or str(err)
        raise BPEInputError(f"cannot read {path}: {reason}") from None
    except (EOFError, zlib.error) as err:
        raise BPEInputError(f"{path} is not a whole gzip file: {err}") from None


def _count_gzip(path: str, special_tokens: Sequence[str]) -> Counter[str]:
    """Stream a ``.gz`` file in blocks, counting each up to its last cut: the last document
    boundary or the last safe cut (:mod:`bpe_course.cuts`), whichever comes later.

    Memory holds one block plus what follows its last cut: a few bytes, unless the text has no
    cut at all for a long stretch (one huge pretoken).
    """
    split = pick_split_token(special_tokens)
    token = split.encode("utf-8") if split else b""
    counts: Counter[str] = Counter()
    pending = bytearray()  # bytes read but not counted yet: they start at offset `counted`
    counted = 0
    with gzip.open(path, "rb") as f:
        while block := f.read(MAX_CHUNK_BYTES):
            # Search only where a new occurrence can be: the new block and the token's width before.
            search_from = max(1, len(pending) - len(token) + 1)
            pending += block
            cut = pending.rfind(token, search_from) if token else -1
            cut = max(cut, _last_safe_cut(pending, special_tokens))
            if cut > 0:
                text = decode_utf8(pending[:cut], path, counted, " of the decompressed data")
                counts.update(_count_strings(text, special_tokens))
                del pending[:cut]
                counted += cut
    if pending:
        text = decode_utf8(pending, path, counted, " of the decompressed data")
        counts.update(_count_strings(text, special_tokens))
    return counts


def _last_safe_cut(data: bytearray, special_tokens: Sequence[str]) -> int:
    """A safe cut among the last 128 KB of ``data`` (its offset), or -1 if there is none."""
    start = max(0, len(data) - 2 * _TAIL_BLOCK)
    cut = next_safe_cut(io.BytesIO(bytes(data[start:])), 0, special_tokens)
    return -1 if cut is None else start + cut


def _count_range_sized(args: tuple[ByteRange, Sequence[str]]) -> tuple[int, Counter[str]]:
    byte_range, special_tokens = args
    return byte_range.end - byte_range.start, count_range(byte_range, special_tokens)


def count_sources(
    corpus: Corpus,
    special_tokens: Sequence[str] = (),
    workers: int | None = 1,
    *,
    min_bytes_per_worker: int = MIN_BYTES_PER_WORKER,
    on_range: Callable[[int], None] | None = None,
) -> dict[bytes, int]:
    """Word counts of every file of a corpus added up, ``{word bytes: count}``, on this machine.

    The same counts for any number of workers, and the same as adding
    :func:`~bpe_course.pretokenize.count_words` of each file. ``workers`` as in ``count_words``
    (``None``: every core). ``on_range`` is called with the size in bytes of each range once
    counted (on disk: compressed bytes for a ``.gz``).
    """
    paths = resolve_sources(corpus)
    total = sum(path.stat().st_size for path in paths)
    n_workers = effective_workers(total, workers, min_bytes_per_worker)
    ranges = plan_ranges(paths, special_tokens, 4 * n_workers if n_workers > 1 else 1)
    tasks = [(byte_range, tuple(special_tokens)) for byte_range in ranges]
    from bpe_course.pool import run_tasks

    totals: Counter[str] = Counter()
    _add_up(totals, run_tasks(_count_range_sized, tasks, n_workers), on_range)
    return _encode_keys(totals)
