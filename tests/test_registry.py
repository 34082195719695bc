"""The registry is the one place a trainer is described: a trainer registered with its entry alone
(here V2's merge loop under a new name) trains through the API, runs in the grids its entry names,
and is drawn in every figure with its entry's label, colour and place, with no other edit."""

from __future__ import annotations

import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from bpe_course import train_bpe  # noqa: E402
from bpe_course.bench.grids import GRIDS  # noqa: E402
from bpe_course.bench.harness import check_versions  # noqa: E402
from bpe_course.plots import draw_all, plot_crossover, plot_side_by_side  # noqa: E402
from bpe_course.trainers import (  # noqa: E402
    ALL_TRAINERS,
    LIBRARIES,
    Trainer,
    in_order,
    register,
    shown,
)

from .conftest import EOT  # noqa: E402

TOY = Trainer(
    "toy",
    "V2's merge loop under another name",
    "bpe_course.trainers.v2_incremental",
    parallel=False,
    label="toy loop",
    color="#123456",
    order=25,  # between V2 and V3
    grids=("quick", "versions"),
)


@pytest.fixture
def toy():
    """TOY registered for one test, and the registry as it was afterwards."""
    before = dict(ALL_TRAINERS)
    register(TOY)
    yield TOY
    ALL_TRAINERS.clear()
    ALL_TRAINERS.update(before)


def timings(versions: tuple[str, ...]) -> pd.DataFrame:
    """A benchmark table of every figure's columns: two sizes, two vocab sizes, three repeats."""
    rows = []
    for size in (10**6, 4 * 10**6):
        for vocab in (300, 600):
            for repeat in range(3):
                for rank, version in enumerate(versions, start=1):
                    merge_s = size / 10**6 * vocab / 300 / rank * (1 + 0.01 * repeat)
                    rows.append(
                        {
                            "corpus": "generated",
                            "size_bytes": size,
                            "size": f"{size // 10**6}MB",
                            "vocab_size": vocab,
                            "version": version,
                            "repeat": repeat,
                            "status": "ok",
                            "pretokenize_s": 0.1,
                            "merge_s": merge_s,
                            "total_s": merge_s + 0.1,
                            "words": size // 100,
                            "machine": "test",
                        }
                    )
    return pd.DataFrame(rows)


def tick_labels(ax, axis: str = "x") -> list[str]:
    ticks = ax.get_xticklabels() if axis == "x" else ax.get_yticklabels()
    return [t.get_text() for t in ticks if t.get_text()]


def test_a_registered_trainer_trains_and_runs_in_the_grids_its_entry_names(toy, tmp_path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(("the cat sat on the mat" + EOT + "a dog ran\n") * 50, encoding="utf-8")
    assert train_bpe(corpus, 280, [EOT], version="toy") == train_bpe(
        corpus, 280, [EOT], version="v2"
    )
    assert GRIDS["versions"].versions == ("v1", "v2", "toy", "v3", "v4", "v5", "fastmax")
    assert GRIDS["quick"].versions == ("toy", "v4", "v5")
    assert "toy" not in GRIDS["beyond"].versions
    check_versions(GRIDS["quick"].versions)  # the harness runs it like a course version


def test_a_registered_trainer_is_drawn_as_its_entry_says(toy) -> None:
    table = timings(("v1", "v2", "toy", "v4", "v5"))
    figures = draw_all(table)
    # In its place (order 25: after V2) and with its label wherever versions are listed...
    assert tick_labels(figures["phases"].axes[0]) == ["V1", "V2", "toy loop", "V4", "V5"]
    assert "toy loop" in tick_labels(figures["speedups"].axes[0])
    side = plot_side_by_side(table)
    assert tick_labels(side.axes[0], "y") == ["V1", "V2", "toy loop", "V4", "V5"]
    # ... and in its colour wherever versions are lines: over vocab size and over corpus size.
    crossover = plot_crossover(table, versions=("v4", "v5", "toy"))
    scaling = figures["scaling_merge"]
    for fig in (crossover, scaling):
        lines = {line.get_label().split(":")[0]: line for line in fig.axes[0].get_lines()}
        assert lines["toy loop"].get_color() == "#123456"
        assert lines["V4"].get_color() == shown("v4").color
    # On the ladder's track: not drawn apart as a version from outside the course's ladder.
    assert "side_by_side_total" not in figures
    for fig in [*figures.values(), side, crossover]:
        plt.close(fig)


def test_a_readers_trainer_gets_a_label_and_a_colour_of_its_own() -> None:
    names = ("my_bpe:train_bpe", "mine:train", "solution:train_bpe")
    # The same colour in every process (a notebook's, the command line's), whatever its hash seed.
    code = f"from bpe_course.trainers import shown; print([shown(n).color for n in {names!r}])"
    elsewhere = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONHASHSEED": "12345"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert elsewhere.stdout.strip() == str([shown(name).color for name in names])
    taken = {entry.color for entry in [*ALL_TRAINERS.values(), *LIBRARIES.values()]}
    for name in names:
        assert shown(name).label == name
        assert shown(name).color not in taken  # never a registered trainer's
    assert in_order(["my_bpe:train_bpe", "hf", "v1", "v0"]) == [
        "v0",
        "v1",
        "hf",
        "my_bpe:train_bpe",
    ]


def test_a_name_is_registered_once() -> None:
    with pytest.raises(ValueError, match="already registered"):
        register(Trainer("hf", "not the library", "bpe_course.trainers.v2_incremental", False))
    with pytest.raises(ValueError, match="already registered"):
        register(Trainer("v5", "another V5", "bpe_course.trainers.v2_incremental", False))
    assert ALL_TRAINERS["v5"].title == "V5 heap" and "hf" not in ALL_TRAINERS
