"""Counting pieces before the pattern: pretokenization below the regex floor, with the same counts.

One ``findall`` of the GPT-2 pattern runs at a few MB/s per core, and it is most of the time a
fast trainer spends on a large corpus. But text repeats: split the UTF-8 bytes at single spaces
and count equal pieces (``Counter(data.split(b" "))`` says it in one line; the counts are kept in
numpy, :mod:`bpe_course.piece_table`, which gives the same counts faster), then run the pattern
once per *distinct* piece and scale its pretokens by the piece's count (the same idea as counting
equal words before merging).

Why that is exact. A space at index ``i`` is a *cut* of the pattern (a pretoken ends just before
it, and what comes after does not depend on what came before) when

- the character before it is not whitespace: no alternative of the pattern takes a space after a
  non-space character, so a whitespace run (and a pretoken) starts at ``i``, and the pretokens to
  the left end in a non-space character, which no lookahead past it can change; or
- the character after it is not whitespace and no special token starts there: then ``\\s+(?!\\S)``
  stops one character short of the run's end, so the run before the space is one pretoken, the
  same one the pattern gives when that run ends the text, and the space joins the next word.

A space with whitespace (or the edge of the text) on both sides, or before a special token, may not
be a cut (in ``"x\\n \\ny"`` the pattern makes ``"\\n "`` one pretoken). Those are found by a
few stdlib patterns over the bytes (each starts with a literal byte, which ``re`` looks for
fast), and each run of pieces they glue together is counted with the pattern as one segment.
Special tokens are split out inside each piece; a special token that holds a space would be cut
by the split, so then the plain pattern runs instead (:func:`count_words` falls back).

Files are cut into chunks just after an ASCII letter or digit followed by a space (a cut, by the
first rule, and never inside a UTF-8 character), or, where a stretch has none, at a safe cut of
:mod:`bpe_course.cuts`, so the counts are the same for any number of workers. Each worker adds
up the pieces of all its chunks and runs the pattern over its distinct pieces at the end.

Running the pattern once per distinct piece is still one Python call per piece, and text with
many distinct pieces (a dictionary, an encyclopedia, the web: punctuation attached to words,
capitals, numbers) has hundreds of thousands of them. So the distinct pieces with the same count
are *joined* with spaces and split by one ``findall`` (in batches), and the pretokens of the whole
group counted ``count`` times at once. Joining is exact by the first rule: every space that joins
two pieces follows a piece that ends in a character that is not whitespace (pieces that end in
whitespace, and the empty piece, are split one by one). A group of ASCII pieces is split by the
stdlib ``re`` on the bytes themselves, with a pattern equal to GPT-2's on ASCII (the only ASCII
letters are A-Z and a-z, the only digits 0-9, and ``\\s`` agrees on all 128 characters: a test
checks it), several times faster than ``regex`` on decoded text; the rest take ``regex``.

What each step bought, in CPU seconds on one core (``PieceCounter.add`` over every 4 MB chunk,
then ``pretokens``; ``time.process_time``, the code before and after in turn in one process,
medians of 3, on the 2-core machine while other jobs kept its load near 10, so seconds are
inflated and the ratios are what to read); the cuts were profiled first with cProfile:

==================================  ============  =============  ============
corpus (distinct pieces)            ``add``       ``pretokens``  both
==================================  ============  =============  ============
wide, 21.5 MB (333,101)             1.23 -> 1.26  1.11 -> 0.66   2.41 -> 1.93
dictionary, 21 MB (580,732)         1.61 -> 1.33  2.43 -> 1.52   4.05 -> 2.84
stories, 21.5 MB (52,760)           0.91 -> 0.92  0.20 -> 0.10   1.11 -> 1.02
==================================  ============  =============  ============

- ``pretokens``: joining the pieces of a count and one ``findall`` per batch (stdlib ``re`` on
  ASCII bytes) instead of one call per piece with a shortcut for simple pieces.
- ``add``: the spaces that may not be cuts found by patterns, not by a Python loop over each
  ``"  "`` (the dictionary has 83,000 double spaces); no change where there are none.
- ``add``, later: the pieces counted by sorting their bytes as integer keys in numpy
  (:mod:`bpe_course.piece_table`) instead of hashing each into a ``Counter``. Same measurement
  on a quiet machine (three rounds, the two in turn, ``add`` then ``pretokens``): wide
  0.76-0.81 -> 0.35-0.37 s, dictionary 0.73-0.75 -> 0.46-0.50 s, stories 0.48-0.51 -> 0.30-0.32 s;
  ``pretokens`` 0-10 % slower (its pieces are now made from the table's keys).
- What is left: ``findall`` plus counting the pretokens is most of ``pretokens``. Each worker
  runs ``pretokens`` on its own distinct pieces, so pieces that two workers both hold are split
  twice.
The dictionary stand-in is ``bpe-course data dictionary --size 21MB`` (Debian's ``dict-gcide``).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import chain, filterfalse, repeat
from pathlib import Path

import regex

from bpe_course.cuts import plan_chunks
from bpe_course.piece_table import PieceTable
from bpe_course.pretokenize import (
    GPT2_REGEX,
    MIN_BYTES_PER_WORKER,
    count_words,
    effective_workers,
    read_text,
    special_token_regex,
)

# Chunks are small so each worker holds only a few MB of split strings at a time.
CHUNK_BYTES = 4_000_000
# Distinct pieces a worker keeps before it turns them into pretoken counts (16 to 32 bytes each
# in the table's arrays, about 150 for the few longer than 16 bytes, in a Counter): the bound on a
# worker's memory besides the distinct words.
MAX_PIECES = 4_000_000
_SCAN_BLOCK = 1 << 16
_CUT = re.compile(rb"[0-9A-Za-z] ")  # ASCII: never part of a multi-byte UTF-8 character
_WHITESPACE = regex.compile(r"\s")  # the pattern's own idea of whitespace (not str.isspace)
# The GPT-2 pattern on ASCII bytes, for the stdlib ``re`` (several times faster than ``regex`` on
# str, and no decoding): the only ASCII letters are A-Z and a-z, the only ASCII digits 0-9, and
# ``\s`` on bytes is the same six characters as the pattern's ``\s`` below 128 (a test checks all
# three classes character by character).
_ASCII_PATTERN = re.compile(
    rb"""'(?:[sdmt]|ll|ve|re)| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+"""
)
# Whitespace characters the pattern knows (``\s``) beyond ASCII; a test checks the list is whole.
_WIDE_SPACES = "\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
_WIDE_SPACES += "\u2028\u2029\u202f\u205f\u3000"
# Any of them as UTF-8 bytes, as a pattern; and as patterns that each start with one literal byte:
# the ASCII ones but the space, then the wide ones by their first byte.
_SPACE_CHAR = b"|".join(re.escape(c.encode("utf-8")) for c in " \t\n\x0b\x0c\r" + _WIDE_SPACES)
# (its first byte, the pattern): a text without that byte needs no scan
_ASCII_SPACE_BYTES = [(c, re.escape(c)) for c in (b"\t", b"\n", b"\x0b", b"\x0c", b"\r")]
_WIDE_SPACE_BYTES = [
    (
        bytes((lead,)),
        re.escape(bytes((lead,)))
        + b"(?:"
        + b"|".join(
            re.escape(c.encode("utf-8")[1:]) for c in _WIDE_SPACES if c.encode("utf-8")[0] == lead
        )
        + b")",
    )
    for lead in sorted({c.encode("utf-8")[0] for c in _WIDE_SPACES})
]
# Last bytes a piece ending in whitespace can have: only such pieces are looked at closer.
_MAY_END_IN_SPACE = [False] * 256
for _char in " \t\n\x0b\x0c\r" + _WIDE_SPACES:
    _MAY_END_IN_SPACE[_char.encode("utf-8")[-1]] = True
