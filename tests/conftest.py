"""Shared fixtures: corpora written to temporary files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

EOT = "<|endoftext|>"


def stdlib_corpus(min_bytes: int) -> str:
    """Real text of real shape, offline everywhere: CPython's own library sources (prose in
    docstrings and comments, code, many scripts of identifiers), documents joined by <|endoftext|>."""
    library = Path(os.__file__).parent
    parts, total = [], 0
    for source in sorted(library.glob("*.py")):
        text = source.read_text(encoding="utf-8", errors="replace")
        parts.append(text)
        total += len(text.encode("utf-8"))
        if total >= min_bytes:
            break
    return EOT.join(parts)


@pytest.fixture(scope="session")
def megabyte_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "stdlib_1mb.txt"
    path.write_text(stdlib_corpus(1_100_000), encoding="utf-8")
    assert path.stat().st_size >= 1_000_000
    return path


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the browser test last: it starts a JupyterLab server and a browser, and nothing it
    leaves behind may disturb the notebooks' own headless runs."""
    items.sort(key=lambda item: item.nodeid.startswith("tests/test_browser.py"))


class FullDisk:
    """A file whose every write fails as on a full disk (ENOSPC); the tests of saving and
    downloading wrap the files they mean to fail in it."""

    def __init__(self, f):
        self.f = f

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()

    def write(self, data):
        import errno

        raise OSError(errno.ENOSPC, "No space left on device")

    def close(self):
        self.f.close()
