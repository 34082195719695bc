"""Real English from a dictionary already on the machine: a stand-in for books and web text.

The generated corpora repeat a word list; real text has many more distinct pieces (punctuation
attached to words, capitals, numbers, cross references), which is where pretokenization costs
most. Debian packages the GNU Collaborative International Dictionary of English as ``dict-gcide``
(``apt-get install dict-gcide``: ``/usr/share/dictd/gcide.index`` and ``gcide.dict.dz``, a
gzip-compatible file). :func:`write_dictd_corpus` writes its entries in file order, each line
stripped of its indentation, joined by ``<|endoftext|>``, up to a size; no network. Any dictd
dictionary (``<name>.index`` and ``<name>.dict.dz`` or ``.dict``) works the same way.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

from bpe_course.errors import BPEInputError

GCIDE = Path("/usr/share/dictd/gcide")
_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _number(text: str) -> int:
    """A dictd index number: base 64, most significant digit first."""
    value = 0
    for char in text:
        value = value * 64 + _B64.index(char)
    return value


def dictd_entries(source: Path = GCIDE) -> Iterator[str]:
    """The entries of a dictd dictionary in file order, each line stripped, skipping the
    database's own entries (``00-database-info`` and the like). Entries that are not UTF-8 are read as cp1252
    (a few of gcide's are)."""
    index = source.with_name(source.name + ".index")
    body = next(
        (p for p in (source.with_suffix(".dict.dz"), source.with_suffix(".dict")) if p.exists()),
        None,
    )
    if not index.exists() or body is None:
        raise BPEInputError(
            f"no dictd dictionary at {source} (.index and .dict.dz): on Debian, "
            "apt-get install dict-gcide"
        )
    spans = set()
    with open(index, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            fields = line.rstrip("\n").split("\t")
            if len(fields) >= 3 and not fields[0].startswith("00-"):
                spans.add((_number(fields[1]), _number(fields[2])))
    opener = gzip.open if body.suffix == ".dz" else open
    with opener(body, "rb") as f:
        data = f.read()
    for start, length in sorted(spans):
        raw = data[start : start + length]
        try:
            entry = raw.decode("utf-8")
        except UnicodeDecodeError:
            entry = raw.decode("cp1252", errors="replace")
        yield "\n".join(line.strip() for line in entry.splitlines()).strip()


def write_dictd_corpus(
    path: Path, size: int, source: Path = GCIDE, separator: str = "<|endoftext|>"
) -> Path:
    """Write whole entries joined by ``separator`` until the file holds at least ``size`` bytes
    (or the dictionary ends); written to a ``.partial`` file, renamed when whole."""
    partial = path.with_name(path.name + ".partial")
    written = 0
    with open(partial, "w", encoding="utf-8", newline="") as out:
        for entry in dictd_entries(source):
            if written:
                written += out.write(separator)
            written += len(entry.encode("utf-8"))
            out.write(entry)
            if written >= size:
                break
    partial.replace(path)
    return path