# Pieces split at once (joined): at most this many, so their pretokens (as bytes objects, about
# 40 bytes each) take a few MB however many distinct pieces a worker holds.
_BATCH = 50_000
# Pieces with a count up to this are counted by repeating their pretokens (in C).
_REPEAT_AT_MOST = 4


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
        # the special tokens an ASCII text can hold, for the stdlib pattern on bytes
        self.ascii_special_bytes = tuple(t for t in self.special_bytes if t.isascii())
        self.ascii_special = _bytes_alternation(self.ascii_special_bytes)
        self.pieces = PieceTable()
        self.direct: Counter[str] = Counter()  # of the glued stretches and first pieces
        self._space: dict[bytes, bool] = {}
        # a space after whitespace, before whitespace, a special token or the end: maybe no cut.
        # The patterns that find one each start with a literal byte that is rarely a space (which
        # ``re`` looks for fast); the wide ones look only in text that is not ASCII.
        after = b"|".join([_SPACE_CHAR, *map(re.escape, self.special_bytes), rb"\Z"])
        self._unsafe_after = re.compile(b"(?:" + after + b")")
        self._spaces = re.compile(b"   *")  # two literal spaces first: found faster than "  +"
        self._unsafe_ascii = [
            (lead, re.compile(c + b" (?=" + after + b")")) for lead, c in _ASCII_SPACE_BYTES
        ]
        self._unsafe_wide = [
            (lead, re.compile(c + b" (?=" + after + b")")) for lead, c in _WIDE_SPACE_BYTES
        ]

    def add(self, data: bytes) -> None:
        """Count the pieces of one UTF-8 text (all of it: a text is never cut inside)."""
        pieces = self.pieces
        pieces.add_pieces(data)
        space = data.find(b" ")
        first = data if space < 0 else data[:space]
        pieces.add(first, -1)  # counted below without the space that the others have
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
                pieces.add(piece, -1)
            self._add_segment(data[max(start, 0) : end])
        if not first_done:
            self._add_segment(first)

    def _add_segment(self, segment: bytes) -> None:
        tokens = self._split_ascii(segment) if segment.isascii() else self._split_text(segment)
        self.direct.update(token.decode("utf-8") for token in tokens)

    def _is_space(self, char: bytes) -> bool:
        known = self._space.get(char)
        if known is None:
            decoded = char.decode("utf-8", errors="replace")
            known = self._space[char] = _WHITESPACE.fullmatch(decoded) is not None
        return known

    def _unsafe_spaces(self, data: bytes) -> list[int]:
        """Indexes of the spaces that may not be cuts: whitespace (or the start) before them, and
        whitespace, the end or a special token after them."""
        found = [0] if data.startswith(b" ") and self._unsafe_after.match(data, 1) else []
        for run in self._spaces.finditer(data):  # spaces after a space: all but the last are
            start, end = run.span()
            found += range(start + 1, end - 1)
            if self._unsafe_after.match(data, end):
                found.append(end - 1)
        # A scan is skipped when its first byte is not in the text at all: ``in`` (memchr) finds
        # that out twenty times faster than the scan would (most texts have no tab, no form
        # feed, no carriage return).
        patterns = self._unsafe_ascii if data.isascii() else self._unsafe_ascii + self._unsafe_wide
        for lead, pattern in patterns:
            if lead in data:
                found += [match.end() - 1 for match in pattern.finditer(data)]
        return sorted(found)

    def pretokens(self) -> dict[bytes, int]:
        """The pretoken counts (UTF-8 bytes): the pattern over the distinct pieces, scaled.

        Pieces with the same count are joined with spaces and split by one ``findall`` (the
        stdlib pattern on bytes when they are ASCII), and their pretokens counted ``count`` times
        at once. Joining is exact because every space joining two pieces is a cut: the piece
        before it ends in a character that is not whitespace (pieces that end in whitespace, and
        the empty piece, are split one by one).

        Raises ``UnicodeDecodeError`` if a piece is not UTF-8 (callers say where in the file).
        """
        counts: Counter[bytes] = Counter()
        for batch in self.pieces.items(_BATCH):  # batches: the pretokens of one at a time
            groups, alone = self._group_by_count(batch)
            for count, group in groups.items():
                self._add_group(counts, group, count)
            for piece, count in alone:
                _add_scaled(counts, self._split_text(b" " + piece), count)
        for token, count in self.direct.items():
            counts[token.encode("utf-8")] += count
        return counts

    def _add_group(self, counts: Counter[bytes], group: list[bytes], count: int) -> None:
        text = b" " + b" ".join(group)
        if text.isascii():
            _add_scaled(counts, self._split_ascii(text), count)
            return
        ascii_pieces = list(filter(bytes.isascii, group))
        if ascii_pieces:
            _add_scaled(counts, self._split_ascii(b" " + b" ".join(ascii_pieces)), count)
        others = b" " + b" ".join(filterfalse(bytes.isascii, group))
        _add_scaled(counts, self._split_text(others), count)

    def _group_by_count(
        self, pieces: list[tuple[bytes, int]]
    ) -> tuple[dict[int, list[bytes]], list[tuple[bytes, int]]]:
        """The pieces by count, and apart those that are empty or end in whitespace."""
        groups: dict[int, list[bytes]] = {}
        alone: list[tuple[bytes, int]] = []
        may_end_in_space, is_space = _MAY_END_IN_SPACE, self._is_space
        for piece, count in pieces:
            if not piece or may_end_in_space[piece[-1]] and is_space(_last_char(piece)):
                alone.append((piece, count))
                continue
            group = groups.get(count)
            if group is None:
                groups[count] = [piece]
            else:
                group.append(piece)
        return groups, alone

    def _split_ascii(self, text: bytes) -> list[bytes]:
        """The pretokens of ASCII ``text``, special tokens split out: the stdlib pattern."""
        if self.ascii_special is None or not any(t in text for t in self.ascii_special_bytes):
            return _ASCII_PATTERN.findall(text)
        tokens: list[bytes] = []
        for part in self.ascii_special.split(text)[::2]:
            tokens += _ASCII_PATTERN.findall(part)
        return tokens

    def _split_text(self, text: bytes) -> list[bytes]:
        """The pretokens of UTF-8 ``text``, special tokens split out: the ``regex`` pattern."""
        decoded = text.decode("utf-8")
        if self.special is not None and self.special.search(decoded):
            parts = self.special.split(decoded)[::2]
        else:
            parts = (decoded,)
        tokens: list[bytes] = []
        for part in parts:
            tokens += map(str.encode, GPT2_REGEX.findall(part))
        return tokens


