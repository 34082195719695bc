"""Corpora: the download (against a local HTTP server), slices, sizes (the generated corpora:
test_corpora.py)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bpe_course.corpora import datasets
from bpe_course.corpora.datasets import (
    BPEInputError,
    Dataset,
    generated_corpus,
    parse_size,
    slice_corpus,
)
from bpe_course.corpora.download import DownloadError, fetch
from bpe_course.counting import count_words

from .conftest import FullDisk

pytestmark = pytest.mark.usefixtures("data_folder")

PAYLOAD = ("Once upon a time there was a test.\n<|endoftext|>\n" * 4000).encode()


class Server:
    """A local HTTP server on 127.0.0.1 whose behaviour each test sets: drop, corrupt, no ranges."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.requests: list[str | None] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep the test output clean
                pass

            def do_GET(self):
                server.requests.append(self.headers.get("Range"))
                body, start = PAYLOAD, 0
                if server.mode == "corrupt":
                    body = PAYLOAD[:-10] + b"X" * 10
                rng = self.headers.get("Range")
                if rng and server.mode != "no-ranges":
                    start = int(rng.split("=")[1].rstrip("-"))
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
                else:
                    self.send_response(200)
                self.send_header("Content-Length", str(len(body) - start))
                self.end_headers()
                if server.mode == "drop":
                    server.mode = "ok"  # the next request succeeds
                    self.wfile.write(body[start : start + 50_000])
                    self.wfile.flush()
                    self.connection.shutdown(2)  # hang up mid-way
                    return
                self.wfile.write(body[start:])

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/stories.txt"
        # shutdown() waits for the loop's next look at its flag: every 0.5 s by default, half a
        # second at the end of each of these tests.
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server(monkeypatch):
    s = Server()
    digest = hashlib.sha256(PAYLOAD).hexdigest()
    test_set = Dataset("test-set", s.url, len(PAYLOAD), digest, "test", "test-set.txt")
    monkeypatch.setitem(datasets.DATASETS, "test-set", test_set)
    yield s
    s.close()


def test_download_complete_and_verified(server, data_folder) -> None:
    path = fetch("test-set", progress=False)
    assert path == data_folder / "test-set.txt" and path.read_bytes() == PAYLOAD
    assert not (data_folder / "test-set.txt.partial").exists()
    assert fetch("test-set", progress=False) == path and len(server.requests) == 1  # cached


def test_interrupted_download_leaves_no_finished_file_then_resumes(server, data_folder) -> None:
    server.mode = "drop"
    with pytest.raises(DownloadError, match="run the same command again to resume it"):
        fetch("test-set", progress=False)
    assert not (data_folder / "test-set.txt").exists()
    assert (data_folder / "test-set.txt.partial").stat().st_size == 50_000
    path = fetch("test-set", progress=False)
    assert path.read_bytes() == PAYLOAD
    assert server.requests == [None, "bytes=50000-"]  # resumed with a Range request


def test_server_refusing_ranges_restarts_from_zero(server, data_folder) -> None:
    (data_folder).mkdir(parents=True, exist_ok=True)
    (data_folder / "test-set.txt.partial").write_bytes(PAYLOAD[:1000])
    server.mode = "no-ranges"
    assert fetch("test-set", progress=False).read_bytes() == PAYLOAD


def test_wrong_bytes_are_refused(server, data_folder) -> None:
    server.mode = "corrupt"
    with pytest.raises(DownloadError, match="SHA-256 .* does not match"):
        fetch("test-set", progress=False)
    assert list(data_folder.iterdir()) == []  # nothing that looks finished, no partial either


def test_no_network_fails_fast_naming_the_offline_corpus() -> None:
    # Port 9 on 127.0.0.1: nothing listens, the connection is refused at once.
    with pytest.raises(DownloadError, match="BPE_COURSE_CORPUS=stories"):
        fetch("tinystories-valid", url="http://127.0.0.1:9/x.txt", progress=False, timeout=5)


