"""The notebooks' widgets, driven without a browser: controls redraw, escapes hold, failures show.

The browser test (``test_browser.py``) checks that the explorer renders in JupyterLab; these check
the logic behind the controls, fast, on every run.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")


from bpe_course.course.widgets.steppers import sennrich_stepper, stepper_html  # noqa: E402
from bpe_course.course.widgets.unicode import byte_explorer, byte_table  # noqa: E402
from bpe_course.reference.sennrich import END_OF_WORD, steps  # noqa: E402


def controls(widget) -> dict[str, object]:
    """The explorer's controls by their description (or button label), found in its boxes."""
    found, stack = {}, [widget]
    while stack:
        node = stack.pop()
        stack.extend(getattr(node, "children", ()))
        label = getattr(node, "description", "")
        if label:
            found[label] = node
    return found


def status_text(widget) -> str:
    """The first HTML widget's text, searched through the boxes."""
    from ipywidgets import HTML

    stack = [widget]
    while stack:
        node = stack.pop(0)
        if isinstance(node, HTML):
            return node.value
        stack.extend(getattr(node, "children", ()))
    raise AssertionError("no HTML widget")


def test_byte_table_counts_utf8_bytes() -> None:
    table = byte_table("aé😀")
    assert list(table["n bytes"]) == [1, 2, 4]
    assert table["UTF-8 bytes"].iloc[2] == "F0 9F 98 80"
    assert table["bits"].iloc[1] == "11000011 10101001"
    explorer = byte_explorer("aé")
    controls(explorer)["text:"].value = "😀"
    assert "<b>1 character</b>" in status_text(explorer)
    assert "<b>1 code point</b>" in status_text(explorer)
    assert "<b>4</b> UTF-8 bytes" in status_text(explorer)


def test_stepper_shows_the_end_of_word_marker_escaped() -> None:
    first = steps(merges=3)[-1]
    page = stepper_html(first)
    assert "&lt;/w&gt;" in page and END_OF_WORD not in page
    import matplotlib.pyplot as plt

    open_before = plt.get_fignums()
    stepper = sennrich_stepper(merges=3)
    slider = controls(stepper)["merges done:"]
    controls(stepper)["next ▶"].click()
    controls(stepper)["next ▶"].click()
    assert slider.value == 2
    for _ in range(5):
        controls(stepper)["next ▶"].click()
    assert slider.value == slider.max == 3
    controls(stepper)["◀ previous"].click()
    assert slider.value == 2
    assert plt.get_fignums() == open_before  # every redraw closed its figure


def test_byte_explorer_counts_characters_as_the_notebook_defines_them() -> None:
    import regex

    # é (decomposed), a family of four joined by U+200D, a flag, a thumbs up with a skin tone.
    text = "e\u0301 \U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466 🇫🇷 👍\U0001f3fd"
    clusters = len(regex.findall(r"\X", text))  # notebook 02's definition of a character
    assert (clusters, len(text)) == (7, 16)
    explorer = byte_explorer("a")
    controls(explorer)["text:"].value = text
    summary = status_text(explorer)
    assert f"<b>{clusters} characters</b>" in summary
    assert f"<b>{len(text)} code points</b>" in summary
    table = explorer.children[-1].value
    assert table.count("<tr>") == len(text)  # one row per code point, nothing cut
    assert "<td>7</td>" in table  # the thumbs up is the seventh character


def test_byte_explorer_says_what_its_table_shows_and_clears_it() -> None:
    from bpe_course.course.widgets.unicode import BYTE_ROWS

    explorer = byte_explorer("a")
    table = explorer.children[-1]
    family = "\U0001f468\u200d\U0001f469"  # one character of three code points
    long_text = "é" * (BYTE_ROWS - 2) + family + "😀" * 30
    controls(explorer)["text:"].value = long_text
    # The table stops before the family (it would pass BYTE_ROWS): whole characters only, and
    # the sentence gives the numbers shown.
    shown = BYTE_ROWS - 2
    assert f"the table shows the first {shown} characters ({shown} code points" in (
        status_text(explorer)
    )
    assert table.value.count("<tr>") == shown
    controls(explorer)["text:"].value = ""
    assert "<b>0 characters</b>" in status_text(explorer)
    assert "<table" not in table.value  # the previous table is gone
    controls(explorer)["text:"].value = "ab"
    assert "the table shows" not in status_text(explorer)
    assert table.value.count("<tr>") == 2


def test_stepper_names_the_next_pair_when_it_stops_early() -> None:
    from bpe_course.reference.sennrich import PAPER_EXAMPLE

    last = steps(PAPER_EXAMPLE, merges=10)[-1]
    page = stepper_html(last, 10)
    assert "stops after 10 merges" in page and "next merge would be" in page
    assert "(no pair left)" not in page
    exhausted = steps({"ab": 1}, merges=10)[-1]
    assert "no pair left" in stepper_html(exhausted, 10)
    slider = controls(sennrich_stepper(merges=3))["merges done:"]
    assert slider.style.description_width == "initial"  # the label whole, not "merges d..."


