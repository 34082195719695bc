"""Make a deck's slides fit a 1280 x 800 slide (``make slides``; the notebooks are not changed).

The slide table (``slides.SLIDES``) says where each slide starts; a notebook cell is often taller
than a slide (a printout of 60 lines, a cell drawing four figures, a summary of 50 lines). On a copy
of the executed notebook, before export, ``fit_deck``:

- splits a long Markdown cell at its paragraphs into a slide and continuation slides below it (and
  gives the deck's first slide only the title and the goals);
- puts each output of a code cell that does not fit beside the ones before it on a continuation
  slide (the code is shown above the first only);
- shortens an output taller than a whole slide: a printout to its first lines, a table to its
  first rows, each with a line saying how much more the notebook shows;
- moves a cell that continues a slide (``-``) to a slide of its own when the slide is full.

Heights are estimated from the text (lines, rows, the PNG's size) with the deck's font sizes
(``templates/reveal_offline``); ``tests/test_browser_fit.py`` measures every slide in a browser.
"""

from __future__ import annotations

import base64
import copy
import math
import re
import struct

# The slide's usable height (px of the 1280 x 800 slide, less the margins reveal.js keeps).
BUDGET = 690
# Rendered sizes in the deck's CSS (templates/reveal_offline/index.html.j2), in slide pixels.
TEXT_LINE = 29  # a line of Markdown text
TEXT_CHARS = 100  # characters of Markdown on a line
CODE_LINE = 23  # a line of code or of a printout
CODE_CHARS = 88  # characters of code or printout on a line
ROW = 36  # a table's row of one line
BLOCK_GAP = 18  # space between Markdown blocks
CELL_GAP = 24  # space between cells and between outputs
IMAGE_WIDTH = 1100  # the widest an image is shown
IMAGE_HEIGHT = 600  # the tallest (the CSS's max-height)
# A printout or a table on a slide shows at most this many lines or rows (a summary of it; the
# notebook shows it whole).
PRINTOUT_LINES = 16
TABLE_ROWS = 12
TABLE_WIDTH = 1080  # the widest a table is shown (px); wider ones lose columns on the right
TABLE_CHAR = 11  # the width of a character in a table (px), and of a cell's padding in characters
TABLE_PADDING = 3
HEADINGS = {"#": 80, "##": 64, "###": 52}
GOALS = re.compile(r"^\*\*(learning goals|what you will learn)", re.IGNORECASE)
ALMOST_EMPTY = 160  # a slide below another with less than this joins it if it fits
VISIBLE = ("slide", "subslide", "-", "fragment")


def _wrapped(text: str, chars: int) -> int:
    """Lines that ``text`` takes when each of its lines wraps at ``chars`` characters."""
    return sum(max(1, math.ceil(len(line) / chars)) for line in text.split("\n"))


def _blocks(source: str) -> list[str]:
    """A Markdown source's top-level blocks: paragraphs, lists, tables, headings, fenced code and
    ``<details>`` (each kept whole)."""
    blocks: list[str] = []
    current: list[str] = []
    fence = details = False
    for line in source.split("\n"):
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = not fence
        if stripped.startswith("<details"):
            details = True
        if stripped.startswith("</details"):
            details = False
        starts_heading = stripped.startswith("#") and not fence and not details
        if starts_heading and current:
            blocks.append("\n".join(current))
            current = []
        if not stripped and not fence and not details:
            if current:
                blocks.append("\n".join(current))
                current = []
            continue
        current.append(line)
        if starts_heading:
            blocks.append("\n".join(current))
            current = []
    if current:
        blocks.append("\n".join(current))
    return blocks


