"""The course's widgets in a real browser: JupyterLab (and Voila, for ``bpe-course explore``) on
127.0.0.1, headless Debian chromium driven by Playwright. Each widget must display without
"Error displaying widget", each control must change what is shown, the explorer must measure a
missing cell and add its point, cancel must stop it, and no figure may be shown shrunk.

Needs Debian's ``chromium`` (``.ci/run`` installs it); skipped, with the reason, where it is absent.
A screenshot is saved to ``test-artifacts/browser/`` for a human to look at.
"""

from __future__ import annotations

import contextlib
import os
import re
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
    pytest.mark.serial,
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
        # the course's server extension, as installing the package enables it: notebooks saved
        # without their widgets' views (bpe_course/course/jupyter_hooks.py)
        "JUPYTER_CONFIG_PATH": os.pathsep.join(
            filter(None, [str(REPO_ROOT / "jupyter-config"), os.environ.get("JUPYTER_CONFIG_PATH")])
        ),
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
        wait_for_server(
            f"{base}/api/status?token={token}", server, tmp_path / "jupyter.log", "JupyterLab"
        )
        yield base, token
    finally:
        stop_server(server)


def wait_for_server(url: str, server: subprocess.Popen, log: Path, name: str) -> None:
    """Poll ``url`` until it answers; fail with the end of ``log`` if the server dies or 90 s pass."""
    deadline = time.monotonic() + 90
    while True:
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                pytest.fail(f"{name} did not start:\n" + log.read_text(errors="replace")[-3000:])
            time.sleep(0.5)


def stop_server(server: subprocess.Popen) -> None:
    """Stop a server started in its own process group, and all it started (kernels, workers)."""
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


CANVAS_JS = """(root) => {
    const canvas = root.querySelector('canvas.jupyter-matplotlib-canvas')
        || root.querySelector('canvas');
    return canvas ? canvas.toDataURL() : null;
}"""


def canvas_image(locator) -> str | None:
    """The explorer's live figure (an ipympl canvas) as a data URL, to see that it was redrawn."""
    return locator.evaluate(CANVAS_JS)


def wait_for_change(page, read, old, what: str, timeout_s: float = 60) -> object:
    """Poll ``read()`` until it differs from ``old``; fail naming ``what`` if it never does."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        new = read()
        if new is not None and new != old:
            return new
        page.wait_for_timeout(300)
    raise AssertionError(f"{what} did not change within {timeout_s} s")


SHRUNK_IMAGES_JS = """() => [...document.querySelectorAll('.jp-OutputArea-output img')]
    .filter(img => img.complete && img.naturalWidth > 0 && img.getBoundingClientRect().width > 0)
    .filter(img => img.naturalWidth > img.getBoundingClientRect().width * 1.05)
    .map(img => img.naturalWidth + 'px shown at ' + Math.round(img.getBoundingClientRect().width))
