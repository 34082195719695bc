"""Text as a tokenizer's input sees it (notebook 02): each character's code points and UTF-8
bytes, in a table and in a widget that redraws it as you type.
"""

from __future__ import annotations

import unicodedata

import ipywidgets as w
import pandas as pd
import regex

from bpe_course.course.widgets.by_hand import plural


def byte_table(text: str) -> pd.DataFrame:
    """One row per character: its code point, name, UTF-8 bytes in hex and in bits."""
    rows = []
    for char in text:
        encoded = char.encode("utf-8", "surrogatepass")  # a lone surrogate shows its 3 bytes
        rows.append(
            {
                "char": char if char.isprintable() else repr(char),
                "code point": f"U+{ord(char):04X}",
                "name": unicodedata.name(char, "(no name)"),
                "UTF-8 bytes": " ".join(f"{b:02X}" for b in encoded),
                "bits": " ".join(f"{b:08b}" for b in encoded),
                "n bytes": len(encoded),
            }
        )
    return pd.DataFrame(rows)


BYTE_ROWS = 40  # code points shown in the table (whole characters only); the summary counts all


def characters(text: str) -> list[str]:
    """``text`` cut into what a reader sees as characters: grapheme clusters, as the `regex`
    module's ``\\X`` matches them (the definition notebook 02 uses)."""
    return regex.findall(r"\X", text)


def byte_summary(text: str, rows: int = BYTE_ROWS) -> tuple[str, list[str]]:
    """The explorer's counts line as HTML, and the characters its table shows: whole characters,
    as many as fit in ``rows`` code points (at least one)."""
    clusters = characters(text)
    shown, points = [], 0
    for cluster in clusters:
        if shown and points + len(cluster) > rows:
            break
        shown.append(cluster)
        points += len(cluster)
    line = (
        f"<b>{plural(len(clusters), 'character')}</b> (grapheme clusters, as <code>\\X</code> "
        f"counts them), <b>{plural(len(text), 'code point')}</b> (Python's <code>len</code>), "
        f"<b>{len(text.encode('utf-8', 'surrogatepass'))}</b> UTF-8 bytes, "
        f"{len(text.encode('utf-16-le', 'surrogatepass'))} UTF-16 bytes, "
        f"{len(text.encode('utf-32-le', 'surrogatepass'))} UTF-32 bytes"
    )
    if len(shown) < len(clusters):
        line += (
            f"; the table shows the first {plural(len(shown), 'character')} "
            f"({plural(points, 'code point')}, one row each)"
        )
    return line, shown


def byte_explorer(initial: str = "héllo, wörld 😀 中文"):
    """Type text, see each code point and its bytes, grouped by the character it belongs to."""
    box = w.Text(value=initial, description="text:", layout=w.Layout(width="60%"))
    summary, table = w.HTML(), w.HTML()

    def redraw(_=None) -> None:
        line, shown = byte_summary(box.value)
        summary.value = line
        if not shown:  # an empty box: an empty table, not the last text's
            table.value = "<i>type some text</i>"
            return
        rows = byte_table("".join(shown))
        numbers = [i for i, cluster in enumerate(shown, 1) for _ in cluster]
        rows.insert(0, "character #", numbers)
        # An HTML widget, not an Output: its value is the table itself, always the current one
        # (an Output cleared with wait=True kept the old table when nothing replaced it).
        body = rows.to_html(index=False, escape=True, border=0)
        table.value = f'<div class="jp-RenderedHTMLCommon">{body}</div>'

    box.observe(redraw, names="value")
    redraw()
    return w.VBox([box, summary, table])
