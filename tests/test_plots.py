"""Figures: the crossover is found by interpolation, and figures save deterministically."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402

from bpe_course.plots import crossover_vocab, plot_crossover, save_figure  # noqa: E402


def test_crossover_interpolates_the_sign_change() -> None:
    # V5 - V4: +1 at 1000, -1 at 2000 -> halfway.
    assert crossover_vocab([500, 1000, 2000], [2.0, 1.0, -1.0]) == 1500
    assert crossover_vocab([500, 1000], [-1.0, -2.0]) is None  # V5 faster everywhere: no crossover
    assert crossover_vocab([500, 1000], [1.0, 0.5]) is None


def synthetic_table() -> pd.DataFrame:
    rows = []
    for vocab in (500, 1000, 2000, 4000):
        for version, seconds in (("v4", vocab / 1000), ("v5", 1.0 + vocab / 4000)):
            rows.append(
                {
                    "corpus": "generated",
                    "size_bytes": 10**6,
                    "size": "1MB",
                    "vocab_size": vocab,
                    "version": version,
                    "repeat": 0,
                    "status": "ok",
                    "merge_s": seconds,
                    "machine": "test",
                }
            )
    return pd.DataFrame(rows)


def test_crossover_figure_and_deterministic_files(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("BPE_COURSE_FIGURES", str(tmp_path))
    fig = plot_crossover(synthetic_table())
    assert "crossover ≈ 1,333" in [t.get_text() for t in fig.axes[0].texts]
    first = [p.read_bytes() for p in save_figure(fig, "cross")]
    second = [p.read_bytes() for p in save_figure(fig, "cross")]
    assert first == second