"""


def run_notebook(page, base: str, token: str, name: str, target_selector: str):
    """Open ``name``, run all its cells, wait for ``target_selector`` to be visible; return it."""
    page.goto(f"{base}/lab/tree/{name}?reset&token={token}")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
    wait_for_kernel(page)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    target = page.locator(target_selector).last
    wait_for_run(page, target)
    page.wait_for_timeout(500)
    assert page.get_by_text("Error displaying widget").count() == 0, name
    return target


def status_of(explorer) -> str:
    return explorer.locator(".bpe-explorer-status").first.inner_text()


def test_explorer_in_jupyterlab(jupyter_lab) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    base, token = jupyter_lab
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            explorer = run_notebook(
                page,
                base,
                token,
                "11_crossover.ipynb",
                ".widget-vbox:has(.jupyter-matplotlib):has(.widget-toggle-buttons)",
            )
            explorer.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "explorer_before.png"))
            shrunk = page.evaluate(SHRUNK_IMAGES_JS)
            assert not shrunk, f"figures shown smaller than drawn: {shrunk}"

            before = canvas_image(explorer)
            explorer.get_by_role("button", name="end to end").click()
            after = wait_for_change(page, lambda: canvas_image(explorer), before, "the figure")
            explorer.get_by_role("button", name="more options").click()  # log axes are there
            explorer.get_by_text("log time").click()
            wait_for_change(page, lambda: canvas_image(explorer), after, "the figure (log axis)")
            page.screenshot(path=str(ARTIFACTS / "explorer_controls.png"))

            # A corpus size nobody measured: its cells are missing; measure them, points appear.
            # One version only, to keep the runs few (one per vocab size of the range).
            explorer.locator(".widget-select-multiple select").nth(2).select_option(
                label=["V5 heap"]
            )
            status = status_of(explorer)
            size_box = explorer.locator("input[placeholder='add a size: 2MB']")
            size_box.fill("30KB")
            size_box.press("Enter")
            grown = wait_for_change(page, lambda: status_of(explorer), status, "the status")
            assert "not measured yet" in grown and not grown.startswith("0 cell")
            empty_plot = canvas_image(explorer)
            explorer.get_by_role("button", name="measure missing cells").click()
            page.wait_for_function(
                "(el) => /; measured \\d+ of \\d+ queued/.test(el.innerText)",
                arg=explorer.locator(".bpe-explorer-status").first.element_handle(),
                timeout=300_000,
            )
            page.screenshot(path=str(ARTIFACTS / "explorer_measured.png"))
            assert "failed" not in status_of(explorer)
            assert canvas_image(explorer) != empty_plot  # the measured points were drawn

            # Another unmeasured size, then cancel at once: the run under way is stopped.
            size_box.fill("40KB")
            size_box.press("Enter")
            explorer.get_by_role("button", name="measure missing cells").click()
            explorer.get_by_role("button", name="cancel").click()
            page.wait_for_function(
                "(el) => el.innerText.includes('(cancelled)')",
                arg=explorer.locator(".bpe-explorer-status").first.element_handle(),
                timeout=300_000,
            )
            page.screenshot(path=str(ARTIFACTS / "explorer_cancelled.png"))
            assert page.get_by_text("Error displaying widget").count() == 0
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "explorer_failure.png"))
            raise
        finally:
            browser.close()


# Where the explorer's parts are, in the page's pixels, and the notebook panel's visible height.
EXPLORER_BOXES_JS = """(root) => {
    const box = el => { if (!el) return null; const r = el.getBoundingClientRect();
        return {left: r.left, top: r.top, right: r.right, bottom: r.bottom,
                width: r.width, height: r.height}; };
    const panel = root.closest('.jp-WindowedPanel-outer') || root.closest('.jp-Notebook');
    return {
        root: box(root),
        band: box(root.querySelector('.bpe-explorer-controls')),
        canvas: box(root.querySelector('canvas')),
        panel: box(panel),
        cell: box(root.closest('.jp-OutputArea-output') || root),
    };
}"""


def test_notebook_11_at_1280x800_and_reopened(jupyter_lab) -> None:
    """Issue 35, part 7: 11 in JupyterLab at 1280 x 800, the file browser open (an 848-pixel
    cell): the explorer's figure on the first screen of the explorer, below one row of controls,
    never wider than its cell, with every panel selected too; then saved, its kernel shut down,
    reopened: no "Error displaying widget: model not found", a line saying to run the cell."""
    sync_api = pytest.importorskip("playwright.sync_api")
    base, token = jupyter_lab
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        try:
            explorer = run_notebook(
                page, base, token, "11_crossover.ipynb", ".bpe-explorer:has(canvas)"
            )
            explorer.evaluate("(el) => el.scrollIntoView({block: 'start'})")
            page.wait_for_timeout(1500)  # the figure resized to the room the page reported
            page.screenshot(path=str(ARTIFACTS / "11_explorer_1280x800.png"))
            boxes = explorer.evaluate(EXPLORER_BOXES_JS)
            screen = boxes["panel"]["bottom"]
            assert boxes["band"]["height"] < 0.5 * boxes["panel"]["height"], boxes
            assert boxes["canvas"]["top"] < screen - 200, f"the figure is below the fold: {boxes}"
            assert boxes["canvas"]["right"] <= boxes["cell"]["right"] + 1, boxes

            # every corpus and every size: the figure grows taller, never wider than the cell
            before = canvas_image(explorer)
            lists = explorer.locator(".bpe-explorer-controls select[multiple]")
            for index in (0, 1):
                options = lists.nth(index).evaluate("s => [...s.options].map(o => o.text)")
                lists.nth(index).select_option(label=options)
            wait_for_change(page, lambda: canvas_image(explorer), before, "the figure")
            deadline = time.monotonic() + 120  # every redraw done, the last one on the canvas
            while notebook_state(page).get("kernel") != "idle" and time.monotonic() < deadline:
                page.wait_for_timeout(500)
            page.wait_for_function(DRAWN_JS, timeout=60_000)
            boxes = explorer.evaluate(EXPLORER_BOXES_JS)
            assert boxes["canvas"]["height"] > 500, f"seven panels in one row? {boxes}"
            assert boxes["canvas"]["right"] <= boxes["cell"]["right"] + 1, boxes
            explorer.locator("canvas").first.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "11_explorer_all_panels.png"))

            # saved (as the autosave does), the kernel shut down, reopened
            page.keyboard.press("Control+s")
            page.wait_for_timeout(2000)
            page.get_by_role("menuitem", name="Kernel", exact=True).click()
            page.get_by_role("menuitem", name="Shut Down Kernel", exact=True).click()
            page.wait_for_timeout(2000)
            page.reload()
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
            wait_for_kernel(page)
            page.wait_for_timeout(3000)  # the widget manager has looked for the models
            page.screenshot(path=str(ARTIFACTS / "11_reopened.png"))
            assert page.get_by_text("Error displaying widget").count() == 0
            assert page.get_by_text("run this cell to show it again").count() >= 1
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "11_failure.png"))
            raise
        finally:
            browser.close()


# Each notebook's widget, one control moved, what it shows must change.
WIDGETS = [
    ("02_unicode_and_utf8.ipynb", ".widget-vbox:has(.widget-text input)", "input", "naïve 👩‍👩‍👧"),
    ("03_sennrich_bpe.ipynb", ".widget-vbox:has(.widget-slider)", "next ▶", None),
    (
        "04_byte_level_bpe.ipynb",
        ".widget-vbox:has(.widget-textarea)",
        "textarea",
        "Don't 42 times!",
    ),
    ("09_v5_heap.ipynb", ".widget-vbox:has(.widget-slider)", "next ▶", None),
    (
        "12_using_the_tokenizer.ipynb",
        ".widget-vbox:has(.widget-dropdown)",
        "textarea",
        "The café, 1999.",
    ),
]


@pytest.mark.parametrize(
    ("name", "selector", "control", "text"), WIDGETS, ids=[w[0][:2] for w in WIDGETS]
)
def test_widget_in_jupyterlab(jupyter_lab, name, selector, control, text) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    base, token = jupyter_lab
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        stem = name.split(".")[0]
        try:
            widget = run_notebook(page, base, token, name, selector)
            widget.scroll_into_view_if_needed()
            before = widget.inner_text()
            if text is None:
                widget.get_by_role("button", name=control).click()
                widget.get_by_role("button", name=control).click()
            else:
                field = widget.locator(control).first
                field.fill(text)
                field.press("Tab")
            wait_for_change(page, widget.inner_text, before, f"{stem}'s widget")
            page.screenshot(path=str(ARTIFACTS / f"{stem}_widget.png"))
            assert page.get_by_text("Error displaying widget").count() == 0
            shrunk = page.evaluate(SHRUNK_IMAGES_JS)
            assert not shrunk, f"figures shown smaller than drawn: {shrunk}"
        except Exception:
            page.screenshot(path=str(ARTIFACTS / f"{stem}_failure.png"))
            raise
        finally:
            browser.close()


@pytest.fixture(scope="module")
def explore_page(tmp_path_factory):
    """``bpe-course explore`` (the explorer alone, served by Voila on 127.0.0.1): its address.
    One server for the module; every page load gets a kernel of its own."""
    with explore_server(tmp_path_factory.mktemp("explore")) as (url, _):
        yield url


@contextlib.contextmanager
def explore_server(tmp_path: Path):
    """``bpe-course explore`` on a free port of 127.0.0.1: (its address, its process)."""
    pytest.importorskip("voila", reason="the explore page needs the explore extra")
    port = free_port()
    env = {
        **os.environ,
        "BPE_COURSE_BUILD": str(tmp_path / "build"),
        "BPE_COURSE_DATA": str(tmp_path / "data"),
        "BPE_COURSE_FIGURES": str(tmp_path / "f"),
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "bpe_course", "explore", f"--port={port}", "--no-browser"],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "voila.log", "wb"),
    )
    try:
        wait_for_server(f"http://127.0.0.1:{port}/", server, tmp_path / "voila.log", "Voila")
        yield f"http://127.0.0.1:{port}/", server
    finally:
        stop_server(server)


@contextlib.contextmanager
def explorer_page(url: str, width: int, height: int):
    """The explore page in a window of ``width`` x ``height``, loaded and sized: (page, root)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": width, "height": height})
        # every request the page makes, recorded: none may leave 127.0.0.1 (Voila's lab page
        # asked a CDN for Font Awesome)
        elsewhere: list[str] = []

        def local_only(route) -> None:
            address = route.request.url
            if address.startswith(("http://127.0.0.1:", "ws://127.0.0.1:", "data:", "blob:")):
                route.continue_()
            else:
                elsewhere.append(address)
                route.abort()

        page.route("**/*", local_only)
        page.on("websocket", lambda socket: socket.url.startswith("ws://127.0.0.1:")
                or elsewhere.append(socket.url))  # fmt: skip
        try:
            page.goto(url, timeout=180_000)
            root = page.locator(".bpe-explorer").first
            root.wait_for(timeout=180_000)
            # the figure is sized once the browser has reported the room it has
            page.wait_for_function(SIZED_JS, timeout=60_000)
            assert page.get_by_text("Error displaying widget").count() == 0
            yield page, root
            assert not elsewhere, f"requests beyond 127.0.0.1: {elsewhere}"
        except Exception:
            page.screenshot(path=str(ARTIFACTS / f"explore_failure_{width}.png"))
            raise
        finally:
            browser.close()


