"""The crossover notebook in a real browser: JupyterLab on 127.0.0.1, headless Debian chromium
driven by Playwright. The explorer widget must display, and moving a control must redraw its plot.

Needs Debian's ``chromium`` (``.ci/run`` installs it); skipped, with the reason, where it is absent.
A screenshot is saved to ``test-artifacts/browser/`` for a human to look at.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from bpe_course.paths import REPO_ROOT, notebooks_dir

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = REPO_ROOT / "test-artifacts" / "browser"
# Flags for a root, headless run on a machine with no network: without the background-networking
# ones, chromium keeps trying to reach Google's services.
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None, reason="no chromium: `apt-get install chromium` (CI does)"
    ),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def jupyter_lab(tmp_path):
    """A JupyterLab server on 127.0.0.1 over a copy of the notebooks (the browser may save them)."""
    root = tmp_path / "notebooks"
    shutil.copytree(notebooks_dir(), root)
    port, token = free_port(), "bpe-course-test"
    # No "get Jupyter news?" toast over the screenshots (and no request for news).
    notification = tmp_path / "lab/settings/@jupyterlab/apputils-extension"
    notification.mkdir(parents=True)
    (notification / "notification.jupyterlab-settings").write_text(
        '{"fetchNews": "false", "checkForUpdates": false}'
    )
    env = {
        **os.environ,
        "BPE_COURSE_QUICK": "1",
        "BPE_COURSE_CORPUS": "stories",
        "BPE_COURSE_NOTEBOOKS": str(root),
        "BPE_COURSE_DATA": str(tmp_path / "data"),
        "BPE_COURSE_FIGURES": str(tmp_path / "figures"),
        "BPE_COURSE_BUILD": str(tmp_path / "build"),
        # A fresh JupyterLab state: a workspace saved by an earlier run would be restored (with
        # its open tabs and dialogs) and the run would depend on what ran before.
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "lab" / "workspaces"),
        "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "lab" / "settings"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}"]
        + [f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}"]
        + ["--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
        + ["--LabApp.extension_manager=readonly"]  # no PyPI lookups: no network here
        + ["--LabApp.expose_app_in_browser=True"]  # window.jupyterapp: see NOTEBOOK_STATE_JS
        + (["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
        env=env,
        start_new_session=True,  # its own process group: the kernels it starts die with it
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "jupyter.log", "wb"),
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    log = (tmp_path / "jupyter.log").read_text(errors="replace")[-3000:]
                    pytest.fail(f"JupyterLab did not start:\n{log}")
                time.sleep(0.5)
        yield base, token
    finally:
        import signal

        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(server.pid, sig)
                server.wait(timeout=20)
                break
            except (ProcessLookupError, subprocess.TimeoutExpired):
                continue


# JupyterLab is started with ``expose_app_in_browser`` so the test can read the notebook's session:
# the DOM's kernel indicator reads "idle" before any kernel exists, and a "Run All" clicked then
# clears every cell and runs nothing (the cause of this test's earlier flakiness).
NOTEBOOK_STATE_JS = """() => {
    const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    if (!panel || !panel.sessionContext || !panel.content.model) return null;
    const session = panel.sessionContext, kernel = session.session && session.session.kernel;
    const counts = [];
    for (const cell of panel.content.model.cells) {
        if (cell.type === 'code') counts.push(cell.executionCount);
    }
    return {
        ready: session.isReady,
        kernel: kernel ? kernel.status : null,
        connection: kernel ? kernel.connectionStatus : null,
        executionCounts: counts,
    };
}"""


def notebook_state(page) -> dict:
    return page.evaluate(NOTEBOOK_STATE_JS) or {}


def wait_for_kernel(page, timeout_s: float = 120) -> None:
    """Wait until the notebook's kernel is connected and idle, accepting the "Select Kernel"
    dialog that JupyterLab shows when its session starts slowly (a loaded machine)."""
    accept = page.locator(".jp-Dialog .jp-mod-accept")
    deadline = time.monotonic() + timeout_s
    state: dict = {}
    while time.monotonic() < deadline:
        if accept.count() and accept.first.is_visible():
            accept.first.click()
        state = notebook_state(page)
        if state.get("ready") and (state["connection"], state["kernel"]) == ("connected", "idle"):
            return
        page.wait_for_timeout(250)
    raise TimeoutError(f"the notebook's kernel did not become ready and idle: {state}")


def wait_for_run(page, target, timeout_s: float = 480) -> None:
    """Wait for ``target`` to appear while the notebook runs. Fail at once, with the traceback's
    text, if a cell raises, and within a minute if no cell has started."""
    errors = page.locator("[data-mime-type='application/vnd.jupyter.error']")
    accept = page.locator(".jp-Dialog .jp-mod-accept")
    start = time.monotonic()
    state: dict = {}
    while time.monotonic() - start < timeout_s:
        if target.count() and target.is_visible():
            return
        if errors.count():
            raise AssertionError("a cell raised:\n" + errors.first.inner_text()[-3000:])
        if accept.count() and accept.first.is_visible():
            accept.first.click()
        state = notebook_state(page)
        started = any(count is not None for count in state.get("executionCounts", []))
        if not started and state.get("kernel") == "idle" and time.monotonic() - start > 60:
            raise AssertionError(f"Run All Cells started no cell within a minute: {state}")
        page.wait_for_timeout(1000)
    raise TimeoutError(f"the explorer's plot did not appear: {state}")


def wait_for_new_plot(page, old_src: str | None) -> str:
    """Wait until the explorer's plot image differs from ``old_src``; return the new source."""
    page.wait_for_function(
        """([selector, old]) => {
            const img = document.querySelector(selector);
            return img && img.getAttribute('src') !== old;
        }""",
        arg=[".widget-vbox .widget-output img", old_src],
        timeout=60_000,
    )
    new = page.locator(".widget-vbox .widget-output img").first.get_attribute("src")
    assert new and new != old_src
    return new


