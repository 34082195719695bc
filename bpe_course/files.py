"""Writing files whole or not at all: every file the package writes goes through here.

Each write goes to a partial file of its own (``<name>.<pid>.<random>.partial``), so two runs
writing the same file at once never write into one another's bytes, and a partial file is
renamed to its final name only once complete. A run killed outright (SIGKILL, a power cut) leaves
its partial file behind; the next run removes those whose process no longer runs.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

from bpe_course.errors import BPEInputError

PARTIAL_SUFFIX = ".partial"


def partial_path(path: Path) -> Path:
    """A partial file for ``path`` that no other run (nor this one) uses: created empty here."""
    partial = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}{PARTIAL_SUFFIX}")
    os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    return partial


def remove_stale_partials(path: Path) -> None:
    """Remove the partial files of ``path`` left by processes that no longer run."""
    for partial in path.parent.glob(f"{path.name}.*{PARTIAL_SUFFIX}"):
        pid = partial.name[len(path.name) + 1 :].split(".")[0]
        if pid.isdigit() and not _running(int(pid)):
            partial.unlink(missing_ok=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it runs
        return True
    return True


def publish(partial: Path, path: Path, *, keep_existing: bool = False) -> Path:
    """Rename the finished ``partial`` to ``path``.

    ``keep_existing``: when ``path`` appeared meanwhile (another run finished the same file
    first), keep it and drop ours, instead of replacing a finished file; a hard link makes the
    check and the rename one step, so no run can slip in between.
    """
    if not keep_existing:
        os.replace(partial, path)
        return path
    try:
        os.link(partial, path)
    except FileExistsError:
        pass  # finished by another run; the bytes of a generated file depend only on its name
    except OSError:  # a file system without hard links: an exclusive create, then the rename
        if not path.exists():
            os.replace(partial, path)
    partial.unlink(missing_ok=True)
    return path


@contextlib.contextmanager
def replaced_whole(path: Path) -> Iterator[Path]:
    """Yield a partial file to write ``path``'s new content to; it replaces ``path`` only if the
    block ends without an error, else it is removed and ``path`` stays as it was."""
    partial = partial_path(path)
    try:
        yield partial
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def write_atomically(path: Path, text: str) -> Path:
    """Write ``text`` as UTF-8 to a partial file of its own, then rename it to ``path``.

    A crash or a full disk leaves no file that looks finished; the partial file is removed.
    """
    partial = None
    try:
        partial = partial_path(path)
        partial.write_bytes(text.encode("utf-8"))
        os.replace(partial, path)
    except OSError as err:
        if partial is not None:
            partial.unlink(missing_ok=True)
        raise BPEInputError(f"could not write {path}: {err.strerror}") from None
    return path
