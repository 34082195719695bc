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
    from bpe_course.cluster import count_words_on_cluster

    with pytest.raises(BPEInputError, match=r"pip install 'bpe_course\[cluster\]'"):
        count_words_on_cluster(corpus, [EOT])
    assert main(["train", str(corpus), "--vocab-size", "300", "--scheduler", "local"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'bpe_course[cluster]'" in err
