"""Stanford CS336 assignment 1's adapters, answered by the course.

CS336's ``tests/adapters.py`` asks for ``run_train_bpe`` and ``get_tokenizer`` with the signatures
below. Make those two call these, and the assignment's BPE tests run against the course::

    from bpe_course import cs336

    def run_train_bpe(input_path, vocab_size, special_tokens, **kwargs):
        return cs336.run_train_bpe(input_path, vocab_size, special_tokens, **kwargs)

    def get_tokenizer(vocab, merges, special_tokens=None):
        return cs336.get_tokenizer(vocab, merges, special_tokens)

(a reference to compare against while writing your own). To grade your own trainer with the
checks those tests make, on a corpus of the course's: ``bpe-course check train_bpe --file
your_file.py``.
"""

from __future__ import annotations

import os
from typing import Any

from bpe_course.api import train_bpe
from bpe_course.errors import BPEInputError
from bpe_course.tokenizer import Tokenizer
from bpe_course.trainers.common import Merges, Vocab

OPTIONS = ("version", "workers", "progress")  # what ``run_train_bpe`` passes on to ``train_bpe``


def run_train_bpe(
    input_path: str | os.PathLike,
    vocab_size: int,
    special_tokens: list[str],
    **kwargs: Any,
) -> tuple[Vocab, Merges]:
    """Train on ``input_path``: ``(vocab, merges)`` as CS336 defines them (vocab: id -> bytes,
    ``vocab_size`` entries with the special tokens; merges: ``(bytes, bytes)`` in order).

    ``kwargs`` may choose the trainer (``version="v4"``), ``workers`` or ``progress``.
    """
    unknown = sorted(set(kwargs) - set(OPTIONS))
    if unknown:
        raise BPEInputError(
            f"run_train_bpe: unknown option(s) {', '.join(unknown)}; it takes {', '.join(OPTIONS)}"
        )
    return train_bpe(input_path, vocab_size, special_tokens, **kwargs)


def get_tokenizer(
    vocab: dict[int, bytes],
    merges: list[tuple[bytes, bytes]],
    special_tokens: list[str] | None = None,
) -> Tokenizer:
    """A tokenizer with CS336's methods (``encode``, ``encode_iterable``, ``decode``) for any
    byte-level vocabulary and merges, such as GPT-2's; special tokens are never split."""
    return Tokenizer(vocab, merges, special_tokens)
