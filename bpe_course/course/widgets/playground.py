"""Widgets to look at text the way a tokenizer does: which alternative of GPT-2's pattern took each
piece, and which tokens a trained vocabulary makes of it, with ids and bytes per token.

Tokens are drawn with strong, alternating colours and a border, so a boundary is visible in any
light; a token that holds only part of a character (its bytes are not UTF-8 on their own) shows
those bytes in hex, with a note.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import ipywidgets as w

from bpe_course.pretokenize import CL100K_NAMED, which_alternative

# Strong enough to tell apart side by side, light enough for black text (WCAG contrast > 7).
TOKEN_COLOURS = ["#9ecae1", "#fdae6b", "#a1d99b", "#d9b3ff", "#fdd0a2", "#c6dbef"]
ALTERNATIVE_COLOURS = {
    "contraction": "#d9b3ff",
    "letters": "#9ecae1",
    "digits": "#fdae6b",
    "other": "#a1d99b",
    "whitespace_run": "#e0e0e0",
    "whitespace_left": "#bdbdbd",
    "whitespace_end": "#f0f0f0",  # GPT-4's pattern only
    "newline": "#fff3a0",  # GPT-4's pattern only
}
# Each token or pretoken is one inline block: a line may break between two of them (spans holding
# no space, "·" standing for it, gave the browser no place to break, and a line never wrapped),
# never inside one.
CHIP = (
    "display:inline-block;border-radius:3px;padding:1px 2px;margin:1px;"
    "font-family:monospace;line-height:1.5;overflow-wrap:anywhere"
)


def _visible(text: str) -> str:
    """Spaces and line breaks made visible (a token's leading space is part of the token)."""
    return html.escape(text).replace(" ", "·").replace("\n", "↵").replace("\t", "→")


def token_html(pieces: Sequence[tuple[int, bytes]]) -> str:
    """``(id, bytes)`` tokens as coloured spans, an id on hover; partial characters in hex."""
    spans = []
    partial = False
    for index, (token_id, data) in enumerate(pieces):
        try:
            shown = _visible(data.decode("utf-8"))
            border = "1px solid #555"
        except UnicodeDecodeError:
            shown = "".join(f"\\x{b:02X}" for b in data)
            border = "1px dashed #b00"
            partial = True
        colour = TOKEN_COLOURS[index % len(TOKEN_COLOURS)]
        spans.append(
            f'<span title="id {token_id}, {len(data)} byte(s)" style="background:{colour};'
            f'border:{border};{CHIP}">{shown}</span>'
        )
    note = (
        "<div><small>Red dashed: a token that holds part of a character (its bytes are not UTF-8 "
        "on their own), shown in hex.</small></div>"
        if partial
        else ""
    )
    return f"<div>{''.join(spans)}</div>" + note


def pieces_html(pieces: Sequence[tuple[str, str]]) -> str:
    """Pretokens coloured by the alternative of the pattern that matched them, with a legend."""
    spans = [
        f'<span title="{name}" style="background:{ALTERNATIVE_COLOURS.get(name, "#eee")};'
        f'border:1px solid #555;{CHIP}">{_visible(piece)}</span>'
        for piece, name in pieces
    ]
    used = dict.fromkeys(name for _, name in pieces)
    legend = " ".join(
        f'<span style="background:{ALTERNATIVE_COLOURS[name]};padding:0 4px">{name}</span>'
        for name in used
    )
    return f"<div>{''.join(spans)}</div><div>{legend}</div>"


def pretokenizer_highlighter(initial: str = 'She said: "I\'ll pay $12.50 for 3 cakes!"   Then\n'):
    """Type text; see which of the six alternatives of GPT-2's pattern took each pretoken."""
    box = w.Textarea(value=initial, description="text:", layout=w.Layout(width="90%", height="5em"))
    shown = w.HTML()

    def redraw(_=None) -> None:
        pieces = which_alternative(box.value)
        shown.value = pieces_html(pieces) if pieces else "<i>type some text</i>"

    box.observe(redraw, names="value")
    redraw()
    return w.VBox([box, shown])


def tokenizer_playground(
    tokenizers: dict[int, object], initial: str = "Once upon a time, a curious cat saw 42 élans."
):
    """Type text, pick one of ``tokenizers`` (by vocab size): its tokens with ids, the counts and
    bytes per token, and the pretokens of GPT-2's and GPT-4's patterns side by side."""
    sizes = sorted(tokenizers)
    box = w.Textarea(value=initial, description="text:", layout=w.Layout(width="90%", height="5em"))
    vocab = w.Dropdown(options=sizes, value=sizes[-1], description="vocab size:")
    counts, tokens, patterns = w.HTML(), w.HTML(), w.HTML()

    def redraw(_=None) -> None:
        text = box.value
        if not text:
            counts.value, tokens.value, patterns.value = "<i>type some text</i>", "", ""
            return
        tokenizer = tokenizers[vocab.value]
        try:
            ids = tokenizer.encode(text)
        except ValueError as error:  # a lone surrogate, say: the tokenizer's own message
            counts.value, tokens.value, patterns.value = html.escape(str(error)), "", ""
            return
        size = len(text.encode("utf-8"))
        counts.value = (
            f"{len(text)} characters, {size} bytes, <b>{len(ids)} tokens</b>: "
            f"<b>{size / len(ids):.2f} bytes per token</b> with {vocab.value:,} tokens"
        )
        tokens.value = token_html([(i, tokenizer.vocab[i]) for i in ids])
        patterns.value = (
            "<b>GPT-2's pattern</b>"
            + pieces_html(which_alternative(text))
            + "<b>GPT-4's pattern</b> (cl100k), coloured by the same names"
            + pieces_html(which_alternative(text, CL100K_NAMED))
        )

    box.observe(redraw, names="value")
    vocab.observe(redraw, names="value")
    redraw()
    return w.VBox([box, vocab, counts, tokens, patterns])