def block_height(block: str) -> int:
    """A Markdown block's estimated height on a slide."""
    first = block.lstrip()
    if first.startswith("#"):
        return HEADINGS.get(first.split(" ", 1)[0], 48)
    if first.startswith("<details"):
        return TEXT_LINE + BLOCK_GAP  # shown folded: its summary line
    if first.startswith("```"):
        return CODE_LINE * (block.count("\n") - 1) + 2 * BLOCK_GAP
    if first.startswith("!["):
        return IMAGE_HEIGHT + BLOCK_GAP
    if first.startswith("|"):
        rows = [line for line in block.split("\n") if not re.match(r"^\|[\s:|-]+\|$", line)]
        return sum(ROW * _wrapped(row, TEXT_CHARS) for row in rows) + BLOCK_GAP
    # Paragraphs and lists: a list item starts a line; continuation lines join the one before.
    items: list[str] = []
    for line in block.split("\n"):
        if re.match(r"^\s*([-*+]|\d+\.)\s", line) or not items:
            items.append(line.strip())
        else:
            items[-1] += " " + line.strip()
    return TEXT_LINE * sum(_wrapped(item, TEXT_CHARS) for item in items) + BLOCK_GAP


def split_markdown(source: str, first: bool = False) -> list[str]:
    """``source`` cut at block boundaries into parts that each fit a slide. In the deck's first
    cell the first part ends after the goals (the title slide: the title and what it teaches)."""
    parts: list[list[str]] = [[]]
    height = 0
    first = first and markdown_height(source) > BUDGET
    for block in _blocks(source):
        if first and len(parts) == 1 and parts[0] and GOALS.match(parts[0][-1].lstrip()):
            parts.append([])  # the goals end the title slide
            height = 0
        h = block_height(block)
        if parts[-1] and height + h > BUDGET:
            parts.append([])
            height = 0
        parts[-1].append(block)
        height += h
    return ["\n\n".join(part) for part in parts if part]


def markdown_height(source: str) -> int:
    return sum(block_height(block) for block in _blocks(source))


def png_size(data: str) -> tuple[int, int] | None:
    """A base64 PNG's width and height (from its header), or None."""
    try:
        head = base64.b64decode(data[:64])
    except ValueError:
        return None
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def image_height(data: str) -> int:
    size = png_size(data)
    if size is None:
        return IMAGE_HEIGHT
    width, height = size
    scale = min(1.0, IMAGE_WIDTH / width, IMAGE_HEIGHT / height)
    return int(height * scale)


def _html_text(html: str) -> str:
    text = re.sub(r"<(style|script|pre)\b.*?</\1>", "", html, flags=re.S | re.I)
    text = re.sub(r"<tr\b.*?</tr>", "", text, flags=re.S | re.I)
    text = re.sub(r"<br\s*/?>|</p>|</div>|</li>|</h\d>", "\n", text, flags=re.I)
    text = re.sub(r"<[^>]+>", "", text)
    return "\n".join(line.strip() for line in text.split("\n") if line.strip())


def html_height(html: str) -> int:
    rows = re.findall(r"<tr\b.*?</tr>", html, flags=re.S | re.I)
    text = _html_text(html)
    lines = _wrapped(text, TEXT_CHARS) if text else 0
    images = sum(
        image_height(d) for d in re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", html)
    )
    codes = sum(
        CODE_LINE * _wrapped(re.sub(r"<[^>]+>", "", code), CODE_CHARS)
        for code in re.findall(r"<pre\b.*?</pre>", html, flags=re.S | re.I)
    )
    cells = [re.sub(r"<[^>]+>", " ", row) for row in rows]
    row_lines = sum(max(1, math.ceil(len(" ".join(cell.split())) / TEXT_CHARS)) for cell in cells)
    return ROW * row_lines + TEXT_LINE * lines + images + codes


def _text(output) -> str:
    if output.output_type == "stream":
        return output.text
    if output.output_type == "error":
        return "\n".join(output.get("traceback", []))
    return output.get("data", {}).get("text/plain", "")


def output_height(output) -> int:
    data = output.get("data", {})
    if "image/png" in data:
        return image_height(data["image/png"]) + CELL_GAP
    if "text/html" in data:
        return html_height(data["text/html"]) + CELL_GAP
    if "text/markdown" in data:
        return markdown_height(data["text/markdown"]) + CELL_GAP
    return CODE_LINE * _wrapped(_text(output).rstrip("\n"), CODE_CHARS) + CELL_GAP


