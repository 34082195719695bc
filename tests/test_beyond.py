"""Notebook 13's readings of a benchmark table, its figures, and memory over time."""

from __future__ import annotations

import os
import subprocess
import sys

import matplotlib
import pandas as pd
import pytest

from bpe_course.bench.beyond import paired_ratios, what_each_change_bought
from bpe_course.plots import draw_all, plot_memory, plot_side_by_side, plot_waterfall

matplotlib.use("Agg")


def table() -> pd.DataFrame:
    rows = []
    # per repeat: (pretokenize, merge) of v5, sites, fast; totals of hf
    for repeat, load in enumerate((1.0, 2.0, 1.0)):  # repeat 1 ran under twice the load
        for version, pre, merge in (("v5", 2.0, 1.0), ("sites", 2.0, 0.6), ("fast", 0.5, 0.3)):
            rows.append((version, repeat, pre * load, merge * load))
        rows.append(("hf", repeat, float("nan"), float("nan"), 4.0 * load))
    records = []
    for row in rows:
        version, repeat, pre, merge = row[:4]
        total = row[4] if len(row) > 4 else pre + merge
        records.append(
            {
                "corpus": "generated",
                "size_bytes": 21_500_000,
                "size": "21.5MB",
                "vocab_size": 5000,
                "version": version,
                "repeat": repeat,
                "status": "ok",
                "pretokenize_s": pre,
                "merge_s": merge,
                "total_s": total,
                "python": "3.11",
                "machine": "test",
                "date": "today",
            }
        )
    return pd.DataFrame(records)


def test_paired_ratios_cancel_the_load_of_a_repeat() -> None:
    ratios = paired_ratios(table(), "fast", "hf")
    assert len(ratios) == 1
    row = ratios.iloc[0]
    # 0.8 / 4.0 in every repeat, whatever the load
    assert row["median"] == pytest.approx(0.2) and row["min"] == pytest.approx(0.2)
    assert row["repeats"] == 3
    assert paired_ratios(table(), "fast", "rustbpe").empty  # not in the table


def test_waterfall_swaps_one_change_at_a_time() -> None:
    steps = what_each_change_bought(table(), 21_500_000, 5000)
    assert steps["seconds"].round(6).tolist() == [3.0, 1.5, 1.1, 0.8]
    assert steps["saved"].round(6).tolist() == [0.0, 1.5, 0.4, 0.3]
    # each saving's range: the phase swapped out at its fastest against the new at its slowest,
    # and the other way round (repeat 1 ran at twice the load, so the ranges are wide)
    assert steps["saved_low"].round(6).tolist() == [0.0, 1.0, -0.2, 0.0]
    assert steps["saved_high"].round(6).tolist() == [0.0, 3.5, 1.4, 0.9]
    empty = what_each_change_bought(table()[table()["version"] != "sites"], 21_500_000, 5000)
    assert empty.empty


def test_figures_draw() -> None:
    t = table()
    assert plot_side_by_side(t).axes
    assert plot_waterfall(what_each_change_bought(t, 21_500_000, 5000)).axes
    samples = pd.DataFrame({"seconds": [0, 1, 2], "rss_mb": [50, 300, 80], "processes": [1, 3, 1]})
    assert plot_memory(samples).axes
    assert "side_by_side_total" in draw_all(t)


def test_a_readers_trainer_is_drawn_beside_v4_and_v5() -> None:
    t = table()
    extra = []
    for version in ("v4", "v5", "mine:train"):
        for vocab in (1000, 2000):
            extra.append({**t.iloc[0].to_dict(), "version": version, "vocab_size": vocab})
    figures = draw_all(pd.concat([t, pd.DataFrame(extra)], ignore_index=True))
    labels = [line.get_label() for line in figures["beside_v4_v5"].axes[0].get_lines()]
    assert {"V4", "V5", "mine:train"} <= set(labels)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_memory_over_time_counts_the_workers(tmp_path, monkeypatch) -> None:
    from bpe_course.bench import memory
    from bpe_course.bench.machine import machine_label

    path = tmp_path / "corpus.txt"
    path.write_text(("a story of some words, told twice. " * 40 + "<|endoftext|>") * 3000)
    csv = tmp_path / "memory.csv"
    monkeypatch.setenv("BPE_COURSE_DATA", str(tmp_path))
    args = [str(path), "--version", "fast", "--vocab-size", "300", "--interval", "0.01"]
    memory.main([*args, "--csv", str(csv), "--note", "a test corpus"])
    samples = pd.read_csv(csv)
    assert len(samples) >= 1 and (samples["rss_mb"] > 0).all()
    assert samples["command"].iloc[0].startswith("python -m bpe_course.bench.memory ")
    assert samples["note"].iloc[0] == "a test corpus" and samples["merges"].iloc[0] > 0
    # where it ran, on how many cores and workers, how often it sampled: the notebook prints them
    summary = memory.summarize(samples)
    assert summary["machine"] == machine_label() and summary["workers"] == 2
    assert summary["interval_s"] == 0.01 and summary["peak_rss_children_mb"] > 0


BIG_RESULT = """
def train(path, vocab_size, special_tokens):
    merges = [(bytes([i % 256]) * 20, bytes([i % 251]) * 20) for i in range(20_000)]
    return {}, merges
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_memory_over_time_takes_a_result_larger_than_a_pipe(tmp_path) -> None:
    # a library's result holds its merges as hex: megabytes, where a pipe holds 64 KB; read only
    # once the run ended, the run waited for a reader forever
    (tmp_path / "big.py").write_text(BIG_RESULT)
    corpus = tmp_path / "c.txt"
    corpus.write_text("a cat sat")
    script = (
        "from bpe_course.bench.memory import sample_run\n"
        f"spec = dict(corpus={str(corpus)!r}, version='big:train', vocab_size=300, workers=1, "
        "special_tokens=[])\n"
        "print(sample_run(spec, 0.05)[1]['merges'])\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "20000"


def test_a_size_with_a_decimal_point_names_the_course_corpus(tmp_path, monkeypatch) -> None:
    # "21.5MB" has a suffix (".5MB") as a path: it was refused as a missing file
    from bpe_course.corpora.datasets import resolve_corpus
    from bpe_course.errors import BPEInputError

    monkeypatch.setenv("BPE_COURSE_DATA", str(tmp_path))
    monkeypatch.setenv("BPE_COURSE_CORPUS", "stories")
    assert resolve_corpus("0.05MB").name.startswith("generated-stories-0.05MB")
    with pytest.raises(BPEInputError, match="corpus file not found: nowhere.txt"):
        resolve_corpus("nowhere.txt")


def test_pretokenize_scaling_cli_times_both_and_refuses_a_missing_file(tmp_path, capsys) -> None:
    from bpe_course.bench.beyond import main

    corpus = tmp_path / "small.txt"
    corpus.write_text("the cat sat on the mat<|endoftext|>a dog ran\n" * 200, encoding="utf-8")
    main([str(corpus), "--repeats", "1"])
    out = capsys.readouterr().out
    assert "speed-up of 2 workers over 1, per repeat: [" in out
    with pytest.raises(SystemExit) as exit_info:
        main([str(tmp_path / "missing.txt")])
    assert exit_info.value.code == 2
    assert "is not a file" in capsys.readouterr().err
