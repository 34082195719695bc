"""Corpora: the registry of datasets (TinyStories), the generated offline corpora, slices of any,
and which one the course uses; their sizes in the course's words ("5MB", "21.5MB").

Everything lands in ``data/`` (see :mod:`bpe_course.paths`). Files appear whole or not at all:
each is written to a ``.partial`` file first and renamed only once complete (downloads, and their
checks: :mod:`bpe_course.corpora.download`).
"""

from __future__ import annotations

import codecs
import os
import re
import tempfile
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import BinaryIO

from bpe_course.corpora.generate import GENERATOR_VERSION, check_shape, write_generated
from bpe_course.counting.texts import decode_utf8
from bpe_course.errors import BPEInputError
from bpe_course.files import replaced_whole
from bpe_course.paths import data_dir
from bpe_course.pretokenize import END_OF_TEXT as EOT

# Sizes in the course are decimal megabytes. The V1-V5 post does not say which it uses: its
# "21.5 MB" is most likely the whole validation file counted in units of 2^20 bytes (notebook 01).
MB = 1_000_000

# The corpus sizes of the course (those of the V1-V5 post's tables), in bytes.
COURSE_SIZES_MB = (1, 5, 10, 21.5)
CORPUS_ENV = "BPE_COURSE_CORPUS"


@dataclass(frozen=True)
class Dataset:
    name: str
    url: str
    size: int | None  # bytes; None where not published
    sha256: str | None  # None where no published hash could be checked (pinned on first download)
    licence: str
    filename: str


_HF = "https://huggingface.co/datasets/roneneldan/TinyStories/resolve/main/"
_LICENCE = "CDLA-Sharing-1.0 (Eldan and Li, 2023, TinyStories)"
DATASETS: dict[str, Dataset] = {
    d.name: d
    for d in [
        Dataset(
            "tinystories-valid",
            _HF + "TinyStoriesV2-GPT4-valid.txt",
            22_502_601,
            None,
            _LICENCE,
            "TinyStoriesV2-GPT4-valid.txt",
        ),
        Dataset(
            "tinystories-train",
            _HF + "TinyStoriesV2-GPT4-train.txt",
            None,
            None,
            _LICENCE,
            "TinyStoriesV2-GPT4-train.txt",
        ),
    ]
}


def parse_size(text: str | float | int) -> int:
    """``"5MB"``, ``"21.5MB"``, ``"800KB"`` or a number of bytes, as bytes (decimal units)."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        exact = Decimal(text)
    else:
        match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(B|KB|MB|GB)?\s*", str(text), re.I)
        if not match:
            raise BPEInputError(
                f"cannot read the size {text!r}; write it like 5MB, 21.5MB or 800KB"
            )
        unit = {"B": 1, "KB": 1_000, "MB": MB, "GB": 1_000 * MB}[(match.group(2) or "B").upper()]
        exact = Decimal(match.group(1)) * unit  # exact: 1.1MB is 1100000 bytes, not 1100000.0002
    if exact != exact.to_integral_value():  # "2.5B": never rounded down in silence
        raise BPEInputError(f"a size is a whole number of bytes; {text!r} is not")
    size = int(exact)
    if size <= 0:
        raise BPEInputError(f"a corpus size must be positive, not {text!r}")
    return size


def size_label(size: int) -> str:
    """``21500000`` -> ``"21.5MB"``: the name a size has in files, tables and figures."""
    return f"{size / MB:g}MB" if size % 1000 == 0 else f"{size}B"


def get_dataset(name: str) -> Dataset:
    try:
        return DATASETS[name]
    except KeyError:
        raise BPEInputError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}") from None


# --- Writing files whole or not at all -----------------------------------------------------------


def _writable_data_dir() -> Path:
    folder = data_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # a probe of this run's own: with one shared name, two runs at once would remove each
        # other's and one would be told, wrongly, that it cannot write here
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as err:
        raise BPEInputError(
            f"cannot write to the data folder {folder}: {err.strerror}. Set BPE_COURSE_DATA to a folder you can write."
        ) from None
    return folder


# --- The generated corpora ----------------------------------------------------------------------


def generated_corpus(
    size: int | str, seed: int = 0, shape: str = "stories", progress: bool | None = None
) -> Path:
    """The offline corpus of ``shape`` and ``size`` bytes for ``seed``, generated once (streamed,
    in bounded memory) and cached in ``data/``. ``progress``: a tqdm bar (default: from 100 MB)."""
    size = parse_size(size)
    check_shape(shape)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise BPEInputError(f"--seed must be 0 or more (a whole number), not {seed!r}")
    name = f"generated-{shape}-{size_label(size)}-seed{seed}-g{GENERATOR_VERSION}.txt"
    path = data_dir() / name
    if path.exists():
        return path
    _writable_data_dir()
    show = size >= 100 * MB if progress is None else progress
    return write_generated(path, size, shape, seed, progress=show)


# --- Slices --------------------------------------------------------------------------------------


_SLICE_BLOCK = 1 << 20  # a slice is found and copied a block at a time: memory follows this


def _boundary_end(f: BinaryIO, size: int) -> int:
    r"""Where the longest prefix of at most ``size`` bytes of ``f`` ends right after an
    ``<|endoftext|>``, with the line end that follows it (``\n`` or ``\r\n``) when that fits
    whole: searched from ``size`` back, a block at a time."""
    marker = EOT.encode()
    high = size  # an occurrence must end by here
    while high >= len(marker):
        low = max(0, high - _SLICE_BLOCK)
        f.seek(low)
        block = f.read(min(high + 2, size) - low)  # and what follows, for its line end
        cut = block.rfind(marker, 0, high - low)
        if cut != -1:
            end = low + cut + len(marker)
            for line_end in (b"\r\n", b"\n"):
                if block.startswith(line_end, cut + len(marker)) and end + len(line_end) <= size:
                    return end + len(line_end)
            return end
        if low == 0:
            break
        high = low + len(marker) - 1  # the next block overlaps: an occurrence across is found
    raise BPEInputError(
        f"no document boundary ({EOT}) in the first {size} bytes; ask for a larger size"
    )


def _copy_prefix(f: BinaryIO, end: int, out: BinaryIO, source: Path) -> None:
    """Copy bytes ``0:end`` of ``f`` to ``out`` a block at a time, checking they are UTF-8."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    f.seek(0)
    done = 0
    while done < end:
        block = f.read(min(_SLICE_BLOCK, end - done))
        if not block:
            raise BPEInputError(f"{source} was cut short while it was sliced; slice it again")
        held = decoder.getstate()[0]  # the start of a character begun in the block before
        try:
            decoder.decode(block, final=done + len(block) == end)
        except UnicodeDecodeError:
            decode_utf8(held + block, str(source), done - len(held))  # raises, naming the byte
            raise
        out.write(block)
        done += len(block)