def _add_scaled(counts: Counter[bytes], tokens: list[bytes], count: int) -> None:
    """Add each of ``tokens`` ``count`` times: by repeating the list, counted in C, when the
    count is small; else once per distinct token, multiplied, in Python."""
    if count <= _REPEAT_AT_MOST:
        counts.update(tokens if count == 1 else chain.from_iterable(repeat(tokens, count)))
        return
    get = counts.get
    for token, n in Counter(tokens).items():
        counts[token] = get(token, 0) + n * count


def _bytes_alternation(tokens: Sequence[bytes]) -> re.Pattern[bytes] | None:
    """Like :func:`~bpe_course.pretokenize.special_token_regex`, for bytes: longest first."""
    if not tokens:
        return None
    ordered = sorted(tokens, key=len, reverse=True)
    return re.compile(b"(" + b"|".join(re.escape(token) for token in ordered) + b")")


def _last_char(piece: bytes) -> bytes:
    """The last UTF-8 character of a piece, as bytes (b"" for an empty piece)."""
    i = len(piece) - 1
    while i > 0 and 0x80 <= piece[i] < 0xC0:  # continuation bytes
        i -= 1
    return piece[i:]


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


def _count_ranges_task(args: tuple[str, list[tuple[int, int]], tuple[str, ...]]):
    """A task of :func:`count_words_by_pieces` (module level, so spawn works)."""
    from bpe_course.pool import report_progress

    return count_ranges(*args, progress=report_progress)


def count_words_by_pieces(
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
        return count_words(
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
    cuts = plan_chunks(path, special_tokens, at_least=n_workers)
    ranges = list(zip(cuts[:-1], cuts[1:]))
    n_workers = min(n_workers, len(ranges))
    from bpe_course.pool import run_tasks

    tasks = [(str(path), ranges[i::n_workers], tuple(special_tokens)) for i in range(n_workers)]
    results = iter(
        run_tasks(
            _count_ranges_task, tasks, n_workers, start_method=start_method, on_progress=on_chunk
        )
    )
    totals: dict[bytes, int] = next(results, {})  # the first as it is: no copy
    for result in results:
        _add_into(totals, result)
    return totals