# The figure has been resized to what the page reported (its canvas as wide as reported, less
# the toolbar's margin), and stays so for a moment.
SIZED_JS = """() => {
    const box = document.querySelector('[data-reported]');
    const canvas = document.querySelector('.bpe-explorer canvas');
    if (!box || !canvas) return false;
    const width = parseInt(box.dataset.reported);
    return Math.abs(canvas.getBoundingClientRect().width - (width - 60)) <= 2;
}"""

# The figure is drawn over the whole canvas: its bottom fifth is not blank (an old, smaller image
# drawn on a canvas resized for a new one leaves it blank until the new image comes).
DRAWN_JS = """() => {
    const canvas = document.querySelector('.bpe-explorer canvas');
    const context = canvas.getContext('2d');
    const top = Math.floor(canvas.height * 0.8);
    const pixels = context.getImageData(0, top, canvas.width, canvas.height - top).data;
    let ink = 0;
    for (let i = 0; i < pixels.length; i += 4) {
        if (pixels[i + 3] > 0 && pixels[i] + pixels[i + 1] + pixels[i + 2] < 600) ink++;
    }
    return ink > 50;
}"""

# Bounding boxes of what must be on the first screen, whole: no part clipped or off the window.
LAYOUT_JS = """() => {
    const box = el => { const r = el.getBoundingClientRect();
        return {left: r.left, top: r.top, right: r.right, bottom: r.bottom,
                width: r.width, height: r.height}; };
    const root = document.querySelector('.bpe-explorer');
    const one = selector => { const el = root.querySelector(selector); return el ? box(el) : null; };
    const lists = [...root.querySelectorAll('.bpe-explorer-controls select[multiple]')];
    return {
        window: {width: window.innerWidth, height: window.innerHeight},
        page: {width: document.documentElement.scrollWidth},
        controls: [...root.querySelectorAll(
            '.bpe-explorer-controls .widget-inline-hbox, .bpe-explorer-controls button, ' +
            '.bpe-explorer-controls select, .bpe-explorer-controls input')].map(box),
        canvas: one('canvas'),
        toolbar: one('.jupyter-matplotlib-toolbar'),
        status: one('.bpe-explorer-status'),
        readout: one('.bpe-explorer-readout'),
        // a list box that must scroll to show an item, or an item selected but out of sight
        hidden: lists.filter(s => s.scrollHeight > s.clientHeight + 1
            || [...s.selectedOptions].some(o => o.getBoundingClientRect().bottom
                                                > s.getBoundingClientRect().bottom + 1))
            .map(s => [...s.options].map(o => o.text).join(', ')),
    };
}"""


