"""V3, parallel pretokenization: V2's merge loop, fed by word counts counted on several cores.

Change from V2: none in the merge loop. Pretokenization, linear in the corpus size, is split into
chunks cut just before a special token (the document separator), or at safe cuts where that cut is
unsafe (:mod:`bpe_course.safe_cuts`), so every chunk is self-contained: no UTF-8 character, word
or special token is cut, and the counts are the same for any number of workers.
The chunks (:func:`bpe_course.counting.plan.find_chunk_boundaries`) are counted in a pool of
processes (:func:`bpe_course.counting.count_words`); the worker is a module-level function, so it
also runs under the spawn start method.
Per merge: as V2. What it can buy: pretokenization time divided by up to the number of cores,
less what the workers cost (notebook 07 measures both); the merge loop's time is unchanged.
"""

from __future__ import annotations

from bpe_course.counting import count_words
from bpe_course.trainers.v2_incremental import merge_loop

__all__ = ["count_words", "merge_loop"]
