"""File formats: GPT-2's ``vocab.json`` + ``merges.txt``.

GPT-2 stores tokens as text, so every byte is first mapped to a printable character: the 188
printable bytes map to themselves, the others (control characters, space, and a few more) to the
characters from U+0100 on. ``bytes_to_unicode`` is that map.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

from bpe_course.files import write_atomically


@lru_cache(maxsize=1)
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's map from each byte to a printable character (a bijection on 256 values).

    >>> bytes_to_unicode()[ord(" ")], bytes_to_unicode()[ord("a")]
    ('Ġ', 'a')
    """
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    mapping = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + extra)
            extra += 1
    return mapping


def token_to_text(token: bytes) -> str:
    """A token's bytes as GPT-2's printable text (``b' the'`` -> ``'Ġthe'``)."""
    table = bytes_to_unicode()
    return "".join(table[b] for b in token)


def save_gpt2(
    vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]], folder: str | os.PathLike[str]
) -> tuple[Path, Path]:
    """Write ``vocab.json`` and ``merges.txt`` into ``folder``; each file appears whole or not at all."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    vocab_json = {token_to_text(token): token_id for token_id, token in sorted(vocab.items())}
    merges_lines = ["#version: 0.2"] + [f"{token_to_text(a)} {token_to_text(b)}" for a, b in merges]
    vocab_path = write_atomically(
        folder / "vocab.json", json.dumps(vocab_json, ensure_ascii=False, indent=0)
    )
    merges_path = write_atomically(folder / "merges.txt", "\n".join(merges_lines) + "\n")
    return vocab_path, merges_path
