"""Widgets frozen for the static site and slides: what each kind becomes, from its saved state."""

from __future__ import annotations

import base64

import nbformat

from bpe_course.course.publish.static_widgets import WIDGET_STATE, WIDGET_VIEW, freeze_widgets

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()


def model(name: str, **state) -> dict:
    return {"model_name": name, "state": state}


def notebook_with(state: dict, shown: str):
    notebook = nbformat.v4.new_notebook()
    output = nbformat.v4.new_output(
        "display_data", data={WIDGET_VIEW: {"model_id": shown}, "text/plain": "VBox(...)"}
    )
    notebook.cells = [nbformat.v4.new_code_cell("w", outputs=[output])]
    notebook.metadata["widgets"] = {WIDGET_STATE: {"state": state}}
    return notebook


def frozen_html(notebook) -> str:
    return notebook.cells[0].outputs[0]["data"]["text/html"]


def test_a_progress_bar_is_its_label_and_bar_without_the_stale_count() -> None:
    state = {
        "bar": model("HBoxModel", children=["IPY_MODEL_a", "IPY_MODEL_b", "IPY_MODEL_c"]),
        "a": model("HTMLModel", value="merges (v1):  79%"),
        "b": model("FloatProgressModel", value=43.0, max=43.0),
        "c": model("HTMLModel", value=" 34/43 [00:00<00:00]"),
    }
    notebook = notebook_with(state, "bar")
    assert freeze_widgets(notebook, "05_v1_naive.ipynb") == 1
    page = frozen_html(notebook)
    assert "merges (v1):" in page and '<progress value="43.0" max="43.0">' in page
    assert "79%" not in page and "34/43" not in page and "jupyter lab" not in page
    assert "widgets" not in notebook.metadata  # no widget JavaScript for a builder to load


def test_an_interactive_widget_shows_its_first_state_and_how_to_run_it_live() -> None:
    state = {
        "box": model("VBoxModel", children=["IPY_MODEL_text", "IPY_MODEL_go", "IPY_MODEL_out"]),
        "text": model("TextModel", value="héllo", description="text:"),
        "go": model("ButtonModel", description="next"),
        "out": model(
            "OutputModel",
            outputs=[{"output_type": "display_data", "data": {"image/png": PNG}}],
        ),
    }
    notebook = notebook_with(state, "box")
    freeze_widgets(notebook, "03_sennrich_bpe.ipynb")
    page = frozen_html(notebook)
    assert "jupyter lab notebooks/03_sennrich_bpe.ipynb" in page
    assert f"data:image/png;base64,{PNG}" in page
    assert "héllo" in page and "next" not in page  # a value shown, a button left out


def test_a_live_canvas_is_replaced_by_the_stored_figure(tmp_path) -> None:
    figure = tmp_path / "11_crossover_stories.png"
    figure.write_bytes(b"\x89PNG stored")
    state = {
        "box": model("VBoxModel", children=["IPY_MODEL_canvas"]),
        "canvas": model("MPLCanvasModel", _data_url=None),
    }
    notebook = notebook_with(state, "box")
    freeze_widgets(notebook, "11_crossover.ipynb", figure)
    page = frozen_html(notebook)
    assert "bpe-course explore" in page and "11_crossover_stories.png" in page
    assert base64.b64encode(figure.read_bytes()).decode() in page
