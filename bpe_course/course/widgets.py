"""Interactive pieces of the notebooks (ipywidgets), and the small display helpers they share.

Each function returns a widget for the notebook to show; the logic behind it lives in the package
floors below (sennrich, by_hand, plots), so a widget only wires controls to functions. The
benchmark explorer has a module of its own (``explorer``), and so do the tokenizer playground and
the pretokenizer highlighter (``playground``).
"""

from __future__ import annotations

import ast
import html
import inspect
import textwrap
import unicodedata
from collections.abc import Iterable

import pandas as pd


def show_source(obj, hide: Iterable[str] = ()) -> object:
    """The source of a function or module of the package, highlighted (never pasted twice).

    ``hide``: names of functions or classes that source defines, each printed as one placeholder
    line instead, so a notebook can show a trainer before the exercise that asks for one of its
    functions (:func:`bpe_course.course.prompts.show_source_before`).
    """
    from IPython.display import Code

    return Code(hidden_source(inspect.getsource(obj), hide), language="python")


HIDDEN = "the exercise below asks you to write this"


def hidden_source(source: str, hide: Iterable[str]) -> str:
    """``source`` with each definition named in ``hide`` (at any depth) cut to one line:
    ``def name(...): ...  # the exercise below asks you to write this``. A name the source
    does not define hides nothing."""
    hide = set(hide)
    if not hide:
        return source
    lines = source.splitlines(keepends=True)
    tree = ast.parse(textwrap.dedent(source))
    found = [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.name in hide
    ]
    # From the last to the first, so earlier line numbers stay valid (a definition nested in a
    # hidden one is cut first, then goes with its parent).
    for node in sorted(found, key=lambda n: n.lineno, reverse=True):
        first = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
        line = lines[node.lineno - 1]
        indent = line[: len(line) - len(line.lstrip())]
        head = f"class {node.name}" if isinstance(node, ast.ClassDef) else f"def {node.name}(...)"
        lines[first : node.end_lineno] = [f"{indent}{head}: ...  # {HIDDEN}\n"]
    return "".join(lines)


def show_and_close(fig) -> None:
    """Display ``fig`` and free it: a widget redraws often, and pyplot keeps every figure it made
    until it is closed (only the inline backend's ``show`` closes them for us)."""
    import matplotlib.pyplot as plt
    from IPython.display import display

    display(fig)
    plt.close(fig)


# --- Unicode -------------------------------------------------------------------------------------


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
    import regex

    return regex.findall(r"\X", text)


def byte_summary(text: str, rows: int = BYTE_ROWS) -> tuple[str, list[str]]:
    """The explorer's counts line as HTML, and the characters its table shows: whole characters,
    as many as fit in ``rows`` code points (at least one)."""
    from bpe_course.course.by_hand import plural

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
    import ipywidgets as w

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


# --- Sennrich et al.'s algorithm -------------------------------------------------------------------


def stepper_html(state, limit: int | None = None) -> str:
    """The words of one step with their current symbols, and the pair merged next, as HTML.
    Symbols are escaped: the end-of-word marker ``</w>`` would otherwise vanish as a tag. When
    the stepper stopped at its ``limit`` of merges with pairs left, it says so and names the
    pair that would come next."""
    from bpe_course.reference.sennrich import greatest_pair

    rows = "".join(
        f"<tr><td>{count}</td><td>"
        + " ".join(f"<code>{html.escape(symbol)}</code>" for symbol in symbols)
        + "</td></tr>"
        for symbols, count in state.words.items()
    )
    if state.chosen:
        next_merge = f"next merge: <b>{html.escape(' + '.join(state.chosen))}</b>"
    elif state.pair_counts:
        following = html.escape(" + ".join(greatest_pair(state.pair_counts)))
        next_merge = (
            f"the stepper stops after {limit} merges; {len(state.pair_counts)} pairs are left, "
            f"and the next merge would be <b>{following}</b>"
        )
    else:
        next_merge = "no pair left: every word is one symbol"
    return f"<table><tr><th>count</th><th>symbols</th></tr>{rows}</table><p>{next_merge}</p>"


