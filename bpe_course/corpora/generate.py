"""Writing a generated corpus: streamed block by block, whole or not at all, in bounded memory.

The generators of both shapes yield blocks of documents (about a megabyte each) forever, from a
seed. A corpus of N bytes is the longest run of whole documents, from the start of that stream,
that fits in N bytes: so the 5 MB corpus is a prefix of the 21.5 MB one, as TinyStories' slices
are, and memory stays at a block or two whatever N is (``tests/test_corpora.py`` checks that the
peak does not grow with N).
The bytes go to a partial file of this run's own (see :mod:`bpe_course.files`) and are renamed
only when complete; an error, a full disk or Ctrl-C removes the partial file, so no file that
looks complete is ever left half-written. Two runs of the same corpus at once each write their
own partial file; the first to finish publishes it and the other keeps that one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from bpe_course.bars import progress_bar
from bpe_course.collector import collector_paused
from bpe_course.errors import BPEInputError
from bpe_course.files import partial_path, publish, remove_stale_partials
from bpe_course.pretokenize import END_OF_TEXT

if TYPE_CHECKING:  # for the hints only: loaded when a bar is shown
    pass

# Bump when the bytes for a given seed change: it is part of every generated file's name, so a
# corpus cached by an older generator is never taken for the current one.
GENERATOR_VERSION = 2

_DOCUMENT_END = f"{END_OF_TEXT}\n".encode()


def _stories(seed: int) -> Iterator[bytes]:
    from bpe_course.corpora.stories import story_blocks  # lazy: start-up (numpy, this shape only)

    return story_blocks(seed, GENERATOR_VERSION)


def _wide(seed: int) -> Iterator[bytes]:
    from bpe_course.corpora.wide import wide_blocks  # lazy: start-up (numpy, this shape only)

    return wide_blocks(seed, GENERATOR_VERSION)


def _growing(seed: int) -> Iterator[bytes]:
    from bpe_course.corpora.growing import growing_blocks  # lazy: start-up (numpy, this shape only)

    return growing_blocks(seed, GENERATOR_VERSION)


SHAPES: dict[str, tuple[Callable[[int], Iterator[bytes]], str]] = {
    "stories": (_stories, "children's stories shaped like TinyStories (few distinct words)"),
    "wide": (_wide, "encyclopedic articles: names, numbers, dates, ~12x the distinct words"),
    "growing": (_growing, "words whose number keeps growing with the text, as in real text"),
}


def check_shape(shape: str) -> str:
    if shape not in SHAPES:
        raise BPEInputError(f"unknown corpus shape {shape!r}; choose one of: {', '.join(SHAPES)}")
    return shape


def corpus_blocks(shape: str, seed: int = 0) -> Iterator[bytes]:
    """The endless stream of blocks of one shape (each block ends with a document boundary)."""
    return SHAPES[check_shape(shape)][0](seed)


def write_generated(
    path: Path, size: int, shape: str = "stories", seed: int = 0, progress: bool = False
) -> Path:
    """Write the first ``size`` bytes' worth of whole documents of ``shape`` to ``path``."""
    blocks = corpus_blocks(shape, seed)
    remove_stale_partials(path)
    partial = None
    bar = progress_bar(progress, size, f"generate {shape}", "B", leave=True)
    try:
        # the blocks hold no reference cycles: the collector would only walk the fragment lists
        with collector_paused():
            partial = partial_path(path)
            with open(partial, "wb") as out:
                written = 0
                for block in blocks:
                    room = size - written
                    last = len(block) >= room  # this block fills the file: cut it, then stop
                    if last:
                        block = block[: _last_document_end(block, room)]
                        if not block and not written:
                            raise BPEInputError(
                                f"the first {shape} document is longer than {size} bytes; "
                                "ask for a larger size"
                            )
                    out.write(block)
                    written += len(block)
                    if bar is not None:
                        bar.update(len(block))
                    if last:
                        break
            if bar is not None:
                bar.total = written  # whole documents end a little before the size asked for
            publish(partial, path, keep_existing=True)
    except OSError as err:
        raise BPEInputError(
            f"could not write {path}: {err.strerror}; free some disk space (or set "
            "BPE_COURSE_DATA to another folder) and try again"
        ) from None
    finally:
        if bar is not None:
            bar.close()
        if partial is not None:
            partial.unlink(missing_ok=True)  # gone after the rename; else an unfinished file
    return path


def _last_document_end(block: bytes, limit: int) -> int:
    """The length of the longest prefix of ``block``, at most ``limit``, made of whole documents."""
    at = block.rfind(_DOCUMENT_END, 0, limit)
    return 0 if at == -1 else at + len(_DOCUMENT_END)
