"""The "wide" shape: encyclopedic articles, with the many distinct words of books and the web.

TinyStories uses few distinct words (the V1-V5 post's table: W about 13,000 at 21.5 MB).
Encyclopedias, books and web text use ten times more at the same size: names, places, numbers and dates, rarer words, a little
non-ASCII. That is where the merge loop's cost per word, the heap's constant factors and the
garbage collector show, so the course measures its trainers on both shapes.

Each article is about a person, a place or a thing (its title, fixed for the article), opens with
the sentence such an article opens with, and goes on with sentences drawn from the whole lexicon
with a flat distribution (the exponent below 1): names from the census, places and nationalities
from WordNet, accented names, a few CJK words and emoji from wordfreq.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from bpe_course.corpora.grammar import (
    NUMBERS,
    Filler,
    Random,
    Template,
    Words,
    compose,
    encoded,
    number_filler,
    per_document,
    word_filler,
)
from bpe_course.pretokenize import END_OF_TEXT

SHAPE_ID = 2
ARTICLES_PER_BLOCK = 2_000
BODY_SENTENCES = (3, 14)
PARAGRAPH_BREAK = 0.2
SECTION = 0.08  # chance that a paragraph starts a section with a heading

# How words are drawn (see grammar.Words): flat, so that rare words keep coming, tuned so that W
# reaches the tens of thousands at a few MB and mean distinct-word length stays about 8 bytes.
WIDE_SHAPE = {
    "names": {"exponent": 0.4},
    "words": {"exponent": 0.4},
    "rare": {"exponent": 0.5},
}
WIDE_ROLES = {
    "given": ("wide_given_name", "names"),
    "surname": ("wide_surname", "names"),
    "place_name": ("wide_place_name", "names"),
    "nationality": ("wide_nationality", "names"),
    "person": ("wide_person", "words"),
    "noun": ("wide_noun", "words"),
    "nouns": ("wide_nouns", "words"),
    "thing": ("wide_thing", "words"),
    "place": ("wide_place", "words"),
    "adjective": ("wide_adjective", "words"),
    "adverb": ("wide_adverb", "words"),
    "verb_object": ("wide_verb_object", "words"),
    "verb_past_object": ("wide_verb_past_object", "words"),
    "verb_past_alone": ("wide_verb_past_alone", "words"),
    "verb_ing_object": ("wide_verb_ing_object", "words"),
    "accented": ("story_accented_name", "rare"),
    "cjk": ("wide_cjk", "rare"),
    "emoji": ("wide_emoji", "rare"),
}
MONTHS = (
    "January February March April May June July August September October November December"
).split()
DIRECTIONS = "north south east west northeast northwest southeast southwest".split()

# Openings by kind of article: a person, a place, a thing. {subject} is the article's title.
OPENINGS = [
    (3, "{subject} (born {day} {month} {year}) is a {nationality} {person} and {person}."),
    (2, "{subject} ({year_span}) was a {nationality} {person}."),
    (3, "{subject} is a {place} in {place_name}, {adverb} known for its {nouns}."),
    (2, "{subject} is a {adjective} {noun} used to {verb_object} {nouns}."),
    (1, "{subject}, also called the {adjective} {noun}, is a {noun} of {place_name}."),
]
OPENING_KIND = [0, 0, 1, 2, 2]  # which subject each opening is about: person, place, thing
BODY = [
    (3, "In {year}, {subject} {verb_past_object} the {adjective} {noun} of {place_name}."),
    (
        2,
        "The {noun} was {adverb} {verb_past_object} by {given} {surname} ({year_span}).",
    ),
    (
        2,
        "{Nationality} {nouns} such as the {noun}, the {noun} and the {noun} are {adverb} {adjective}.",
    ),
    (2, 'According to {surname} ({year}), the {noun} is "{adjective} and {adjective}".'),
    (1, "It had a population of {thousands},{hundreds} at the {year} census."),
    (1, "{subject} lies {number} km ({number} mi) {direction} of {place_name}."),
    (
        2,
        "The {adjective} {noun} {verb_past_alone} in {month} {year}, {verb_ing_object} {number} {nouns}.",
    ),
    (
        2,
        "{Given} {surname}, a {nationality} {person}, {verb_past_object} it as a {adjective} {noun}.",
    ),
    (1, "Its {noun} rose by {number}.{digit}% between {two_years}."),
    (1, 'The name comes from the {nationality} word for "{noun}".'),
    (0.05, "In Chinese it is written {cjk} ({cjk})."),
    (0.05, "Fans {verb_past_object} the {noun} online {emoji}"),
    (1, "See also: {Noun}, {Noun}, {Noun}."),
    (0.3, "{Accented} {surname} was born on {day} {month} {year} in {place_name}."),
    (0.3, "{subject} met {Accented} {Accented} in {place_name} in {year}."),
    (2, "{subject} {verb_past_object} {number} {nouns} and {number} {nouns} during the {noun}."),
    (2, "The {noun} ({Noun}) is a {adjective} {noun} {verb_ing_object} {nouns}."),
    (
        2,
        "Between {two_years}, the {noun} {adverb} {verb_past_object} {adjective} {nouns}.",
    ),
    (1, "On {month} {day}, {year}, {given} {surname} {verb_past_alone} at the {place}."),
    (
        1,
        "This {thing} is {adverb} {verb_past_object} in {place_name}, {place_name} and {place_name}.",
    ),
    (1, "The {adjective} {thing} of {subject} is {number} m ({number} ft) {adjective}."),
]
HEADINGS = ["== {Noun} ==", "== {Adjective} {nouns} ==", "=== {Noun} of {place_name} ==="]


class WideGrammar:
    """The words and templates of the articles, loaded once; :meth:`block` writes some articles."""

    def __init__(self, shape: dict | None = None) -> None:
        shape = {**WIDE_SHAPE, **(shape or {})}
        self.words = Words.from_lexicon(
            {name: (role, shape[kind]) for name, (role, kind) in WIDE_ROLES.items()}
        )
        self.openings = [Template(text) for _, text in OPENINGS]
        self.body = [Template(text) for _, text in BODY]
        self.headings = [Template(text) for text in HEADINGS]
        self.templates = self.openings + self.body + self.headings
        weights = np.array([w for w, _ in OPENINGS], dtype=np.float64)
        self.opening_chooser = Words([t.text for t in self.openings], weights)
        self.body_chooser = Words([t.text for t in self.body], np.array([w for w, _ in BODY]))
        # The fillers that are the same for every block (the article's subject is not).
        self.fillers: dict[str, Filler] = {
            "month": word_filler(Words.uniform(MONTHS)),
            "direction": word_filler(Words.uniform(DIRECTIONS)),
            "day": number_filler(1, 28),
            "year": _years(1700, 2023),
            "year_span": _year_pairs("{}\u2013{}"),
            "two_years": _year_pairs("{} and {}"),
            "number": number_filler(2, 999),
            "digit": number_filler(0, 9),
            "thousands": number_filler(1, 999),
            "hundreds": number_filler(0, 999, digits=3),
        }
        for name, sampler in self.words.items():
            self.fillers[name] = word_filler(sampler)
            self.fillers[name.capitalize()] = word_filler(sampler, capitalised=True)

    def block(self, rng: Random) -> bytes:
        """``ARTICLES_PER_BLOCK`` articles, each followed by an ``<|endoftext|>`` line."""
        n = ARTICLES_PER_BLOCK
        lengths = rng.between(*BODY_SENTENCES, n) + 1
        total = int(lengths.sum())
        article_of = np.repeat(np.arange(n), lengths)
        ends = np.cumsum(lengths) - 1
        starts = ends - lengths + 1

        words = self.words
        opening = self.opening_chooser.indices(rng, n)
        kind = np.array(OPENING_KIND)[opening]
        person = words["given"].draw(rng, n, True) + b" " + words["surname"].draw(rng, n, True)
        place = words["place_name"].draw(rng, n, True)
        thing = words["noun"].draw(rng, n, True)
        subject = np.where(kind == 0, person, np.where(kind == 1, place, thing))
        fillers = {**self.fillers, "subject": per_document(subject, article_of)}

        choice = np.empty(total, dtype=np.int64)
        choice[starts] = opening
        body = np.ones(total, dtype=bool)
        body[starts] = False
        at = np.flatnonzero(body)
        choice[at] = self.body_chooser.indices(rng, len(at)) + len(self.openings)

        separators = np.full(total, b" ", dtype=object)
        breaks = np.flatnonzero(rng.chance(PARAGRAPH_BREAK, total))
        separators[breaks] = b"\n\n"
        # A section heading is a sentence of its own, between two paragraph breaks.
        headed = breaks[rng.chance(SECTION, len(breaks))]
        headed = headed[headed + 1 < total]
        headed = headed[~np.isin(headed, ends) & ~np.isin(headed + 1, ends)]
        heading_at = headed + 1
        first_heading = len(self.openings) + len(self.body)
        choice[heading_at] = rng.below(len(self.headings), len(heading_at)) + first_heading
        separators[heading_at] = b"\n\n"
        separators[ends] = f"\n{END_OF_TEXT}\n".encode()
        return compose(rng, self.templates, choice, fillers, separators)


def _recent_years(rng: Random, n: int, low: int, high: int) -> np.ndarray:
    """Years in ``[low, high]``, most of them recent, as encyclopedias write about recent years."""
    return high - ((high - low) * rng.uniform(n) ** 3).astype(np.int64)


def _years(low: int, high: int) -> Filler:
    return lambda rng, where, spaced: NUMBERS[spaced][_recent_years(rng, len(where), low, high)]


def _year_pairs(form: str) -> Filler:
    """Two years, the second later ("1912\u20131968", "1990 and 2004"), from a table made once."""
    first, last, longest = 1700, 2000, 90
    texts = [
        form.format(start, min(start + gap, 2024))
        for start in range(first, last + 1)
        for gap in range(1, longest + 1)
    ]
    tables = {spaced: encoded([" " * spaced + t for t in texts]) for spaced in (False, True)}

    def draw(rng: Random, where: np.ndarray, spaced: bool) -> np.ndarray:
        start = _recent_years(rng, len(where), first, last)
        gap = rng.between(1, longest, len(where))
        return tables[spaced][(start - first) * longest + gap - 1]

    return draw


def wide_blocks(seed: int, version: int) -> Iterator[bytes]:
    """Blocks of articles, forever; the same seed gives the same blocks."""
    grammar = WideGrammar()
    rng = Random(version, SHAPE_ID, seed)
    while True:
        yield grammar.block(rng)
