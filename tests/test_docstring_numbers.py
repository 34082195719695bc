"""A measured figure is never written into a docstring of the package.

A docstring says what a thing does, why it is exact, what it costs in O() terms and where it
stops; it may say *that* a choice was measured and where the figures are. The figures themselves
(timings, before -> after pairs, speed-ups, a run's date, counts a run made) go to stored results
and to ``notebooks/results/measurements.md``, each with the command that makes it again: a
docstring is not re-run when the code changes, so a figure typed there goes stale unseen.

This test reads every docstring of the package (module, class, function, method:
``ast.get_docstring``) and fails on a sentence that states a measurement, as
``tests/test_prose_numbers.py`` does for the notebooks' markdown. Not measurements, and not
flagged: doctest examples and their output, literal blocks (``::``) and inline code, the O()
notation, constants of the algorithm ("ids 0-255", "a power of two"), sizes given as parameters
("chunks of a few MB"), version numbers, and a sentence that names the source it quotes (a post,
a paper).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "bpe_course"
MODULES = sorted(PACKAGE.rglob("*.py"))

NUMBER = r"(?<![\w.\-/^])\d[\d,]*(?:\.\d+)?"
RANGE = NUMBER + r"(?:\s*(?:-|–|to)\s*\d[\d,]*(?:\.\d+)?)?"  # 0.74-0.78, 3 to 5
DECIMAL = r"(?<![\w.\-/^])\d+\.\d+"
DECIMAL_RANGE = DECIMAL + r"(?:\s*[-–]\s*\d+\.\d+)?"

TIME_UNIT = (
    r"(?:\s+s|\s*(?:ms|µs|μs|us|ns)|\s+(?:CPU\s+)?(?:secs?|seconds?|minutes?|min|hours?)"
    r"|\s*(?:[KMGT]i?B|bytes?|tokens?|words?|merges?)(?:/s|/sec| per second))(?![\w/])"
)
FASTER = r"faster|slower|quicker|as fast|as slow|as long|the speed|the time|less time|more time"
COUNTED = (
    r"pairs|entries|pushes|pops|words|pieces|pretokens|merges|rewrites|sites|compactions|tokens"
)

MEASURED = {
    # 2.21 s, 20 ms, 110-360 us, 40 MB/s, 3 CPU seconds, 2 minutes ("a 1 s version": an example)
    "timing": re.compile(r"(?<!\ba )(?<!\ban )" + RANGE + TIME_UNIT),
    # tens of microseconds, hundreds of milliseconds
    "timing in words": re.compile(
        r"\b(?:tens|dozens|hundreds|thousands) of (?:nano|micro|milli)?seconds\b", re.I
    ),
    # 1.26 -> 1.05, 0.12-0.13 → 0.11-0.12, 0.74-0.78 / 0.65-0.66
    "before -> after": re.compile(
        RANGE + r"\s*(?:->|→|=>)\s*" + NUMBER + "|" + DECIMAL_RANGE + r"\s*/\s*" + DECIMAL
    ),
    # 2026-11-27: a run's date
    "date": re.compile(r"(?<![\w.-])(?:19|20)\d\d-[01]\d-[0-3]\d(?![\w-])"),
    # 3 to 5x faster, 1.3x the loop's CPU, 4 times faster (not 6 × 10², a product)
    "speed-up": re.compile(
        RANGE + r"\s*(?:x|×)(?![\w/])(?!\s*\d)|" + RANGE + rf"\s+times\s+(?:{FASTER})\b"
    ),
    # 142,363 pairs, 14,107 pushes: a count a run made (not a round parameter like vocab 5,000)
    "count of a run": re.compile(
        r"(?<![\w.\-/^])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?<!00)\s+(?:\w+\s+)?" + rf"(?:{COUNTED})\b"
    ),
}
# A percentage is a measured figure when it is a share of time or a speed-up ("cost 12-15% of
# it", "20% faster"), not a threshold ("held by at least 0.01% of people").
PERCENT = re.compile(r"(?!(?:0|100)\s*%)" + RANGE + r"\s*%")
SPEED_WORDS = re.compile(
    r"\b(?:faster|slower|quicker|speed|time|times|CPU|cost|costs|took|takes|saved|saves|spent|"
    r"paid|pays|loop|run|runs|seconds?)\b",
    re.I,
)
# A sentence that names where its figure comes from quotes a source: allowed.
SOURCE = re.compile(
    r"\b(?:post|posts|paper|Sennrich|Radford|Eldan|CS336|minbpe|tiktoken's|Hugging Face's)\b",
    re.I,
)


def prose(docstring: str) -> str:
    """What a reader reads as claims: no doctest, no literal block, no inline code, no O()."""
    kept: list[str] = []
    in_doctest = False
    literal_indent: int | None = None  # the indent of the line that opened a ``::`` block
    for line in docstring.splitlines():
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if literal_indent is not None:
            if not stripped or indent > literal_indent:
                continue  # inside the literal block
            literal_indent = None
        if stripped.startswith(">>>"):
            in_doctest = True
            continue
        if in_doctest:
            if stripped:
                continue  # a continuation (...) or the expected output
            in_doctest = False
        kept.append(line)
        if stripped.endswith("::"):
            literal_indent = indent
    text = "\n".join(kept)
    text = re.sub(r"``.*?``", " ", text, flags=re.S)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\bO\((?:[^()]|\([^()]*\))*\)", " ", text)
    return text


def sentences(text: str) -> list[str]:
    """Sentences, list items and table cells, each on one line."""
    joined = re.sub(r"\s*\n\s*", " ", text)
    parts = re.split(r"(?<=[.!?;])\s+(?=[A-Z(\"'*])|(?<=:)\s+|\s+-\s+|\|", joined)
    return [part.strip() for part in parts if part.strip()]


def measured_figures(docstring: str) -> list[str]:
    """The sentences of ``docstring`` that state a measurement with no source, each with why."""
    found = []
    for sentence in sentences(prose(docstring)):
        if SOURCE.search(sentence):
            continue
        kinds = [kind for kind, pattern in MEASURED.items() if pattern.search(sentence)]
        if PERCENT.search(sentence) and SPEED_WORDS.search(sentence):
            kinds.append("percentage of speed")
        if kinds:
            found.append(f"[{', '.join(kinds)}] {sentence}")
    return found


def docstrings(tree: ast.Module) -> Iterator[tuple[str, str]]:
    """``(qualified name, docstring)`` of the module and of every class and function in it,
    nested ones included (``<module>`` for the module's own)."""
    module = ast.get_docstring(tree, clean=True)
    if module:
        yield "<module>", module

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, str]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                text = ast.get_docstring(child, clean=True)
                if text:
                    yield name, text
                yield from walk(child, f"{name}.")
            else:
                yield from walk(child, prefix)

    yield from walk(tree, "")


