"""The trainers people use instead, as versions of the benchmark: Hugging Face ``tokenizers`` and
``rustbpe`` (both Rust), and a reader's own trainer given as ``module:function``.

Both libraries get what ours get: the GPT-2 pattern, the 256 bytes as the initial alphabet, the same
special token (``rustbpe`` has none: it trains on the documents between them, so its vocab is one
smaller for the same number of merges), the same number of threads, and the documents of the file
split at ``<|endoftext|>``, streamed so memory stays bounded. Install them with
``pip install -e '.[bench]'``.

Their merges differ from ours only where counts tie: Hugging Face and ``rustbpe`` break ties toward
the smaller pair of ids, the course toward the greater pair of bytes. :func:`merge_agreement` says
how far the merge lists agree.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from bpe_course.errors import BPEInputError
from bpe_course.formats import text_to_token
from bpe_course.pretokenize import END_OF_TEXT, GPT2_PATTERN
from bpe_course.trainers import LIBRARIES
from bpe_course.trainers.common import Merges

_BLOCK_CHARS = 1 << 20


def library_available(name: str) -> bool:
    """Whether the library behind benchmark version ``name`` (its registry entry, in
    :data:`bpe_course.trainers.LIBRARIES`, names its package) can be imported here."""
    return importlib.util.find_spec(LIBRARIES[name].package) is not None


def set_threads(threads: int) -> None:
    """Fix the Rust thread pools before the libraries start them (both use rayon)."""
    os.environ["RAYON_NUM_THREADS"] = str(threads)  # rustbpe: rayon's global pool
    os.environ["RAYON_RS_NUM_CPUS"] = str(threads)  # tokenizers reads this one
    os.environ["TOKENIZERS_PARALLELISM"] = "true"


def documents(path: str | os.PathLike[str], separator: str = END_OF_TEXT) -> Iterator[str]:
    """The documents of a UTF-8 file, split at ``separator``, read a block at a time."""
    with open(path, encoding="utf-8") as f:
        rest = ""
        while block := f.read(_BLOCK_CHARS):
            parts = (rest + block).split(separator)
            rest = parts.pop()
            yield from (part for part in parts if part)
        if rest:
            yield rest


def train_hf(path: str, vocab_size: int, special_tokens: Sequence[str]) -> Merges:
    """Train Hugging Face's ``BpeTrainer`` as byte-level GPT-2; return its merges as bytes."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(special_tokens),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(_documents_between(path, special_tokens), trainer)
    merges = json.loads(tokenizer.to_str())["model"]["merges"]
    # older versions write "a b", newer ones ["a", "b"]; both in GPT-2's byte-to-unicode form
    pairs = [merge.split(" ") if isinstance(merge, str) else merge for merge in merges]
    return [(text_to_token(left), text_to_token(right)) for left, right in pairs]


def train_rustbpe(path: str, vocab_size: int, special_tokens: Sequence[str]) -> Merges:
    """Train ``rustbpe`` with the GPT-2 pattern; return its merges as bytes."""
    import rustbpe

    tokenizer = rustbpe.Tokenizer()
    tokenizer.train_from_iterator(
        _documents_between(path, special_tokens),
        vocab_size - len(special_tokens),  # no special tokens: the same number of merges
        pattern=GPT2_PATTERN,
    )
    return merges_from_ranks(dict(tokenizer.get_mergeable_ranks()))


def _documents_between(path: str, special_tokens: Sequence[str]) -> Iterator[str]:
    separator = END_OF_TEXT if END_OF_TEXT in special_tokens else None
    if separator is None and special_tokens:
        raise BPEInputError("the libraries are benchmarked with <|endoftext|> as the special token")
    if separator is None:
        return iter([Path(path).read_text(encoding="utf-8")])
    return documents(path, separator)


def merges_from_ranks(ranks: dict[bytes, int]) -> Merges:
    """The merge list behind a ``{token bytes: rank}`` table (tiktoken's and rustbpe's form).

    A token of rank r is the merge of the two tokens that encoding it with the ranks below r leaves.
    """
    merges: Merges = []
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) < 2:
            continue
        parts = [token[i : i + 1] for i in range(len(token))]
        while len(parts) > 2:
            candidates = [
                (ranks.get(parts[i] + parts[i + 1], rank), i) for i in range(len(parts) - 1)
            ]
            lowest, i = min(candidates)
            if lowest >= rank:
                raise ValueError(f"token {token!r} of rank {rank} is not a merge of lower ranks")
            parts[i : i + 2] = [parts[i] + parts[i + 1]]
        merges.append((parts[0], parts[1]))
    return merges


# --- A reader's own trainer ---------------------------------------------------------------------------


def load_trainer(spec: str) -> Callable[..., tuple[dict[int, bytes], Merges]]:
    """``"module:function"`` as a callable ``train_bpe(input_path, vocab_size, special_tokens)``."""
    module_name, _, function_name = spec.partition(":")
    if not module_name or not function_name:
        raise BPEInputError(f"a trainer is given as module:function, not {spec!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise BPEInputError(
            # no command-line flag named: a notebook and the explorer load trainers here too
            f"cannot import {module_name!r} for the trainer {spec}: {err}. Put the module in the "
            "folder you run from (a notebook's own folder, in Jupyter), or add its folder to "
            "PYTHONPATH."
        ) from None
    function = getattr(module, function_name, None)
    if not callable(function):
        raise BPEInputError(f"{module_name} has no function {function_name!r}")
    return function


# --- How far two merge lists agree ------------------------------------------------------------------


@dataclass(frozen=True)
class MergeAgreement:
    merges: int  # length of the shorter list
    same_prefix: int  # how many first merges are equal, in order
    same_set: int  # merges common to both lists (as sets)
    first_difference: str  # "" when the lists are equal

    @property
    def equal(self) -> bool:
        return self.first_difference == ""

    @property
    def set_fraction(self) -> float:
        return self.same_set / max(1, self.merges)


def merge_agreement(ours: Merges, theirs: Merges) -> MergeAgreement:
    """How many of the first merges agree, how many merges the two lists share, and the first
    difference (``"merge 12: ours (b'a', b'b'), theirs (b'c', b'd')"``)."""
    ours, theirs = [tuple(m) for m in ours], [tuple(m) for m in theirs]
    n = min(len(ours), len(theirs))
    prefix = next((i for i in range(n) if ours[i] != theirs[i]), n)
    if prefix < n:
        first = f"merge {prefix + 1}: ours {ours[prefix]}, theirs {theirs[prefix]}"
    elif len(ours) != len(theirs):
        first = f"ours has {len(ours)} merges, theirs {len(theirs)}"
    else:
        first = ""
    common = len(set(ours[:n]) & set(theirs[:n]))
    return MergeAgreement(n, prefix, common, first)
