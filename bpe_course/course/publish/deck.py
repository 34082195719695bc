"""The course's slides as static HTML decks (``make slides``, ``bpe-course slides``): one deck per
notebook from its executed copy, plus a walkthrough of the course's key figures, into
``build/slides/``, with reveal.js served from a folder beside the decks (never from a CDN).

reveal.js comes from its author's own npm package, pinned (``REVEAL_VERSION``); ``fetch_reveal``
unpacks it once into the virtual environment (``npm pack``: an install step, not a run-time one).
Which cells are slides is ``slides.SLIDES``; a code cell longer than ``CODE_LINES`` shows only its
output in a deck, and each slide is fitted to 1280 x 800 (``fit``: cells taller than a slide continue
on slides below it, long printouts and tables are summarised). Widgets are frozen as on the site
(``static_widgets``). The decks are the student edition's (``handout.edition``: no cell tagged
``solution``) unless built with ``teacher``.
"""

from __future__ import annotations

import html
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import nbformat
from nbconvert import SlidesExporter

from bpe_course.course.publish.fit import deck_slide_count, fit_deck
from bpe_course.course.publish.handout import edition
from bpe_course.course.publish.slides import slide_type
from bpe_course.course.publish.static_widgets import CANVAS_FIGURES, freeze_widgets
from bpe_course.course.runner.execute import course_notebooks
from bpe_course.paths import figures_dir

REVEAL_VERSION = "6.0.2"
# What a deck loads, and the licence that travels with it.
REVEAL_FILES = (
    "dist/reveal.js",
    "dist/reveal.css",
    "dist/theme/white.css",
    "dist/plugin/notes.js",
    "LICENSE",
)
CODE_LINES = 8
TEMPLATES = Path(__file__).parent / "templates"

# The walkthrough: the course's key figures, one a slide, in the order the course meets them
# (file in figures/, the notebook it comes from, what to look at).
KEY_FIGURES = [
    ("02_bytes_per_character.png", "02", "What a character costs in UTF-8, by script"),
    ("03_sennrich_corpus_length.png", "03", "Each merge shortens the corpus"),
    ("04_corpus_shape.png", "04", "Distinct words grow slower than the text (Heaps' law)"),
    ("05_v1_time_by_vocab.png", "05", "V1: every merge rescans every word"),
    ("07_v3_pretokenize_throughput.png", "07", "V3: pretokenization on more workers"),
    ("08_v4_words_touched.png", "08", "V4: a merge touches only the words that hold its pair"),
    ("09_v5_heap_size.png", "09", "V5: the heap with lazy deletion and compaction"),
    ("11_crossover_wide.png", "11", "The crossover: V4 against V5 on the wide corpus"),
    ("11_ratio_heatmap_wide.png", "11", "The ratio V5 / V4, everywhere at once"),
    ("11_ladder_curves.png", "11", "The post's V5 turned into the course's, one change a step"),
    ("11_ladder_steps.png", "11", "What each step of the ladder bought"),
    ("11_speedups.png", "11", "Every version against V1, with the spread of the repeats"),
    ("beyond_side_by_side.png", "13", "Beside Hugging Face tokenizers and rustbpe"),
    ("12_bytes_per_token_by_language.png", "12", "Bytes per token, by language"),
    ("14_cluster_estimate.png", "14", "Counting on a cluster: where more cores stop paying"),
]


def reveal_dir() -> Path:
    """Where ``fetch_reveal`` unpacks reveal.js: inside the running virtual environment."""
    return Path(sys.prefix) / f"reveal.js-{REVEAL_VERSION}"