def shorten(output, room: int):
    """A copy of ``output`` that fits ``room`` px: a printout's first lines, a table's first rows,
    with a line saying how much more the notebook shows. Other outputs are returned as they are."""
    output = copy.deepcopy(output)
    data = output.get("data", {})
    if "text/html" in data and "<tr" in data["text/html"]:
        html = data["text/html"]
        rows = list(re.finditer(r"<tr\b.*?</tr>", html, flags=re.S | re.I))
        keep = len(rows)
        while keep > 3 and html_height(_drop_rows(html, rows, keep)) + CELL_GAP > room:
            keep -= 1
        if keep < len(rows):
            data["text/html"] = _drop_rows(html, rows, keep)
        return output
    if "text/html" in data and "<pre" in data["text/html"]:
        data["text/html"] = _shorten_pre(data["text/html"], room)
        return output
    if "image/png" in data or "text/html" in data or "text/markdown" in data:
        return output
    text = _text(output).rstrip("\n")
    lines = text.split("\n")
    keep, used = 0, CODE_LINE + CELL_GAP  # the line that says what is left out
    for line in lines:
        need = CODE_LINE * max(1, math.ceil(len(line) / CODE_CHARS))
        if used + need > room:
            break
        used += need
        keep += 1
    if keep == len(lines):
        return output
    more = len(lines) - keep
    shown = "\n".join(lines[:keep]) + f"\n… {more} more line{'s' * (more != 1)} in the notebook\n"
    if output.output_type == "stream":
        output.text = shown
    elif output.output_type == "error":
        output.traceback = shown.split("\n")
    else:
        data["text/plain"] = shown
    return output


def _shorten_pre(html: str, room: int) -> str:
    """``html`` with its longest ``<pre>`` block cut to its first lines until it fits ``room``."""
    blocks = list(re.finditer(r"(<pre\b[^>]*>)(.*?)(</pre>)", html, flags=re.S | re.I))
    if not blocks:
        return html
    longest = max(blocks, key=lambda m: m.group(2).count("\n"))
    lines = longest.group(2).split("\n")
    keep = len(lines)
    shortened = html
    while keep > 3 and html_height(shortened) + CELL_GAP > room:
        keep -= 1
        more = len(lines) - keep
        note = f"<i>… {more} more line{'s' * (more != 1)} in the notebook</i>"
        body = "\n".join(lines[:keep])
        # close the syntax highlighter's open spans: cut at a line, keep the markup balanced
        body += "</span>" * (body.count("<span") - body.count("</span>"))
        shortened = (
            html[: longest.start()]
            + longest.group(1)
            + body
            + "\n"
            + note
            + longest.group(3)
            + html[longest.end() :]
        )
    return shortened


def _drop_rows(html: str, rows: list, keep: int) -> str:
    """``html`` with its table rows after the first ``keep`` removed and a note row in their place."""
    more = len(rows) - keep
    if more <= 0:
        return html
    note = (
        f'<tr><td colspan="99" style="text-align:left;font-style:italic">… {more} more '
        f"row{'s' * (more != 1)} in the notebook</td></tr>"
    )
    start, end = rows[keep].start(), rows[-1].end()
    return html[:start] + note + html[end:]


def _kind(cell) -> str:
    return cell.metadata.get("slideshow", {}).get("slide_type", "skip")


def _source_shown(cell) -> bool:
    return cell.cell_type == "code" and not cell.metadata.get("transient", {}).get("remove_source")


def code_source_height(cell) -> int:
    if not _source_shown(cell):
        return 0
    return CODE_LINE * _wrapped(cell.source, CODE_CHARS) + CELL_GAP


def cell_height(cell) -> int:
    if cell.cell_type == "markdown":
        return markdown_height(cell.source)
    return code_source_height(cell) + sum(output_height(o) for o in cell.get("outputs", []))


def _continuation(cell, suffix: str, kind: str = "subslide"):
    part = copy.deepcopy(cell)
    part.id = f"{cell.get('id', 'cell')}-{suffix}"
    part.metadata["slideshow"] = {"slide_type": kind}
    return part


