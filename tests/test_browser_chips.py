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
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium: `apt-get install chromium`"),
]

LAYOUT_JS = """() => {
    const box = document.querySelector('#column');
    const tops = new Set([...box.querySelectorAll('span[style]')].map(s => s.offsetTop));
    return {lines: tops.size, overflow: box.scrollWidth - box.clientWidth};
}"""


def test_chips_wrap_inside_a_narrow_column() -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    from bpe_course.course.playground import pieces_html, token_html
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
