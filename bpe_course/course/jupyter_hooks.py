"""A Jupyter server extension of the course's: notebooks are saved without their widgets' views.

A widget lives in its kernel. A notebook saved with a widget's view in an output (JupyterLab saves
every few minutes) and opened again under a new kernel shows "Error displaying widget: model not
found" in place of the explorer, the steppers and the byte table, until Run All: the kernel that
held them is gone. Saving no widget state in the notebook does not help (JupyterLab saves none by
default; none is committed); the view in the output is what fails. This hook, run by the server
before each save, replaces each widget's view in an output by a line saying to run the cell, and
drops any widget state from the notebook's metadata. What the browser shows is not changed: the
widgets stay live until the page is reloaded or the notebook reopened.

Enabled by ``jupyter-config/jupyter_server_config.d/bpe_course.json``, which installing the package
puts in the environment's ``etc/jupyter``.
"""

from __future__ import annotations

from typing import Any

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
PLACEHOLDER = (
    "(a widget: it lives only while the kernel that made it runs; run this cell to show it again)"
)


def drop_widget_views(model: dict[str, Any], **_: Any) -> None:
    """A ``pre_save_hook``: in a notebook about to be saved, each output's widget view becomes
    :data:`PLACEHOLDER` (as plain text), and the metadata's widget state goes."""
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    notebook = model["content"]
    notebook.get("metadata", {}).pop("widgets", None)
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs") or []:
            data = output.get("data")
            if isinstance(data, dict) and WIDGET_VIEW in data:
                del data[WIDGET_VIEW]
                data["text/plain"] = PLACEHOLDER


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "bpe_course.course.jupyter_hooks"}]


def _load_jupyter_server_extension(serverapp) -> None:
    serverapp.contents_manager.register_pre_save_hook(drop_widget_views)