def test_heap_stepper_shows_stale_pops_push_backs_and_a_compaction() -> None:
    from bpe_course.course.widgets.steppers import heap_stepper

    stepper = heap_stepper(merges=8, compaction_factor=1.5)
    found = controls(stepper)
    seen = []
    for _ in range(8):
        seen.append(status_text(stepper))
        found["next ▶"].click()
    text = " ".join(seen)
    assert "stale" in text and "pushed back" in text and "compaction:" in text
    assert "so far: 1 push," in seen[0] and "1 pushes" not in text  # merge 1 pushed once
    assert "0 compactions" in seen[0] and "compaction(s)" not in text
    assert "<pre>count" in seen[0]  # the heap's columns are named
    assert found["merge:"].value == found["merge:"].max


def test_tokenizer_playground_and_highlighter() -> None:
    from bpe_course import Tokenizer, train_bpe
    from bpe_course.corpora.datasets import generated_corpus
    from bpe_course.course.widgets.playground import pretokenizer_highlighter, tokenizer_playground

    highlighter = pretokenizer_highlighter("I'll pay 3")
    page = status_text(highlighter)
    assert "contraction" in page and "digits" in page
    controls(highlighter)["text:"].value = ""
    assert "type some text" in status_text(highlighter)

    corpus = generated_corpus("100KB")
    tokenizers = {
        size: Tokenizer(*train_bpe(corpus, size, ["<|endoftext|>"]), ["<|endoftext|>"])
        for size in (260, 600)
    }
    playground = tokenizer_playground(tokenizers, "Once upon a time")
    found = controls(playground)
    html_parts = lambda: " ".join(  # noqa: E731
        node.value
        for node in playground.children
        if hasattr(node, "value") and isinstance(node.value, str)
    )
    assert "tokens</b>" in html_parts() and "GPT-4's pattern" in html_parts()
    many = html_parts()
    found["vocab size:"].value = 260
    assert html_parts() != many  # fewer merges: more tokens
    found["text:"].value = "é"  # two bytes: with 260 tokens a partial character may show
    assert "bytes per token" in html_parts()


def test_a_token_holding_part_of_a_character_shows_its_bytes_and_why() -> None:
    from bpe_course.course.widgets.playground import token_html

    page = token_html([(195, b"\xc3"), (169, b"\xa9"), (300, b" cat")])
    assert "\\xC3" in page and "\\xA9" in page and "part of a character" in page
    assert "·cat" in page and "\ufffd" not in page
    assert "part of a character" not in token_html([(300, b" cat")])


def test_sennrich_chart_draws_in_red_what_its_title_names_at_every_step() -> None:
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    from bpe_course.course.widgets.steppers import pair_counts_figure
    from bpe_course.reference.sennrich import PAPER_EXAMPLE

    states = steps(PAPER_EXAMPLE, merges=10)
    for number, state in enumerate(states):
        fig = pair_counts_figure(state, 10)
        ax = fig.axes[0]
        red = [
            label.get_text()
            for bar, label in zip(ax.patches, ax.get_xticklabels())
            if to_hex(bar.get_facecolor()) == to_hex("tab:red")
        ]
        title = ax.get_title()
        plt.close(fig)
        assert len(red) == 1, f"step {number}: {len(red)} red bars"
        assert "red:" in title
        if number == len(states) - 1:  # the end: nothing merged next, the pair that would be
            assert "would be next" in title


def test_gpt4_row_of_the_playground_has_its_legend() -> None:
    import regex

    from bpe_course.course.widgets.playground import ALTERNATIVE_COLOURS, pieces_html
    from bpe_course.pretokenize import CL100K_NAMED, CL100K_PATTERN, which_alternative

    text = "I'll pay $12.50 for 2024 cakes\n  Then!"
    named = which_alternative(text, CL100K_NAMED)
    assert [piece for piece, _ in named] == regex.findall(CL100K_PATTERN, text)
    assert {"contraction", "letters", "digits", "other", "newline"} <= {n for _, n in named}
    page = pieces_html(named)
    chips, legend = page.split("</div><div>")
    for name in {n for _, n in named}:  # every colour drawn is named in the legend
        assert ALTERNATIVE_COLOURS[name] in chips and f">{name}</span>" in legend


def test_chips_are_inline_blocks_so_lines_can_break_between_them() -> None:
    from bpe_course.course.widgets.playground import pieces_html, token_html

    for page in (token_html([(1, b"Once"), (2, b" upon")]), pieces_html([(" a", "letters")])):
        assert page.count("display:inline-block") >= 1
