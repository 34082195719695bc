"""The slides and the site at a projector's size, in a real browser (headless Debian chromium driven
by Playwright, pages served on 127.0.0.1): every slide of every deck fits 1280 x 800, printouts wrap
at spaces; on the site at 1280 px no code block or printout is cut at the right edge, and search
finds a page by a phrase in it, with a snippet of the page's text (not of its buttons).

Built as ``make slides`` and ``make site`` build them: from every notebook executed in quick mode
(here into a temporary folder; a fresh executed copy in ``build/notebooks/`` is used as it is).
Skipped where chromium is absent, as the other browser tests are. The tallest slide is saved to
``test-artifacts/slides/tallest.png`` for a human to look at.
"""

from __future__ import annotations

import shutil

import pytest

from bpe_course.paths import build_dir, figures_dir
from tests.test_browser import (
    CHROMIUM,
    STATIC_ARTIFACTS,
    offline_page,
    quick_notebook_env,
    static_server,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.serial,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium: `apt-get install chromium`"),
    # the first test executes the notebooks with no fresh executed copy (all 14 from a fresh clone)
    pytest.mark.timeout(1800),
]

SLIDE = {"width": 1280, "height": 800}


@pytest.fixture(scope="module")
def executed_course(tmp_path_factory):
    """Every course notebook executed in quick mode: the fresh copies of ``build/notebooks/`` as
    they are, the others executed here (as ``make slides`` and ``make site`` do, but into a
    temporary folder, with the figures they write kept there too)."""
    from bpe_course.cli.publish import stale_notebooks
    from bpe_course.course.runner.execute import course_notebooks, run_notebook

    root = tmp_path_factory.mktemp("course")
    executed = root / "executed"
    executed.mkdir()
    built = build_dir() / "notebooks"
    stale = set(stale_notebooks(built))
    for source in course_notebooks():
        if source.stem not in stale:
            shutil.copy2(built / source.name, executed / source.name)
    with quick_notebook_env(root):
        for source in course_notebooks():
            if source.stem in stale:
                run_notebook(source, executed, timeout=600)
    return executed


# Every slide of the deck shown in turn; for each, how tall and wide its content is against the
# slide (reveal.js's 1280 x 800, scaled to the window) and whether a printout may break a word.
MEASURE_SLIDES_JS = """async () => {
    const images = [...document.querySelectorAll('img')];
    await Promise.all(images.map(img => img.decode().catch(() => null)));
    const slides = [];
    for (const slide of Reveal.getSlides()) {
        const {h, v} = Reveal.getIndices(slide);
        Reveal.slide(h, v);
        slides.push({index: v ? `${h}/${v}` : `${h}`, number: slides.length + 1,
                     height: slide.scrollHeight, width: slide.scrollWidth,
                     room: [slide.clientWidth, slide.clientHeight]});
    }
    // A table or figure running past the slide's right edge (hidden in a scroll box).
    const cut = [];
    for (const slide of Reveal.getSlides()) {
        const {h, v} = Reveal.getIndices(slide);
        Reveal.slide(h, v);
        const box = slide.getBoundingClientRect(), scale = box.width / slide.offsetWidth;
        for (const element of slide.querySelectorAll('table, img, svg')) {
            const right = element.getBoundingClientRect().right;
            if (element.getBoundingClientRect().width > 0 && right > box.right + 1) {
                cut.push(`${v ? h + '/' + v : h}: a ${element.tagName.toLowerCase()} `
                         + `${Math.round((right - box.right) / scale)} px past the right edge`);
            }
        }
    }
    const breakAll = [...document.querySelectorAll('.jp-OutputArea-output pre')]
        .filter(pre => getComputedStyle(pre).wordBreak === 'break-all').length;
    return {slides, cut, breakAll};
}"""


