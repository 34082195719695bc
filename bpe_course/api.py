"""The one public call: ``train_bpe``, with the shape of Stanford CS336's assignment 1."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bpe_course.bars import progress_bar
from bpe_course.counting import count_words
from bpe_course.counting.sources import Corpus, check_file, describe
from bpe_course.errors import BPEInputError, WordTooLongError
from bpe_course.trainers import Trainer, get_trainer
from bpe_course.trainers.common import MergeEvent, Merges, OnMerge, Vocab, check_training_arguments

if TYPE_CHECKING:  # for the hints only: loaded when a bar is shown
    from tqdm import tqdm


def train_bpe(
    input_path: Corpus,
    vocab_size: int,
    special_tokens: Sequence[str] | None = (),
    *,
    version: str = "v5",
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool | None = None,
    on_merge: OnMerge | None = None,
    timings: dict[str, float] | None = None,
) -> tuple[Vocab, Merges]:
    """Train a byte-level BPE tokenizer on a UTF-8 text file, or on many.

    ``input_path`` is a file, a directory, a glob pattern or a list of them, each file plain text
    or ``.gz`` (see :mod:`bpe_course.counting.sources`); the words of all files are counted
    together, by the counter the trainer's registry entry names (:mod:`bpe_course.counting`).

    Returns ``(vocab, merges)``: ``vocab`` maps ids to bytes (the 256 bytes, then the special
    tokens, then one token per merge), ``merges`` lists the merged pairs in order. Every version
    returns exactly the same result; they differ only in speed.

    ``workers``: processes for pretokenization (``None``: all cores; only versions from V3 on use
    more than one). ``scheduler``: count the words on a Dask cluster instead (every version can;
    the ``cluster`` extra): ``"local"`` starts one on this machine with ``workers`` processes, an
    address such as ``"tcp://host:8786"`` uses a running one (see
    :mod:`bpe_course.counting.cluster`).
    The counts, and so the merges, are the same either way. ``progress``: show tqdm bars (a widget
    in Jupyter). ``on_merge``: called after each merge with a
    :class:`~bpe_course.trainers.common.MergeEvent`. ``timings``: a dict that receives the seconds
    spent in each phase (``pretokenize_s``, ``merge_s``).

    Every argument is checked before any work starts; nothing is written anywhere.
    """
    trainer = get_trainer(version)
    special_tokens = () if special_tokens is None else special_tokens  # as the Tokenizer reads it
    check_training_arguments(vocab_size, special_tokens)
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
    ):
        raise BPEInputError(f"workers must be a positive integer or None, not {workers!r}")
    if scheduler is not None and not (isinstance(scheduler, str) and scheduler):
        raise BPEInputError(f"scheduler must be 'local' or an address, not {scheduler!r}")
    start = time.perf_counter()
    try:
        word_counts = count_words(
            input_path,
            special_tokens,
            workers if trainer.parallel or scheduler is not None else 1,
            counter=trainer.counter,
            scheduler=scheduler,
            progress=progress,
            max_word_bytes=trainer.max_word_bytes,
        )
    except WordTooLongError as err:  # one line still, naming the version and who trains longer
        raise WordTooLongError(f"{err}; {trainer.word_limit_note()}") from None
    if not word_counts:
        raise BPEInputError(
            f"{describe(input_path)} holds no text to train on (it is empty, or holds only special "
            "tokens)"
        )

    pretokenized = time.perf_counter()
    try:
        return _run_merge_loop(trainer, word_counts, vocab_size, special_tokens, progress, on_merge)
    finally:
        if timings is not None:
            timings["pretokenize_s"] = pretokenized - start
            timings["merge_s"] = time.perf_counter() - pretokenized


def learn_merges(
    version: str,
    word_counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Sequence[str] | None = (),
    *,
    progress: bool | None = None,
    on_merge: OnMerge | None = None,
    **options: Any,
) -> tuple[Vocab, Merges]:
    """The merge loop of ``version`` on words already counted (``count_words``), with a progress
    bar when asked: the notebooks' long measurements call this instead of ``merge_loop``.
    ``options`` go to the merge loop (V5's ``compaction_factor``).
    """
    trainer = get_trainer(version)
    special_tokens = () if special_tokens is None else special_tokens
    check_training_arguments(vocab_size, special_tokens)
    longest = max(map(len, word_counts), default=0)
    if longest > trainer.word_limit:  # counted elsewhere: the counting would have refused it
        raise WordTooLongError(
            f"a word of {longest} bytes is longer than {trainer.word_limit}: the merge loops hold "
            f"every word whole, so none this long is trained on; {trainer.word_limit_note()}"
        )
    return _run_merge_loop(
        trainer, word_counts, vocab_size, special_tokens, progress, on_merge, **options
    )


def _run_merge_loop(
    trainer: Trainer,
    word_counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Sequence[str],
    progress: bool | None,
    on_merge: OnMerge | None,
    **options: Any,
) -> tuple[Vocab, Merges]:
    """The merge loop on arguments already checked (the loops assume them valid)."""
    wanted = vocab_size - 256 - len(special_tokens)
    bar = progress_bar(progress, wanted, f"merges ({trainer.name})", "merge")
    callback = on_merge if bar is None else _chain(bar, on_merge)
    try:
        return trainer.merge_loop(
            word_counts, vocab_size, special_tokens, on_merge=callback, **options
        )
    finally:
        if bar is not None:
            bar.close()


def check_corpus_path(input_path: str | os.PathLike[str]) -> Path:
    """The corpus as a readable regular file, or a clear error saying what is wrong."""
    if not isinstance(input_path, (str, os.PathLike)):
        raise BPEInputError(f"input_path must be a path, not {type(input_path).__name__}")
    return check_file(Path(input_path))


def _chain(bar: tqdm, on_merge: OnMerge | None) -> OnMerge:
    def step(event: MergeEvent) -> None:
        bar.update(1)
        if on_merge is not None:
            on_merge(event)

    return step
