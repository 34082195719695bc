"""Downloading a dataset of the registry into ``data/``: once, resumably, and kept only whole.

The bytes go to ``<file>.partial`` and are renamed to the file's name only once they are proven
whole: by their size (the registry's, or the length the server sent), by a known hash, or by a
chunked reply's last chunk. A body that nothing proves whole (the server sent no length and
closed the connection) stays a partial file. A download too slow or too long stops with its
partial file kept, so the next run resumes it; one download at a time per data folder. The
whole exchange is bounded in time: the reply's status and headers by ``timeout``, everything by
``max_seconds``, however slowly the server sends.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bpe_course.bars import progress_bar
from bpe_course.corpora.datasets import Dataset, _writable_data_dir, get_dataset
from bpe_course.errors import BPEInputError

if TYPE_CHECKING:  # for the hints only: loaded when a download runs (see _request)
    import http.client

    from tqdm.auto import tqdm


class DownloadError(BPEInputError):
    """A download failed; the message says why and what to do."""


# A download that moves slower than MIN_RATE bytes/s over RATE_WINDOW_S, or lasts longer than
# MAX_SECONDS, is stopped (the partial file is kept, so the next run resumes it): a read timeout
# alone never fires on a server that trickles a byte now and then.
MIN_RATE = 1_000
RATE_WINDOW_S = 60.0
MAX_SECONDS = 6 * 3600.0


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

    The bytes go to ``<file>.partial``; only once they are proven whole (their size, a known
    hash, or a chunked reply's last chunk) is it renamed to its final name: a body that nothing
    proves whole is one :class:`DownloadError`, its bytes kept for the next run to resume.
    ``url`` overrides the registry's (the tests use a local server): http or https only.
    ``timeout`` bounds each wait for the server and, in all, the wait for its reply's status and
    headers (redirects included). A reply to a resumed request (HTTP 206) must carry the range
    asked for (``Content-Range``); a download slower than ``min_rate`` bytes/s over
    ``rate_window_s``, or longer than ``max_seconds`` in all, stops with its partial file kept.
    The SHA-256 of a download is pinned (kept beside it, checked on the next download) only when
    its length or its last chunk proved it whole.
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
    name = dataset.name
    target = folder / dataset.filename
    if target.exists():  # finished by the download that held the lock before us
        return target
    partial = folder / (dataset.filename + ".partial")
    done = partial.stat().st_size if partial.exists() else 0
    deadline = _Deadline()
    started = time.monotonic()
    try:
        deadline.arm(
            timeout, f"it did not send its reply's status and headers within {timeout:g} s"
        )
        response = _request(url or dataset.url, name, done, timeout, deadline)
        if isinstance(response, _WholeAlready):  # HTTP 416: nothing left after the partial file
            return _verify_and_finish(dataset, partial, target, response.size)
        if limits.max_seconds is not None:
            left = limits.max_seconds - (time.monotonic() - started)
            deadline.arm(max(left, 0.0), f"it took more than {limits.max_seconds:g} s")
        else:
            deadline.cancel()
        with response:
            encoding = (response.headers.get("Content-Encoding") or "identity").strip().lower()
            if encoding != "identity":  # none was asked for: its bytes are not the file's
                raise DownloadError(
                    f"{url or dataset.url} sent {name} encoded ({encoding}), which a download "
                    "here does not undo; give another address with --url"
                )
            start, total = _body_start(response, done, name, partial)
            expected = dataset.size or total
            bar = progress_bar(
                progress, expected, name, "B", initial=start, unit_divisor=1024, leave=True
            )
            _receive(response, partial, start, name, limits, bar, on_bytes, deadline)
            # a chunked reply read to its last chunk is whole (one cut short raised on the way)
            chunked_whole = bool(getattr(response, "chunked", False))
    finally:
        deadline.cancel()
    got = partial.stat().st_size
    if expected is not None and got < expected:
        raise DownloadError(
            f"the download of {name} stopped at {got} of {expected} bytes; run the same command again to resume it"
        )
    return _verify_and_finish(dataset, partial, target, total, whole=chunked_whole)


class _WholeAlready:
    """A 416 reply to a resumed request: no bytes left after the partial file; ``size`` is the
    whole file's, if the reply said it (``Content-Range: bytes */SIZE``)."""

    def __init__(self, size: int | None) -> None:
        self.size = size


class _Deadline:
    """A bound on a whole exchange, where a socket's timeout bounds only each wait: a server
    that sends a byte now and then would never trip it. Every socket the exchange opens is
    watched; when the deadline passes they are shut down, what waits on them returns or fails at
    once, and ``reason`` says why."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._timer: threading.Timer | None = None
        self.reason: str | None = None

    def arm(self, seconds: float, reason: str) -> None:
        """(Re)start the clock: ``seconds`` from now, the exchange ends for ``reason``."""
        self.cancel()
        self._timer = threading.Timer(seconds, self._expire, (reason,))
        self._timer.daemon = True
        self._timer.start()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            expired = self.reason is not None
        if expired:
            _shut(sock)

    def _expire(self, reason: str) -> None:
        with self._lock:
            self.reason = reason
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    try:  # the socket's own shutdown, under any TLS wrapping: its reader sees the end at once
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:  # closed already
        pass


def _opener(deadline: _Deadline):
    """urllib's opener, with every connection it makes (redirects too) watched by ``deadline``."""
    import http.client
    import urllib.request

    def watched(connection_class):
        class Watched(connection_class):
            def __init__(self, *args, **kwargs) -> None:
                super().__init__(*args, **kwargs)
                create = self._create_connection

                def create_watched(*args, **kwargs):
                    sock = create(*args, **kwargs)
                    deadline.watch(sock)
                    return sock

                self._create_connection = create_watched

        return Watched

    plain, secure = watched(http.client.HTTPConnection), watched(http.client.HTTPSConnection)

    class Handler(urllib.request.HTTPHandler):
        def http_open(self, req):
            return self.do_open(plain, req)

    class SecureHandler(urllib.request.HTTPSHandler):
        def https_open(self, req):
            return self.do_open(secure, req, context=self._context)

    return urllib.request.build_opener(Handler, SecureHandler)