def fetch_reveal(target: Path | None = None) -> Path:
    """Unpack the pinned reveal.js from the npm registry into ``target`` (once); return it."""
    target = target or reveal_dir()
    if all((target / name).is_file() for name in REVEAL_FILES):
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise FileNotFoundError("the slides need reveal.js from npm, and `npm` is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        packed = subprocess.run(
            [npm, "pack", "--silent", f"reveal.js@{REVEAL_VERSION}"],
            cwd=tmp,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()[-1]
        with tarfile.open(Path(tmp) / packed) as archive:
            archive.extractall(tmp, filter="data")
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(Path(tmp) / "package", target)
    return target


def _copy_reveal(reveal: Path, out_dir: Path) -> None:
    for name in REVEAL_FILES:
        if not (reveal / name).is_file():
            raise FileNotFoundError(f"reveal.js is incomplete: {reveal / name} is missing")
        (out_dir / "reveal.js" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(reveal / name, out_dir / "reveal.js" / name)


def _exporter():
    exporter = SlidesExporter(
        template_name="reveal_offline", extra_template_basedirs=[str(TEMPLATES)]
    )
    exporter.reveal_url_prefix = "reveal.js"
    exporter.reveal_theme = "white"  # the one theme copied beside the decks (REVEAL_FILES)
    return exporter


def prepare_deck(notebook, stem: str) -> None:
    """Set each cell's slide type from the table, hide the source of long code cells that have
    an output, and fit each slide to 1280 x 800 (``fit.fit_deck``). On a copy of an executed
    notebook: the executed copies may predate the metadata."""
    for cell in notebook.cells:
        cell.metadata["slideshow"] = {"slide_type": slide_type(stem, cell.get("id", ""))}
        long = cell.cell_type == "code" and len(cell.source.splitlines()) > CODE_LINES
        if long and cell.outputs:
            cell.metadata["transient"] = {"remove_source": True}
    fit_deck(notebook)


def export_deck(path: Path, out_dir: Path, figures: Path, teacher: bool = False) -> int:
    """One notebook's deck, ``out_dir/NN_name.html`` (the student edition's unless ``teacher``);
    return its number of slides."""
    notebook = edition(nbformat.read(path, as_version=4), path.stem, teacher)
    figure = CANVAS_FIGURES.get(path.name)
    freeze_widgets(notebook, path.name, figures / figure if figure else None)
    prepare_deck(notebook, path.stem)
    body, _ = _exporter().from_notebook_node(notebook, resources={"metadata": {"name": path.stem}})
    target = out_dir / f"{path.stem}.html"
    target.write_text(body, encoding="utf-8")
    return deck_slide_count(notebook)


def walkthrough_notebook(figures: Path):
    """The walkthrough deck's notebook: a title, then one key figure a slide (those present)."""
    cells = [
        nbformat.v4.new_markdown_cell(
            "# bpe_course: the walkthrough\n\nThe course's key figures, one a slide, in the order "
            "the notebooks meet them. Each deck of a notebook tells the rest."
        )
    ]
    for name, notebook, caption in KEY_FIGURES:
        if (figures / name).is_file():
            cells.append(
                nbformat.v4.new_markdown_cell(
                    f"## {caption}\n\n![{caption}](figures/{name})\n\n*notebook {notebook}*"
                )
            )
    notebook = nbformat.v4.new_notebook(cells=cells)
    for cell in notebook.cells:
        cell.metadata["slideshow"] = {"slide_type": "slide"}
    return notebook


def build_slides(
    executed_dir: Path,
    out_dir: Path,
    reveal: Path,
    figures: Path | None = None,
    teacher: bool = False,
) -> dict[str, int]:
    """Every deck into ``out_dir`` with reveal.js beside them; return each deck's slide count.
    ``figures`` (default: the course's ``figures/``) holds the walkthrough's key figures; the decks
    are the student edition's unless ``teacher``."""
    figures = figures or figures_dir()
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    _copy_reveal(reveal, out_dir)
    counts: dict[str, int] = {}
    for source in course_notebooks():
        executed = executed_dir / source.name
        path = executed if executed.exists() else source
        counts[source.stem] = export_deck(path, out_dir, figures, teacher)
    walkthrough = walkthrough_notebook(figures)
    (out_dir / "figures").mkdir()
    for name, _, _ in KEY_FIGURES:
        if (figures / name).is_file():
            shutil.copy2(figures / name, out_dir / "figures" / name)
    body, _ = _exporter().from_notebook_node(walkthrough, resources={"metadata": {"name": "x"}})
    (out_dir / "00_walkthrough.html").write_text(body, encoding="utf-8")
    counts["00_walkthrough"] = len(walkthrough.cells)
    _write_index(out_dir, counts)
    return counts


def _write_index(out_dir: Path, counts: dict[str, int]) -> None:
    items = "\n".join(
        f'<li><a href="{html.escape(stem)}.html">{html.escape(stem)}</a> ({count} slides)</li>'
        for stem, count in sorted(counts.items())
    )
    (out_dir / "index.html").write_text(
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>bpe_course slides"
        "</title></head><body><h1>bpe_course: the slides</h1>\n<p>One deck per notebook, and "
        "the walkthrough of the key figures. Keys: arrows or space to move, <kbd>s</kbd> for "
        f"the speaker's notes, <kbd>f</kbd> for full screen.</p>\n<ul>\n{items}\n</ul>"
        "</body></html>\n",
        encoding="utf-8",
    )
