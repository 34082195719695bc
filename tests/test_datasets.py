"""Corpora: the download (against a local HTTP server), slices, sizes (the generated corpora:
test_corpora.py)."""

from __future__ import annotations

import hashlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bpe_course.corpora import datasets
from bpe_course.corpora.datasets import (
    BPEInputError,
    Dataset,
    DownloadError,
    fetch,
    generated_corpus,
    parse_size,
    slice_corpus,
)
from bpe_course.pretokenize import count_words

PAYLOAD = ("Once upon a time there was a test.\n<|endoftext|>\n" * 4000).encode()


@pytest.fixture(autouse=True)
def data_folder(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    monkeypatch.setenv("BPE_COURSE_DATA", str(folder))
    monkeypatch.delenv("BPE_COURSE_CORPUS", raising=False)
    return folder


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
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
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
    ("text", "size"), [("5MB", 5_000_000), ("21.5MB", 21_500_000), ("800kb", 800_000), (123, 123)]
)
def test_parse_size(text, size) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["0MB", "-1MB", "five", ""])
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
    import errno

    real_open = builtins.open

    class FullDisk:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, chunk):
            raise OSError(errno.ENOSPC, "No space left on device")

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