def overlap(a: dict, b: dict) -> bool:
    return not (
        a["right"] <= b["left"]
        or b["right"] <= a["left"]
        or a["bottom"] <= b["top"]
        or b["bottom"] <= a["top"]
    )


def check_layout(page, what: str) -> dict:
    """Nothing clipped: every control, the status, the toolbar, the figure and its read-out
    inside the window at the top of the page; list boxes show every item; the toolbar beside the
    figure, not on it; the figure uses most of the width."""
    layout = page.evaluate(LAYOUT_JS)
    width, height = layout["window"]["width"], layout["window"]["height"]
    assert layout["page"]["width"] <= width, f"{what}: the page scrolls sideways"
    named = {"status": layout["status"], "toolbar": layout["toolbar"], "canvas": layout["canvas"]}
    named["read-out"] = layout["readout"]
    for name, box in [*named.items(), *(("a control", b) for b in layout["controls"])]:
        assert box is not None, f"{what}: no {name}"
        if box["width"] == 0:
            continue  # hidden controls (the band folded away)
        assert box["left"] >= 0 and box["right"] <= width + 1, f"{what}: {name} cut off: {box}"
        assert box["top"] >= 0 and box["bottom"] <= height + 1, f"{what}: {name} below: {box}"
    assert not layout["hidden"], f"{what}: list boxes that must scroll: {layout['hidden']}"
    assert not overlap(layout["toolbar"], layout["canvas"]), f"{what}: the toolbar covers it"
    assert layout["canvas"]["width"] >= 0.85 * width, f"{what}: figure {layout['canvas']}"
    return layout


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)], ids=["1280x800", "1920x1080"])
def test_explore_page_fits_the_screen(explore_page, size) -> None:
    """A teacher projecting the page: controls and figure on one screen, nothing cut off, at
    1280 x 800 and 1920 x 1080; presentation mode enlarges the text, hiding the controls gives
    the figure their room."""
    width, height = size
    with explorer_page(explore_page, width, height) as (page, root):
        page.wait_for_function(DRAWN_JS, timeout=60_000)
        page.screenshot(path=str(ARTIFACTS / f"explore_{width}x{height}.png"))
        layout = check_layout(page, f"{width} x {height}")
        before = canvas_image(root)
        root.get_by_role("button", name="presentation").click()
        wait_for_change(page, lambda: canvas_image(root), before, "the figure (presentation)")
        root.get_by_role("button", name="controls").click()
        page.wait_for_function(
            "(h) => document.querySelector('.bpe-explorer canvas')"
            ".getBoundingClientRect().height > h + 100",
            arg=layout["canvas"]["height"],
            timeout=60_000,
        )
        page.wait_for_function(SIZED_JS, timeout=60_000)
        page.wait_for_function(DRAWN_JS, timeout=60_000)  # the figure redrawn at its new size
        page.screenshot(path=str(ARTIFACTS / f"explore_{width}x{height}_presentation.png"))
        check_layout(page, f"{width} x {height}, presentation, controls hidden")


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)], ids=["1280x800", "1920x1080"])
def test_explore_page_with_every_panel(explore_page, size) -> None:
    """Every corpus and every size selected, in presentation mode too: the figure as wide as the
    window allows and no wider, drawn to its bottom; the panels wrap into rows (taller, the page
    scrolls). That no legend, title or label overlaps is checked on matplotlib's own bounding
    boxes in tests/test_explorer.py (test_every_panel_selected_nothing_overlaps)."""
    width, height = size
    with explorer_page(explore_page, width, height) as (page, root):
        lists = root.locator(".bpe-explorer-controls select[multiple]")
        for presentation in (False, True):
            before = canvas_image(root)
            if presentation:
                root.get_by_role("button", name="presentation").click()
            else:
                said = status_text(root)
                for index in (0, 1):
                    options = lists.nth(index).evaluate("s => [...s.options].map(o => o.text)")
                    lists.nth(index).select_option(label=options)
                    said = wait_for_change(page, lambda: status_text(root), said, "the status")
            wait_for_change(page, lambda: canvas_image(root), before, "the figure")
            page.wait_for_function(
                "() => document.querySelector('.bpe-explorer canvas')"
                ".getBoundingClientRect().height > 400",
                timeout=120_000,
            )
            page.wait_for_timeout(1000)  # the last redraw on the canvas
            page.wait_for_function(DRAWN_JS, timeout=120_000)
            canvas = root.locator("canvas").first.bounding_box()
            assert canvas["x"] >= 0 and canvas["x"] + canvas["width"] <= width, canvas
            assert canvas["height"] > 400, f"seven panels in one row? {canvas}"
            root.locator("canvas").first.scroll_into_view_if_needed()
            mode = "_presentation" if presentation else ""
            page.screenshot(path=str(ARTIFACTS / f"explore_every_panel_{width}{mode}.png"))
        assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_explore_page_says_when_its_server_stopped(tmp_path) -> None:
    """Issue 35, part 7: a stopped server left a page saying "measuring: 0 of 14" with cancel
    enabled. Stopped, the page says so and every control is disabled."""
    with explore_server(tmp_path) as (url, server):
        with explorer_page(url, 1280, 800) as (page, root):
            # measuring when the server stops: cancel is enabled, the status says "measuring"
            lists = root.locator(".bpe-explorer-controls select[multiple]")
            lists.nth(2).select_option(label=["V5 heap"])
            size_box = root.locator("input[placeholder='add a size: 2MB']")
            size_box.fill("30KB")
            size_box.press("Enter")
            wait_for_status(page, root, r"cell\(s\) of this selection not measured yet")
            root.get_by_role("button", name="measure missing cells").click()
            wait_for_status(page, root, r"measuring: \d+ of \d+")
            assert root.get_by_role("button", name="cancel").is_enabled()
            stop_server(server)
            status = root.locator(".bpe-explorer-status")
            page.wait_for_function(
                "(el) => el.innerText.includes('has stopped')",
                arg=status.element_handle(),
                timeout=60_000,
            )
            page.screenshot(path=str(ARTIFACTS / "explore_server_stopped.png"))
            for name in ("measure missing cells", "cancel", "more options", "presentation"):
                assert root.get_by_role("button", name=name).is_disabled(), name