def _split_markdown_output(output) -> list:
    """A Markdown output taller than a slide as several, cut at its paragraphs (see
    ``split_markdown``); any other output as it is."""
    markdown = output.get("data", {}).get("text/markdown")
    if markdown is None or output_height(output) <= BUDGET:
        return [output]
    parts = []
    for text in split_markdown(markdown):
        part = copy.deepcopy(output)
        part.data = {"text/markdown": text}
        parts.append(part)
    return parts


def _summarised(output):
    """A printout of more than ``PRINTOUT_LINES`` lines or a table of more than ``TABLE_ROWS``
    rows, shortened to that (``shorten``), a table wider than the slide narrowed (``narrowed``);
    any other output as it is."""
    output = narrowed(output)
    data = output.get("data", {})
    if "text/html" in data and "<tr" in data["text/html"]:
        limit = ROW * (TABLE_ROWS + 1) + html_height(
            re.sub(r"<tr\b.*?</tr>", "", data["text/html"], flags=re.S | re.I)
        )
        return (
            shorten(output, limit + CELL_GAP)
            if output_height(output) > limit + CELL_GAP
            else output
        )
    if any(key in data for key in ("image/png", "text/html", "text/markdown")):
        return output
    limit = CODE_LINE * (PRINTOUT_LINES + 1) + CELL_GAP
    return shorten(output, limit) if output_height(output) > limit else output


def _span(cell: str, name: str) -> int:
    found = re.search(rf'{name}="?(\d+)', cell[: cell.index(">")], flags=re.I)
    return int(found.group(1)) if found else 1


def _table_grid(html: str) -> list[list[tuple[re.Match, int, int]]]:
    """Each row's cells of a table with the column each starts at and how many it spans (HTML's
    table model: a cell spanning rows takes its columns in the rows below it too)."""
    taken: dict[int, int] = {}  # column: rows below still taken by a cell above
    grid = []
    for row in re.findall(r"<tr\b.*?</tr>", html, flags=re.S | re.I):
        cells, column = [], 0
        below = {c: n - 1 for c, n in taken.items() if n > 1}
        for cell in re.finditer(r"<t([hd])\b[^>]*>.*?</t\1>", row, flags=re.S | re.I):
            while column in taken:
                column += 1
            span = _span(cell.group(0), "colspan")
            for c in range(column, column + span):
                if _span(cell.group(0), "rowspan") > 1:
                    below[c] = _span(cell.group(0), "rowspan") - 1
            cells.append((cell, column, span))
            column += span
        taken = below
        grid.append(cells)
    return grid


def _column_widths(html: str) -> list[int]:
    """A table's columns' estimated widths (px): its longest one-column cell's text, each."""
    widths: list[int] = []
    for cells in _table_grid(html):
        for cell, column, span in cells:
            text = re.sub(r"<[^>]+>", "", cell.group(0)).strip()
            longest = max((len(word) for word in text.split()), default=0)
            width = TABLE_CHAR * (max(longest, min(len(text), 12)) + TABLE_PADDING)
            widths += [0] * (column + span - len(widths))
            if span == 1:
                widths[column] = max(widths[column], width)
    return widths


def narrowed(output):
    """A table wider than a slide with the columns on its right that do not fit left out, and a
    caption saying how many more the notebook shows; any other output as it is."""
    html = output.get("data", {}).get("text/html", "")
    if "<tr" not in html or html.count("<table") != 1:
        return output
    widths = _column_widths(html)
    if sum(widths) <= TABLE_WIDTH:
        return output
    keep = 1
    while keep < len(widths) and sum(widths[: keep + 1]) <= TABLE_WIDTH:
        keep += 1
    rows = iter(_table_grid(html))

    def trim(row: re.Match) -> str:
        text = row.group(0)
        pieces, last = [], 0
        for cell, column, span in next(rows):
            start, end = cell.start(), cell.end()
            pieces.append(text[last:start])
            last = end
            if column >= keep:
                continue
            body = cell.group(0)
            if column + span > keep:
                body = re.sub(r'colspan="?\d+"?', f'colspan="{keep - column}"', body, count=1)
            pieces.append(body)
        return "".join(pieces) + text[last:]

    more = len(widths) - keep
    caption = (
        f'<caption style="caption-side:bottom;text-align:left;font-style:italic">… {more} more '
        f"column{'s' * (more != 1)} in the notebook</caption>"
    )
    narrow = re.sub(r"<tr\b.*?</tr>", lambda m: trim(m), html, flags=re.S | re.I)
    narrow = re.sub(r"(<table\b[^>]*>)", lambda m: m.group(1) + caption, narrow, count=1)
    output = copy.deepcopy(output)
    output.data["text/html"] = narrow
    return output


