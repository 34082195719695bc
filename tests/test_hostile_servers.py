"""Servers that do not answer as they should, on 127.0.0.1: `data fetch` against replies that are
not HTTP or that come a byte at a time (issue 36, items 8 and 12), `--scheduler` against a service
that is not a Dask scheduler (items 9 and 13). Each is one line, never a traceback, and never a
wait without end (a hang is bounded here by running the client in a fresh process)."""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from collections.abc import Callable

import pytest

from bpe_course.__main__ import main

from .conftest import run_bounded


class RawServer:
    """A TCP server on 127.0.0.1 that hands each connection to ``reply`` (in a thread of its
    own), then closes it."""

    def __init__(self, reply: Callable[[socket.socket, threading.Event], None]) -> None:
        self.reply = reply
        self.stop = threading.Event()
        self.connected = threading.Event()  # a client has connected
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/corpus.txt"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                connection, _ = self.listener.accept()
            except (TimeoutError, OSError):
                continue
            self.connected.set()
            threading.Thread(target=self._one, args=(connection,), daemon=True).start()

    def _one(self, connection: socket.socket) -> None:
        with connection:
            try:
                self.reply(connection, self.stop)
            except OSError:  # the client went away
                pass

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        self.listener.close()


@pytest.fixture
def serve():
    servers: list[RawServer] = []

    def start(reply) -> RawServer:
        servers.append(RawServer(reply))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def read_request(connection: socket.socket) -> None:
    data = b""
    while b"\r\n\r\n" not in data:
        block = connection.recv(4096)
        if not block:
            return
        data += block


def replying(raw: bytes) -> Callable[[socket.socket, threading.Event], None]:
    """A server that reads the request, sends ``raw`` and hangs up."""

    def reply(connection: socket.socket, stop: threading.Event) -> None:
        read_request(connection)
        connection.sendall(raw)

    return reply


def trickling(head: bytes, drip: bytes, every_s: float = 0.1):
    """A server that sends ``head``, then ``drip`` every ``every_s`` for as long as the client
    listens: a socket's timeout, which bounds each wait, never fires."""

    def reply(connection: socket.socket, stop: threading.Event) -> None:
        read_request(connection)
        connection.sendall(head)
        while not stop.is_set():
            connection.sendall(drip)
            time.sleep(every_s)

    return reply


def fresh_env(tmp_path) -> dict[str, str]:
    return {
        **os.environ,
        "BPE_COURSE_DATA": str(tmp_path / "data"),
        "BPE_COURSE_BUILD": str(tmp_path / "build"),
    }


# --- data fetch: replies that are not HTTP (item 12) -------------------------------------------

NOT_HTTP = {
    "garbage status line": b"HELLO THERE\r\n\r\n",
    "an HTTP/0.9 body": b"Once upon a time there was a story.\n",
    "a 100 kB header": b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\nbody",
    "over 100 headers": b"HTTP/1.1 200 OK\r\n"
    + b"".join(b"X-%d: y\r\n" % i for i in range(120))
    + b"\r\nbody",
    "a status out of range": b"HTTP/1.1 42 Odd\r\n\r\n",
    # a body the client never asked to be compressed: with its length it looked whole, and the
    # gzip bytes became the corpus
    "a body encoded unasked": b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n"
    b"\r\n\x1f\x8b\x08\x00",
    "binary garbage": bytes(range(256)) * 4,
    "an empty reply": b"",
}


@pytest.mark.parametrize("raw", list(NOT_HTTP.values()), ids=list(NOT_HTTP))
def test_a_reply_that_is_not_http_is_one_line(serve, data_folder, capsys, raw) -> None:
    server = serve(replying(raw))
    code = main(["data", "fetch", "tinystories-train", "--url", server.url])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("bpe-course: error: "), err
    assert str(server.port) in err and not (data_folder / "TinyStoriesV2-GPT4-train.txt").exists()