def selected(select) -> list[str]:
    """The texts of a list box's selected items (ipywidgets writes spaces as no-break ones)."""
    texts = select.evaluate("s => [...s.selectedOptions].map(o => o.text)")
    return [text.replace("\xa0", " ") for text in texts]


def status_text(root) -> str:
    return root.locator(".bpe-explorer-status").inner_text()


def wait_for_status(page, root, pattern: str, timeout_s: float = 300) -> str:
    """Wait until the status matches the regular expression ``pattern``; return it."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        text = status_text(root)
        if re.search(pattern, text):
            return text
        page.wait_for_timeout(200)
    raise AssertionError(f"the status never matched {pattern!r}; it says: {text}")


def missing_count(text: str) -> int:
    found = re.search(r"(\d+) cell\(s\) of this selection not measured yet", text)
    return int(found.group(1)) if found else 0


def test_explore_page_resume_selection_slider_and_ratio(explore_page) -> None:
    """The issue's second steps: narrow the vocab range on the slider, measure a size nobody
    measured, cancel, resume (exactly the cells still missing), change the selection (nothing
    carried over), and a ratio whose reference is not selected."""
    with explorer_page(explore_page, 1280, 800) as (page, root):
        lists = root.locator(".bpe-explorer-controls select[multiple]")
        readout = root.locator(".widget-readout").first
        # The slider stops on the grids' vocab sizes: a drag never lands between two (no 306).
        stops = {"300", "500", "750", "1,000", "1,250", "1,500", "1,750", "2,000", "2,500"}
        stops |= {"3,000", "4,000", "5,000", "10,000"}
        # the ends of the range as the page opens: the largest stored vocab size is the upper end
        page.wait_for_function(
            "(el) => /[0-9][-–][0-9]/.test(el.innerText)", arg=readout.element_handle()
        )
        initial = readout.inner_text()
        stops |= set(initial.replace("–", "-").split("-"))
        low = root.locator(".noUi-handle-lower").first
        box = low.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        page.mouse.move(box["x"] + 40, box["y"] + box["height"] / 2, steps=5)
        page.mouse.up()
        dragged = wait_for_change(page, readout.inner_text, initial, "the vocab read-out")
        assert set(dragged.replace("–", "-").split("-")) <= stops, dragged
        # Back to the smallest, then three stops: 300, 500, 750.
        low.focus()
        page.keyboard.press("Home")
        high = root.locator(".noUi-handle-upper").first
        high.focus()
        page.keyboard.press("Home")
        for _ in range(2):
            page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "(el) => el.innerText.replace('–', '-') === '300-750'", arg=readout.element_handle()
        )
        # A size nobody measured, V4 and V5: 3 vocab sizes x 2 versions are missing.
        lists.nth(2).select_option(label=["V4 inverted index", "V5 heap"])
        size_box = root.locator("input[placeholder='add a size: 2MB']")
        size_box.fill("30KB")
        size_box.press("Enter")
        wait_for_status(page, root, r"\b6 cell\(s\) of this selection not measured yet")
        lists.nth(1).select_option(label=["0.03MB"])  # the size just added, alone
        text = wait_for_status(page, root, r"^nothing measured in this selection; 6 cell")

        # Measure, cancel after the first cell, resume.
        root.get_by_role("button", name="measure missing cells").click()
        seen = [missing_count(wait_for_status(page, root, r"measuring: [1-5] of 6"))]
        root.get_by_role("button", name="cancel").click()
        while "(cancelled)" not in text and "measured 6 of 6" not in text:
            text = status_text(root)
            seen.append(missing_count(text))
            page.wait_for_timeout(100)
        page.wait_for_function(DRAWN_JS, timeout=60_000)  # the point measured is drawn
        page.screenshot(path=str(ARTIFACTS / "explore_cancelled.png"))
        assert "(cancelled)" in text, f"all six ran before the cancel: {text}"
        done = int(re.search(r"measured (\d) of 6 queued cell\(s\) \(cancelled\)", text).group(1))
        assert 1 <= done < 6 and missing_count(text) == 6 - done, text
        assert seen == sorted(seen, reverse=True), f"the count went up and down: {seen}"
        root.get_by_role("button", name="measure missing cells").click()
        text = wait_for_status(page, root, r"measured \d of \d queued cell\(s\)$")
        assert f"measured {6 - done} of {6 - done} queued cell(s)" in text, text
        assert "every cell of this selection is measured" in text and "failed" not in text
        page.screenshot(path=str(ARTIFACTS / "explore_resumed.png"))

        # A new selection: nothing said of the last one is carried over.
        root.get_by_role("button", name="end to end").click()
        # (the status of the new selection says what is shown and what is missing, no more)
        wait_for_status(
            page,
            root,
            r"^\d+ points? from \d+ runs?; every cell of this selection is measured$",
            60,
        )
        assert root.locator(".bpe-explorer-readout").inner_text().startswith("point at a marker")

        # A ratio to V4 with only V5 selected: V4 joins the versions; taken away, it is named.
        lists.nth(2).select_option(label=["V5 heap"])
        root.get_by_role("button", name="more options").click()  # the ratios are there
        root.locator(".bpe-explorer-controls select:not([multiple])").first.select_option(
            label="÷ V4"
        )
        wait_for_change(
            page, lambda: selected(lists.nth(2)), ["V5 heap"], "the versions (V4 should join)"
        )
        assert selected(lists.nth(2)) == ["V4 inverted index", "V5 heap"]
        text = wait_for_status(page, root, r"^\d+ points? from")
        lists.nth(2).select_option(label=["V5 heap"])
        text = wait_for_status(page, root, "needs V4 among the versions")
        assert "nothing measured" not in text
        page.screenshot(path=str(ARTIFACTS / "explore_ratio_needs_reference.png"))


# --- The static site and the slides --------------------------------------------------------------
# Built in a quick mode: three notebooks executed here (a figure, a stepper, a heap stepper and
# progress bars among them), the other eleven staged without outputs, so every page and deck
# exists. `make site` and `make slides` build from all fourteen executed notebooks.
QUICK_NOTEBOOKS = ("01_start_here.ipynb", "03_sennrich_bpe.ipynb", "09_v5_heap.ipynb")
STATIC_ARTIFACTS = REPO_ROOT / "test-artifacts"


@contextlib.contextmanager
def quick_notebook_env(root: Path):
    """Notebooks run in quick mode on the stories, their figures and data kept under ``root``;
    the environment as it was afterwards."""
    names = ("BPE_COURSE_QUICK", "BPE_COURSE_FIGURES", "BPE_COURSE_DATA", "BPE_COURSE_CORPUS")
    saved = {name: os.environ.get(name) for name in names}
    os.environ.update(
        BPE_COURSE_QUICK="1",
        BPE_COURSE_CORPUS="stories",
        BPE_COURSE_FIGURES=str(root / "figures"),
        BPE_COURSE_DATA=str(root / "data"),
    )
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(scope="module")
def quick_build(tmp_path_factory):
    """The quick notebooks executed once for both the site and the slides, and their figures."""
    from bpe_course.course.runner.execute import run_notebook

    root = tmp_path_factory.mktemp("static")
    with quick_notebook_env(root):
        for name in QUICK_NOTEBOOKS:
            run_notebook(notebooks_dir() / name, root / "executed", timeout=300)
    return root


@contextlib.contextmanager
def static_server(folder: Path):
    """``folder`` served on 127.0.0.1 by the standard library, in a thread; yields the base URL."""
    import functools
    import http.server
    import threading

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def offline_page(playwright, problems: list[str]):
    """A page whose requests may go to 127.0.0.1 (and data: URLs) only: any other is aborted
    and recorded in ``problems``, as are console errors and uncaught exceptions."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})

    def route(request_route) -> None:
        url = request_route.request.url
        if url.startswith(("http://127.0.0.1:", "data:", "blob:", "about:")):
            request_route.continue_()
        else:
            problems.append(f"request to {url}")
            request_route.abort()

    page.route("**/*", route)
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("response", lambda r: r.status >= 400 and problems.append(f"{r.status}: {r.url}"))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    try:
        yield page
    finally:
        browser.close()


