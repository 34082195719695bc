"""Which files a corpus names: one file, a directory of shards, a glob pattern, or a list of them.

Large corpora come as many files, each plain UTF-8 text or gzip (``.gz``). Counting a set of
files is counting each file and adding the counts: a document never spans two files, so the end
of a file is a document boundary too (:mod:`bpe_course.counting.plan` cuts them into tasks).

Every file is checked before any work starts, so a missing or unreadable shard fails the run at
once, with its name (and a FIFO, a socket or a device is refused before it is opened: reading a
FIFO no one writes would block forever). A file that changes while it is counted stops the run
(:func:`check_unchanged`): a vocabulary learned from part of a file would look complete."""

from __future__ import annotations

import glob
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from bpe_course.errors import BPEInputError

PathLike = str | os.PathLike[str]
# What a caller may name as a corpus: one path (a file, a directory, a glob) or a list of them.
Corpus = PathLike | Sequence[PathLike]

GZIP_SUFFIX = ".gz"
_GZIP_MAGIC = b"\x1f\x8b"
_GLOB_CHARACTERS = frozenset("*?[")


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
        # every match but folders: a FIFO or a device is then named by check_file, not skipped
        found = sorted(
            Path(p) for p in glob.glob(str(item), recursive=True) if not Path(p).is_dir()
        )
        if not found:
            raise BPEInputError(f"no files match {item}")
        return found
    return [path]


def _files_under(folder: Path) -> list[Path]:
    """The files under ``folder``, sorted, names starting with a dot skipped; a subfolder that
    cannot be listed, or an entry that is not a regular file, is an error, never skipped in
    silence (its text would be missing). Links
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
            if path.is_symlink() and not path.exists():  # a shard its link lost: say so
                raise BPEInputError(
                    f"{path} is a link to {os.readlink(path)}, which does not exist"
                )
            found.append(path)  # a FIFO or a device too: check_file names it, never skips it
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


def describe(corpus: Corpus) -> str:
    """A corpus named in one message, as it was given: ``"corpus.txt"``, ``"data/shards"``, or
    ``"3 paths (a.txt ... c.txt.gz)"``."""
    if isinstance(corpus, (str, os.PathLike)):
        return str(corpus)
    items = [str(item) for item in corpus]
    if len(items) == 1:
        return items[0]
    return f"{len(items)} paths ({Path(items[0]).name} ... {Path(items[-1]).name})"


FileState = tuple[int, int, int, int]  # size, modification time (ns), inode, device


def file_states(paths: Sequence[Path]) -> list[FileState]:
    """What tells each file from another under its name: checked again after the counting."""
    return [_state(path) for path in paths]


def check_unchanged(paths: Sequence[Path], states: Sequence[FileState]) -> None:
    """Raise one clear error naming the first file that changed (truncated, grown, rewritten,
    replaced, gone) since ``states`` were taken: its counts would be of no one text."""
    for path, then in zip(paths, states):
        try:
            now: FileState | None = _state(path)
        except OSError:
            now = None
        if now != then:
            raise changed_while_counted(path)


def changed_while_counted(path: str | os.PathLike[str]) -> BPEInputError:
    return BPEInputError(
        f"{path} changed while it was counted: the counts would be of no one text. Train "
        "again once the corpus no longer changes (copy it first if something writes to it)."
    )


def _state(path: Path) -> FileState:
    info = path.stat()
    return (info.st_size, info.st_mtime_ns, info.st_ino, info.st_dev)
