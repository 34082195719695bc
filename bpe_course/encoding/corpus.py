"""Encoding a whole corpus into a ``.npy`` file of ids, streamed, on one process or many.

The corpus forms training takes (a file, a directory, a glob, a list; plain text or ``.gz``:
:mod:`bpe_course.counting.sources`) are planned as training plans them
(:mod:`bpe_course.counting.plan`): a plain file into chunks of a few MB cut where no pretoken and
no special token crosses, each read by the process that encodes it; a ``.gz`` file streamed by
this process (:mod:`bpe_course.counting.texts`: gzip has no index), its texts cut the same way
and handed out. Each chunk is encoded alone (:class:`~bpe_course.encoding.chunks.ChunkEncoder`):
the ids of a file are the ids of its chunks, one after the other, and those of a corpus the ids
of its files in order (a file's end is a document's end).

Order and memory: the chunks are handed out in file order and their ids come back in that order
(:func:`bpe_course.pool.run_in_order`), at most a few chunks ahead of the one being written; the
ids go straight into the ``.npy`` (:class:`~bpe_course.encoding.npy.NpyWriter`). So memory follows
the chunks and each process's tables of distinct units, never the corpus. The file is written
to a partial file of its own and renamed only when whole (:mod:`bpe_course.files`): an error,
Ctrl-C or a kill leaves nothing under the final name.

Bytes that are not UTF-8 stop the run with the file and the offset of the first bad byte, as
training does: a text that cannot be decoded has no ids ``tiktoken`` or ``Tokenizer.encode``
would agree on, and a replacement character would put ids in the file for bytes it does not hold.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
import zlib
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from bpe_course.bars import progress_bar
from bpe_course.counting.counters import choose_counter
from bpe_course.counting.plan import (
    ByteRange,
    Task,
    effective_workers,
    file_chunks,
)
from bpe_course.counting.sources import (
    GZIP_SUFFIX,
    Corpus,
    check_unchanged,
    file_states,
    resolve_sources,
)
from bpe_course.counting.texts import decode_utf8, read_range, task_texts
from bpe_course.encoding.chunks import ChunkEncoder
from bpe_course.encoding.npy import NpyWriter
from bpe_course.errors import BPEInputError
from bpe_course.files import partial_path, publish, remove_stale_partials
from bpe_course.pool import StartMethod, run_in_order
from bpe_course.tokenizer import Tokenizer

# A chunk of a plain file: a worker holds its bytes and its arrays at once. Small enough that
# numpy's temporaries are served from memory already mapped (bigger ones are mapped afresh by
# the allocator each time, and the kernel zeroes every page); big enough that the calls per chunk
# cost little.
CHUNK_BYTES = 1_000_000
# Below this many bytes per worker a process pool costs more than it saves.
MIN_BYTES_PER_WORKER = 8_000_000


class Job(NamedTuple):
    """A text to encode alone: bytes ``start`` to ``end`` of ``path`` (of its decompressed data,
    for a ``.gz``), given in ``data`` when this process read them (a ``.gz``'s), else read by
    the worker; ``read`` is the bytes on disk it accounts for (the progress bar's)."""

    path: str
    start: int
    end: int
    data: bytes | None
    read: int


@dataclass(frozen=True)
class EncodeReport:
    """What :func:`encode_corpus` wrote: ``tokens`` ids of ``dtype`` for ``text_bytes`` bytes of
    text, in ``seconds`` on ``workers`` processes."""

    path: Path
    tokens: int
    text_bytes: int
    seconds: float
    dtype: str
    workers: int
    vocab_size: int

    @property
    def bytes_per_token(self) -> float:
        """The compression ratio: bytes of text per id."""
        return self.text_bytes / self.tokens if self.tokens else 0.0

    @property
    def megabytes_per_second(self) -> float:
        return self.text_bytes / self.seconds / 1e6 if self.seconds else 0.0


def ids_dtype(tokenizer: Tokenizer) -> np.dtype:
    """``uint16`` when every id fits (a vocabulary of up to 65,536 ids), else ``uint32``."""
    return np.dtype(np.uint16 if max(tokenizer.vocab) < 1 << 16 else np.uint32)


def encode_corpus(
    corpus: Corpus,
    tokenizer: Tokenizer,
    output: str | os.PathLike[str],
    *,
    workers: int | None = 1,
    progress: bool | None = None,
    start_method: StartMethod = None,
    min_bytes_per_worker: int = MIN_BYTES_PER_WORKER,
    on_encoded: Callable[[int], object] | None = None,
) -> EncodeReport:
    """Encode ``corpus`` with ``tokenizer`` into the ``.npy`` file ``output``: its ids, in
    order, equal to ``tokenizer.encode`` of each file's text, the files one after the other.

    ``corpus``: a file, a directory, a glob or a list of them, plain text or ``.gz``.
    ``workers``: processes (``None``: every core; fewer for a small corpus, one per
    ``min_bytes_per_worker``); the file is the same for any number. ``progress``: a bar of the
    bytes read. ``on_encoded``: called with the bytes on disk each chunk accounts for, in order.
    The ids are ``uint16`` when the vocabulary fits, else ``uint32`` (:func:`ids_dtype`).
    """
    paths = resolve_sources(corpus)
    output = check_output(output)
    if output.resolve() in paths:
        raise BPEInputError(f"{output} is a file of the corpus; write the ids somewhere else")
    states = file_states(paths)
    dtype = ids_dtype(tokenizer)
    size = sum(path.stat().st_size for path in paths)
    n_workers = effective_workers(size, workers, min_bytes_per_worker)
    counter = choose_counter("pieces", tokenizer.special_tokens)
    jobs = plan_jobs(paths, tokenizer.special_tokens, counter)
    remove_stale_partials(output)
    partial = partial_path(output)
    bar = progress_bar(progress, size, "encode", "B")
    started = time.perf_counter()
    text_bytes = 0
    try:
        with NpyWriter(partial, dtype) as writer:
            results = encoded_jobs(jobs, tokenizer, dtype, n_workers, start_method)
            with contextlib.closing(results):  # a pool's workers stop with it, whatever happens
                for ids, length, read in results:
                    writer.append(ids)
                    text_bytes += length
                    if bar is not None:
                        bar.update(read)
                    if on_encoded is not None:
                        on_encoded(read)
        check_unchanged(paths, states)
        publish(partial, output)
    finally:
        partial.unlink(missing_ok=True)
        if bar is not None:
            bar.close()
    return EncodeReport(
        path=output,
        tokens=writer.length,
        text_bytes=text_bytes,
        seconds=time.perf_counter() - started,
        dtype=dtype.name,
        workers=n_workers,
        vocab_size=len(tokenizer),
    )


def encoded_jobs(
    jobs: Iterator[Job],
    tokenizer: Tokenizer,
    dtype: np.dtype,
    n_workers: int,
    start_method: StartMethod,
) -> Generator[tuple[np.ndarray, int, int], None, None]:
    """``(ids, text bytes, bytes read)`` for each job, in the jobs' order: here for one worker,
    else on a pool whose workers each build their encoder once."""
    if n_workers == 1:
        encoder = ChunkEncoder(tokenizer)
        return (encode_job(job, encoder, dtype) for job in jobs)
    return run_in_order(
        _encode_in_worker,
        jobs,
        n_workers,
        start_method=start_method,
        initializer=_start_worker,
        initargs=(tokenizer, dtype),
    )


def check_output(output: str | os.PathLike[str]) -> Path:
    """``output`` if a file can be written there, else one clear error (before any work)."""
    path = Path(output)
    if path.is_dir():
        raise BPEInputError(f"{path} is a folder; give the path of the .npy file to write")
    folder = path.parent
    if not folder.is_dir():
        raise BPEInputError(f"cannot write {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise BPEInputError(f"cannot write into {folder}: permission denied or read-only")
    return path


def plan_jobs(paths: Sequence[Path], special_tokens: Sequence[str], counter: str) -> Iterator[Job]:
    """The corpus's texts to encode, in order, planned lazily (a file when it is reached)."""
    specials = tuple(special_tokens)
    for path in paths:
        size = path.stat().st_size
        if size == 0:
            continue
        if path.name.endswith(GZIP_SUFFIX):
            yield from _gzip_jobs(ByteRange(str(path), 0, size), specials, counter)
            continue
        wanted = math.ceil(size / CHUNK_BYTES)
        for chunk in file_chunks(path, specials, counter, wanted):
            yield Job(chunk.path, chunk.start, chunk.end, None, chunk.size)


def _gzip_jobs(whole: ByteRange, special_tokens: tuple[str, ...], counter: str) -> Iterator[Job]:
    try:
        for text in task_texts(Task((whole,), special_tokens, counter)):
            yield Job(text.path, text.offset, text.offset + len(text.data), text.data, text.read)
    except OSError as err:  # gzip.BadGzipFile is an OSError too
        raise BPEInputError(f"cannot read {whole.path}: {err.strerror or err}") from None
    except (EOFError, zlib.error) as err:
        raise BPEInputError(f"{whole.path} is not a whole gzip file: {err}") from None


def encode_job(job: Job, encoder: ChunkEncoder, dtype: np.dtype) -> tuple[np.ndarray, int, int]:
    """``(ids, bytes of text, bytes on disk)`` of one job; a text that is not UTF-8 is one clear
    error naming the file and the offset of its first bad byte."""
    if job.data is not None:
        data = job.data
    else:
        try:
            data = read_range(ByteRange(job.path, job.start, job.end))
        except OSError as err:
            raise BPEInputError(f"cannot read {job.path}: {err.strerror or err}") from None
    try:
        ids = encoder.encode(data)
    except UnicodeDecodeError:
        where = " of the decompressed data" if job.data is not None else ""
        decode_utf8(data, job.path, job.start, where)  # raises, naming the offset
        raise
    return ids.astype(dtype), len(data), job.read


# --- In a worker process --------------------------------------------------------------------------

_worker: tuple[ChunkEncoder, np.dtype] | None = None  # this process's encoder, once set up


def _start_worker(tokenizer: Tokenizer, dtype: np.dtype) -> None:
    global _worker
    _worker = (ChunkEncoder(tokenizer), dtype)


def _encode_in_worker(job: Job) -> tuple[np.ndarray, int, int]:
    assert _worker is not None, "the pool's initializer sets the encoder up"
    encoder, dtype = _worker
    return encode_job(job, encoder, dtype)
