"""Writing files whole or not at all: every file the package writes goes through here."""

from __future__ import annotations

import os
from pathlib import Path

from bpe_course.errors import BPEInputError


def write_atomically(path: Path, text: str) -> Path:
    """Write ``text`` as UTF-8 to ``<path>.partial``, then rename it to ``path``.

    A crash or a full disk leaves no file that looks finished; the partial file is removed.
    """
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_bytes(text.encode("utf-8"))
        os.replace(partial, path)
    except OSError as err:
        partial.unlink(missing_ok=True)
        raise BPEInputError(f"could not write {path}: {err.strerror}") from None
    return path