def test_unknown_dataset() -> None:
    with pytest.raises(
        BPEInputError, match="unknown dataset 'tinystories-test'; known: tinystories-valid"
    ):
        fetch("tinystories-test")


def test_unwritable_data_folder(tmp_path, monkeypatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("BPE_COURSE_DATA", str(blocker / "data"))
    with pytest.raises(BPEInputError, match="cannot write to the data folder"):
        generated_corpus("10KB")


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("5MB", 5_000_000),
        ("21.5MB", 21_500_000),
        ("800kb", 800_000),
        (123, 123),
        ("1.1MB", 1_100_000),
    ],
)
def test_parse_size(text, size) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["0MB", "-1MB", "five", "", "2.5B", "0.0015KB", 7.5])
def test_bad_sizes(text) -> None:
    with pytest.raises(BPEInputError):
        parse_size(text)


def test_generated_corpus_shape_follows_heaps_law(data_folder) -> None:
    # Distinct words grow, but sub-linearly: 8x the text gives far fewer than 8x the words.
    small = len(count_words(generated_corpus("250KB"), ["<|endoftext|>"]))
    large = len(count_words(generated_corpus("2MB"), ["<|endoftext|>"]))
    assert small < large < 3 * small


def test_slice_ends_on_a_document_boundary(tmp_path, data_folder) -> None:
    source = tmp_path / "source.txt"
    source.write_bytes("é story one.\n<|endoftext|>\nstory two 😀.\n<|endoftext|>\n".encode() * 100)
    path = slice_corpus(source, 1000)
    data = path.read_bytes()
    assert len(data) <= 1000 and data.endswith(b"<|endoftext|>\n")
    assert source.read_bytes().startswith(data)
    assert slice_corpus(source, 1000) == path


def test_slice_bad_sizes(tmp_path) -> None:
    source = tmp_path / "s.txt"
    source.write_text("abc<|endoftext|>\n")
    with pytest.raises(BPEInputError, match="it holds only 17 bytes"):
        slice_corpus(source, 1000)
    with pytest.raises(BPEInputError, match="positive"):
        slice_corpus(source, 0)
    with pytest.raises(BPEInputError, match="not found"):
        slice_corpus(tmp_path / "missing.txt", 10)


def test_disk_full_during_download_leaves_nothing(server, data_folder, monkeypatch) -> None:
    import builtins

    real_open = builtins.open

    def fake_open(path, mode="r", *args, **kwargs):
        f = real_open(path, mode, *args, **kwargs)
        return (
            FullDisk(f) if str(path).endswith(".partial") and "b" in mode and "r" not in mode else f
        )

    monkeypatch.setattr(builtins, "open", fake_open)
    with pytest.raises(DownloadError, match="No space left on device; free some disk space"):
        fetch("test-set", progress=False)
    monkeypatch.setattr(builtins, "open", real_open)
    assert [p.name for p in data_folder.iterdir()] == []


# --- Downloads that lie about what they sent ---------------------------------------------------


