"""The "stories" shape: short children's stories, shaped like TinyStories (the course's default).

Each story has a hero (a given name from the census, with matching pronouns), a friend, a pet, a
place and a thing, fixed for the whole story; it opens, goes on for a few sentences, and ends, as
TinyStories' stories do. Every other slot is a word of the lexicon drawn by frequency, so common
words come back often and rarer ones keep appearing as the corpus grows (Heaps' law), at a rate
tuned so that W, P and L stay close to TinyStories' (the table in notebook 04).
Stories are separated by ``<|endoftext|>`` lines, as in TinyStories.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from bpe_course.corpora.grammar import (
    Random,
    Template,
    Words,
    compose,
    number_filler,
    per_document,
    word_filler,
)
from bpe_course.pretokenize import END_OF_TEXT

SHAPE_ID = 1  # part of the random stream's seed: each shape has its own stream
STORIES_PER_BLOCK = 3_000
MIDDLE_SENTENCES = (3, 12)  # between the opening and the ending
PARAGRAPH_BREAK = 0.12  # chance that a sentence ends a paragraph
CURLY_QUOTES = 0.01  # chance that a line of dialogue uses typographic quotes

# Words the code below writes itself, beside the templates' and the lexicon's.
CODE_WORDS = ("girl", "boy", "she", "he", "her", "his", "him", "a", "an")

# How words are drawn (see grammar.Words), tuned so that W, P and L follow TinyStories' valid set
# at 1, 5, 10 and 21.5 MB: "common" roles repeat a small core, "open" roles have a long tail.
STORY_SHAPE = {
    "names": {"exponent": 1.0, "limit": 1200},
    "accented": {"exponent": 0.25},
    "common": {"exponent": 1.35, "shorter": 2.0},
    "open": {"exponent": 1.05, "shorter": 3.3},
}
STORY_ROLES = {
    "adjective": "open",
    "feeling": "common",
    "animal": "common",
    "animals": "common",
    "place": "common",
    "thing": "open",
    "things": "open",
    "person": "common",
    "adverb": "open",
    "verb_alone": "common",
    "verb_object": "open",
    "verb_past_alone": "common",
    "verb_past_motion": "common",
    "verb_past_object": "open",
    "verb_ing_object": "open",
}

OPENINGS = [
    (4, "Once upon a time, there was a {adjective} {kid} named {hero}."),
    (2, "Once upon a time, in a {adjective} {place}, there lived a {kid} named {hero}."),
    (2, "There once was a {adjective} {kid} called {hero} who loved {things}."),
    (1, "One {adjective} day, {hero} went to the {place} with {his} mom."),
    (1, "{hero} was a {adjective} {kid} who lived near a big {place}."),
]
MIDDLES = [
    (3, "{hero} had a {adjective} {pet}."),
    (2, "Every day, {he} liked to {verb_alone} in the {place}."),
    (3, "One day, {hero} found a {adjective} {thing} near the {other_place}."),
    (2, '"Look at the {thing}!" said {hero}.'),
    (2, '"Can we {verb_object} the {other_thing}?" asked {friend}.'),
    (2, "{hero} felt very {feeling}."),
    (2, "{He} {verb_past_object} the {thing} and {verb_past_alone} {adverb}."),
    (2, "The {pet} {verb_past_motion} to the {other_place}."),
    (2, '"{Adjective} {thing}!" said {hero}.'),
    (1, '"{Verb_alone} with me, {friend}!"'),
    (1, '"{Feeling}!" said the {person}.'),
    (2, "{hero} and {friend} {verb_past_object} a {adjective} {other_thing} together."),
    (1, "They saw {count} {animals} and a {adjective} {animal}."),
    (1, "{hero} was {age} years old."),
    (1, "Suddenly, a {adjective} {animal} came out of the {other_place}."),
    (1, "{He} did not know what to do."),
    (1, '{hero}\'s mom said, "Be careful with the {thing}, {hero}!"'),
    (2, "The {other_thing} was {adjective} and {adjective}."),
    (1, "{friend} wanted to {verb_object} the {thing}, but {hero} said no."),
    (1, "{He} {verb_past_object} {his} {thing} {adverb}."),
    (1, "They were {feeling} and {feeling}."),
    (1, '"I am so {feeling}!" said {hero}.'),
    (1, "The {person} gave {him} a {adjective} {other_thing}."),
    (1, "It was {adverb} {adjective} in the {place}."),
    (1, "{hero} {verb_past_alone} all day."),
    (1, "{Adverb}, the {animal} {verb_past_motion} away."),
    (0.015, "A new friend came to play. {Visitor} was from far away."),
    (0.02, "{hero} waited—and waited. Then the {pet} came back."),
    (0.02, '"Well…" said {friend}. "Maybe we can {verb_alone}."'),
    (0.015, "{Visitor} showed {hero} how to {verb_object} the {other_thing}."),
    (1, "After that, {he} went home to {verb_object} the {other_things}."),
    (1, "{hero} liked {things}, but {he} did not like {other_things}."),
    (1, "{He} was {verb_ing_object} the {other_thing} when {friend} came."),
    (1, '"Let\'s {verb_alone}!" said {friend}. {hero} smiled.'),
    (1, "The {animal} looked at {hero} and {verb_past_alone}."),
    (1, "{hero} put the {thing} in a {adjective} {other_thing}."),
]
ENDINGS = [
    (3, "From that day on, {hero} and {friend} were best friends."),
    (2, "{hero} learned that it is good to {verb_alone} and to {verb_object} the {other_things}."),
    (2, "At the end of the day, {hero} was {feeling} and went to sleep."),
    (1, "And they all lived happily ever after."),
    (1, "{hero} smiled. It was the best day ever."),
]


def _templates(weighted: list[tuple[float, str]]) -> tuple[list[Template], np.ndarray]:
    """The templates of one part of a story, and their weights. A sentence with quotes also comes
    with typographic quotes, now and then, as some writers type them."""
    texts: list[tuple[float, str]] = []
    for weight, text in weighted:
        if '"' in text or "'" in text:
            texts.append((weight * (1 - CURLY_QUOTES), text))
            texts.append((weight * CURLY_QUOTES, _typographic(text)))
        else:
            texts.append((weight, text))
    return [Template(text) for _, text in texts], np.array([w for w, _ in texts])


class StoryGrammar:
    """The words and templates of the stories, loaded once; :meth:`block` writes some stories."""

    def __init__(self, shape: dict | None = None) -> None:
        shape = {**STORY_SHAPE, **(shape or {})}
        specs = {name: ("story_" + name, shape[kind]) for name, kind in STORY_ROLES.items()}
        specs["girls"] = ("story_girl_name", shape["names"])
        specs["boys"] = ("story_boy_name", shape["names"])
        specs["accented"] = ("story_accented_name", shape["accented"])
        self.words = Words.from_lexicon(specs)
        self.girls = self.words.pop("girls")
        self.boys = self.words.pop("boys")
        self.accented = self.words.pop("accented")
        # One list of templates: openings, then middles, then endings, each part with its own
        # chooser of local indices and its offset in the list.
        self.templates: list[Template] = []
        self.parts: list[tuple[Words, int]] = []
        for part in (OPENINGS, MIDDLES, ENDINGS):
            templates, weights = _templates(part)
            self.parts.append((Words([t.text for t in templates], weights), len(self.templates)))
            self.templates += templates

    def block(self, rng: Random) -> bytes:
        """``STORIES_PER_BLOCK`` stories, each followed by an ``<|endoftext|>`` line."""
        n = STORIES_PER_BLOCK
        lengths = rng.between(*MIDDLE_SENTENCES, n) + 2
        total = int(lengths.sum())
        story_of = np.repeat(np.arange(n), lengths)
        ends = np.cumsum(lengths) - 1
        starts = ends - lengths + 1

        girl = rng.chance(0.5, n)
        words = self.words
        cast = {
            "hero": np.where(girl, self.girls.draw(rng, n), self.boys.draw(rng, n)),
            "friend": np.where(rng.chance(0.5, n), self.girls.draw(rng, n), self.boys.draw(rng, n)),
            "visitor": self.accented.draw(rng, n),
            "pet": words["animal"].draw(rng, n),
            "place": words["place"].draw(rng, n),
            "thing": words["thing"].draw(rng, n),
            "things": words["things"].draw(rng, n),
            "kid": np.where(girl, b"girl", b"boy").astype(object),
            "he": np.where(girl, b"she", b"he").astype(object),
            "his": np.where(girl, b"her", b"his").astype(object),
            "him": np.where(girl, b"her", b"him").astype(object),
        }
        cast["He"] = np.where(girl, b"She", b"He").astype(object)
        fillers = {name: per_document(values, story_of) for name, values in cast.items()}
        for name, sampler in words.items():
            fillers.setdefault(name, word_filler(sampler))
            fillers.setdefault(name.capitalize(), word_filler(sampler, capitalised=True))
        fillers["other_place"] = word_filler(words["place"])
        fillers["other_thing"] = word_filler(words["thing"])
        fillers["other_things"] = word_filler(words["things"])
        fillers["count"] = number_filler(2, 12)
        fillers["age"] = number_filler(2, 10)

        choice = np.empty(total, dtype=np.int64)
        middle = np.ones(total, dtype=bool)
        middle[starts] = middle[ends] = False
        for (chooser, offset), at in zip(self.parts, (starts, np.flatnonzero(middle), ends)):
            choice[at] = chooser.indices(rng, len(at)) + offset
        separators = np.full(total, b" ", dtype=object)
        separators[rng.chance(PARAGRAPH_BREAK, total)] = b"\n\n"
        separators[ends] = f"\n{END_OF_TEXT}\n".encode()
        return compose(rng, self.templates, choice, fillers, separators)


def _typographic(sentence: str) -> str:
    """Straight quotes and apostrophes as typographic ones."""
    out, opening = [], True
    for char in sentence:
        if char == '"':
            out.append("\u201c" if opening else "\u201d")
            opening = not opening
        else:
            out.append("\u2019" if char == "'" else char)
    return "".join(out)


def story_blocks(seed: int, version: int) -> Iterator[bytes]:
    """Blocks of stories, forever; the same seed gives the same blocks."""
    grammar = StoryGrammar()
    rng = Random(version, SHAPE_ID, seed)
    while True:
        yield grammar.block(rng)
