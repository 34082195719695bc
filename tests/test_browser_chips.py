"""Token and pretoken chips (notebooks 04 and 12) wrap in a real browser: a long text breaks into
several lines inside a narrow column instead of running off its right edge.

Headless Debian chromium driven by Playwright, on a page of the chips alone (no JupyterLab); skipped
where chromium is absent, as the other browser tests are.
"""

from __future__ import annotations

import pytest

from tests.test_browser import CHROMIUM, CHROMIUM_ARGS

pytestmark = [
    pytest.mark.slow,
    pytest.mark.serial,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium: `apt-get install chromium`"),
]

LAYOUT_JS = """() => {
    const box = document.querySelector('#column');
    const tops = new Set([...box.querySelectorAll('span[style]')].map(s => s.offsetTop));
    return {lines: tops.size, overflow: box.scrollWidth - box.clientWidth};
}"""


def test_chips_wrap_inside_a_narrow_column() -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    from bpe_course.course.widgets.playground import pieces_html, token_html
    from bpe_course.pretokenize import which_alternative

    text = "Once upon a time, a curious cat saw 42 élans in the café, and then it ran away. " * 3
    pages = {
        "tokens": token_html([(i, piece.encode()) for i, (piece, _) in enumerate(
            which_alternative(text))]),
        "pretokens": pieces_html(which_alternative(text)),
    }  # fmt: skip
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 800, "height": 600})
            for name, body in pages.items():
                page.set_content(f'<div id="column" style="width:320px">{body}</div>')
                layout = page.evaluate(LAYOUT_JS)
                assert layout["lines"] > 3, f"{name}: {layout}"
                assert layout["overflow"] <= 0, f"{name} run off the column: {layout}"
        finally:
            browser.close()


# The same, and notebook 02's byte explorer, in JupyterLab as a reader drives them. The fixture
# and helpers are the explorer test's (a server over a copy of the notebooks, Run All, waits).
from tests.test_browser import (  # noqa: E402, F401
    ARTIFACTS,
    jupyter_lab,
    run_notebook,
    wait_for_kernel,
)

WIDTHS_JS = """(root) => {
    const chips = [...root.querySelectorAll('span[style*="inline-block"]')];
    const html = root.querySelectorAll('.widget-html-content');
    return {
        lines: new Set(chips.map(s => Math.round(s.getBoundingClientRect().top))).size,
        overflow: Math.max(...[...html].map(h => h.scrollWidth - h.clientWidth)),
    };
}"""


def test_byte_explorer_and_playground_in_jupyterlab(jupyter_lab) -> None:  # noqa: F811
    sync_api = pytest.importorskip("playwright.sync_api")
    base, token = jupyter_lab
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    family = "e\u0301 \U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466 🇫🇷 👍\U0001f3fd"
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        try:
            selector = ".widget-vbox:has(.widget-text input)"
            explorer = run_notebook(page, base, token, "02_unicode_and_utf8.ipynb", selector)
            wait_for_kernel(page, 300)  # Run All done: the kernel answers the widget at once
            explorer.scroll_into_view_if_needed()
            box = explorer.locator("input").first
            box.fill(family)
            box.press("Tab")
            page.wait_for_function(
                "(el) => el.innerText.includes('7 characters')", arg=explorer.element_handle()
            )
            assert "16 code points" in explorer.inner_text()
            assert explorer.locator("table tbody tr").count() == 16
            explorer.screenshot(path=str(ARTIFACTS / "02_byte_explorer_family.png"))
            box.fill("")
            box.press("Tab")
            page.wait_for_function(
                "(el) => el.innerText.includes('type some text')", arg=explorer.element_handle()
            )
            assert explorer.locator("table").count() == 0  # the old table went with the text
            explorer.screenshot(path=str(ARTIFACTS / "02_byte_explorer_cleared.png"))

            selector = ".widget-vbox:has(.widget-dropdown)"
            playground = run_notebook(page, base, token, "12_using_the_tokenizer.ipynb", selector)
            wait_for_kernel(page, 300)
            playground.scroll_into_view_if_needed()
            field = playground.locator("textarea").first
            long_text = "Once upon a time, a curious cat saw 42 élans in the café. " * 6
            field.fill(long_text)
            field.press("Tab")
            page.wait_for_function(
                "([el, want]) => el.innerText.includes(want)",
                arg=[playground.element_handle(), f"{len(long_text)} characters"],
            )
            layout = playground.evaluate(WIDTHS_JS)
            assert layout["lines"] > 6, layout  # tokens and both rows of pretokens wrap
            assert layout["overflow"] <= 0, layout  # nothing runs off the right edge
            assert "GPT-4's pattern" in playground.inner_text()
            assert playground.inner_text().count("whitespace") >= 1  # both legends
            playground.screenshot(path=str(ARTIFACTS / "12_playground_wrapped.png"))
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "widgets_failure.png"))
            raise
        finally:
            browser.close()
