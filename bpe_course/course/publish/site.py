"""The course as a static website (``make site``, ``bpe-course site``): a book of the executed
notebooks, built offline by Sphinx with MyST-NB and the Sphinx Book Theme (the engine of Jupyter
Book 1, without its frozen wrapper).

The executed copies come from ``build/notebooks/`` (``bpe-course course`` writes them); the
builder never executes a notebook. The site is the student edition (``handout.edition``: no cell
tagged ``solution``, the other cells with their outputs) unless built with ``teacher``. Stages:
copy each executed notebook with its widgets frozen (``static_widgets``), add the home page, the
references and the stored results, then run Sphinx into ``build/site/``. Search is Sphinx's own
index, a file in the site, so it works offline.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pandas as pd

from bpe_course.course.publish.handout import TEACHERS_RESULTS, edition
from bpe_course.course.publish.static_widgets import CANVAS_FIGURES, freeze_widgets
from bpe_course.course.runner.execute import course_notebooks
from bpe_course.paths import figures_dir, notebooks_dir

CONF = """\
# Written by bpe_course.course.publish.site: edit it there.
project = "bpe_course"
html_title = "bpe_course: training byte-level BPE, fast"
extensions = ["myst_nb"]
html_theme = "sphinx_book_theme"
html_static_path = ["_static"]
html_css_files = ["course.css"]
html_js_files = ["course-search.js"]
html_copy_source = False
html_show_sourcelink = False
html_theme_options = {
    "home_page_in_toc": True,
    "show_toc_level": 2,
    "use_download_button": False,
    "use_fullscreen_button": False,
}
# An explicit mode: with none, the theme's script logs an error on every page.
html_context = {"default_mode": "light"}
html_last_updated_fmt = None
exclude_patterns = ["_build", ".doctrees"]
# The notebooks were executed by the course's runner; the site shows those outputs as they are.
nb_execution_mode = "off"
# No widget JavaScript (it would come from a CDN): the widgets are frozen into HTML beforehand.
nb_ipywidgets_js = {}
nb_merge_streams = True
myst_heading_anchors = 3
suppress_warnings = ["misc.highlighting_failure", "myst.header", "mystnb.unknown_mime_type"]
"""

CSS = """\
.bpe-static-widget { border-left: 4px solid #c77c02; padding: 0.3em 0.8em; margin: 0.5em 0; }
.bpe-static-widget-note { background: #fff4e0; padding: 0.4em 0.6em; }
.bpe-static-row { display: flex; gap: 0.8em; align-items: center; flex-wrap: wrap; }
.bpe-static-widget img, .cell_output img { max-width: 100%; height: auto; }
/* Code and printouts wrap inside the page at 1280 px instead of hiding their ends in a scroll box:
   at spaces, and inside a word only where one word is longer than the line. */
.cell_input pre, .cell_output pre, div.highlight pre, .output pre {
  white-space: pre-wrap; word-break: normal; overflow-wrap: break-word;
}
"""

# Sphinx's search (searchtools.js) takes each hit's snippet from the page's [role="main"]; in the
# Sphinx Book Theme that element also holds the page's buttons (the light/dark switch), a print-only
# table of contents and the links to the previous and next pages, so snippets read "...tings Light
# Dark 08 ...". The snippet is taken from the article alone.
SEARCH_JS = """\
// Written by bpe_course.course.publish.site: edit it there.
document.addEventListener("DOMContentLoaded", () => {
  if (typeof Search === "undefined") return;  // not the search page
  Search.htmlToText = (htmlString, anchor) => {
    const page = new DOMParser().parseFromString(htmlString, "text/html");
    for (const chrome of [".headerlink", "script", "style", ".bd-header-article", ".onlyprint",
                          ".prev-next-footer", ".bd-footer-article", ".bd-sidebar-secondary"]) {
      page.querySelectorAll(chrome).forEach((element) => element.remove());
    }
    const article = page.querySelector('[role="main"] article') || page.querySelector('[role="main"]');
    if (!article) return "";
    const part = anchor ? article.querySelector(anchor) : null;
    return (part || article).textContent;
  };
});
"""

INDEX = """\
# bpe_course

A course on training byte-level BPE tokenizers, and on making that training faster: from Unicode
and UTF-8, through Sennrich et al.'s 2016 algorithm and GPT-2's pretokenization, to five trainers,
each the one before plus one change, and the benchmark that shows where a heap beats an inverted
index.

These pages are the {edition} as the course's runner executed them ({mode}). Widgets need a live
kernel: each one is shown here as it first appeared, with a line on how to run it live. To run
the course yourself: `make course`, then `jupyter lab notebooks/`.

```{{toctree}}
:caption: The notebooks
:maxdepth: 1

{notebooks}
```

```{{toctree}}
:caption: Reference
:maxdepth: 1

references
results
```
"""

REFERENCES_PLACEHOLDER = """\
# References

*A placeholder: the course's reference list (`notebooks/references.md`) was not found when this
site was built.*
"""


EDITIONS = {
    False: "notebooks of the student edition (the exercises' solutions left out)",
    True: "teacher's notebooks (with the exercises' solutions)",
}


def stage_site(
    executed_dir: Path,
    stage: Path,
    mode: str = "quick mode",
    figures: Path | None = None,
    teacher: bool = False,
) -> list[str]:
    """Write the Sphinx source tree into ``stage`` (the student edition unless ``teacher``);
    return the notebooks that had no executed copy (they are staged without outputs, so a partial
    build still has every page)."""
    if stage.exists():
        shutil.rmtree(stage)
    (stage / "_static").mkdir(parents=True)
    (stage / "conf.py").write_text(CONF, encoding="utf-8")
    (stage / "_static" / "course.css").write_text(CSS, encoding="utf-8")
    (stage / "_static" / "course-search.js").write_text(SEARCH_JS, encoding="utf-8")
    missing = []
    for source in course_notebooks():
        executed = executed_dir / source.name
        if not executed.exists():
            missing.append(source.name)
        path = executed if executed.exists() else source
        _stage_notebook(path, stage / source.name, figures, teacher)
    names = "\n".join(p.stem for p in course_notebooks())
    index = INDEX.format(notebooks=names, mode=mode, edition=EDITIONS[teacher])
    (stage / "index.md").write_text(index, encoding="utf-8")
    references = notebooks_dir() / "references.md"
    text = references.read_text(encoding="utf-8") if references.exists() else REFERENCES_PLACEHOLDER
    (stage / "references.md").write_text(text, encoding="utf-8")
    _stage_results(stage, teacher)
    return missing


def _stage_notebook(path: Path, target: Path, figures: Path | None, teacher: bool) -> None:
    notebook = edition(nbformat.read(path, as_version=4), path.stem, teacher)
    name = CANVAS_FIGURES.get(path.name)
    freeze_widgets(notebook, path.name, (figures or figures_dir()) / name if name else None)
    nbformat.write(notebook, target)


def _stage_results(stage: Path, teacher: bool) -> None:
    """A page that links every stored result (``notebooks/results/*.csv``) for download; the
    student edition's, without the teacher's timing tables (they name every cell, answers too)."""
    folder = stage / "results"
    folder.mkdir()
    lines = [
        "# Stored results",
        "",
        "The measurements the notebooks read in quick mode, as the benchmark wrote them (one row",
        "a run; the machine and date are columns). Download one to plot it yourself.",
        "",
        "| file | rows | columns |",
        "|---|---|---|",
    ]
    for csv in sorted((notebooks_dir() / "results").glob("*.csv")):
        if csv.name in TEACHERS_RESULTS and not teacher:
            continue
        shutil.copy2(csv, folder / csv.name)
        table = pd.read_csv(csv)
        columns = ", ".join(f"`{c}`" for c in table.columns[:8])
        more = f" and {len(table.columns) - 8} more" if len(table.columns) > 8 else ""
        lines.append(
            f"| {{download}}`{csv.name} <results/{csv.name}>` | {len(table)} | {columns}{more} |"
        )
    (stage / "results.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def build_site(
    executed_dir: Path,
    out_dir: Path,
    stage: Path | None = None,
    mode: str = "quick mode",
    figures: Path | None = None,
    teacher: bool = False,
) -> list[str]:
    """Stage the sources (the student edition unless ``teacher``) and run Sphinx into ``out_dir``;
    return the notebooks staged unexecuted.

    Raises ``RuntimeError`` with Sphinx's output if the build fails.
    """
    stage = stage or out_dir.parent / "site-src"
    missing = stage_site(executed_dir, stage, mode, figures, teacher)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    command = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-d", str(stage / ".doctrees")]
    done = subprocess.run(
        [*command, str(stage), str(out_dir)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"sphinx failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return missing
