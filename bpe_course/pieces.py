"""Counting pieces before the pattern: pretokenization below the regex floor, with the same counts.

One ``findall`` of the GPT-2 pattern runs at a few MB/s per core, and it is most of the time a
fast trainer spends on a large corpus. But text repeats: split the UTF-8 bytes at single spaces
with C-speed ``bytes.split`` and count equal pieces with ``Counter``, then run the pattern once per
*distinct* piece and scale its pretokens by the piece's count (the same idea as counting equal
words before merging).

Why that is exact. A space at index ``i`` is a *cut* of the pattern (a pretoken ends just before
it, and what comes after does not depend on what came before) when

- the character before it is not whitespace: no alternative of the pattern takes a space after a
  non-space character, so a whitespace run (and a pretoken) starts at ``i``, and the pretokens to
  the left end in a non-space character, which no lookahead past it can change; or
- the character after it is not whitespace and no special token starts there: then ``\\s+(?!\\S)``
  stops one character short of the run's end, so the run before the space is one pretoken, the
  same one the pattern gives when that run ends the text, and the space joins the next word.

A space with whitespace (or the edge of the text) on both sides, or before a special token, may not
be a cut (in ``"x\\n \\ny"`` the pattern makes ``"\\n "`` one pretoken). Those are found with
``str.find`` (only whitespace characters that end some piece can precede one), and each run of
pieces they glue together is counted with the pattern as one segment instead. Special tokens are
split out inside each piece; a special token that holds a space would be cut by the split, so then
the plain pattern runs instead (:func:`count_words` falls back).

Files are cut into chunks just after an ASCII letter or digit followed by a space (a cut, by the
first rule, and never inside a UTF-8 character), or, where a stretch has none, at a safe cut of
:mod:`bpe_course.cuts`, so the counts are the same for any number of workers. Each worker adds up the pieces of all its chunks and runs the pattern once per distinct
piece at the end.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import islice
from pathlib import Path

import regex

from bpe_course.cuts import refine
from bpe_course.pretokenize import (
    GPT2_REGEX,
    MIN_BYTES_PER_WORKER,
    effective_workers,
    read_text,
    special_token_regex,
)
from bpe_course.pretokenize import count_words as count_words_with_pattern

# Chunks are small so each worker holds only a few MB of split strings at a time.
CHUNK_BYTES = 4_000_000
# Distinct pieces a worker keeps before it turns them into pretoken counts (about 150 bytes each
# in the Counter): the bound on a worker's memory besides the distinct words.
MAX_PIECES = 1_000_000
_SCAN_BLOCK = 1 << 16
_CUT = re.compile(rb"[0-9A-Za-z] ")  # ASCII: never part of a multi-byte UTF-8 character
_WHITESPACE = regex.compile(r"\s")  # the pattern's own idea of whitespace (not str.isspace)
# Pieces this simple are split without the pattern: ASCII marks, then ASCII letters (or digits),
# a contraction, ASCII marks; e.g. '"Thank', "Ben's", 'ball?"'. What the pattern makes of them:
# " " + marks, then the letters alone (or " " + letters when no mark leads), the contraction, marks.
_MARKS = rb"[!-/:-@\[-`{-~]*"
_SIMPLE = re.compile(
    rb"(" + _MARKS + rb")([A-Za-z]+|[0-9]+)('(?:[sdmt]|ll|ve|re))?(" + _MARKS + rb")"
)


class PieceCounter:
    """Pretoken counts of many texts, kept as space-delimited pieces until :meth:`pretokens`.

    Texts come in as UTF-8 bytes: splitting at the byte 0x20 is splitting at the space (it never
    occurs inside a multi-byte character) and skips decoding all but the distinct pieces. The
    pretokens are ``sum(count * pattern(" " + piece))`` over ``pieces`` plus ``direct`` (the first
    piece of each text, which has no space before it, and the glued segments).
    """

    def __init__(self, special_tokens: Sequence[str] = ()) -> None:
        if any(" " in token for token in special_tokens):
            raise ValueError("a special token holds a space: count with the plain pattern")
        self.special_bytes = tuple(token.encode("utf-8") for token in special_tokens)
        self.special = special_token_regex(special_tokens)
        # special tokens that could hide inside a simple piece: those pieces take the pattern
        self.guard = tuple(t for t in self.special_bytes if all(0x21 <= c < 0x7F for c in t))
        self.pieces: Counter[bytes] = Counter()
        self.direct: Counter[str] = Counter()
        self._space: dict[bytes, bool] = {}
        self._before: set[bytes] = set()  # whitespace characters that end some piece seen

    def add(self, data: bytes) -> None:
        """Count the pieces of one UTF-8 text (all of it: a text is never cut inside)."""
        pieces = self.pieces
        known = len(pieces)
        pieces.update(data.split(b" "))  # an iterable, not a mapping: counted in C, in place
        if len(pieces) > known:  # keys keep their order: the new pieces are the last ones
            self._learn_tails(list(islice(reversed(pieces), len(pieces) - known)))
        space = data.find(b" ")
        first = data if space < 0 else data[:space]
        pieces[first] -= 1  # counted below without the space that the others have
        first_done = False
        invalid = self._unsafe_spaces(data)
        k = 0
        while k < len(invalid):
            start = data.rfind(b" ", 0, invalid[k])  # the cut before the piece left of the space
            end = data.find(b" ", invalid[k] + 1)
            while k + 1 < len(invalid) and invalid[k + 1] == end:  # glued on: extend
                k += 1
                end = data.find(b" ", end + 1)
            k += 1
            end = len(data) if end < 0 else end
            glued = data[start + 1 : end].split(b" ")
            if start < 0:
                first_done = True
                glued = glued[1:]  # the first piece was taken off already
            for piece in glued:
                pieces[piece] -= 1
            self._add_segment(data[max(start, 0) : end])
        if not first_done:
            self._add_segment(first)

    def _learn_tails(self, new: list[bytes]) -> None:
        """Note the whitespace characters that end one of ``new`` (pieces not seen before): only
        those can stand before a space that is not a cut."""
        is_space = self._is_space
        tails = {piece[-1] for piece in new if piece}  # last bytes: a few dozen at most
        self._before.update(bytes((t,)) for t in tails if t < 0x80 and is_space(bytes((t,))))
        if any(t >= 0x80 for t in tails):  # some piece ends in a multi-byte character
            ends = {_last_char(piece) for piece in new if piece and piece[-1] >= 0x80}
            self._before.update(char for char in ends if is_space(char))
        if b"" in new:  # an empty piece: a space before a space, or at an edge
            self._before.add(b" ")

    def _add_segment(self, segment: bytes) -> None:
        text = segment.decode("utf-8")
        parts = [text] if self.special is None else self.special.split(text)[::2]
        for part in parts:
            self.direct.update(GPT2_REGEX.findall(part))

    def _is_space(self, char: bytes) -> bool:
        known = self._space.get(char)
        if known is None:
            decoded = char.decode("utf-8", errors="replace")
            known = self._space[char] = _WHITESPACE.fullmatch(decoded) is not None
        return known

    def _unsafe_spaces(self, data: bytes) -> list[int]:
        """Indexes of the spaces that may not be cuts: whitespace (or the start) before them, and
        whitespace, the end or a special token after them. A superset is safe; a miss is not:
        the whitespace that ends any piece seen so far (this text's included) is looked for."""
        is_space, before = self._is_space, self._before
        if not before:
            return []
        specials = self.special_bytes
        n = len(data)

        def unsafe_after(i: int) -> bool:
            return (
                i + 1 == n
                or is_space(_char_at(data, i + 1))
                or any(data.startswith(t, i + 1) for t in specials)
            )

        found = [0] if data.startswith(b" ") and unsafe_after(0) else []
        for char in before:
            probe = char + b" "
            j = data.find(probe)
            while j >= 0:
                space = j + len(char)
                if unsafe_after(space):
                    found.append(space)
                j = data.find(probe, j + 1)
        return sorted(set(found))

    def pretokens(self) -> dict[bytes, int]:
        """The pretoken counts (UTF-8 bytes): the pattern once per distinct piece, scaled by its
        count. A piece of ASCII letters only (or digits only) is one pretoken, space included.

        Raises ``UnicodeDecodeError`` if a piece is not UTF-8 (callers say where in the file).
        """
        counts: dict[bytes, int] = {}
        get = counts.get
        findall, special = GPT2_REGEX.findall, self.special
        simple, guard = _SIMPLE.fullmatch, self.guard
        for piece, count in self.pieces.items():
            if count <= 0:
                continue
            match = simple(piece)
            if match is not None and not any(t in piece for t in guard):
                lead, word, contraction, trail = match.groups()
                for token in (b" " + lead, word) if lead else (b" " + word,):
                    counts[token] = get(token, 0) + count
                for token in (contraction, trail):
                    if token:
                        counts[token] = get(token, 0) + count
                continue
            text = " " + piece.decode("utf-8")
            if special is not None and special.search(text):
                parts = special.split(text)[::2]
            else:
                parts = (text,)
            for part in parts:
                for token in findall(part):
                    word = token.encode("utf-8")
                    counts[word] = get(word, 0) + count
        for token, count in self.direct.items():
            word = token.encode("utf-8")
            counts[word] = get(word, 0) + count
        return counts


def _last_char(piece: bytes) -> bytes:
    """The last UTF-8 character of a piece, as bytes (b"" for an empty piece)."""
    i = len(piece) - 1
    while i > 0 and 0x80 <= piece[i] < 0xC0:  # continuation bytes
        i -= 1
    return piece[i:]


def _char_at(data: bytes, i: int) -> bytes:
    """The UTF-8 character starting at ``data[i]``, as bytes."""
    lead = data[i]
    size = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    return data[i : i + size]


def count_pretokens(text: str, special_tokens: Sequence[str] = ()) -> Counter[str]:
    """The pretoken counts of ``text``, equal to the pattern's on every input.

    >>> count_pretokens("the cat  sat\\n \\nthe end") == Counter(
    ...     ["the", " cat", " ", " sat", "\\n ", "\\n", "the", " end"])
    True
    """
    counter = PieceCounter(special_tokens)
    counter.add(text.encode("utf-8"))
    return Counter({word.decode("utf-8"): n for word, n in counter.pretokens().items()})


# --- Files, in chunks, on several processes --------------------------------------------------------


def find_cuts(path: Path, desired_chunks: int) -> list[int]:
    """Byte offsets ``[0, ..., size]``, each (but the ends) at a space after an ASCII letter or digit."""
    size = path.stat().st_size
    if desired_chunks <= 1 or size == 0:
        return [0, size]
    step = size / desired_chunks
    cuts = [0]
    with open(path, "rb") as f:
        for i in range(1, desired_chunks):
            found = _next_cut(f, max(int(i * step), cuts[-1] + 1))
            if found is None or found >= size:
                break
            if found > cuts[-1]:
                cuts.append(found)
    cuts.append(size)
    return cuts


def _next_cut(f, start: int) -> int | None:
    position = start - 1  # the letter may sit just before the guess
    while True:
        f.seek(max(position, 0))
        block = f.read(_SCAN_BLOCK)
        if len(block) < 2:
            return None
        match = _CUT.search(block)
        if match is not None:
            return max(position, 0) + match.start() + 1
        position = max(position, 0) + len(block) - 1


def count_ranges(
    path: str,
    ranges: Sequence[tuple[int, int]],
    special_tokens: Sequence[str],
    progress: Callable[[int], None] | None = None,
) -> dict[bytes, int]:
    """Word counts of some byte ranges of a file (a worker: module level, so spawn works).

    Distinct pieces keep growing with the text where pretokens do not (numbers, punctuation
    stuck to words: ``"(1987),"``), so past ``MAX_PIECES`` of them the counter is turned into
    pretoken counts and started afresh: memory follows ``MAX_PIECES`` and the distinct words,
    not the corpus. A piece seen again after that goes through the pattern again (the price).
    """
    totals: dict[bytes, int] = {}
    counter = PieceCounter(special_tokens)
    try:
        with open(path, "rb") as f:
            for start, end in ranges:
                f.seek(start)
                counter.add(f.read(end - start))
                if progress is not None:
                    progress(end - start)
                if len(counter.pieces) > MAX_PIECES:
                    _add_into(totals, counter.pretokens())
                    counter = PieceCounter(special_tokens)
        _add_into(totals, counter.pretokens())
    except UnicodeDecodeError:  # find the first bad byte, for a message that names it
        for start, end in ranges:
            read_text(path, start, end)
        raise
    return totals


def _add_into(totals: dict[bytes, int], counts: dict[bytes, int]) -> None:
    if not totals:
        totals.update(counts)
        return
    get = totals.get
    for word, count in counts.items():
        totals[word] = get(word, 0) + count


_progress_queue = None


def _init_worker(queue) -> None:
    global _progress_queue
    _progress_queue = queue


def _count_ranges_reporting(args: tuple[str, list[tuple[int, int]], tuple[str, ...]]):
    return count_ranges(*args, progress=_progress_queue.put)


def count_words(
    path: str | os.PathLike[str],
    special_tokens: Sequence[str] = (),
    workers: int | None = 1,
    *,
    min_bytes_per_worker: int = MIN_BYTES_PER_WORKER,
    start_method: str | None = None,
    on_chunk: Callable[[int], None] | None = None,
) -> dict[bytes, int]:
    """Word counts of a file, equal to :func:`bpe_course.pretokenize.count_words` for any workers.

    The same arguments. Each worker takes every n-th chunk, so the work is even.
    """
    if any(" " in token for token in special_tokens):
        return count_words_with_pattern(
            path,
            special_tokens,
            workers,
            min_bytes_per_worker=min_bytes_per_worker,
            start_method=start_method,
            on_chunk=on_chunk,
        )
    path = Path(path)
    size = path.stat().st_size
    n_workers = effective_workers(size, workers, min_bytes_per_worker)
    cuts = find_cuts(path, max(math.ceil(size / CHUNK_BYTES), n_workers))
    # text with no ASCII letter or digit before a space (Russian, Chinese) gets none of those
    # cuts: cut it at safe cuts, so memory follows CHUNK_BYTES there too
    cuts = refine(path, cuts, CHUNK_BYTES, special_tokens)
    ranges = list(zip(cuts[:-1], cuts[1:]))
    n_workers = min(n_workers, len(ranges))
    if n_workers == 1:
        return count_ranges(str(path), ranges, special_tokens, on_chunk)

    import multiprocessing

    from bpe_course.pool import process_pool

    queue = multiprocessing.get_context(start_method).SimpleQueue()
    tasks = [(str(path), ranges[i::n_workers], tuple(special_tokens)) for i in range(n_workers)]
    with process_pool(n_workers, start_method, _init_worker, (queue,)) as pool:
        futures = [pool.submit(_count_ranges_reporting, task) for task in tasks]
        _relay_progress(futures, queue, len(ranges), on_chunk)
        results = [future.result() for future in futures]
    totals = results[0]
    for result in results[1:]:
        get = totals.get
        for word, count in result.items():
            totals[word] = get(word, 0) + count
    return totals


def _relay_progress(futures, queue, reports: int, on_chunk: Callable[[int], None] | None) -> None:
    """Pass on the workers' reports, one per chunk, until all are in or a task fails (its error,
    or a dead worker's, is raised here)."""
    from concurrent.futures import FIRST_EXCEPTION, wait

    for _ in range(reports):
        while queue.empty():
            done, _ = wait(futures, timeout=0.05, return_when=FIRST_EXCEPTION)
            for future in done:
                if future.exception() is not None:
                    future.result()
            if len(done) == len(futures) and queue.empty():
                return
        size = queue.get()
        if on_chunk is not None:
            on_chunk(size)