def _split_code(cell) -> list:
    """The cell as its first part (code and the outputs that fit under it) and continuation parts
    (outputs only), each output shortened to fit a slide of its own."""
    cell = copy.deepcopy(cell)
    cell.outputs = [
        part for output in cell.get("outputs", []) for part in _split_markdown_output(output)
    ]
    source = code_source_height(cell)
    if cell.outputs and source and source + output_height(cell.outputs[0]) > BUDGET:
        cell.metadata["transient"] = {"remove_source": True}  # the output is what the slide shows
        source = 0
    groups: list[list] = [[]]
    height = source
    for output in cell.outputs:
        output = _summarised(output)
        room = BUDGET - (source if groups == [[]] else 0)
        if output_height(output) > room:
            output = shorten(output, room if not groups[-1] else BUDGET)
        h = output_height(output)
        if groups[-1] and height + h > BUDGET:
            groups.append([])
            height = 0
        groups[-1].append(output)
        height += h
    parts = []
    for number, outputs in enumerate(groups):
        part = copy.deepcopy(cell) if number == 0 else _continuation(cell, f"out{number}")
        part.outputs = outputs
        if number:
            part.metadata["transient"] = {"remove_source": True}
        parts.append(part)
    return parts


def fit_deck(notebook) -> None:
    """Split and shorten ``notebook``'s slide cells in place so that each slide fits (see the
    module's docstring); cells the deck skips are left as they are."""
    cells = []
    first = True
    for cell in notebook.cells:
        kind = _kind(cell)
        if kind not in VISIBLE:
            cells.append(cell)
            continue
        if cell.cell_type == "markdown":
            parts = split_markdown(cell.source, first=first)
            for number, text in enumerate(parts):
                part = copy.deepcopy(cell) if number == 0 else _continuation(cell, f"part{number}")
                part.source = text
                cells.append(part)
        elif cell.cell_type == "code":
            cells.extend(_split_code(cell))
        else:
            cells.append(cell)
        first = False
    # A cell that continues a full slide starts one below it.
    height = 0
    for cell in cells:
        kind = _kind(cell)
        if kind not in VISIBLE:
            continue
        h = cell_height(cell) + CELL_GAP
        if kind in ("-", "fragment") and height and height + h > BUDGET:
            cell.metadata["slideshow"] = {"slide_type": "subslide"}
            kind = "subslide"
        height = h if kind in ("slide", "subslide") else height + h
    # A slide below another (subslide) that would be almost empty joins it if it fits there.
    slides: list[list] = []
    for cell in cells:
        kind = _kind(cell)
        if kind in ("slide", "subslide") or (kind in VISIBLE and not slides):
            slides.append([cell])
        elif kind in VISIBLE:
            slides[-1].append(cell)
    heights = [sum(cell_height(c) + CELL_GAP for c in slide) for slide in slides]
    for number in range(1, len(slides)):
        here, above = heights[number], heights[number - 1]
        if (
            _kind(slides[number][0]) == "subslide"
            and here < ALMOST_EMPTY
            and above + here <= BUDGET
        ):
            slides[number][0].metadata["slideshow"] = {"slide_type": "-"}
            heights[number] = above + here
    notebook.cells = cells


def deck_slide_count(notebook) -> int:
    """How many slides a prepared notebook's deck has."""
    return sum(_kind(cell) in ("slide", "subslide") for cell in notebook.cells)
