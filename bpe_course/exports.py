"""Exports for the production libraries: a Hugging Face ``tokenizer.json`` and a tiktoken encoding.

Both are plain data written by this module (no pickle, nothing executable). ``tokenizers`` and
``tiktoken`` are not needed to write them, only to load them (the tests do, as the proof that a
trained tokenizer behaves there exactly as here).
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from bpe_course.errors import BPEInputError
from bpe_course.files import write_atomically
from bpe_course.formats import token_to_text, vocab_as_text
from bpe_course.pretokenize import GPT2_PATTERN
from bpe_course.tokenizer import Tokenizer

if TYPE_CHECKING:  # for the hint only: tiktoken is an optional extra
    import tiktoken


def hugging_face_json(tokenizer: Tokenizer) -> dict:
    """The ``tokenizer.json`` structure: byte-level BPE with GPT-2's pretokenizer and decoder, the
    special tokens as added tokens (matched before pretokenization, never split)."""
    specials = tokenizer.special_tokens
    vocab = vocab_as_text(tokenizer.vocab, specials)
    byte_level = {"add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": vocab[token],
                "content": token,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for token in specials
        ],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", **byte_level},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", **byte_level},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            # Merges decide, as in training; True would take a whole word found in the vocab.
            "ignore_merges": False,
            "vocab": vocab,
            "merges": [[token_to_text(a), token_to_text(b)] for a, b in tokenizer.merges],
        },
    }


def save_hugging_face(tokenizer: Tokenizer, path: str | os.PathLike[str]) -> Path:
    """Write ``tokenizer.json`` (load it with ``tokenizers.Tokenizer.from_file``)."""
    text = json.dumps(hugging_face_json(tokenizer), ensure_ascii=False, indent=1)
    return write_atomically(Path(path), text)


def tiktoken_ranks(tokenizer: Tokenizer) -> dict[bytes, int]:
    """tiktoken's ``mergeable_ranks``: each ordinary token's bytes -> the id our encoder emits.

    tiktoken merges the adjacent pair whose concatenation has the lowest rank. A merged token's id
    is its merge's rank plus a constant, so that is the merge order as long as no two merges make
    the same bytes. The course's training made no such two in any run its tests tried
    (``tests/test_tokenizer.py`` trains on random corpora), but a merges list loaded from files or
    written by hand can hold them (``ab`` + ``c``, then later ``a`` + ``bc``): it has one entry for
    ``abc`` here, at the earlier rank, and tiktoken would apply the later merge too early, so such
    a tokenizer is refused, naming the two merges.
    """
    specials = {token.encode("utf-8") for token in tokenizer.special_tokens}
    made: dict[bytes, tuple[bytes, bytes]] = {}
    for left, right in tokenizer.merges:
        first = made.setdefault(left + right, (left, right))
        if first != (left, right):
            raise BPEInputError(
                f"tiktoken cannot encode as this tokenizer does: the merges {first!r} and "
                f"{(left, right)!r} both make {left + right!r}, and tiktoken ranks tokens, not "
                "merges (export it for Hugging Face instead, which keeps the merges)"
            )
    return {token: i for token, i in tokenizer.token_ids.items() if token not in specials}


def save_tiktoken(tokenizer: Tokenizer, path: str | os.PathLike[str]) -> Path:
    """Write the ranks in tiktoken's file format (``base64(token) rank`` per line), which
    ``tiktoken.load.load_tiktoken_bpe`` reads."""
    lines = [
        f"{base64.b64encode(token).decode('ascii')} {rank}"
        for token, rank in sorted(tiktoken_ranks(tokenizer).items(), key=lambda item: item[1])
    ]
    return write_atomically(Path(path), "\n".join(lines) + "\n")


def tiktoken_encoding(tokenizer: Tokenizer, name: str = "bpe_course") -> tiktoken.Encoding:
    """A ``tiktoken.Encoding`` equal to ``tokenizer`` (needs ``pip install tiktoken``)."""
    try:
        import tiktoken  # lazy: an optional extra (the test extra has it)
    except ImportError:
        raise ImportError("tiktoken_encoding needs tiktoken: pip install tiktoken") from None
    return tiktoken.Encoding(
        name=name,
        pat_str=GPT2_PATTERN,
        mergeable_ranks=tiktoken_ranks(tokenizer),
        special_tokens=tokenizer.special_ids,
    )
