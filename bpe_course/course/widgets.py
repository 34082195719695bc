"""Interactive pieces of the notebooks (ipywidgets), and the small display helpers they share.

Each function returns a widget for the notebook to show; the logic behind it lives in the package
floors below (sennrich, bench, plots), so a widget only wires controls to functions.
"""

from __future__ import annotations

import html
import inspect
import unicodedata
from collections.abc import Callable

import pandas as pd


def show_source(obj) -> object:
    """The source of a function or module of the package, highlighted (never pasted twice)."""
    from IPython.display import Code

    return Code(inspect.getsource(obj), language="python")


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
        encoded = char.encode("utf-8")
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


def byte_explorer(initial: str = "héllo, wörld 😀 中文"):
    """Type text, see each character's code point and bytes."""
    import ipywidgets as w
    from IPython.display import display

    box = w.Text(value=initial, description="text:", layout=w.Layout(width="60%"))
    summary = w.HTML()
    out = w.Output()

    def redraw(_=None) -> None:
        text = box.value
        summary.value = (
            f"<b>{len(text)}</b> characters, <b>{len(text.encode('utf-8'))}</b> UTF-8 bytes, "
            f"{len(text.encode('utf-16-le'))} UTF-16 bytes, {len(text.encode('utf-32-le'))} UTF-32 bytes"
        )
        with out:
            out.clear_output(wait=True)
            display(byte_table(text[:40]))

    box.observe(redraw, names="value")
    redraw()
    return w.VBox([box, summary, out])


# --- Sennrich et al.'s algorithm -------------------------------------------------------------------


def stepper_html(state) -> str:
    """The words of one step with their current symbols, and the pair merged next, as HTML.
    Symbols are escaped: the end-of-word marker ``</w>`` would otherwise vanish as a tag."""
    rows = "".join(
        f"<tr><td>{count}</td><td>"
        + " ".join(f"<code>{html.escape(symbol)}</code>" for symbol in symbols)
        + "</td></tr>"
        for symbols, count in state.words.items()
    )
    chosen = html.escape(" + ".join(state.chosen)) if state.chosen else "(no pair left)"
    return (
        f"<table><tr><th>count</th><th>symbols</th></tr>{rows}</table>"
        f"<p>next merge: <b>{chosen}</b></p>"
    )


def sennrich_stepper(word_counts: dict[str, int] | None = None, merges: int = 10):
    """Step through Algorithm 1 merge by merge: the words with their symbols, the pair counts."""
    import ipywidgets as w
    import matplotlib.pyplot as plt
    from IPython.display import display

    from bpe_course.reference.sennrich import PAPER_EXAMPLE, steps

    states = steps(word_counts or PAPER_EXAMPLE, merges)
    slider = w.IntSlider(0, 0, len(states) - 1, description="merges done:")
    back, forward = w.Button(description="◀ previous"), w.Button(description="next ▶")
    out = w.Output()

    def redraw(_=None) -> None:
        state = states[slider.value]
        with out:
            out.clear_output(wait=True)
            display(w.HTML(stepper_html(state)))
            ranked = sorted(state.pair_counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
            fig, ax = plt.subplots(figsize=(7, 2.6))
            labels = [f"{a} {b}" for (a, b), _ in ranked[:15]]
            colours = ["tab:red" if pair == state.chosen else "tab:blue" for pair, _ in ranked[:15]]
            ax.bar(labels, [c for _, c in ranked[:15]], color=colours)
            ax.set_ylabel("count")
            ax.set_title("pair counts (red: the pair merged next; ties go to the greatest pair)")
            ax.tick_params(axis="x", rotation=60)
            fig.tight_layout()
            show_and_close(fig)

    back.on_click(lambda _: setattr(slider, "value", max(0, slider.value - 1)))
    forward.on_click(lambda _: setattr(slider, "value", min(slider.max, slider.value + 1)))
    slider.observe(redraw, names="value")
    redraw()
    return w.VBox([w.HBox([back, forward, slider]), out])


# --- The crossover explorer ----------------------------------------------------------------------


def crossover_explorer(
    table: pd.DataFrame,
    run_cells: Callable[[list[str], list[int], list[str]], pd.DataFrame] | None = None,
):
    """Pick corpus sizes, a vocab range, versions and a metric; the plot redraws from ``table``.

    ``run_cells(sizes, vocab_sizes, versions)``, when given, measures the cells of the selection
    that ``table`` lacks (the button "measure missing cells") and returns the rows to add.
    """
    import ipywidgets as w

    from bpe_course.plots import plot_crossover

    state = {"table": table}
    sizes = sorted(set(zip(table["size_bytes"], table["size"])))
    size_pick = w.SelectMultiple(
        options=[label for _, label in sizes],
        value=[label for _, label in sizes],
        description="corpus:",
        rows=min(4, len(sizes)),
    )
    vocabs = sorted(table["vocab_size"].unique())
    vocab_range = w.IntRangeSlider(
        value=(int(vocabs[0]), int(vocabs[-1])),
        min=int(vocabs[0]),
        max=int(vocabs[-1]),
        step=50,
        description="vocab:",
        continuous_update=False,
        layout=w.Layout(width="420px"),
    )
    versions = sorted(table["version"].unique())
    version_pick = w.SelectMultiple(
        options=versions, value=versions, description="versions:", rows=min(4, len(versions))
    )
    metric = w.ToggleButtons(
        options=[("merge loop", "merge_s"), ("end to end", "total_s")],
        description="time:",
        layout=w.Layout(margin="0 0 0 4em"),  # clear of the slider's readout
    )
    measure = w.Button(
        description="measure missing cells",
        disabled=run_cells is None,
        layout=w.Layout(width="auto", margin="0 1em 0 0"),
    )
    status = w.HTML()
    out = w.Output()

    def selection() -> pd.DataFrame:
        current = state["table"]
        low, high = vocab_range.value
        keep = (
            current["size"].isin(size_pick.value)
            & current["version"].isin(version_pick.value)
            & current["vocab_size"].between(low, high)
        )
        return current[keep]

    def redraw(_=None) -> None:
        chosen = selection()
        with out:
            out.clear_output(wait=True)
            if chosen.empty or not version_pick.value:
                print("nothing measured in this selection")
                return
            show_and_close(plot_crossover(chosen, metric.value, tuple(version_pick.value)))
        status.value = f"{len(chosen)} runs shown"

    def measure_missing(_=None) -> None:
        from bpe_course.bench.harness import CROSSOVER_VOCABS

        low, high = vocab_range.value
        wanted = [v for v in CROSSOVER_VOCABS if low <= v <= high]
        measure.disabled = True
        status.value = "measuring…"
        try:
            with out:
                new = run_cells(list(size_pick.value), wanted, list(version_pick.value))
        except Exception as error:  # shown in the widget: a callback's traceback would be lost
            status.value = f"measuring failed: {html.escape(str(error))}"
            return
        finally:
            measure.disabled = False
        state["table"] = pd.concat([state["table"], new], ignore_index=True).drop_duplicates(
            subset=["corpus", "size_bytes", "vocab_size", "version", "repeat"], keep="last"
        )
        redraw()

    for control in (size_pick, vocab_range, version_pick, metric):
        control.observe(redraw, names="value")
    measure.on_click(measure_missing)
    redraw()
    return w.VBox(
        [
            w.HBox([size_pick, version_pick]),
            w.HBox([vocab_range, metric]),
            w.HBox([measure, status], layout=w.Layout(align_items="center")),
            out,
        ]
    )
