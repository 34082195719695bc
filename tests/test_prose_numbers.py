"""A measured number is never typed into a notebook's prose.

Every figure of ours (seconds, ratios, MB/s, percentages, counts of words touched or heap
entries) must come from the run: a code cell prints or displays the sentence that states it,
computed from the cell's results or from a stored results CSV. The markdown cells, which do not
change when the code's output does, may state a measured figure only when quoting a source named
in the same sentence (a post, a paper). This test reads every markdown cell and fails on a
sentence that states a measurement with no source, so a typed "we measured 2.6 s" cannot come
back.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9][0-9]_*.ipynb"))

NUMBER = r"(?<![\w.\-/])\d[\d,]*(?:\.\d+)?"
# A number with a unit of time, speed or ratio, or a count of what a trainer does.
MEASUREMENT = re.compile(
    NUMBER + r"\s*(?:ms|µs|us|s|sec|seconds?|minutes?|min|hours?|MB/s|GB/s|KB/s|x|×|%|"
    r"times (?:faster|slower|more|fewer|less|as)|"
    r"(?:distinct |live |stale )?(?:words? touched|pairs?|entries|pushes|pops|compactions|"
    r"distinct (?:words|pretokens)|"
    r"rewrites|bytes per token|tokens per second))(?![\w/])"
)
# Amounts in words ("thousands of words") are claims about a measurement too.
VAGUE = re.compile(r"\b(?:dozens|hundreds|thousands|millions|billions) of\b", re.I)
# A sentence that names where its figure comes from.
SOURCE = re.compile(
    r"\b(?:post|posts|paper|Sennrich|Radford|Eldan|CS336|minbpe|tiktoken's|Hugging Face's)\b",
    re.I,
)


def prose(markdown: str) -> str:
    """The text a reader reads as claims: no code, no formulas, no links' targets."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\$[^$]*\$", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return text


def sentences(text: str) -> list[str]:
    joined = re.sub(r"\s*\n\s*", " ", text)
    return [s for s in re.split(r"(?<=[.!?:])\s+|\s+-\s+|\|", joined) if s.strip()]


def unsourced_figures(markdown: str) -> list[str]:
    found = []
    for sentence in sentences(prose(markdown)):
        if SOURCE.search(sentence):
            continue
        if MEASUREMENT.search(sentence) or VAGUE.search(sentence):
            found.append(sentence.strip())
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_typed_measurement_in_markdown(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    problems = [
        f"cell {index}: {sentence}"
        for index, cell in enumerate(notebook.cells)
        if cell.cell_type == "markdown"
        for sentence in unsourced_figures(cell.source)
    ]
    assert not problems, (
        "a measured figure typed into markdown (print it from a code cell, or name its source):\n"
        + "\n".join(problems)
    )


@pytest.mark.parametrize(
    ("markdown", "flagged"),
    [
        ("We measured V2 at 2.21 s and V4 at 1.13 s.", True),
        ("V5 is 3 to 5x faster end to end.", True),
        ("Early merges touch thousands of words.", True),
        ("The heap peaks at 1.5 entries per live pair.", True),
        ("TinyStories has 13,000 distinct words at this size.", True),
        ("The V1-V5 post measured 76 s for V1 at vocab 1,000.", False),
        ("Train on 5 MB at vocab 5,000 with `workers=2` and a compaction factor of 3.", False),
        ("The cost is $O(m P)$ per merge, for m merges.", False),
        ("Sennrich et al. (2016) merge 10 times.", False),
    ],
)
def test_the_detector(markdown: str, flagged: bool) -> None:
    assert bool(unsourced_figures(markdown)) == flagged
