"""Steppers: step through a training merge by merge (Sennrich et al.'s algorithm in notebook 03,
V5's heap in notebook 09), with the counts and structures after each step.

Each function returns a widget for the notebook to show; the logic behind it lives in the package
floors below (``reference.sennrich``, ``by_hand``), so a stepper only wires controls to functions.
"""

from __future__ import annotations

import html

import ipywidgets as w
import matplotlib.pyplot as plt
from IPython.display import display

from bpe_course.course.widgets.by_hand import heap_states, plural
from bpe_course.reference.sennrich import PAPER_EXAMPLE, greatest_pair, steps


def show_and_close(fig) -> None:
    """Display ``fig`` and free it: a widget redraws often, and pyplot keeps every figure it made
    until it is closed (only the inline backend's ``show`` closes them for us)."""
    display(fig)
    plt.close(fig)


# --- Sennrich et al.'s algorithm -------------------------------------------------------------------


def stepper_html(state, limit: int | None = None) -> str:
    """The words of one step with their current symbols, and the pair merged next, as HTML.
    Symbols are escaped: the end-of-word marker ``</w>`` would otherwise vanish as a tag. When
    the stepper stopped at its ``limit`` of merges with pairs left, it says so and names the
    pair that would come next."""
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
    states = steps(word_counts or PAPER_EXAMPLE, merges)
    slider = _step_slider(len(states) - 1, "merges done:")
    back, forward = _step_buttons(slider)
    out = w.Output()

    def redraw(_=None) -> None:
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
    back, forward = w.Button(description="◀ previous"), w.Button(description="next ▶")
    back.on_click(lambda _: setattr(slider, "value", max(slider.min, slider.value - 1)))
    forward.on_click(lambda _: setattr(slider, "value", min(slider.max, slider.value + 1)))
    return back, forward