def test_every_slide_fits_1280_by_800(executed_course) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    from bpe_course.course.publish.deck import build_slides, reveal_dir

    reveal = reveal_dir()
    if not (reveal / "dist" / "reveal.js").is_file():
        pytest.skip(f"no reveal.js in {reveal}: `bpe-course slides --fetch-only` (make test does)")
    out = executed_course.parent / "slides"
    counts = build_slides(executed_course, out, reveal, figures=figures_dir())
    artifacts = STATIC_ARTIFACTS / "slides"
    artifacts.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    too_big: list[str] = []
    tallest = ("", "", 0)
    with static_server(out) as base, sync_api.sync_playwright() as playwright:
        with offline_page(playwright, problems) as page:
            page.set_viewport_size(SLIDE)
            for stem in sorted(counts):
                page.goto(f"{base}/{stem}.html", wait_until="load")
                page.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=30_000)
                found = page.evaluate(MEASURE_SLIDES_JS)
                assert len(found["slides"]) == counts[stem], (stem, counts[stem])
                assert not found["breakAll"], f"{stem}: printouts that may break inside a word"
                too_big += [f"{stem} slide #/{where}" for where in found["cut"]]
                for slide in found["slides"]:
                    width, height = slide["room"]
                    if slide["height"] > height or slide["width"] > width:
                        too_big.append(
                            f"{stem} slide {slide['number']} (#/{slide['index']}): "
                            f"{slide['width']} x {slide['height']} px on {width} x {height}"
                        )
                    if slide["height"] > tallest[2]:
                        tallest = (stem, slide["index"], slide["height"])
            stem, index, _ = tallest
            page.goto(f"{base}/{stem}.html#/{index}", wait_until="load")
            page.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=30_000)
            page.wait_for_timeout(300)
            page.screenshot(path=str(artifacts / "tallest.png"))
    assert not too_big, f"{len(too_big)} slides larger than the slide:\n" + "\n".join(too_big)
    assert not problems, "\n".join(problems)


# Code blocks and printouts of the page whose lines run past their box (hidden in a scroll box).
CUT_BLOCKS_JS = """() => [...document.querySelectorAll('article pre')]
    .filter(pre => pre.getBoundingClientRect().width > 0 && pre.scrollWidth > pre.clientWidth + 1)
    .map(pre => `${pre.scrollWidth} px in ${pre.clientWidth}: ${pre.innerText.slice(0, 60)}`)"""

SEARCH_RESULTS_JS = """() => [...document.querySelectorAll('#search-results li')].map(li => ({
    href: li.querySelector('a').getAttribute('href'),
    snippet: (li.querySelector('p.context') || {textContent: ''}).textContent,
}))"""


def test_site_at_1280_px(executed_course) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    pytest.importorskip("myst_nb", reason="the site needs the site extra")
    from bpe_course.course.publish.site import build_site

    out = executed_course.parent / "site"
    missing = build_site(executed_course, out, figures=figures_dir())
    assert not missing
    artifacts = STATIC_ARTIFACTS / "site"
    artifacts.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    cut: list[str] = []
    with static_server(out) as base, sync_api.sync_playwright() as playwright:
        with offline_page(playwright, problems) as page:
            page.set_viewport_size(SLIDE)
            for html in sorted(out.glob("[0-9][0-9]_*.html")):
                page.goto(f"{base}/{html.name}", wait_until="load")
                cut += [f"{html.name}: {block}" for block in page.evaluate(CUT_BLOCKS_JS)]
            page.goto(f"{base}/11_crossover.html", wait_until="load")
            page.screenshot(path=str(artifacts / "11_at_1280.png"))
            # Search: the pages that say "inverted index" (01, 08) are found, each snippet from
            # the page's article. (07 and 09 say it only in their links to the next and previous
            # page, which are not their text.)
            page.goto(f"{base}/search.html?q=inverted+index")
            page.locator("#search-results li p.context").first.wait_for(timeout=30_000)
            page.wait_for_function(
                "() => document.querySelector('#search-results .search-summary, "
                "#search-results > p')",
                timeout=30_000,
            )
            page.wait_for_timeout(1000)  # the snippets arrive one page fetch at a time
            results = page.evaluate(SEARCH_RESULTS_JS)
            page.screenshot(path=str(artifacts / "search_inverted_index.png"))
    assert not cut, f"{len(cut)} code blocks cut at the right edge at 1280 px:\n" + "\n".join(cut)
    pages = [result["href"].split(".html")[0] for result in results]
    for stem in ("01_start_here", "08_v4_inverted_index"):
        assert stem in pages, (stem, pages)
    for result in results:
        for chrome in ("Light", "Dark", "Settings"):
            assert chrome not in result["snippet"].split(), (chrome, result)
    assert not problems, "\n".join(problems)
