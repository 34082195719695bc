"""Without the cluster extra the package still imports, and asking for a cluster says in one line
what to install. Runs whether or not Dask is installed (the Dask tests are in test_cluster.py)."""

from __future__ import annotations

import sys

import pytest

from bpe_course import BPEInputError
from bpe_course.cli import main

from .conftest import EOT


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "tiny.txt"
    path.write_text("once upon a time" + EOT + "the end", encoding="utf-8")
    return path


def test_dask_missing_is_one_line_saying_what_to_install(corpus, monkeypatch, capsys) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now fails
    from bpe_course.counting.cluster import count_words_on_cluster

    with pytest.raises(BPEInputError, match=r"pip install 'bpe_course\[cluster\]'"):
        count_words_on_cluster(corpus, [EOT])
    assert main(["train", str(corpus), "--vocab-size", "300", "--scheduler", "local"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'bpe_course[cluster]'" in err


def test_the_core_never_imports_dask(corpus) -> None:
    # A fresh interpreter: training without a scheduler must not load Dask, even where installed.
    import subprocess

    script = (
        "import sys\n"
        "import bpe_course, bpe_course.counting.cluster, bpe_course.cli\n"
        f"bpe_course.train_bpe({str(corpus)!r}, 300, ['<|endoftext|>'])\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed'))\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
