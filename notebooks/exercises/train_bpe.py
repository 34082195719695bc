"""Capstone (after notebook 09): a whole byte-level BPE trainer, in the shape of CS336's.

Write the function below (any helpers you like, in this file or beside it), save, then grade it:
``check("train_bpe")`` in the notebook, or ``bpe-course check train_bpe`` in a terminal. It is
graded as CS336's tests grade: the merges exactly, the vocabulary as sets.

Once it passes, the check also times it as CS336's speed test does (vocab 500 on about 100 kB) and
says whether it is fast enough, beside the verdict; ``bpe-course bench --trainer
train_bpe:train_bpe`` (run from this folder) times it beside every version of the course.
"""

import os


def train_bpe(
    input_path: str | os.PathLike, vocab_size: int, special_tokens: list[str]
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Train on the UTF-8 text file ``input_path``; return ``(vocab, merges)``.

    - ``vocab``: id -> bytes, ``vocab_size`` entries: the 256 single bytes, the special tokens
      (UTF-8), and one token per merge (any ids 0 to vocab_size - 1).
    - ``merges``: the merged pairs ``(left bytes, right bytes)``, in the order learned.
    - Split the text at the special tokens first; they are never counted or merged. Cut the rest
      into pretokens with GPT-2's pattern (``bpe_course.pretokenize.GPT2_PATTERN``, with the
      ``regex`` module); a merge never crosses a pretoken.
    - Merge the most frequent pair; on a tie, the greatest ``(left bytes, right bytes)``.
    The grader never asks for more merges than the text allows.
    """
    raise NotImplementedError("write train_bpe")