# Every <img> loaded (lazy ones made eager first), and the broken ones named.
BROKEN_IMAGES_JS = """async () => {
    const images = [...document.querySelectorAll('img')];
    images.forEach(img => { img.loading = 'eager'; });
    await Promise.all(images.map(img => img.decode().catch(() => null)));
    return {count: images.length,
            broken: images.filter(img => !(img.naturalWidth > 0)).map(img => img.src.slice(0, 80))};
}"""


def test_site_renders_offline(quick_build) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    pytest.importorskip("myst_nb", reason="the site needs the site extra")
    from bpe_course.course.publish.site import build_site

    out = quick_build / "site"
    missing = build_site(quick_build / "executed", out, figures=quick_build / "figures")
    assert len(missing) == len(list(notebooks_dir().glob("[0-9][0-9]_*.ipynb"))) - 3
    artifacts = STATIC_ARTIFACTS / "site"
    artifacts.mkdir(parents=True, exist_ok=True)
    pages = sorted(p.name for p in out.glob("*.html"))
    assert {"index.html", "references.html", "results.html", "search.html"} <= set(pages)
    problems: list[str] = []
    with static_server(out) as base, sync_api.sync_playwright() as playwright:
        with offline_page(playwright, problems) as page:
            images = 0
            for name in pages:
                page.goto(f"{base}/{name}", wait_until="load")
                found = page.evaluate(BROKEN_IMAGES_JS)
                assert not found["broken"], f"{name}: images that did not load: {found['broken']}"
                images += found["count"]
                assert page.locator("main, article").first.inner_text().strip(), name
            assert images >= len(QUICK_NOTEBOOKS), f"only {images} images on the whole site"
            # The navigation lists the fourteen notebooks in order.
            page.goto(f"{base}/index.html")
            page.screenshot(path=str(artifacts / "index.png"))
            nav = page.locator(".bd-sidebar-primary a.reference.internal").all_inner_texts()
            numbers = [text[:2] for text in nav if text[:2].isdigit()]
            expected = [p.name[:2] for p in sorted(notebooks_dir().glob("[0-9][0-9]_*.ipynb"))]
            assert numbers == expected, nav
            # A frozen widget: its first state and the line on running it live.
            page.goto(f"{base}/03_sennrich_bpe.html")
            note = page.locator(".bpe-static-widget-note").first
            note.scroll_into_view_if_needed()
            assert "jupyter lab notebooks/03_sennrich_bpe.ipynb" in note.inner_text()
            page.screenshot(path=str(artifacts / "03_frozen_widget.png"))
            # The stored results are links to the CSV files, which download.
            page.goto(f"{base}/results.html")
            links = page.locator("a.download").evaluate_all("els => els.map(e => e.href)")
            from bpe_course.course.publish.handout import TEACHERS_RESULTS

            stored_csvs = (notebooks_dir() / "results").glob("*.csv")
            assert len(links) == len([p for p in stored_csvs if p.name not in TEACHERS_RESULTS])
            first = links[0].rsplit("/", 1)[-1]
            stored = (notebooks_dir() / "results" / first).read_bytes()
            assert urllib.request.urlopen(links[0], timeout=10).read() == stored
            page.screenshot(path=str(artifacts / "results.png"))
            # Search, from the search page, offline.
            page.goto(f"{base}/search.html?q=inverted+index")
            hits = page.locator("#search-results li")
            hits.first.wait_for(timeout=30_000)
            found_pages = hits.locator("a").evaluate_all("els => els.map(e => e.href)")
            assert any("08_v4_inverted_index" in href for href in found_pages), found_pages
            page.screenshot(path=str(artifacts / "search.png"))
    assert not problems, "\n".join(problems)


