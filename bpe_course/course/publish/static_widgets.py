"""Widgets frozen for a static page (the course site and the slides): no kernel drives them there.

An executed notebook keeps each widget's last state in its metadata (nbclient stores it). This
turns every widget output into plain HTML drawn from that state: a progress bar becomes its final
text and bar; an interactive widget (a stepper, an explorer) becomes what it showed when the
notebook ran (its figure, table or highlighted text) under a line that says how to run it live.
The widget state is then dropped from the metadata, so no builder loads widget JavaScript from a CDN.
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
# Models that only arrange or report; any other model is a control a reader would move.
PASSIVE = {
    "VBoxModel",
    "HBoxModel",
    "BoxModel",
    "HTMLModel",
    "LabelModel",
    "OutputModel",
    "FloatProgressModel",
    "IntProgressModel",
}
# The explorer's live canvas keeps no picture in the saved notebook: this figure, which the same
# notebook stores, stands in for it on a static page.
CANVAS_FIGURES = {"11_crossover.ipynb": "11_crossover_stories.png"}
LIVE_NOTE = (
    '<p class="bpe-static-widget-note"><strong>Interactive widget, shown as it first appeared.'
    "</strong> It needs a live kernel: open this notebook in JupyterLab "
    "(<code>jupyter lab notebooks/{name}</code>) and run its cells to use it{extra}.</p>"
)


def freeze_widgets(notebook, name: str, canvas_figure: Path | None = None) -> int:
    """Replace every widget output of ``notebook`` (in place) by static HTML; return how many.

    ``name`` is the notebook's file name, for the note on how to run it live. A live matplotlib
    canvas (ipympl) keeps no image in the widget state, so ``canvas_figure`` (a PNG the course
    stored, of what the canvas first shows) stands in for it, when given and present.
    """
    state = notebook.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    frozen = 0
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW not in data:
                continue
            model_id = data[WIDGET_VIEW]["model_id"]
            body = _render(model_id, state)
            if _has_model(model_id, state, "MPLCanvasModel") and "<img" not in body:
                body += _stored_figure(canvas_figure)
            if _interactive(model_id, state):
                extra = ""
                if _has_model(model_id, state, "MPLCanvasModel"):  # the benchmark explorer
                    extra = " (or <code>bpe-course explore</code> for the explorer alone)"
                body = LIVE_NOTE.format(name=html.escape(name), extra=extra) + body
            output["data"] = {"text/html": f'<div class="bpe-static-widget">{body}</div>'}
            frozen += 1
    notebook.metadata.pop("widgets", None)
    return frozen


def _children(model: dict) -> list[str]:
    return [c.removeprefix("IPY_MODEL_") for c in model["state"].get("children", [])]


def _interactive(model_id: str, state: dict) -> bool:
    model = state.get(model_id)
    if model is None:
        return False
    if model["model_name"] not in PASSIVE:
        return True
    nested = [_nested_views(model)] if model["model_name"] == "OutputModel" else []
    ids = _children(model) + [i for group in nested for i in group]
    return any(_interactive(child, state) for child in ids)


def _has_model(model_id: str, state: dict, name: str) -> bool:
    model = state.get(model_id)
    if model is None:
        return False
    return model["model_name"] == name or any(
        _has_model(child, state, name) for child in _children(model)
    )


def _nested_views(model: dict) -> list[str]:
    """Widgets displayed inside an Output widget."""
    return [
        o["data"][WIDGET_VIEW]["model_id"]
        for o in model["state"].get("outputs", [])
        if WIDGET_VIEW in o.get("data", {})
    ]


def _render(model_id: str, state: dict) -> str:
    """One model and its children as HTML (controls shown as their value, disabled)."""
    model = state.get(model_id)
    if model is None:
        return ""
    kind, values = model["model_name"], model["state"]
    if kind in ("VBoxModel", "BoxModel"):
        return "".join(_render(child, state) for child in _children(model))
    if kind == "HBoxModel":
        if _is_progress_bar(model, state):
            return _render_progress_bar(model, state)
        inner = " ".join(_render(child, state) for child in _children(model))
        return f'<div class="bpe-static-row">{inner}</div>' if inner.strip() else ""
    if kind in ("HTMLModel", "LabelModel"):
        value = values.get("value", "")
        return value if kind == "HTMLModel" else html.escape(value)
    if kind in ("FloatProgressModel", "IntProgressModel"):
        return (
            f'<progress value="{values.get("value", 0)}" max="{values.get("max", 100)}"></progress>'
        )
    if kind == "OutputModel":
        return "".join(_render_output(o, state) for o in values.get("outputs", []))
    if kind == "MPLCanvasModel" and values.get("_data_url"):
        return f'<img src="{values["_data_url"]}" alt="the figure as the notebook drew it">'
    if kind in ("TextModel", "TextareaModel", "DropdownModel"):
        label = html.escape((values.get("description", "") or "input").rstrip(": "))
        value = values.get("value")
        if kind == "DropdownModel":
            labels = values.get("_options_labels", [])
            index = values.get("index")
            value = labels[index] if isinstance(index, int) and index < len(labels) else ""
        if not value:
            return ""
        return f'<p class="bpe-static-input">{label}: <code>{html.escape(str(value))}</code></p>'
    return ""  # buttons, sliders, checkboxes: nothing to show without a kernel


def _render_output(output: dict, state: dict) -> str:
    data = output.get("data", {})
    if WIDGET_VIEW in data:
        return _render(data[WIDGET_VIEW]["model_id"], state)
    if "image/png" in data:
        return f'<img src="data:image/png;base64,{data["image/png"].strip()}" alt="figure">'
    if "text/html" in data:
        return "".join(data["text/html"])
    if output.get("output_type") == "stream":
        return f"<pre>{html.escape(''.join(output.get('text', '')))}</pre>"
    if "text/plain" in data:
        return f"<pre>{html.escape(''.join(data['text/plain']))}</pre>"
    return ""


def _is_progress_bar(model: dict, state: dict) -> bool:
    kinds = [state.get(child, {}).get("model_name") for child in _children(model)]
    return any(k in ("FloatProgressModel", "IntProgressModel") for k in kinds) and all(
        k in PASSIVE for k in kinds
    )


def _render_progress_bar(model: dict, state: dict) -> str:
    """A tqdm bar as its label and a full or partial bar. Its text (``34/43``, a percentage) is
    the last one synced before the run ended, often short of the end, so it is left out."""
    label, bar = "", ""
    for child in _children(model):
        child_model = state.get(child, {})
        if child_model.get("model_name") == "HTMLModel" and not label:
            label = re.sub(r"\s*\d+%\s*$", "", child_model["state"].get("value", ""))
        elif child_model.get("model_name") in ("FloatProgressModel", "IntProgressModel"):
            bar = _render(child, state)
    return f'<div class="bpe-static-row">{label} {bar}</div>'


def _stored_figure(path: Path | None) -> str:
    if path is None or not path.is_file():
        return ""
    encoded = base64.b64encode(path.read_bytes()).decode("ascii")
    return (
        f"<p>A live canvas keeps no picture; in its place, the course's stored figure "
        f"<code>{html.escape(path.name)}</code>:</p>"
        f'<img src="data:image/png;base64,{encoded}" alt="the stored figure">'
    )
