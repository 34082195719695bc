"""Corpora: the TinyStories download, the generated offline corpora, and slices of any.

Everything lands in ``data/`` (see :mod:`bpe_course.paths`). Files appear whole or not at all:
each is written to a ``.partial`` file first and renamed only once complete and verified.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from bpe_course.errors import BPEInputError
from bpe_course.files import write_atomically
from bpe_course.paths import data_dir
from bpe_course.pretokenize import END_OF_TEXT as EOT
from bpe_course.pretokenize import decode_utf8

MB = 1_000_000  # sizes in the course are decimal megabytes, as in the V1-V5 post

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


class DownloadError(BPEInputError):
    """A download failed; the message says why and what to do."""


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
    from bpe_course.corpora.generate import GENERATOR_VERSION, check_shape, write_generated

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


def _prefix_on_boundary(data: bytes, size: int) -> bytes:
    """The longest prefix of at most ``size`` bytes that ends right after an ``<|endoftext|>`` line."""
    if size >= len(data):
        return data
    marker = EOT.encode()
    cut = data.rfind(marker, 0, size - len(marker) + 1)
    if cut == -1:
        raise BPEInputError(
            f"no document boundary ({EOT}) in the first {size} bytes; ask for a larger size"
        )
    end = cut + len(marker)
    if data[end : end + 1] == b"\n":
        end += 1
    return data[:end] if end <= size else data[:cut]


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
    with open(source, "rb") as f:
        data = f.read(size + 1)
    prefix = _prefix_on_boundary(data, size)
    # a boundary is never inside a character, so a bad byte here is bad in the file itself
    return write_atomically(path, decode_utf8(prefix, str(source), 0))


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


# --- Downloading ---------------------------------------------------------------------------------


# A download that moves slower than MIN_RATE bytes/s over RATE_WINDOW_S, or lasts longer than
# MAX_SECONDS, is stopped (the partial file is kept, so the next run resumes it): a read timeout
# alone never fires on a server that trickles a byte now and then.
MIN_RATE = 1_000
RATE_WINDOW_S = 60.0
MAX_SECONDS = 6 * 3600.0


class UnverifiedDownloadWarning(UserWarning):
    """A download kept although nothing could prove it whole (no length sent, no hash known)."""


@dataclass
class _Limits:
    max_seconds: float | None
    min_rate: float
    rate_window_s: float


def fetch(
    name: str,
    *,
    url: str | None = None,
    progress: bool = True,
    timeout: float = 30.0,
    on_bytes: Callable[[int], None] | None = None,
    max_seconds: float | None = MAX_SECONDS,
    min_rate: float = MIN_RATE,
    rate_window_s: float = RATE_WINDOW_S,
) -> Path:
    """Download dataset ``name`` into ``data/`` (once), resuming a partial download when it can.

    The bytes go to ``<file>.partial``; only when the size (and the hash, where known) match is it
    renamed to its final name. ``url`` overrides the registry's (the tests use a local server).
    A reply to a resumed request (HTTP 206) must carry the range asked for (``Content-Range``);
    a download slower than ``min_rate`` bytes/s over ``rate_window_s``, or longer than
    ``max_seconds``, stops with its partial file kept. The SHA-256 of a download is pinned (kept
    beside it, checked on the next download) only when its length proved it whole.
    """
    dataset = get_dataset(name)
    folder = _writable_data_dir()
    target = folder / dataset.filename
    if target.exists():
        return target
    with _only_download(folder):
        return _fetch(
            dataset,
            folder,
            url,
            progress,
            timeout,
            on_bytes,
            _Limits(max_seconds, min_rate, rate_window_s),
        )


@contextlib.contextmanager
def _only_download(folder: Path) -> Iterator[None]:
    """Hold the data folder's lock for one download: two at once would append to one partial
    file (a second ``data fetch`` while the first runs, in another terminal) and corrupt it."""
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks here; the size and hash checks remain
        yield
        return
    handle = os.open(folder, os.O_RDONLY)
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DownloadError(
                f"another download into {folder} is under way; wait for it to finish (or stop "
                "it), then run the command again"
            ) from None
        yield
    finally:
        os.close(handle)  # closing releases the lock


def _fetch(
    dataset: Dataset,
    folder: Path,
    url: str | None,
    progress: bool,
    timeout: float,
    on_bytes: Callable[[int], None] | None,
    limits: _Limits,
) -> Path:
    # here, not at the top: http and urllib (with email and ssl) cost every command's start-up
    import http.client
    import urllib.error
    import urllib.request

    name = dataset.name
    target = folder / dataset.filename
    if target.exists():  # finished by the download that held the lock before us
        return target
    partial = folder / (dataset.filename + ".partial")
    source = url or dataset.url
    done = partial.stat().st_size if partial.exists() else 0
    try:
        request = urllib.request.Request(
            source, headers={"Range": f"bytes={done}-"} if done else {}
        )
    except ValueError as err:  # not a URL at all
        raise DownloadError(f"cannot download {name} from {source!r}: {err}") from None
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as err:
        if err.code == 416 and done:  # the partial file is already whole
            return _verify_and_finish(dataset, partial, target)
        raise DownloadError(
            f"downloading {name} from {source} failed: HTTP {err.code} {err.reason}"
        ) from None
    except (TimeoutError, urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise DownloadError(
            f"cannot reach {source} ({reason}). With no network, use the offline corpus: "
            "BPE_COURSE_CORPUS=stories (the default when TinyStories is not in data/)."
        ) from None
    with response:
        start, total = _body_start(response, done, name, partial)
        expected = dataset.size or total
        bar = _download_bar(progress, expected, start, name)
        try:
            with open(partial, "ab" if start else "wb") as out:  # start is 0 or the partial's end
                _copy(response, out, limits, bar, on_bytes)
        except (OSError, http.client.HTTPException) as err:
            _stopped(err, name, partial)
        finally:
            if bar is not None:
                bar.close()
    got = partial.stat().st_size
    if expected is not None and got < expected:
        raise DownloadError(
            f"the download of {name} stopped at {got} of {expected} bytes; run the same command again to resume it"
        )
    return _verify_and_finish(dataset, partial, target, total)


def _body_start(response, done: int, name: str, partial: Path) -> tuple[int, int | None]:
    """Where the reply's body starts in the file, and the file's whole size if the reply says.

    A 206 reply must say which range it holds: the body is written at that offset (from the
    start, if the server sent it all), and one that neither continues the partial file nor starts
    at 0 is refused, the partial file removed.
    """
    length = response.headers.get("Content-Length")
    if response.status != 206:  # the server ignored the Range header: start again from byte 0
        return 0, int(length) if length and length.isdigit() else None
    header = response.headers.get("Content-Range") or ""
    match = re.fullmatch(r"bytes (\d+)-(\d+)/(\d+|\*)", header.strip())
    if match is None or int(match.group(1)) not in (0, done):
        partial.unlink(missing_ok=True)
        raise DownloadError(
            f"the server sent part of {name} that is not the range asked for (bytes {done}-, got "
            f"{header or 'no Content-Range'}); the partial file was removed, run the command "
            "again to download it afresh"
        )
    first, last, size = match.groups()
    return int(first), None if size == "*" else int(size)


def _copy(response, out, limits: _Limits, bar, on_bytes: Callable[[int], None] | None) -> None:
    """Copy the body to ``out`` as it arrives, stopping a download too slow or too long."""
    started = window_start = time.monotonic()
    in_window = 0
    while chunk := response.read1(1 << 16):  # what has arrived, not a full 64 KB: see the rate
        out.write(chunk)
        if bar is not None:
            bar.update(len(chunk))
        if on_bytes is not None:
            on_bytes(len(chunk))
        now, in_window = time.monotonic(), in_window + len(chunk)
        if limits.max_seconds is not None and now - started > limits.max_seconds:
            raise TimeoutError(f"it took more than {limits.max_seconds:g} s")
        if now - window_start >= limits.rate_window_s:
            if in_window / (now - window_start) < limits.min_rate:
                raise TimeoutError(
                    f"it was slower than {limits.min_rate:g} bytes/s for {limits.rate_window_s:g} s"
                )
            window_start, in_window = now, 0


def _stopped(err: Exception, name: str, partial: Path):
    """The error for a download stopped mid-way: resumable, except for a local write failure."""
    if isinstance(err, OSError) and not isinstance(err, (TimeoutError, ConnectionError)):
        if err.errno is not None:  # the disk, not the network
            partial.unlink(missing_ok=True)
            raise DownloadError(
                f"could not write {partial}: {err.strerror}; free some disk space and try again"
            ) from None
    reason = str(err) or type(err).__name__
    raise DownloadError(
        f"the download of {name} was interrupted ({reason}); run the same command again to "
        "resume it"
    ) from None


def _verify_and_finish(
    dataset: Dataset, partial: Path, target: Path, expected: int | None = None
) -> Path:
    """Rename ``partial`` to ``target`` once its size and hash are right; pin its hash only when
    its size was known (a download cut short with no length must not become the reference)."""
    size = partial.stat().st_size
    expected = dataset.size or expected
    if expected is not None and size != expected:
        partial.unlink()
        raise DownloadError(
            f"{dataset.name}: got {size} bytes, expected {expected}; the partial file was removed, "
            "run the command again to download it afresh"
        )
    digest = sha256_of(partial)
    pinned = target.with_name(target.name + ".sha256")
    known = dataset.sha256 or (pinned.read_text().strip() if pinned.exists() else None)
    if known is not None and digest != known:
        partial.unlink()
        raise DownloadError(
            f"{dataset.name}: SHA-256 {digest} does not match the expected {known}; the file was "
            "removed. Run the command again; if it keeps failing, the source has changed."
        )
    if expected is not None:
        pinned.write_text(digest + "\n")
    elif known is None:
        warnings.warn(
            UnverifiedDownloadWarning(
                f"{dataset.name}: the server sent no length and no hash is known, so whether the "
                f"{size} bytes are the whole file could not be checked; its hash is not pinned"
            ),
            stacklevel=3,
        )
    os.replace(partial, target)
    return target


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _download_bar(enabled: bool, total: int | None, initial: int, name: str):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(
        total=total, initial=initial, unit="B", unit_scale=True, unit_divisor=1024, desc=name
    )