REVEAL_STATE_JS = """() => window.Reveal && Reveal.isReady() ? {
    total: Reveal.getTotalSlides(),
    text: Reveal.getCurrentSlide().innerText.trim().length,
    images: Reveal.getCurrentSlide().querySelectorAll('img').length,
    last: Reveal.isLastSlide(),
} : null"""


def test_slides_render_offline(quick_build) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    from bpe_course.course.publish.deck import build_slides, reveal_dir

    reveal = reveal_dir()
    if not (reveal / "dist" / "reveal.js").is_file():
        pytest.skip(f"no reveal.js in {reveal}: `bpe-course slides --fetch-only` (make test does)")
    out = quick_build / "slides"
    counts = build_slides(quick_build / "executed", out, reveal, figures=quick_build / "figures")
    artifacts = STATIC_ARTIFACTS / "slides"
    artifacts.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    with static_server(out) as base, sync_api.sync_playwright() as playwright:
        with offline_page(playwright, problems) as page:
            for stem, expected in sorted(counts.items()):
                page.goto(f"{base}/{stem}.html", wait_until="load")
                page.wait_for_function(REVEAL_STATE_JS, timeout=30_000)
                state = page.evaluate(REVEAL_STATE_JS)
                assert state["total"] == expected, (stem, state)
                found = page.evaluate(BROKEN_IMAGES_JS)
                assert not found["broken"], f"{stem}: images that did not load: {found['broken']}"
                # Every slide, in order: each shows something.
                for number in range(state["total"]):
                    state = page.evaluate(REVEAL_STATE_JS)
                    assert state["text"] or state["images"], f"{stem}: slide {number + 1} is empty"
                    if number < (3 if stem == "00_walkthrough" else 2):
                        page.screenshot(path=str(artifacts / f"{stem}_{number + 1:02d}.png"))
                    if state["last"]:
                        break
                    page.evaluate("Reveal.next()")
                    page.wait_for_timeout(50)
                assert number + 1 == state["total"] or state["last"], (stem, number)
    assert not problems, "\n".join(problems)
