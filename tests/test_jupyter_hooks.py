"""The course's Jupyter server extension: a notebook is saved without its widgets' views, which a
new kernel could not show ("Error displaying widget: model not found" on reopening)."""

from __future__ import annotations

import json

from bpe_course.course.jupyter_hooks import PLACEHOLDER, WIDGET_VIEW, drop_widget_views
from bpe_course.paths import REPO_ROOT


def test_a_saved_notebook_keeps_no_widget_view_and_no_widget_state() -> None:
    view = {"version_major": 2, "version_minor": 0, "model_id": "abc"}
    content = {
        "metadata": {"widgets": {"application/vnd.jupyter.widget-state+json": {}}, "x": 1},
        "cells": [
            {"cell_type": "markdown", "source": "text"},
            {
                "cell_type": "code",
                "outputs": [
                    {
                        "output_type": "display_data",
                        "data": {WIDGET_VIEW: view, "text/plain": "VBox()"},
                    },
                    {"output_type": "stream", "name": "stdout", "text": "kept\n"},
                    {"output_type": "display_data", "data": {"image/png": "iVBOR"}},
                ],
            },
        ],
    }
    model = {"type": "notebook", "content": content}
    drop_widget_views(model, path="x.ipynb", contents_manager=None)
    outputs = content["cells"][1]["outputs"]
    assert outputs[0]["data"] == {"text/plain": PLACEHOLDER}
    assert outputs[1]["text"] == "kept\n" and outputs[2]["data"] == {"image/png": "iVBOR"}
    assert content["metadata"] == {"x": 1}
    drop_widget_views({"type": "file", "content": "plain text"})  # other files untouched


def test_installing_the_package_enables_the_extension() -> None:
    config = REPO_ROOT / "jupyter-config" / "jupyter_server_config.d" / "bpe_course.json"
    extensions = json.loads(config.read_text())["ServerApp"]["jpserver_extensions"]
    assert extensions == {"bpe_course.course.jupyter_hooks": True}
    pyproject = (REPO_ROOT / "pyproject.toml").read_text()
    assert '"etc/jupyter/jupyter_server_config.d" = ["jupyter-config/' in pyproject