def slice_corpus(source: str | os.PathLike[str], size: int | str) -> Path:
    """A prefix of ``source`` of at most ``size`` bytes ending on a document boundary, cached in
    ``data/`` so "the 5 MB TinyStories" is one exact file everywhere."""
    source = Path(source)
    size = parse_size(size)
    if not source.is_file():
        raise BPEInputError(f"corpus file not found: {source}")
    total = source.stat().st_size
    if size > total:
        raise BPEInputError(
            f"cannot slice {size_label(size)} from {source.name}: it holds only {total} bytes"
        )
    if size == total:
        return source
    path = data_dir() / f"{source.stem}-{size_label(size)}.txt"
    if path.exists() and _is_prefix(path, source):
        return path  # else a slice of another file of the same name, or of an older version
    _writable_data_dir()
    # a block at a time, never the slice whole; a boundary is never inside a character, so a
    # bad byte in the copy is bad in the file itself
    with open(source, "rb") as f, replaced_whole(path) as partial, open(partial, "wb") as out:
        _copy_prefix(f, _boundary_end(f, size), out, source)
    return path


def _is_prefix(path: Path, source: Path) -> bool:
    """Whether the bytes of ``path`` begin ``source`` (compared a megabyte at a time)."""
    with open(path, "rb") as cached, open(source, "rb") as whole:
        while block := cached.read(MB):
            if whole.read(len(block)) != block:
                return False
    return True


# --- Which corpus the course uses ----------------------------------------------------------------


CORPUS_CHOICES = ("tinystories", "stories", "wide")
CORPUS_ALIASES = {"generated": "stories"}  # the name of the offline corpus before it had shapes


def corpus_source(choice: str | None = None) -> str:
    """``"tinystories"``, ``"stories"`` or ``"wide"``: the argument, else ``BPE_COURSE_CORPUS``,
    else TinyStories when its valid set is already in ``data/``, else the generated stories."""
    choice = choice or os.environ.get(CORPUS_ENV) or None
    if choice is None:
        valid = data_dir() / DATASETS["tinystories-valid"].filename
        return "tinystories" if valid.exists() else "stories"
    choice = CORPUS_ALIASES.get(choice, choice)
    if choice not in CORPUS_CHOICES:
        raise BPEInputError(
            f"unknown corpus {choice!r}; choose one of: {', '.join(CORPUS_CHOICES)} "
            "(stories and wide are generated offline)"
        )
    return choice


def course_corpus(size: int | str, choice: str | None = None, seed: int = 0) -> Path:
    """The course's corpus of ``size`` bytes: a slice of TinyStories valid, or a generated corpus
    of the shape chosen (see :func:`corpus_source`)."""
    source = corpus_source(choice)
    if source != "tinystories":
        return generated_corpus(size, seed, shape=source)
    valid = data_dir() / DATASETS["tinystories-valid"].filename
    if not valid.exists():
        raise BPEInputError(
            f"TinyStories is not in {data_dir()}; fetch it with `python -m bpe_course data fetch "
            "tinystories-valid`, or use an offline corpus (BPE_COURSE_CORPUS=stories or wide)"
        )
    return slice_corpus(valid, size)


def resolve_corpus(text: str | os.PathLike[str]) -> Path:
    """What a user may name as a corpus: a file, a dataset name (already fetched), or a size such
    as ``5MB`` (the course corpus of that size, see :func:`course_corpus`)."""
    path = Path(text)
    if path.exists():
        return path
    name = str(text)
    looks_like_size = re.fullmatch(r"\s*[0-9]*\.?[0-9]+\s*(B|KB|MB|GB)?\s*", name, re.I)
    if (path.suffix and not looks_like_size) or os.sep in name or "/" in name:  # 21.5MB: a size
        raise BPEInputError(f"corpus file not found: {path}")
    if name in DATASETS:
        fetched = data_dir() / DATASETS[name].filename
        if not fetched.exists():
            raise BPEInputError(
                f"dataset {name} is not downloaded yet; run `python -m bpe_course data fetch {name}`"
            )
        return fetched
    try:
        size = parse_size(name)
    except BPEInputError:
        raise BPEInputError(
            f"{name!r} is not a file, a dataset ({', '.join(DATASETS)}) or a size like 5MB"
        ) from None
    return course_corpus(size)