def test_a_port_out_of_range_never_reaches_another_port(serve, data_folder, capsys) -> None:
    # the system takes a port modulo 65536: 65536 + P reached the server on port P
    server = serve(replying(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"))
    url = f"http://127.0.0.1:{server.port + 65536}/corpus.txt"
    code = main(["data", "fetch", "tinystories-train", "--url", url])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Port out of range" in err, err
    assert not server.connected.is_set()


def test_a_scheduler_port_out_of_range_never_reaches_another_port(serve, tmp_path) -> None:
    pytest.importorskip("distributed")
    server = serve(speaking_first(b"SSH-2.0-OpenSSH_9.6\r\n"))
    corpus = tmp_path / "c.txt"
    corpus.write_text("a cat<|endoftext|>a dog", encoding="utf-8")
    address = f"tcp://127.0.0.1:{server.port + 65536}"
    command = [sys.executable, "-m", "bpe_course", "train", str(corpus), "--vocab-size", "300"]
    done = run_bounded([*command, "--scheduler", address], 120, env=fresh_env(tmp_path))
    assert done is not None and done.returncode == 2, done
    assert "port out of 1-65535" in done.stderr and not server.connected.is_set(), done.stderr


@pytest.mark.parametrize(
    "url, says",
    [
        # a traceback of http.client's InvalidURL before; now urllib's own check says it
        ("http://127.0.0.1:abc/corpus.txt", "from 'http://127.0.0.1:abc/corpus.txt': Port"),
        ("file:///etc/hostname", "only http:// and https://"),  # a local file is not a download
        ("data:,hello", "only http:// and https://"),  # urllib would "download" these 5 bytes
        ("ftp://127.0.0.1:9/corpus.txt", "only http:// and https://"),
    ],
)
def test_an_address_that_is_not_a_web_address_is_one_line(data_folder, capsys, url, says):
    code = main(["data", "fetch", "tinystories-train", "--url", url])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and says in err, err
    assert not (data_folder / "TinyStoriesV2-GPT4-train.txt").exists()


# --- data fetch: the whole exchange bounded (item 8) -------------------------------------------

FETCH = """
import sys
from bpe_course.corpora.download import DownloadError, fetch
try:
    fetch("tinystories-train", url=sys.argv[1], timeout=1, progress=False, max_seconds=3)
except DownloadError as err:
    print(f"error: {err}")
"""


def redirecting(to: str):
    """A server that sends every request on to ``to``."""
    return replying(f"HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\n\r\n".encode())


def silent(connection: socket.socket, stop: threading.Event) -> None:
    """A server that takes the request and never answers."""
    read_request(connection)
    stop.wait()


SLOW = {
    # the status line, then one byte of a header at a time: each wait is short, the whole is not
    "a head sent a byte at a time": (
        trickling(b"HTTP/1.1 200 OK\r\nX-Slow: ", b"a"),
        "did not send its reply's status and headers within 1 s",
    ),
    # "100 Continue" without end: http.client skips each one and reads the next
    "100 Continue without end": (
        trickling(b"", b"HTTP/1.1 100 Continue\r\n\r\n"),
        "did not send its reply's status and headers within 1 s",
    ),
    # a body without length, a byte at a time, faster than the minimum rate's window can see
    "a body past its time limit": (
        trickling(b"HTTP/1.0 200 OK\r\n\r\n", b"x" * 2000, every_s=0.05),
        "took more than 3 s",
    ),
}


SLOW["silence"] = (silent, "error: ")  # one line either way: the socket's timeout or the whole
SLOW["a redirect to a head sent a byte at a time"] = ("redirect", SLOW[next(iter(SLOW))][1])


@pytest.mark.parametrize("reply, says", list(SLOW.values()), ids=list(SLOW))
def test_a_server_that_answers_slowly_is_stopped(serve, tmp_path, reply, says) -> None:
    if reply == "redirect":  # the connection a redirect opens is bounded too
        reply = redirecting(serve(trickling(b"HTTP/1.1 200 OK\r\nX-Slow: ", b"a")).url)
    server = serve(reply)
    done = run_bounded([sys.executable, "-c", FETCH, server.url], 120, env=fresh_env(tmp_path))
    assert done is not None, "the download was still waiting after 120 s"
    assert says in done.stdout, (done.stdout, done.stderr[-2000:])
    assert not (tmp_path / "data" / "TinyStoriesV2-GPT4-train.txt").exists()


# --- --scheduler: a service that is not a Dask scheduler (items 9 and 13) -----------------------


def speaking_first(raw: bytes, then_close: bool = False):
    """A service that speaks first, as a Dask scheduler does (and SSH, FTP, SMTP servers), then
    waits for the client (or hangs up)."""

    def reply(connection: socket.socket, stop: threading.Event) -> None:
        connection.sendall(raw)
        while not then_close and not stop.is_set():
            time.sleep(0.1)

    return reply


def speaking_slowly(head: bytes, drip: bytes, every_s: float = 0.1):
    """A service that speaks first, ``head`` and then ``drip`` every ``every_s``, endlessly."""

    def reply(connection: socket.socket, stop: threading.Event) -> None:
        connection.sendall(head)
        while not stop.is_set():
            connection.sendall(drip)
            time.sleep(every_s)

    return reply


NOT_DASK = {
    # the client read "SSH-2.0-" as a message's length: numpy's "Unable to allocate 2.82 EiB"
    "an SSH server's banner": (speaking_first(b"SSH-2.0-OpenSSH_9.6\r\n"), "began 'SSH-2.0-"),
    # eight bytes (a length the client believes), then silence: the client waited without end
    "8 bytes, then silence": (
        speaking_first(b"\x40" + b"\0" * 7),
        "did not answer as a Dask scheduler within",
    ),
    "an FTP greeting, then the door shut": (
        speaking_first(b"220 ready\r\n", then_close=True),
        "began '220 ready",
    ),
    # a length that fits, then bytes that are no frames of Dask's
    "a short message that is no handshake": (
        speaking_first(b"\x10" + b"\0" * 7 + b"\xff" * 16),
        "not as a Dask scheduler does",
    ),
    # a length that fits, then its bytes one at a time: each wait short, the whole without end
    "a handshake sent a byte at a time": (
        speaking_slowly((60_000).to_bytes(8, "little"), b"\0"),
        "did not answer as a Dask scheduler within",
    ),
    "half a message, then the door shut": (
        speaking_first(b"\x40" + b"\0" * 7 + b"\0" * 10, then_close=True),
        "closed before a whole message came",
    ),
}


@pytest.mark.parametrize("reply, says", list(NOT_DASK.values()), ids=list(NOT_DASK))
def test_a_scheduler_address_that_is_not_dask_is_one_line(serve, tmp_path, reply, says) -> None:
    pytest.importorskip("distributed")
    server = serve(reply)
    corpus = tmp_path / "c.txt"
    corpus.write_text("a cat<|endoftext|>a dog", encoding="utf-8")
    address = f"tcp://127.0.0.1:{server.port}"
    command = [
        sys.executable, "-m", "bpe_course", "train", str(corpus), "--vocab-size", "300",
        "--scheduler", address,
    ]  # fmt: skip
    done = run_bounded(command, 120, env=fresh_env(tmp_path))
    assert done is not None, "train was still waiting on the address after 120 s"
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr[-3000:]
    assert address in done.stderr and says in done.stderr, done.stderr


# --- Ctrl-C while waiting on a server ---------------------------------------------------------


def ctrl_c_while_waiting(command: list[str], env: dict, server: RawServer) -> tuple[int, str]:
    """Run ``command`` in its own group, send the group SIGINT (a terminal's Ctrl-C) once it
    waits on ``server``, and return its exit status and standard error."""
    import signal
    import subprocess

    process = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert server.connected.wait(60), "it never reached the server"
        time.sleep(0.5)  # into its wait for the reply
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    return process.returncode, err


def test_ctrl_c_while_a_reply_trickles_in_is_one_line(serve, tmp_path) -> None:
    server = serve(trickling(b"HTTP/1.1 200 OK\r\nX-Slow: ", b"a"))
    command = [sys.executable, "-m", "bpe_course", "data", "fetch", "tinystories-train"]
    command += ["--url", server.url]
    code, err = ctrl_c_while_waiting(command, fresh_env(tmp_path), server)
    assert code == 130 and err.strip() == "bpe-course: interrupted", err


def test_ctrl_c_while_a_scheduler_address_is_probed_is_one_line(serve, tmp_path) -> None:
    pytest.importorskip("distributed")
    server = serve(speaking_slowly((60_000).to_bytes(8, "little"), b"\0", every_s=1.0))
    corpus = tmp_path / "c.txt"
    corpus.write_text("a cat<|endoftext|>a dog", encoding="utf-8")
    command = [sys.executable, "-m", "bpe_course", "train", str(corpus), "--vocab-size", "300"]
    command += ["--scheduler", f"tcp://127.0.0.1:{server.port}"]
    code, err = ctrl_c_while_waiting(command, fresh_env(tmp_path), server)
    assert code == 130 and err.strip() == "bpe-course: interrupted", err
