"""bpe_course: the companion package of a course on training byte-level BPE tokenizers.

>>> from bpe_course import train_bpe
>>> vocab, merges = train_bpe("corpus.txt", 1000, ["<|endoftext|>"])  # doctest: +SKIP
"""

import bpe_course.reference  # noqa: F401  (registers the posts' trainers)
from bpe_course.api import train_bpe
from bpe_course.errors import BPEInputError, VocabularyExhaustedWarning
from bpe_course.trainers import TRAINERS, VERSIONS, get_trainer

__version__ = "0.1.0"

__all__ = [
    "BPEInputError",
    "TRAINERS",
    "Tokenizer",
    "VERSIONS",
    "VocabularyExhaustedWarning",
    "get_trainer",
    "train_bpe",
]


def __getattr__(name: str):
    # The tokenizer loads when asked for: a training run does not use it.
    if name == "Tokenizer":
        from bpe_course.tokenizer import Tokenizer

        return Tokenizer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
