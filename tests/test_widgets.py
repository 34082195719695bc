"""The notebooks' widgets, driven without a browser: controls redraw, escapes hold, failures show.

The browser test (``test_browser.py``) checks that the explorer renders in JupyterLab; these check
the logic behind the controls, fast, on every run.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from bpe_course.bench.harness import stored_results  # noqa: E402
from bpe_course.course.widgets import (  # noqa: E402
    byte_explorer,
    byte_table,
    crossover_explorer,
    sennrich_stepper,
    stepper_html,
)
from bpe_course.reference.sennrich import END_OF_WORD, steps  # noqa: E402


def controls(widget) -> dict[str, object]:
    """The explorer's controls by their description (or button label), found in its boxes."""
    found, stack = {}, [widget]
    while stack:
        node = stack.pop()
        stack.extend(getattr(node, "children", ()))
        label = getattr(node, "description", "")
        if label:
            found[label] = node
    return found


def status_text(widget) -> str:
    """The first HTML widget's text, searched through the boxes."""
    from ipywidgets import HTML

    stack = [widget]
    while stack:
        node = stack.pop(0)
        if isinstance(node, HTML):
            return node.value
        stack.extend(getattr(node, "children", ()))
    raise AssertionError("no HTML widget")


def test_byte_table_counts_utf8_bytes() -> None:
    table = byte_table("aé😀")
    assert list(table["n bytes"]) == [1, 2, 4]
    assert table["UTF-8 bytes"].iloc[2] == "F0 9F 98 80"
    assert table["bits"].iloc[1] == "11000011 10101001"
    explorer = byte_explorer("aé")
    controls(explorer)["text:"].value = "😀"
    assert "<b>1</b> characters, <b>4</b> UTF-8 bytes" in status_text(explorer)


def test_stepper_shows_the_end_of_word_marker_escaped() -> None:
    first = steps(merges=3)[-1]
    page = stepper_html(first)
    assert "&lt;/w&gt;" in page and END_OF_WORD not in page
    import matplotlib.pyplot as plt

    open_before = plt.get_fignums()
    stepper = sennrich_stepper(merges=3)
    slider = controls(stepper)["merges done:"]
    controls(stepper)["next ▶"].click()
    controls(stepper)["next ▶"].click()
    assert slider.value == 2
    for _ in range(5):
        controls(stepper)["next ▶"].click()
    assert slider.value == slider.max == 3
    controls(stepper)["◀ previous"].click()
    assert slider.value == 2
    assert plt.get_fignums() == open_before  # every redraw closed its figure


@pytest.fixture
def stored() -> pd.DataFrame:
    table = stored_results("crossover_generated")
    return table[table["size"].isin(["1MB", "5MB"])]


def test_explorer_selection_drives_the_count(stored) -> None:
    import matplotlib.pyplot as plt

    open_before = plt.get_fignums()
    explorer = crossover_explorer(stored)
    found = controls(explorer)
    assert status_text(explorer) == f"{len(stored)} runs shown"
    found["corpus:"].value = ("1MB",)
    found["vocab:"].value = (1000, 2000)
    found["versions:"].value = ("v5",)
    expected = stored[
        (stored["size"] == "1MB")
        & (stored["version"] == "v5")
        & stored["vocab_size"].between(1000, 2000)
    ]
    assert 0 < len(expected) < len(stored)
    assert status_text(explorer) == f"{len(expected)} runs shown"
    found["time:"].value = "total_s"  # redraws without error
    assert status_text(explorer) == f"{len(expected)} runs shown"
    assert plt.get_fignums() == open_before
    assert found["measure missing cells"].disabled  # no measuring function given


def test_explorer_adds_measured_rows(stored) -> None:
    asked = []

    def run_cells(sizes, vocab_sizes, versions) -> pd.DataFrame:
        asked.append((sizes, vocab_sizes, versions))
        new = stored[stored["vocab_size"] == 500].copy()
        new["vocab_size"] = 600  # a cell the table did not have
        return new

    explorer = crossover_explorer(stored[stored["vocab_size"] != 600], run_cells)
    found = controls(explorer)
    found["vocab:"].value = (500, 1000)
    before = int(status_text(explorer).split()[0])
    found["measure missing cells"].click()
    sizes, vocab_sizes, versions = asked[0]
    assert sorted(sizes) == ["1MB", "5MB"] and sorted(versions) == ["v4", "v5"]
    assert all(500 <= v <= 1000 for v in vocab_sizes)
    added = len(stored[stored["vocab_size"] == 500])
    assert status_text(explorer) == f"{before + added} runs shown"
    assert not found["measure missing cells"].disabled


def test_explorer_shows_a_failed_measurement_and_stays_usable(stored) -> None:
    def run_cells(sizes, vocab_sizes, versions) -> pd.DataFrame:
        raise RuntimeError("corpus <5MB> missing")

    explorer = crossover_explorer(stored, run_cells)
    found = controls(explorer)
    found["measure missing cells"].click()
    assert status_text(explorer) == "measuring failed: corpus &lt;5MB&gt; missing"
    assert not found["measure missing cells"].disabled
