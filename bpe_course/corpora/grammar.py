"""What both corpus generators share: a random stream that is the same everywhere, words drawn by
frequency, and sentence templates filled many at a time.

Speed is what shapes this module (a TinyStories-train-sized corpus is 2.1 GB): sentences are made
in batches with numpy. For each template, the slots of every sentence using it are drawn at once;
every fragment of the text (the template's fixed pieces, the drawn words, the separators) is put
at its place in one array of UTF-8 ``bytes``, joined once. Bytes rather than ``str``: one emoji
would make a joined ``str`` four bytes per character, and the file is bytes in the end anyway.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bpe_course.corpora.lexicon import load_roles


class Random:
    """Uniform draws that are the same on every platform and numpy version.

    numpy fixes the streams of its bit generators (PCG64 seeded by a SeedSequence) but not those of
    ``Generator`` methods, so the draws come from PCG64's raw 64-bit words, turned into floats by
    arithmetic that IEEE 754 defines exactly: the top 53 bits times 2**-53.
    """

    def __init__(self, *seed: int) -> None:
        self.bits = np.random.PCG64(np.random.SeedSequence(list(seed)))

    def uniform(self, n: int) -> np.ndarray:
        raw = self.bits.random_raw(n)
        return (raw >> np.uint64(11)).astype(np.float64) * (2.0**-53)

    def below(self, k: int, n: int) -> np.ndarray:
        """``n`` integers in ``[0, k)``."""
        return (self.uniform(n) * k).astype(np.int64)

    def between(self, low: int, high: int, n: int) -> np.ndarray:
        """``n`` integers in ``[low, high]``."""
        return low + self.below(high - low + 1, n)

    def chance(self, p: float, n: int) -> np.ndarray:
        """``n`` booleans, each true with probability ``p``."""
        return self.uniform(n) < p


class Words:
    """The forms of one lexicon role, drawn with probability proportional to weight**exponent.

    ``exponent`` above 1 favours the frequent words (few distinct words, like a children's story),
    below 1 flattens the distribution (many distinct words, like an encyclopedia); ``limit`` keeps
    only the most frequent forms; ``shorter`` divides each weight by the form's length to that
    power (children's stories favour short words).

    Draws use Walker's alias method: one uniform per draw, whatever the number of forms (a binary
    search over 30,000 cumulative weights was the slowest step of generation).
    """

    def __init__(
        self,
        forms: Sequence[str],
        weights: np.ndarray,
        exponent: float = 1.0,
        limit: int = 0,
        shorter: float = 0.0,
    ) -> None:
        if limit:
            forms, weights = forms[:limit], weights[:limit]
        self.texts = tuple(forms)
        # The ways a word is written into a sentence, as bytes, made on first use:
        # (capitalised, after a space), or (article, after a space).
        self.variants: dict[tuple, np.ndarray] = {}
        probability = weights.astype(np.float64) ** exponent
        if shorter:  # favour short words: weight / length**shorter
            probability /= np.array([len(f) for f in forms], dtype=np.float64) ** shorter
        self.threshold, self.alias = _alias_table(probability)

    @classmethod
    def from_lexicon(cls, specs: Mapping[str, tuple[str, dict]]) -> dict[str, Words]:
        """``{name: Words}`` from ``{name: (lexicon role, keyword arguments)}``, reading the
        lexicon once for all of them."""
        roles = load_roles({role for role, _ in specs.values()})
        return {name: cls(*roles[role], **options) for name, (role, options) in specs.items()}

    @classmethod
    def uniform(cls, forms: Sequence[str]) -> Words:
        return cls(forms, np.ones(len(forms), dtype=np.int64))

    def indices(self, rng: Random, n: int) -> np.ndarray:
        # One uniform gives both the column (its integer part) and the coin (its fraction).
        scaled = rng.uniform(n) * len(self.threshold)
        column = scaled.astype(np.int64)
        keep = (scaled - column) < self.threshold[column]
        return np.where(keep, column, self.alias[column])

    def draw(
        self, rng: Random, n: int, capitalised: bool = False, spaced: bool = False
    ) -> np.ndarray:
        """``n`` words as UTF-8 bytes (capitalised, and after a space, when asked)."""
        key = (capitalised, spaced)
        if key not in self.variants:
            space = " " if spaced else ""
            texts = [f[:1].upper() + f[1:] for f in self.texts] if capitalised else self.texts
            self.variants[key] = encoded([space + f for f in texts])
        return self.variants[key][self.indices(rng, n)]

    def draw_with_article(self, rng: Random, n: int, article: str, spaced: bool) -> np.ndarray:
        """``n`` words, each after "a" or "an" (``article`` "A": capitalised), made once."""
        key = (article, spaced)
        if key not in self.variants:
            a, an = ("A", "An") if article == "A" else ("a", "an")
            space = " " if spaced else ""
            self.variants[key] = encoded(
                [f"{space}{an if f[:1] in 'aeiouAEIOU' else a} {f}" for f in self.texts]
            )
        return self.variants[key][self.indices(rng, n)]


def encoded(texts: Sequence[str]) -> np.ndarray:
    out = np.empty(len(texts), dtype=object)
    out[:] = [t.encode("utf-8") for t in texts]
    return out


def _alias_table(probability: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vose's construction of Walker's alias table: column i keeps itself with probability
    ``threshold[i]``, else gives ``alias[i]``. Plain float arithmetic in a fixed order, so the
    table is the same on every machine."""
    n = len(probability)
    scaled = (probability * (n / probability.sum())).tolist()
    threshold = [1.0] * n
    alias = list(range(n))
    small = [i for i, p in enumerate(scaled) if p < 1.0]
    large = [i for i, p in enumerate(scaled) if p >= 1.0]
    while small and large:
        less, more = small.pop(), large.pop()
        threshold[less], alias[less] = scaled[less], more
        scaled[more] = (scaled[more] + scaled[less]) - 1.0
        (small if scaled[more] < 1.0 else large).append(more)
    return np.array(threshold), np.array(alias, dtype=np.int64)


# A slot's filler: given the random stream, the positions (in the batch) of the sentences that
# need it, and whether the slot follows a space, the UTF-8 bytes to put there, one per position.
# (The space before a slot is part of the word: one fragment fewer to join, per word.)
Filler = Callable[[Random, np.ndarray, bool], np.ndarray]

_SLOT = re.compile(r"\{(\w+)\}")
_ARTICLE = re.compile(r"(?<![\w'])([Aa]) $")
SPACE = np.array([b" "], dtype=object)


@dataclass(frozen=True)
class Hole:
    slot: str  # the filler's name; capitalised: the capitalised form
    spaced: bool  # a space comes before it
    article: str | None  # "a" or "A" when the article before it goes with the word


class Template:
    """A sentence with ``{slot}`` holes. A slot written with a capital (``{Noun}``) takes the
    capitalised form of the filler ``noun``; fillers are looked up by the lower-case name.

    An article "a" right before a slot becomes "an" when the word drawn starts with a vowel
    letter (an approximation of English, which goes by sound: "an hour", "a unicorn").
    The text is kept as ``layout``: its fixed pieces (bytes) and its holes, in reading order.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.layout: list[bytes | Hole] = []
        last = 0
        for match in _SLOT.finditer(text):
            before = text[last : match.start()]
            article = _ARTICLE.search(before)
            if article:
                before = before[: article.start()]
            spaced = before.endswith(" ")
            if spaced:
                before = before[:-1]
            if before:
                self.layout.append(before.encode("utf-8"))
            self.layout.append(Hole(match.group(1), spaced, article.group(1) if article else None))
            last = match.end()
        if text[last:]:
            self.layout.append(text[last:].encode("utf-8"))

    def words(self) -> list[str]:
        """The words of the fixed text (what a test checks against the word source)."""
        return re.findall(r"[^\W\d_]+", _SLOT.sub(" ", self.text))


def compose(
    rng: Random,
    templates: Sequence[Template],
    choice: np.ndarray,
    fillers: Mapping[str, Filler],
    separators: np.ndarray,
) -> bytes:
    """The UTF-8 text of ``len(choice)`` sentences, the i-th made from ``templates[choice[i]]``
    and followed by ``separators[i]`` (bytes).

    Every fragment of the text (fixed pieces, drawn words, separators) is put at its place in one
    array, joined once. Templates are visited in order, and each one's holes in reading order,
    so the same stream gives the same text.
    """
    sizes = np.array([len(t.layout) + 1 for t in templates])[choice]  # + 1 for the separator
    starts = np.cumsum(sizes) - sizes
    fragments = np.empty(int(sizes.sum()), dtype=object)
    fragments[starts + sizes - 1] = separators
    for index, template in enumerate(templates):
        where = np.flatnonzero(choice == index)
        if not len(where):
            continue
        base = starts[where]
        for offset, item in enumerate(template.layout):
            if isinstance(item, Hole):
                item = _column(rng, fillers, item, where)
            fragments[base + offset] = item
    return b"".join(fragments.tolist())


def _column(
    rng: Random, fillers: Mapping[str, Filler], hole: Hole, where: np.ndarray
) -> np.ndarray:
    slot = hole.slot
    if hole.article:
        words = getattr(fillers[slot], "words", None)
        if words is not None:
            return words.draw_with_article(rng, len(where), hole.article, hole.spaced)
        words = _column(rng, fillers, Hole(slot, False, None), where)
        a, an = (b"A ", b"An ") if hole.article == "A" else (b"a ", b"an ")
        if hole.spaced:
            a, an = b" " + a, b" " + an
        out = np.empty(len(words), dtype=object)
        out[:] = [(an if w[0] in _VOWELS else a) + w for w in words]
        return out
    if slot in fillers:  # a filler of its own for the capitalised form is faster
        return fillers[slot](rng, where, hole.spaced)
    column = capitalise(fillers[slot.lower()](rng, where, False))
    return SPACE + column if hole.spaced else column


def capitalise(words: np.ndarray) -> np.ndarray:
    out = np.empty(len(words), dtype=object)
    out[:] = [_capitalise(w) for w in words]
    return out


def _capitalise(word: bytes) -> bytes:
    if word[:1].isascii():
        return word[:1].upper() + word[1:]
    text = word.decode("utf-8")
    return (text[:1].upper() + text[1:]).encode("utf-8")


_VOWELS = frozenset(b"aeiouAEIOU")


class WordFiller:
    """Words of one role drawn for a slot; the words are there for slots with an article."""

    def __init__(self, words: Words, capitalised: bool) -> None:
        self.words, self.capitalised = words, capitalised

    def __call__(self, rng: Random, where: np.ndarray, spaced: bool) -> np.ndarray:
        return self.words.draw(rng, len(where), self.capitalised, spaced)


def word_filler(words: Words, capitalised: bool = False) -> Filler:
    return WordFiller(words, capitalised)


def per_document(values: np.ndarray, document_of: np.ndarray) -> Filler:
    """A slot that holds one value per document (its hero, its place) in every sentence of it."""
    spaced_values = SPACE + values
    return lambda rng, where, spaced: (spaced_values if spaced else values)[document_of[where]]


def _numbers(digits: int = 0) -> dict[bool, np.ndarray]:
    texts = [f"{i:0{digits}d}" for i in range(10_000)]
    return {False: encoded(texts), True: encoded([" " + t for t in texts])}


NUMBERS = _numbers()


def number_filler(low: int, high: int, digits: int = 0) -> Filler:
    """Integers in ``[low, high]`` (below 10,000), written with at least ``digits`` digits."""
    tables = NUMBERS if not digits else _numbers(digits)
    return lambda rng, where, spaced: tables[spaced][rng.between(low, high, len(where))]
