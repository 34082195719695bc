"""The references page: linked from the first cell of every notebook, and holding an entry for
every source a notebook names."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))
REFERENCES = NOTEBOOKS_DIR / "references.md"

# What a notebook may cite, and the words its entry must hold on the page.
SOURCES = {
    r"V1.V5 post": "The V1–V5 post",
    r"From Hours to Seconds": "From Hours to Seconds: Optimising BPE Tokeniser Training",
    r"\bGage\b": "A New Algorithm for Data Compression",
    r"\bSennrich\b": "Neural Machine Translation of Rare Words",
    r"subword-nmt": "rsennrich/subword-nmt",
    r"\bRadford\b": "Language Models are Unsupervised Multitask Learners",
    r"\bEldan\b|TinyStories": "TinyStories: How Small Can Language Models Be",
    r"\bCS336\b": "assignment1-basics",
    r"OpenWebText": "OpenWebText Corpus",
    r"FineWeb": "The FineWeb Datasets",
    r"Hugging Face": "huggingface/tokenizers",
    r"tiktoken": "openai/tiktoken",
    r"rustbpe": "karpathy/rustbpe",
    r"minbpe": "karpathy/minbpe",
    r"\bDask\b": "dask.org",
    r"wordfreq": "rspeer/wordfreq",
    r"WordNet": "WordNet: A",
    r"SortedDict": "sortedcontainers",
    r"[Hh]ypothesis": "property-based testing",
    r"Heaps' law": "Information Retrieval: Computational and Theoretical Aspects",
    r"Simon process": "On a Class of Skew Distribution Functions",
}


def first_markdown(path: Path) -> str:
    notebook = nbformat.read(path, as_version=4)
    return next(c.source for c in notebook.cells if c.cell_type == "markdown")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_first_cell_links_the_references(path: Path) -> None:
    assert "[references](references.md)" in first_markdown(path)


def test_every_source_a_notebook_names_has_an_entry() -> None:
    page = REFERENCES.read_text(encoding="utf-8")
    cited = "\n".join(
        c.source
        for path in NOTEBOOKS
        for c in nbformat.read(path, as_version=4).cells
        if c.cell_type == "markdown"
    )
    missing = [
        entry for name, entry in SOURCES.items() if re.search(name, cited) and entry not in page
    ]
    assert not missing, f"named in a notebook, no entry in references.md: {missing}"
    assert re.search(r"V1.V5 post", cited), "the table above no longer matches the notebooks"


def test_the_posts_are_cited_without_their_files_names() -> None:
    # readers do not have the course's copies of the posts: cite titles, never local files
    assert not re.search(r"\b00\d_[0-9a-f]{16}", REFERENCES.read_text(encoding="utf-8"))
