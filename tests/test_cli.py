"""The command line: `train` writes GPT-2 files; a user's mistake is one line on stderr, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from bpe_course.__main__ import main
from bpe_course.formats import bytes_to_unicode


def test_train_writes_gpt2_files(tmp_path, capsys) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("the cat sat<|endoftext|>the cat ran\n" * 50, encoding="utf-8")
    out = tmp_path / "tok"
    code = main(
        [
            "train",
            str(corpus),
            "--vocab-size",
            "265",
            "--special-token",
            "<|endoftext|>",
            "-o",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "8 merges with v5" in printed and str(out / "merges.txt") in printed
    vocab = json.loads((out / "vocab.json").read_text(encoding="utf-8"))
    assert len(vocab) == 265 and vocab["<|endoftext|>"] == 256 and vocab["Ġ"] == 32
    merges = (out / "merges.txt").read_text(encoding="utf-8").splitlines()
    assert merges[0] == "#version: 0.2" and len(merges) == 9


def test_user_error_is_one_line(tmp_path, capsys) -> None:
    code = main(["train", str(tmp_path / "missing.txt"), "--vocab-size", "300"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("bpe-course: error: corpus file not found")


def test_bytes_to_unicode_is_a_bijection() -> None:
    table = bytes_to_unicode()
    assert sorted(table) == list(range(256)) and len(set(table.values())) == 256
    assert all(c.isprintable() and not c.isspace() for c in table.values())


def test_exhausted_corpus_warns_on_stderr(tmp_path, capsys) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("ab ab ab", encoding="utf-8")
    assert main(["train", str(corpus), "--vocab-size", "300"]) == 0
    captured = capsys.readouterr()
    assert "bpe-course: warning: stopped after 2 of 44 merges" in captured.err


def last_line(capsys) -> str:
    return capsys.readouterr().out.strip().splitlines()[-1]


def test_data_commands_print_the_file_path_last(data_folder, capsys) -> None:
    assert main(["data", "generate", "--size", "30KB", "--seed", "3"]) == 0
    generated = Path(last_line(capsys))
    assert generated.parent == data_folder and 0 < generated.stat().st_size <= 30_000
    assert main(["data", "slice", str(generated), "--size", "10KB"]) == 0
    sliced = Path(last_line(capsys))
    assert sliced.stat().st_size <= 10_000 and generated.read_bytes().startswith(
        sliced.read_bytes()
    )
    assert main(["data", "list"]) == 0
    listing = capsys.readouterr().out
    assert "tinystories-valid" in listing and "CDLA-Sharing-1.0" in listing
    assert listing.strip().splitlines()[-1] == str(data_folder)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["data", "fetch", "wikipedia"], "unknown dataset 'wikipedia'"),
        (["data", "generate", "--size", "0MB"], "a corpus size must be positive"),
        (["data", "generate", "--size", "lots"], "cannot read the size 'lots'"),
        (["data", "slice", "nowhere.txt", "--size", "1MB"], "corpus file not found"),
        (["data", "slice", "tinystories-valid", "--size", "1MB"], "is not downloaded yet"),
        (["train", "nowhere", "--vocab-size", "300"], "is not a file, a dataset"),
        (["train", "no/where.txt", "--vocab-size", "300"], "corpus file not found: no/where.txt"),
        (["plot", "nowhere.csv"], "no CSV at nowhere.csv"),
        (["trace", "nowhere.txt"], "corpus file not found: nowhere.txt"),
        (["trace", "20KB", "--vocab-size", "100"], "vocab_size=100 is too small"),
    ],
)
def test_mistakes_are_one_line(data_folder, capsys, argv, message) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_train_accepts_a_size_and_reports_phases(data_folder, capsys) -> None:
    assert main(["train", "40KB", "--vocab-size", "300", "--special-token", "<|endoftext|>"]) == 0
    out = capsys.readouterr().out
    assert "43 merges with v5" in out and "pretokenize" in out and "merges " in out


@pytest.mark.slow
def test_bench_then_plot(data_folder, tmp_path, capsys) -> None:
    csv = tmp_path / "b.csv"
    argv = ["bench", "--versions", "v4", "v5", "--sizes", "20KB", "40KB"]
    argv += ["--vocab-sizes", "270", "290", "--workers", "1", "--csv", str(csv)]
    assert main(argv) == 0
    assert last_line(capsys) == str(csv)
    table = pd.read_csv(csv)
    assert len(table) == 8 and set(table["status"]) == {"ok"}
    out = tmp_path / "figs"
    assert main(["plot", str(csv), "-o", str(out)]) == 0
    names = {p.name for p in out.iterdir()}
    for stem in ("crossover", "ratio_heatmap_total", "scaling_merge"):
        assert {f"{stem}.svg", f"{stem}.png", f"{stem}.csv"} <= names


def test_trace_then_plot(data_folder, tmp_path, capsys) -> None:
    csv, figures = tmp_path / "t.csv", tmp_path / "figs"
    argv = ["trace", "30KB", "--vocab-size", "300", "--csv", str(csv), "-o", str(figures)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.strip().splitlines()[-1] == str(csv) and "v4: 43 merges" in out
    trace = pd.read_csv(csv)
    assert list(trace.groupby("version").size()) == [43, 43]
    assert {p.name for p in figures.iterdir()} == {
        f"per_merge_cost.{ext}" for ext in ("svg", "png", "csv")
    }
    again = tmp_path / "again"
    assert main(["plot", str(csv), "-o", str(again)]) == 0
    assert (again / "per_merge_cost.svg").stat().st_size > 10_000
    (tmp_path / "empty.csv").write_text("version,merge,words_touched,seconds\n")
    assert main(["plot", str(tmp_path / "empty.csv")]) == 2
    assert "holds no rows to draw" in capsys.readouterr().err
    (tmp_path / "other.csv").write_text("a,b\n1,2\n")
    assert main(["plot", str(tmp_path / "other.csv")]) == 2
    assert "neither a benchmark nor a trace CSV" in capsys.readouterr().err


@pytest.mark.parametrize(
    "command",
    [
        ["train"],
        ["data"],
        ["data", "fetch"],
        ["data", "slice"],
        ["bench"],
        ["plot"],
        ["trace"],
        ["course"],
    ],
)
def test_help_is_complete(command, capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main([*command, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: bpe-course " + " ".join(command))
    assert "--help" in out


def test_explore_without_voila_says_what_to_install(monkeypatch, capsys) -> None:
    import importlib.util

    from bpe_course.__main__ import main

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "voila" else real(name, *a)
    )
    assert main(["explore", "--no-browser"]) == 2
    assert "needs Voila: pip install -e '.[explore]'" in capsys.readouterr().err
