"""The errors and warnings a user of the course can meet, one class each, with messages that say
what went wrong and what to do."""

from __future__ import annotations


class BPEInputError(ValueError):
    """Bad input to training: a missing file, invalid UTF-8, an impossible vocabulary size..."""


class WordTooLongError(BPEInputError):
    """A word (pretoken) longer than the trainer trains on: found while counting, before it is
    read whole (:data:`bpe_course.counting.plan.MAX_WORD_BYTES`)."""


class VocabularyExhaustedWarning(UserWarning):
    """Training stopped early: no pair of tokens was left to merge."""


class WorkerDiedError(RuntimeError):
    """A worker process died in the middle of the work (killed, out of memory): the run stopped."""