class Liar(Server):
    """A server whose replies are wrong in one way each: cut short with no length, a 206 that is
    not the range asked for, a trickle, a chunked body cut short."""

    def __init__(self) -> None:
        super().__init__()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                server.requests.append(self.headers.get("Range"))
                mode = server.mode
                if mode == "ok":
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(PAYLOAD)))
                    self.end_headers()
                    self.wfile.write(PAYLOAD)
                elif mode == "cut-no-length":  # HTTP/1.0 style: the end of the body is the close
                    self.send_response(200)
                    self.end_headers()
                    self.wfile.write(PAYLOAD[:70_000])
                elif mode in ("whole-206", "wrong-206", "206-no-range"):
                    start = {"whole-206": 0, "wrong-206": 7}.get(mode, 0)
                    self.send_response(206)
                    if mode != "206-no-range":
                        self.send_header(
                            "Content-Range", f"bytes {start}-{len(PAYLOAD) - 1}/{len(PAYLOAD)}"
                        )
                    self.send_header("Content-Length", str(len(PAYLOAD) - start))
                    self.end_headers()
                    self.wfile.write(PAYLOAD[start:])
                elif mode == "trickle":
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(PAYLOAD)))
                    self.end_headers()
                    for i in range(0, len(PAYLOAD), 100):
                        try:
                            self.wfile.write(PAYLOAD[i : i + 100])
                            self.wfile.flush()
                        except OSError:
                            return
                        time.sleep(0.02)
                elif mode == "chunked-ok":  # no length, but a last chunk: whole
                    self.protocol_version = "HTTP/1.1"
                    self.send_response(200)
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for i in range(0, len(PAYLOAD), 50_000):
                        part = PAYLOAD[i : i + 50_000]
                        self.wfile.write(b"%x\r\n" % len(part) + part + b"\r\n")
                    self.wfile.write(b"0\r\n\r\n")
                    self.close_connection = True
                elif mode == "ranges-no-length":  # the rest, with the whole size in its range
                    start = int((self.headers.get("Range") or "bytes=0-")[6:].rstrip("-"))
                    self.send_response(206 if start else 200)
                    if start:
                        self.send_header(
                            "Content-Range", f"bytes {start}-{len(PAYLOAD) - 1}/{len(PAYLOAD)}"
                        )
                    self.end_headers()
                    self.wfile.write(PAYLOAD[start:])
                elif mode in ("416", "416-sized"):  # the partial file is all there is
                    self.send_response(416)
                    if mode == "416-sized":
                        self.send_header("Content-Range", f"bytes */{len(PAYLOAD)}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif mode == "chunked-cut":
                    self.protocol_version = "HTTP/1.1"
                    self.send_response(200)
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    self.wfile.write(b"%x\r\n" % 5000 + PAYLOAD[:5000] + b"\r\n")
                    self.wfile.write(b"%x\r\n" % 5000 + PAYLOAD[5000:6000])  # cut mid-chunk
                    self.wfile.flush()
                    self.close_connection = True

        self.httpd.RequestHandlerClass = Handler


@pytest.fixture
def liar(monkeypatch):
    s = Liar()
    unknown = Dataset("unknown-set", s.url, None, None, "test", "unknown-set.txt")
    sized = Dataset("sized-set", s.url, len(PAYLOAD), None, "test", "sized-set.txt")
    monkeypatch.setitem(datasets.DATASETS, "unknown-set", unknown)
    monkeypatch.setitem(datasets.DATASETS, "sized-set", sized)
    yield s
    s.close()


def test_unverified_download_never_pins_its_hash(liar, data_folder) -> None:
    liar.mode = "cut-no-length"
    # issue 36, item 2: no longer kept with a warning; never the final file (test below)
    with pytest.raises(DownloadError, match="could not be checked"):
        fetch("unknown-set", progress=False)
    assert not (data_folder / "unknown-set.txt.sha256").exists()
    liar.mode = "ok"  # the next, correct download is accepted
    assert fetch("unknown-set", progress=False).read_bytes() == PAYLOAD
    assert (data_folder / "unknown-set.txt.sha256").exists()  # complete: its length was sent


def test_206_with_the_whole_body_is_written_from_the_start(liar, data_folder) -> None:
    data_folder.mkdir(parents=True)
    (data_folder / "sized-set.txt.partial").write_bytes(PAYLOAD[:1000])
    liar.mode = "whole-206"
    assert fetch("sized-set", progress=False).read_bytes() == PAYLOAD
    assert liar.requests == ["bytes=1000-"]


@pytest.mark.parametrize("mode", ["wrong-206", "206-no-range"])
def test_206_not_for_the_range_asked_is_refused(liar, data_folder, mode) -> None:
    data_folder.mkdir(parents=True)
    (data_folder / "unknown-set.txt.partial").write_bytes(PAYLOAD[:1000])
    liar.mode = mode
    with pytest.raises(DownloadError, match="not the range asked for"):
        fetch("unknown-set", progress=False)
    assert list(data_folder.iterdir()) == []  # nothing kept: the next run starts afresh
    liar.mode = "ok"
    assert fetch("unknown-set", progress=False).read_bytes() == PAYLOAD


def test_a_trickle_is_stopped_at_the_minimum_rate(liar, data_folder) -> None:
    liar.mode = "trickle"  # about 5 KB/s
    with pytest.raises(DownloadError, match="slower than 50000 bytes/s.*run the same command"):
        fetch("sized-set", progress=False, min_rate=50_000, rate_window_s=0.5)
    assert (data_folder / "sized-set.txt.partial").exists()  # kept: the next run resumes


def test_a_download_is_stopped_at_its_time_limit(liar, data_folder) -> None:
    liar.mode = "trickle"
    with pytest.raises(DownloadError, match="took more than 0.5 s"):
        fetch("sized-set", progress=False, max_seconds=0.5, min_rate=1)
    assert not (data_folder / "sized-set.txt").exists()


def test_chunked_body_cut_short_is_resumable(liar, data_folder) -> None:
    liar.mode = "chunked-cut"
    with pytest.raises(DownloadError, match="run the same command again to resume it"):
        fetch("unknown-set", progress=False)
    assert not (data_folder / "unknown-set.txt").exists()


# --- Generated corpora written by two runs at once ---------------------------------------------


def _blocks(stop_after: int | None = None):
    for i in range(10_000):
        if stop_after is not None and i == stop_after:
            raise KeyboardInterrupt  # Ctrl-C in the second run
        yield f"story {i} of the test\n<|endoftext|>\n".encode() * 50


def test_two_generate_runs_at_once_never_mix(data_folder, monkeypatch) -> None:
    from bpe_course.corpora import generate

    data_folder.mkdir(parents=True)
    path = data_folder / "corpus.txt"
    size = 200 * len(next(_blocks()))
    runs = []

    def blocks(shape, seed=0):
        runs.append(shape)
        if len(runs) == 1:  # the first run: a second starts while it writes, and is interrupted
            for i, block in enumerate(_blocks()):
                if i == 100:
                    with pytest.raises(KeyboardInterrupt):
                        generate.write_generated(path, size, "stories")
                yield block
        else:
            yield from _blocks(stop_after=30)

    monkeypatch.setattr(generate, "corpus_blocks", lambda shape, seed=0: _blocks())
    expected = generate.write_generated(data_folder / "alone.txt", size).read_bytes()
    (data_folder / "alone.txt").unlink()
    monkeypatch.setattr(generate, "corpus_blocks", blocks)
    assert generate.write_generated(path, size, "stories") == path
    assert path.read_bytes() == expected  # whole, no NUL bytes from the other run
    assert [p.name for p in data_folder.iterdir()] == ["corpus.txt"]  # no partial left over


def test_generate_never_clobbers_a_finished_file(data_folder, monkeypatch) -> None:
    from bpe_course.corpora import generate

    data_folder.mkdir(parents=True)
    path = data_folder / "corpus.txt"

    def blocks(shape, seed=0):
        for i, block in enumerate(_blocks()):
            if i == 3:
                path.write_bytes(b"finished by another run\n")
            yield block

    monkeypatch.setattr(generate, "corpus_blocks", blocks)
    assert generate.write_generated(path, 10 * len(next(_blocks())), "stories") == path
    assert path.read_bytes() == b"finished by another run\n"
    assert [p.name for p in data_folder.iterdir()] == ["corpus.txt"]


def test_stale_partials_are_not_reused_and_are_cleared(data_folder) -> None:
    from bpe_course.corpora.generate import GENERATOR_VERSION

    data_folder.mkdir(parents=True)
    name = f"generated-stories-{datasets.size_label(20_000)}-seed0-g{GENERATOR_VERSION}.txt"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a process id that no longer runs: its partial file is an orphan
    stale = data_folder / f"{name}.{dead.pid}.partial"
    stale.write_bytes(b"\0" * 20_000)
    path = generated_corpus("20KB")
    assert b"\0" not in path.read_bytes() and path.stat().st_size > 19_000
    assert not stale.exists()


# --- More downloads and slices -----------------------------------------------------------------


def test_malformed_url_is_one_clear_error(server) -> None:
    with pytest.raises(DownloadError, match="cannot download test-set from 'not a url'"):
        fetch("test-set", url="not a url", progress=False)


def test_two_downloads_at_once_do_not_share_a_partial_file(liar, data_folder) -> None:
    liar.mode = "trickle"
    first_error: list[Exception] = []

    def first() -> None:
        try:
            fetch("sized-set", progress=False, max_seconds=3, min_rate=1)
        except DownloadError as err:
            first_error.append(err)

    thread = threading.Thread(target=first)
    thread.start()
    deadline = time.monotonic() + 30
    while not liar.requests and thread.is_alive():  # until the first download is under way
        assert time.monotonic() < deadline
        time.sleep(0.01)
    with pytest.raises(DownloadError, match="another download into .* is under way"):
        fetch("sized-set", progress=False)
    thread.join()
    assert "took more than 3 s" in str(first_error[0])  # the first one was left alone


def test_slices_of_two_files_with_one_name_are_not_mixed_up(tmp_path, data_folder) -> None:
    documents = "story {} here.\n<|endoftext|>\n"
    for folder, word in (("a", "one"), ("b", "two")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "corpus.txt").write_text(documents.format(word) * 100)
    first = slice_corpus(tmp_path / "a" / "corpus.txt", 500).read_text()
    second = slice_corpus(tmp_path / "b" / "corpus.txt", 500).read_text()
    assert "one" in first and "two" in second and "one" not in second


# --- Slices as long as asked (issue 36, item 6) -----------------------------------------------


@pytest.mark.parametrize(
    "document, size, expected",
    [
        (b"ab<|endoftext|>", 30, 30),  # a boundary that ends exactly at the size asked
        (b"ab<|endoftext|>", 44, 30),  # ... or within the last 13 bytes of it
        (b"abc<|endoftext|>\n", 34, 34),  # with its newline
        (b"abc<|endoftext|>\n", 33, 33),  # its newline does not fit: the boundary still does
        (b"abc<|endoftext|>\r\n", 36, 36),  # a CRLF line end, whole
        (b"abc<|endoftext|>\r\n", 35, 34),  # never a lone \r: the boundary without it
    ],
)
def test_slice_is_the_longest_prefix_on_a_boundary(tmp_path, data_folder, document, size, expected):
    source = tmp_path / "ten.txt"
    source.write_bytes(document * 10)
    data = slice_corpus(source, size).read_bytes()
    assert len(data) == expected and source.read_bytes().startswith(data)
    assert data.endswith((b"<|endoftext|>", b"<|endoftext|>\n", b"<|endoftext|>\r\n"))


# --- A body nothing proves whole never becomes the final file (issue 36, item 2) ---------------


def test_a_body_nothing_proves_whole_never_becomes_the_final_file(liar, data_folder, capsys):
    from bpe_course.__main__ import main

    liar.mode = "cut-no-length"  # 70 000 bytes, then the connection closed: no length, no hash
    for _ in range(2):  # and a second fetch does not hand back what the first refused
        with pytest.raises(DownloadError, match="could not be checked.*never become"):
            fetch("unknown-set", progress=False)
        assert not (data_folder / "unknown-set.txt").exists()
    assert (data_folder / "unknown-set.txt.partial").stat().st_size == 70_000  # to resume
    assert main(["data", "list"]) == 0
    assert "downloaded" not in capsys.readouterr().out.replace("not downloaded", "")
    assert main(["data", "fetch", "unknown-set"]) == 2
    err = capsys.readouterr().err  # the progress bar's, then one line
    assert err.count("bpe-course:") == 1 and "Traceback" not in err
    assert err.splitlines()[-1].startswith("bpe-course: error: unknown-set: the server sent no")
    with pytest.raises(BPEInputError, match="not downloaded yet"):
        datasets.resolve_corpus("unknown-set")  # so `train unknown-set` cannot use it either


def test_a_partial_body_is_finished_by_a_range_that_says_the_whole_size(liar, data_folder):
    liar.mode = "cut-no-length"
    with pytest.raises(DownloadError):
        fetch("unknown-set", progress=False)
    liar.mode = "ranges-no-length"  # 206 with Content-Range .../SIZE, still no Content-Length
    assert fetch("unknown-set", progress=False).read_bytes() == PAYLOAD
    assert liar.requests[-1] == "bytes=70000-"
    assert (data_folder / "unknown-set.txt.sha256").exists()  # its size proved it whole


def test_a_chunked_body_read_to_its_last_chunk_is_whole(liar, data_folder) -> None:
    liar.mode = "chunked-ok"
    assert fetch("unknown-set", progress=False).read_bytes() == PAYLOAD
    assert (data_folder / "unknown-set.txt.sha256").exists()


@pytest.mark.parametrize("mode, whole", [("416", False), ("416-sized", True)])
def test_a_416_finishes_a_partial_file_only_with_its_size(liar, data_folder, mode, whole):
    data_folder.mkdir(parents=True)
    (data_folder / "unknown-set.txt.partial").write_bytes(PAYLOAD)
    liar.mode = mode
    if whole:  # "bytes */SIZE": the partial file holds all SIZE bytes
        assert fetch("unknown-set", progress=False).read_bytes() == PAYLOAD
    else:
        with pytest.raises(DownloadError, match="could not be checked"):
            fetch("unknown-set", progress=False)
        assert not (data_folder / "unknown-set.txt").exists()


# --- Slices in bounded memory (issue 36's memory class) ----------------------------------------

SLICE_PEAK = """
import json, sys
from bpe_course.corpora.datasets import slice_corpus
def peak():
    return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
before = peak()
path = slice_corpus(sys.argv[1], sys.argv[2])
print(json.dumps({"grew_mb": (peak() - before) / 1024, "size": path.stat().st_size}))
"""


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/status"), reason="VmHWM: Linux")
def test_a_slice_is_copied_in_bounded_memory(tmp_path) -> None:
    # it read the whole slice, decoded it (4 bytes a character for emoji) and encoded it again:
    # over three times the slice's size
    import json
    import os

    source = tmp_path / "emoji.txt"
    document = ("😀" * 500 + "\n<|endoftext|>\n").encode()
    source.write_bytes(document * (30_000_000 // len(document)))
    env = {**os.environ, "BPE_COURSE_DATA": str(tmp_path / "data")}
    done = subprocess.run(
        [sys.executable, "-c", SLICE_PEAK, str(source), "25MB"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert 25_000_000 - len(document) < result["size"] <= 25_000_000, (result, done.stderr)
    assert result["grew_mb"] < 20, result  # a few blocks, not the 25 MB slice


def test_a_slice_finds_a_boundary_across_its_read_blocks(tmp_path, data_folder, monkeypatch):
    monkeypatch.setattr(datasets, "_SLICE_BLOCK", 64)
    source = tmp_path / "s.txt"
    text = ("x" * 100 + "<|endoftext|>\n") * 20
    source.write_text(text, encoding="utf-8")
    for size in range(120, 1000, 37):  # the last boundary by each size, wherever blocks fall
        data = slice_corpus(source, size).read_bytes()
        expected = text.encode()[:size]
        expected = expected[: expected.rindex(b"<|endoftext|>") + 13]
        if text.encode()[len(expected) : len(expected) + 1] == b"\n" and len(expected) < size:
            expected += b"\n"
        assert data == expected, size


def test_a_bad_byte_in_a_slice_is_named_across_blocks(tmp_path, data_folder, monkeypatch):
    monkeypatch.setattr(datasets, "_SLICE_BLOCK", 64)
    source = tmp_path / "s.txt"
    good = ("é" * 50 + "<|endoftext|>\n").encode() * 10
    source.write_bytes(good[:400] + b"\xff" + good[400:])  # between two characters
    with pytest.raises(BPEInputError, match="not valid UTF-8: byte 0xff at byte offset 400 "):
        slice_corpus(source, 1000)
    assert not list(data_folder.glob("s-*"))  # nothing written that looks like a slice
