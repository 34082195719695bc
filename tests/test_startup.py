"""Start-up cost: ``bpe-course train`` imports only what training needs (a whole-process timing
of a small corpus is mostly imports)."""

from __future__ import annotations

import subprocess
import sys


def test_train_imports_neither_pandas_nor_the_network_stack() -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bpe_course", "train", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "bpe_course.trainers.fast" in imported  # the listing is whole
    assert not imported & {"pandas", "http.client", "urllib.request", "ssl", "matplotlib"}
