"""Heaps' law measured (bench/heaps.py): the checkpoints count what the pattern counts, the fit
finds a power law it is given, and a reader's files are read whole."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bpe_course.bench.heaps import FIRST_CHECKPOINT, file_texts, fit_heaps, fit_table, heaps_points
from bpe_course.pretokenize import GPT2_REGEX


def test_checkpoints_count_the_distinct_pretokens_so_far() -> None:
    texts = [" ".join(f"w{i % 5000}" for i in range(k * 3000, (k + 1) * 3000)) for k in range(20)]
    points = heaps_points(iter(texts))
    tokens = [t for text in texts for t in GPT2_REGEX.findall(text)]
    for row in points.itertuples():
        assert row.W == len(set(tokens[: row.n]))
    assert points["n"].iloc[0] == FIRST_CHECKPOINT and points["n"].iloc[-1] == len(tokens)


def test_fit_finds_the_power_law_it_is_given() -> None:
    n = np.array([1e5, 2e5, 4e5, 8e5, 1.6e6])
    k, beta = fit_heaps(n, 3.0 * n**0.6)
    assert abs(k - 3.0) < 1e-6 and abs(beta - 0.6) < 1e-9
    points = pd.DataFrame({"n": np.tile(n, 2), "W": np.r_[3 * n**0.6, 5 * n**0.7]})
    points["source"] = ["a"] * 5 + ["b"] * 5
    table = fit_table(points).set_index("source")
    assert abs(table.loc["b", "beta"] - 0.7) < 1e-9 and table.loc["b", "beta_low"] > 0.69
    assert 0.6 < table.loc["pooled", "beta"] < 0.8


def test_a_reader_s_files_are_read_whole(tmp_path) -> None:
    path = tmp_path / "owt.txt"
    text = "".join(f"line {i} of some words\n" for i in range(50_000)) + "no newline at the end"
    path.write_text(text)
    blocks = list(file_texts([str(path)], block=4096))
    assert "".join(blocks) == text and len(blocks) > 10
    assert all(block.endswith("\n") for block in blocks[:-1])