def offenders(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [
        f"{path.relative_to(PACKAGE.parent)}:{name}: {sentence}"
        for name, text in docstrings(tree)
        for sentence in measured_figures(text)
    ]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_no_measured_figure_in_a_docstring(path: Path) -> None:
    problems = offenders(path)
    assert not problems, (
        "a measured figure in a docstring (move it, with the command that remakes it, to "
        "notebooks/results/measurements.md or a stored result; say there *that* it was measured):\n"
        + "\n".join(problems)
    )


def test_the_package_is_read() -> None:
    """The check above sees the package: its modules, and the docstrings inside classes."""
    assert PACKAGE / "trainers" / "fast.py" in MODULES and len(MODULES) > 50
    tree = ast.parse((PACKAGE / "trainers" / "v5_heap.py").read_text(encoding="utf-8"))
    names = dict(docstrings(tree))
    assert {"<module>", "PairKeys", "PairKeys.of", "pop_best"} <= set(names)


@pytest.mark.parametrize(
    ("docstring", "flagged"),
    [
        # timings with units
        ("The loop takes 2.21 s on the stories.", True),
        ("Freeing the modules took 20 ms of a 0.6 s run.", True),
        ("Importing numpy alone is 60 ms.", True),
        ("A round trip costs 110 to 360 us per merge.", True),
        ("Counting runs at 40 MB/s on one core.", True),
        ("A round trip is tens of microseconds.", True),
        ("Merge loop CPU, 3 rounds: wide 0.74-0.78 s.", True),
        # before -> after pairs
        ("Measured in turn: wide 1.26-1.35 -> 1.05-1.11, gcide 1.54 -> 1.19.", True),
        ("Collector on / off: wide 0.74-0.78 / 0.65-0.66, gcide 0.92-0.98 / 0.78-0.81.", True),
        # a run's date
        ("Medians of 5 runs (notebooks/results/beyond.csv, 2026-11-27).", True),
        # speed-ups
        ("V5 is 3 to 5x faster end to end.", True),
        ("A call costs 1.3x the loop's CPU.", True),
        ("The heap made it 4 times faster.", True),
        # percentages of speed
        ("The collector's walks cost 12-15% of the loop.", True),
        ("Caching the keys made it 20% faster.", True),
        # counts a run made
        ("The merges make 142,363 pairs, half of them rare.", True),
        ("It pushed 14,107 entries instead of about 150,000.", True),
        # doctests, literal blocks, code
        (">>> merge_word((1, 2, 2, 2, 3), (2, 2), 9)\n(1, 9, 2, 3)", False),
        (">>> timeit(run)\n2.5 s", False),
        ("Time it::\n\n    python -m bpe_course.bench.beyond FILE --repeats 3\n\nDone.", False),
        ("Compare ``1.26 -> 1.05`` in the table.", False),
        # the O() notation and constants of the algorithm
        ("Per merge: O(A L log H) to push, O(1) to pop; in all O(m W L).", False),
        ("The 256 single bytes (ids 0-255), then the special tokens.", False),
        ("Keys up to 8 bytes fit in one uint64; a pair of bytes is below 65536.", False),
        ("Rebuild the heap when it holds more than 3 entries per live pair.", False),
        ("A name held by at least 0.01% of people.", False),
        ("A dead worker leaves the pool waiting at 0% CPU.", False),
        ("A log axis is ticked at 1, 2, 5 times powers of ten, never as 6 × 10².", False),
        ("Shares, so a 1 s version and an 85 s one are read alike.", False),
        ("Pairs below a floor (a power of two) wait in 64 buckets.", False),
        # sizes that are parameters, version numbers
        ("The file is read in chunks of a few MB (``CHUNK_BYTES``).", False),
        ("Train on the 21.5 MB stories at vocab 5,000 / 10,000 with 2 workers.", False),
        ("wordfreq 3.1, WordNet 3.0 and Python 3.12 (dicts keep order since 3.7).", False),
        ("Merges 1-100 touch most words; ``a b a b`` shares its middle.", False),
        # a sentence that names its source
        ("The V1-V5 post reports 76.4 s for V1 at vocab 1,000.", False),
        ("Sennrich et al. (2016) merge 10 times; the paper's example takes 2 s by hand.", False),
        # it may say that a thing was measured, and where
        ("Measured in turn (notebooks/results/measurements.md has the figures).", False),
    ],
)
def test_the_classifier(docstring: str, flagged: bool) -> None:
    assert bool(measured_figures(docstring)) == flagged, measured_figures(docstring)