def pair_counts_figure(state, limit: int | None = None):
    """The stepper's bar chart of one step: the pair counts, most frequent first, the pair merged
    next in red. After the last step shown (the stepper's ``limit``), red is the pair that would
    come next, and the title says so; with no pair left there is no figure (``None``)."""
    import matplotlib.pyplot as plt

    from bpe_course.reference.sennrich import greatest_pair

    if not state.pair_counts:
        return None
    ranked = sorted(state.pair_counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:15]
    red = state.chosen or greatest_pair(state.pair_counts)
    fig, ax = plt.subplots(figsize=(7, 3.4))
    ax.bar(
        [f"{a} + {b}" for (a, b), _ in ranked],
        [count for _, count in ranked],
        color=["tab:red" if pair == red else "tab:blue" for pair, _ in ranked],
    )
    ax.set_ylabel("count")
    ax.yaxis.get_major_locator().set_params(integer=True)  # counts: no 2.5
    if state.chosen:
        title = "pair counts; red: the pair merged next (ties: the greatest pair)"
    else:
        title = (
            f"pair counts after the last step ({limit} merges); red: the pair that would be next"
        )
    ax.set_title(title, wrap=True)
    ax.tick_params(axis="x", rotation=45)
    plt.setp(ax.get_xticklabels(), ha="right", rotation_mode="anchor")
    fig.tight_layout()
    return fig


def sennrich_stepper(word_counts: dict[str, int] | None = None, merges: int = 10):
    """Step through Algorithm 1 merge by merge: the words with their symbols, the pair counts."""
    import ipywidgets as w

    from bpe_course.reference.sennrich import PAPER_EXAMPLE, steps

    states = steps(word_counts or PAPER_EXAMPLE, merges)
    slider = _step_slider(len(states) - 1, "merges done:")
    back, forward = _step_buttons(slider)
    out = w.Output()

    def redraw(_=None) -> None:
        from IPython.display import display

        state = states[slider.value]
        with out:
            out.clear_output(wait=True)
            display(w.HTML(stepper_html(state, merges)))
            fig = pair_counts_figure(state, merges)
            if fig is not None:
                show_and_close(fig)

    slider.observe(redraw, names="value")
    redraw()
    return w.VBox([w.HBox([back, forward, slider]), out])


# --- V5's heap ------------------------------------------------------------------------------------


def heap_stepper(merges: int = 8, compaction_factor: float = 1.5):
    """Step through V5's heap on the four words: before each merge the entries in pop order (live
    or stale), then what the merge did: stale pops, push-backs, pushes, a compaction."""
    import ipywidgets as w

    from bpe_course.course.by_hand import heap_states, plural

    states = heap_states(merges=merges, compaction_factor=compaction_factor)
    slider = _step_slider(len(states), "merge:", first=1)
    back, forward = _step_buttons(slider)
    shown = w.HTML()

    def redraw(_=None) -> None:
        state = states[slider.value - 1]
        shown.value = (
            f"<p>the heap before merge {slider.value}, in the order it would pop:</p>"
            f"<pre>{html.escape(state['heap'])}</pre><p>{html.escape(state['merge'])}</p>"
            f"<p>so far: {plural(state['pushes'], 'push', 'pushes')}, "
            f"{plural(state['stale_pops'], 'stale pop')}, "
            f"{plural(state['compactions'], 'compaction')} (factor {compaction_factor})</p>"
        )

    slider.observe(redraw, names="value")
    redraw()
    return w.VBox([w.HBox([back, forward, slider]), shown])


# --- Steppers' controls -------------------------------------------------------------------------


def _step_slider(last: int, label: str, first: int = 0):
    import ipywidgets as w

    return w.IntSlider(
        first,
        first,
        last,
        description=label,
        style={"description_width": "initial"},  # the label whole, not "merges d..."
        readout_format="d",
        layout=w.Layout(width="360px"),
    )


def _step_buttons(slider):
    import ipywidgets as w

    back, forward = w.Button(description="◀ previous"), w.Button(description="next ▶")
    back.on_click(lambda _: setattr(slider, "value", max(slider.min, slider.value - 1)))
    forward.on_click(lambda _: setattr(slider, "value", min(slider.max, slider.value + 1)))
    return back, forward
