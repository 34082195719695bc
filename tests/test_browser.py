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
    return explorer.locator(".widget-html").first.inner_text()


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
            explorer.get_by_text("log time").click()
            wait_for_change(page, lambda: canvas_image(explorer), after, "the figure (log axis)")
            page.screenshot(path=str(ARTIFACTS / "explorer_controls.png"))

            # A corpus size nobody measured: its cells are missing; measure them, points appear.
            # One version only, to keep the runs few (one per vocab size of the range).
            explorer.locator(".widget-select-multiple select").nth(2).select_option(["v5"])
            status = status_of(explorer)
            size_box = explorer.locator("input[placeholder='add a size: 2MB']")
            size_box.fill("30KB")
            size_box.press("Enter")
            grown = wait_for_change(page, lambda: status_of(explorer), status, "the status")
            assert "not measured yet" in grown and not grown.startswith("0 cell")
            empty_plot = canvas_image(explorer)
            explorer.get_by_role("button", name="measure missing cells").click()
            page.wait_for_function(
                "(el) => /; measured \\d+ of \\d+ missing/.test(el.innerText)",
                arg=explorer.locator(".widget-html").first.element_handle(),
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
                arg=explorer.locator(".widget-html").first.element_handle(),
                timeout=300_000,
            )
            page.screenshot(path=str(ARTIFACTS / "explorer_cancelled.png"))
            assert page.get_by_text("Error displaying widget").count() == 0
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "explorer_failure.png"))
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


def test_explore_page(tmp_path) -> None:
    """``bpe-course explore``: the explorer alone, served by Voila on 127.0.0.1."""
    sync_api = pytest.importorskip("playwright.sync_api")
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
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        wait_for_server(f"http://127.0.0.1:{port}/", server, tmp_path / "voila.log", "Voila")
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            try:
                page.goto(f"http://127.0.0.1:{port}/", timeout=120_000)
                explorer = page.locator(".widget-vbox:has(.widget-toggle-buttons)").first
                explorer.wait_for(timeout=180_000)
                page.wait_for_timeout(1000)
                assert page.get_by_text("Error displaying widget").count() == 0
                before = canvas_image(explorer)
                explorer.get_by_role("button", name="end to end").click()
                wait_for_change(page, lambda: canvas_image(explorer), before, "the figure")
                page.screenshot(path=str(ARTIFACTS / "explore_page.png"))
            finally:
                browser.close()
    finally:
        stop_server(server)


# --- The static site and the slides --------------------------------------------------------------
# Built in a quick mode: three notebooks executed here (a figure, a stepper, a heap stepper and
# progress bars among them), the other eleven staged without outputs, so every page and deck
# exists. `make site` and `make slides` build from all fourteen executed notebooks.
QUICK_NOTEBOOKS = ("01_start_here.ipynb", "03_sennrich_bpe.ipynb", "09_v5_heap.ipynb")
STATIC_ARTIFACTS = REPO_ROOT / "test-artifacts"


@pytest.fixture(scope="module")
def quick_build(tmp_path_factory):
    """The quick notebooks executed once for both the site and the slides, and their figures."""
    from bpe_course.course.runner import run_notebook

    root = tmp_path_factory.mktemp("static")
    names = ("BPE_COURSE_QUICK", "BPE_COURSE_FIGURES", "BPE_COURSE_DATA", "BPE_COURSE_CORPUS")
    saved = {name: os.environ.get(name) for name in names}
    os.environ.update(
        BPE_COURSE_QUICK="1",
        BPE_COURSE_CORPUS="stories",
        BPE_COURSE_FIGURES=str(root / "figures"),
        BPE_COURSE_DATA=str(root / "data"),
    )
    try:
        for name in QUICK_NOTEBOOKS:
            run_notebook(notebooks_dir() / name, root / "executed", timeout=300)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
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
    from bpe_course.course.site import build_site

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
            assert len(links) == len(list((notebooks_dir() / "results").glob("*.csv")))
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
    from bpe_course.course.deck import build_slides, reveal_dir
    from bpe_course.course.slides import slide_count

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
                if stem != "00_walkthrough":
                    assert expected == slide_count(stem)
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
