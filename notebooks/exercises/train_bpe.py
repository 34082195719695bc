"""Exercise of notebook 10: capstone: a whole trainer, train_bpe(input_path, vocab_size, special_tokens).

You have written five pieces: `merge_word` (05), `pair_count_changes` (06),
`find_chunk_boundaries` (07), `rewrite_words` (08) and `pop_best` (09); a trainer needs some of
them, not all. The other pieces a trainer needs are the package's, and you may call them:
splitting at the special tokens and counting the pretokens, in one call
(`count_words(input_path, special_tokens)`), the first vocabulary, the 256 bytes and the special
tokens (`initial_vocab(special_tokens)`), numbering the words (`words_as_ids`), the index and
the heap (`build_index`, `build_heap`, `push_changes`, `PairKeys`), recording a merge
(`record_merge`). Put them together: a whole trainer, with the call of Stanford CS336's
assignment 1 (and of `bpe_course.train_bpe`). It is assembly, and most of it is on screen by
now: notebook 08 prints V4's whole merge loop, and 09 names V5's stages in the order the loop
calls them; yours is one trainer of your own built from them, those stages in order inside
CS336's call (or write any piece yourself, the counting and the vocabulary included). Call the
pieces (yours or the package's) but not the package's trainers: a call to `bpe_course.train_bpe`
or to any version's `merge_loop` is reported as not done.

The check grades it as CS336's tests grade theirs: the merges exactly, the vocabulary as sets of
ids and of tokens (the layout is yours), and no special token ever merged. It trains on small
generated texts first, then on a corpus of stories the package generates. Once it is right, the
check also says, beside the verdict, whether it is fast enough by the rule of CS336's speed
test, on the course's input rather than CS336's file: the first whole stories of the generated
corpus, up to 100,000 bytes, vocab 500, against half the time the course's V1 takes on the same
input in the same run. (CS336's test itself is a fixed limit, 1.5 s on its own file, about half
its toy implementation's time; a limit measured in the same run means the same on every
machine.) To see where it stands against every version of the course, run `bpe-course bench
--trainer train_bpe:train_bpe` from the `exercises/` folder.

Write the function below, save, then grade it: ``check("train_bpe")`` in the notebook, or
``bpe-course check train_bpe`` in a terminal. (Made by ``python -m
bpe_course.course.exercises.stubs`` from the course's own solution, with the solution taken
out.)
"""

from __future__ import annotations

import os


def train_bpe(
    input_path: str | os.PathLike, vocab_size: int, special_tokens: list[str]
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Train on the UTF-8 text file ``input_path``; return ``(vocab, merges)``.

    - ``vocab``: id -> bytes, ``vocab_size`` entries: the 256 single bytes, the special tokens
      (UTF-8), and one token per merge (any ids 0 to vocab_size - 1).
    - ``merges``: the merged pairs ``(left bytes, right bytes)``, in the order learned.
    - Split the text at the special tokens first (where one special token starts or holds
      another, the longer one); they are never counted or merged. Cut each piece between them
      whole (not line by line) into pretokens with GPT-2's pattern
      (``bpe_course.pretokenize.GPT2_PATTERN``, with the ``regex`` module); a merge never
      crosses a pretoken.
    - Merge the most frequent pair; on a tie, the greatest ``(left bytes, right bytes)``.
    The grader never asks for more merges than the text allows.
    """
    raise NotImplementedError("write train_bpe")
