"""Encoding a corpus with a trained tokenizer: files to a ``.npy`` array of ids, fast and exact.

One entry point, :func:`encode_corpus` (``bpe-course encode``), for a file, a directory, a glob
or ``.gz`` files, on one process or many; its ids equal ``Tokenizer.encode`` of the text (and so
tiktoken's and Hugging Face's for the same tokenizer), id for id. Its stages, each a module:

1. :mod:`~bpe_course.encoding.corpus`: the corpus planned into chunks (training's planner and
   reader, :mod:`bpe_course.counting`), handed to processes in order, the ids written as they
   come back (:mod:`~bpe_course.encoding.npy`);
2. :mod:`~bpe_course.encoding.chunks`: one chunk's ids, unit by unit, each distinct unit encoded
   once (the pieces idea of the counting, turned to encoding);
3. :mod:`~bpe_course.encoding.merging`: the merges applied to all of a chunk's new pretokens at
   once, in numpy;
4. :mod:`~bpe_course.encoding.table`: what the two look things up in, many keys at a time.
"""

from __future__ import annotations

from bpe_course.encoding.chunks import ChunkEncoder
from bpe_course.encoding.corpus import EncodeReport, encode_corpus, ids_dtype

__all__ = ["ChunkEncoder", "EncodeReport", "encode_corpus", "ids_dtype"]