def test_crossover_explorer_displays_and_redraws(jupyter_lab) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    base, token = jupyter_lab
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            page.goto(f"{base}/lab/tree/10_crossover.ipynb?reset&token={token}")
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
            wait_for_kernel(page)
            page.get_by_role("menuitem", name="Run", exact=True).click()
            page.get_by_role("menuitem", name="Run All Cells", exact=True).click()

            explorer = page.locator(".widget-vbox", has=page.locator(".widget-toggle-buttons"))
            plot = explorer.locator(".widget-output img").first
            wait_for_run(page, plot)
            page.wait_for_timeout(500)
            assert page.get_by_text("Error displaying widget").count() == 0
            explorer.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "crossover_explorer_before.png"))
            before = plot.get_attribute("src")

            explorer.get_by_role("button", name="end to end").click()
            after = wait_for_new_plot(page, before)
            page.screenshot(path=str(ARTIFACTS / "crossover_explorer_after.png"))
            assert page.get_by_text("Error displaying widget").count() == 0

            # Move the vocab slider's upper handle down from the keyboard: fewer runs, new plot.
            status = explorer.get_by_text("runs shown")
            shown = int(status.inner_text().split()[0])
            explorer.locator(".noUi-handle-upper").focus()
            for _ in range(25):  # 25 steps of 50: from 5,000 down to 3,750
                page.keyboard.press("ArrowLeft")
            wait_for_new_plot(page, after)
            page.wait_for_function(
                "([n]) => [...document.querySelectorAll('.widget-html')].some("
                "e => /^\\d+ runs shown$/.test(e.innerText.trim())"
                " && parseInt(e.innerText) < n)",
                arg=[shown],
                timeout=60_000,
            )
            page.screenshot(path=str(ARTIFACTS / "crossover_explorer_slider.png"))
            assert page.get_by_text("Error displaying widget").count() == 0
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "crossover_explorer_failure.png"))
            raise
        finally:
            browser.close()
    assert Path(ARTIFACTS / "crossover_explorer_after.png").stat().st_size > 10_000