def _request(source: str, name: str, done: int, timeout: float, deadline: _Deadline):
    """The server's reply to a request for the bytes from ``done`` on, or :class:`_WholeAlready`
    when there are none left (HTTP 416 on a resumed request). Every way the server can fail to
    answer as HTTP (a garbage status line, a header too long, too many headers, silence, a reply
    sent a byte at a time past ``deadline``) is one :class:`DownloadError`."""
    # here, not at the top: urllib (with email and ssl) costs every command's start-up
    import http.client
    import urllib.error
    import urllib.parse
    import urllib.request

    try:
        parts = urllib.parse.urlsplit(source)
        if parts.scheme.lower() not in ("http", "https"):
            raise ValueError("only http:// and https:// addresses are downloaded from")
        if parts.port == 0:  # out of 1-65535 raises: the system would take it modulo 65536
            raise ValueError("port 0 is no server's")
        request = urllib.request.Request(
            source, headers={"Range": f"bytes={done}-"} if done else {}
        )
    except ValueError as err:  # not a URL at all, or not one of the web
        raise DownloadError(f"cannot download {name} from {source!r}: {err}") from None
    try:
        return _opener(deadline).open(request, timeout=timeout)
    except urllib.error.HTTPError as err:
        if err.code == 416 and done:  # the partial file is already whole
            match = re.fullmatch(
                r"bytes \*/(\d+)", (err.headers.get("Content-Range") or "").strip()
            )
            return _WholeAlready(int(match.group(1)) if match else None)
        raise DownloadError(
            f"downloading {name} from {source} failed: HTTP {err.code} {_one_line(err.reason)}"
        ) from None
    except (http.client.InvalidURL, ValueError, OverflowError) as err:  # a bad port, host, ...
        raise DownloadError(f"cannot download {name} from {source!r}: {_one_line(err)}") from None
    except (http.client.HTTPException, OSError) as err:
        if deadline.reason is not None:
            raise DownloadError(
                f"the server of {source} was too slow to answer: {deadline.reason}; try again "
                "later, or give a mirror with --url"
            ) from None
        if isinstance(err, http.client.HTTPException):  # not HTTP: BadStatusLine, LineTooLong...
            raise DownloadError(
                f"{source} did not answer as a web server does ({type(err).__name__}: "
                f"{_one_line(err) or 'an empty reply'}); is the address right?"
            ) from None
        reason = getattr(err, "reason", err)
        raise DownloadError(
            f"cannot reach {source} ({_one_line(reason)}). With no network, use the offline "
            "corpus: BPE_COURSE_CORPUS=stories (the default when TinyStories is not in data/)."
        ) from None


def _one_line(what: object, limit: int = 120) -> str:
    """``what`` as one short printable line: a server's garbage never reaches the terminal raw."""
    text = " ".join(str(what).split())
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _receive(
    response: http.client.HTTPResponse,
    partial: Path,
    start: int,
    name: str,
    limits: _Limits,
    bar: tqdm | None,
    on_bytes: Callable[[int], None] | None,
    deadline: _Deadline,
) -> None:
    """Write the reply's body into ``partial`` from ``start`` (0, or the partial file's end)."""
    import http.client  # lazy: start-up (the network stack, as in _request)

    try:
        with open(partial, "ab" if start else "wb") as out:
            _copy(response, out, limits, bar, on_bytes)
        if deadline.reason is not None:  # the body ended because its time was up
            raise TimeoutError(deadline.reason)
    except (OSError, http.client.HTTPException) as err:
        if deadline.reason is not None and not isinstance(err, TimeoutError):
            err = TimeoutError(deadline.reason)
        _stopped(err, name, partial)
    finally:
        if bar is not None:
            bar.close()


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
    dataset: Dataset, partial: Path, target: Path, expected: int | None = None, whole: bool = False
) -> Path:
    """Rename ``partial`` to ``target`` once it is proven whole and right: its size equal to the
    one known (the registry's, else ``expected``: the length the server sent), its hash equal to
    the one known (the registry's, else the one pinned by an earlier download), or ``whole``
    (a chunked reply read to its last chunk). A file nothing proves whole is never renamed:
    it stays the partial file, and the next run resumes it. The hash is pinned only when the
    size or the last chunk proved the file whole (a download cut short with no length must not
    become the reference)."""
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
    if expected is None and known is None and not whole:
        raise DownloadError(
            f"{dataset.name}: the server sent no length and no size or hash of it is known, so "
            f"whether the {size} bytes received are the whole file could not be checked; they stay "
            f"in {partial} and never become {target.name}. Run the command again to resume (a "
            f"server that answers ranges says the whole size), or remove {partial.name} to start "
            "afresh"
        )
    if expected is not None or whole:
        pinned.write_text(digest + "\n")
    os.replace(partial, target)
    return target


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()
