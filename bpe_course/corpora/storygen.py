"""The embedded offline corpus: children's stories in the shape of TinyStories, made from a seed.

No network, no data file: a small grammar of story sentences, a lexicon written for this course, and
a long tail of rarer words derived from it (compounds, inflections, made-up names), drawn with
Zipf-like frequencies so that, as in real text, new distinct words keep appearing as the corpus
grows (Heaps' law). Stories are separated by ``<|endoftext|>`` lines, as in TinyStories.

Sampling is vectorised with numpy, so a 21.5 MB corpus takes about a second.
"""

from __future__ import annotations

import numpy as np

from bpe_course.pretokenize import END_OF_TEXT

GENERATOR_VERSION = 1  # bump when the output for a given seed changes (part of the cache key)

NAMES = (
    "Lily Tom Ben Mia Sam Anna Max Lucy Tim Sue Jack Emma Leo Zoe Sara Bob Kate Jake Amy Joe "
    "Molly Timmy Sally Billy Daisy Rosie Jenny Peter Mark Ella Ruby Oscar Finn Nina Lola Hugo"
).split()
ANIMALS = (
    "dog cat bird bunny bear fish frog duck mouse lion puppy kitten owl fox cow pig horse sheep "
    "monkey tiger elephant turtle snake bee butterfly squirrel rabbit hen chick dragon"
).split()
THINGS = (
    "ball toy car boat cake apple flower tree box book hat kite doll train cup bed door window "
    "rock stick leaf shell star moon sun cookie balloon swing slide blanket drum bike key map "
    "basket hat coat shoe sock crayon picture letter gift ring button bucket shovel spoon"
).split()
PLACES = (
    "park garden forest beach house school river hill yard pond farm town sea lake street room "
    "kitchen castle cave field meadow playground shop zoo jungle island mountain"
).split()
ADJECTIVES = (
    "big little happy sad red blue green yellow shiny soft pretty kind brave funny scared tired "
    "small tall old new warm cold bright dark fast slow quiet loud gentle curious silly sweet "
    "wet dry round fluffy sparkly grumpy sleepy hungry"
).split()
VERBS_PAST = (
    "played ran jumped saw found wanted liked looked smiled laughed walked helped made gave took "
    "shared hugged climbed danced sang painted built opened closed picked carried chased hid "
    "cleaned cooked fixed dropped kicked threw caught pushed pulled hugged visited watched"
).split()
VERBS = (
    "play run jump see find help share hug climb dance sing paint build open pick carry chase hide "
    "clean cook fix throw catch push pull visit watch explore swim fly read draw"
).split()
FEELINGS = "happy sad scared proud excited surprised angry sorry glad lonely".split()

# Material for the long tail of rare words, combined below.
ROOTS = (
    "sun moon star rain snow wind leaf rose berry honey sugar butter candy cloud river stone "
    "sand shell feather bubble puddle pebble apple cherry lemon peach grape paper button thunder "
    "rainbow fire water ice sea sky tree wood flower grass mud light shadow night day"
).split()
PARTS = (
    "flower fly bird cake shine drop ball light house boat fish bug berry land dust hat box "
    "seed ring bell path hill worm stone nut song pot cap"
).split()
SUFFIXES = "s y ing ed er est ly ful ness ish".split()
SYLLABLES = (
    "ba be bi bo bu da de di do du fa fe fi fo la le li lo lu ma me mi mo mu na ne ni no nu pa "
    "pe pi po ra re ri ro ru sa se si so ta te ti to tu va vi wa wi za zo bel dan fin gor kip "
    "lin mar nel pip ros tam vin wen zel"
).split()

# Sentences: {n} a name, {a} an animal, {t} a thing, {p} a place, {j} an adjective, {v} a past
# verb, {b} a base verb, {f} a feeling, {r} a rare word. Each template's slots are filled in order.
TEMPLATES = (
    "Once upon a time, there was a {j} {a} named {n}.",
    "{n} loved to {b} in the {p}.",
    "One day, {n} {v} a {j} {t} near the {p}.",
    '"Look at the {r}!" said {n}.',
    "{n} was very {f} and {v} all day.",
    "The {a} wanted to {b} with the {t}.",
    "{n} and the {a} {v} together.",
    "They went to the {p} to find a {r}.",
    '"Can I {b} with your {t}?" asked {n}.',
    "The {a} {v} and {v} the {j} {r}.",
    "{n} felt {f} because the {t} was {j}.",
    "At the end of the day, {n} {v} the {t} and went home.",
    "It was a {j} day, and the {r} was {j}.",
    '{n}\'s mom said, "Be careful with the {t}!"',
    "The {j} {a} did not want to {b}.",
    "Then {n} saw a {r} in the {p}.",
    "They {v} the {r} and {v} it to the {p}.",
    "{n} learned that it is good to {b} and to {b}.",
    "From that day on, {n} and the {a} were best friends.",
    "The {t} was {j}, so {n} {v} it.",
    "Suddenly, a {j} {a} came out of the {r}.",
    "{n} did not know what to do, so {n} {v}.",
    "They were very {f}.",
    'The {a} said, "Thank you, {n}!"',
)


# Rarer characters, for the few odd tokens real stories hold (numbers, accents, curly quotes...).
ODD_CHARACTERS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZqxzjkvwyéèàüöñçíóúâêô’“”—…-:;()'&*#%$"


def _zipf_cumulative(n: int, exponent: float, offset: float) -> np.ndarray:
    ranks = np.arange(1, n + 1, dtype=np.float64)
    weights = 1.0 / (ranks + offset) ** exponent
    cumulative = np.cumsum(weights)
    return cumulative / cumulative[-1]


def _rare_words(rng: np.random.Generator) -> list[str]:
    """A long tail of rarer words: compounds, inflected forms and made-up names, shuffled."""
    words = {root + part for root in ROOTS for part in PARTS}
    words.update(
        w + suffix for w in [*ROOTS, *PARTS, *THINGS, *ANIMALS, *ADJECTIVES] for suffix in SUFFIXES
    )
    picks = rng.integers(0, len(SYLLABLES), size=(60_000, 3)).tolist()
    words.update((SYLLABLES[a] + SYLLABLES[b]).capitalize() for a, b, _ in picks[:20_000])
    words.update(SYLLABLES[a] + SYLLABLES[b] for a, b, _ in picks[20_000:40_000])
    words.update(SYLLABLES[a] + SYLLABLES[b] + SYLLABLES[c] for a, b, c in picks[40_000:])
    ordered = sorted(words)
    rng.shuffle(ordered)
    return ordered


def _odd_tokens(rng: np.random.Generator, n: int = 20_000) -> list[str]:
    """Short tokens over a wide alphabet: each new one may add byte pairs never seen before."""
    alphabet = list(ODD_CHARACTERS + "abcdefghilmnoprstu")
    lengths = rng.integers(2, 5, size=n).tolist()
    picks = rng.integers(0, len(alphabet), size=(n, 4)).tolist()
    return ["".join(alphabet[c] for c in row[:k]) for row, k in zip(picks, lengths)]


class _Category:
    """A list of words with cumulative Zipf-like weights; draws many at once."""

    def __init__(self, words: list[str], exponent: float, offset: float = 2.0) -> None:
        self.words = np.array(words, dtype=object)
        self.cumulative = _zipf_cumulative(len(words), exponent, offset)

    def draw(self, rng: np.random.Generator, n: int) -> list[str]:
        index = np.searchsorted(self.cumulative, rng.random(n), side="right")
        return self.words[np.minimum(index, len(self.words) - 1)].tolist()


def _categories(
    rng: np.random.Generator, tail: float, tail_offset: float, odd: float
) -> dict[str, _Category]:
    rare = _rare_words(rng)
    odd_tokens = _odd_tokens(rng)
    return {
        "n": _Category(NAMES + rare[:600], exponent=1.5),
        "a": _Category(ANIMALS + rare[600:800], exponent=1.5),
        "t": _Category(THINGS + rare[800:1200], exponent=1.5),
        "p": _Category(PLACES + rare[1200:1400], exponent=1.5),
        "j": _Category(ADJECTIVES + rare[1400:1600], exponent=1.5),
        "v": _Category(VERBS_PAST + rare[1600:1800], exponent=1.5),
        "b": _Category(VERBS + rare[1800:2000], exponent=1.5),
        "f": _Category(FEELINGS, exponent=1.0),
        "r": _Category(rare[2000:], exponent=tail, offset=tail_offset),
        "o": _Category(odd_tokens, exponent=odd, offset=5.0),
    }


def generate_stories(
    size_bytes: int,
    seed: int = 0,
    *,
    tail: float = 2.2,
    tail_offset: float = 500.0,
    odd: float = 1.8,
    odd_rate: float = 0.01,
) -> str:
    """About ``size_bytes`` of stories (at least that many UTF-8 bytes), the same for the same seed.

    The keyword arguments shape the rare words: ``tail`` and ``tail_offset`` the Zipf exponent and
    offset of the made-up words (steeper: fewer new words as the corpus grows), ``odd`` and
    ``odd_rate`` the odd tokens. The defaults were tuned so that W, P and L match TinyStories'
    valid set at 1, 5, 10 and 21.5 MB (see the corpus notebook).
    """
    rng = np.random.default_rng([GENERATOR_VERSION, seed])
    categories = _categories(rng, tail, tail_offset, odd)
    formats = [_positional(t) for t in TEMPLATES]
    slots = [_slot_letters(t) for t in TEMPLATES]
    chunks: list[str] = []
    total = 0
    while total < size_bytes:
        n_sentences = min(200_000, max(2_000, (size_bytes - total) // 45))
        template_ids = rng.integers(0, len(TEMPLATES), size=n_sentences)
        sentences = np.empty(n_sentences, dtype=object)
        for i, (fmt, letters) in enumerate(zip(formats, slots)):
            where = np.flatnonzero(template_ids == i)
            columns = [categories[c].draw(rng, len(where)) for c in letters]
            sentences[where] = list(map(fmt.format, *columns)) if columns else [fmt] * len(where)
        # A few odd tokens (numbers, accents, capitals) after some sentences, as real stories have.
        odd_at = np.flatnonzero(rng.random(n_sentences) < odd_rate)
        extras = categories["o"].draw(rng, len(odd_at))
        sentences[odd_at] = [s + " " + e for s, e in zip(sentences[odd_at].tolist(), extras)]
        cuts = np.cumsum(rng.integers(5, 16, size=n_sentences // 5 + 1))
        cuts = cuts[cuts < n_sentences].tolist()
        pieces = sentences.tolist()
        for a, b in zip([0, *cuts], cuts):
            story = " ".join(pieces[a:b])
            chunks.append(story)
            total += len(story) + 15
            if total >= size_bytes:
                break
    return f"\n{END_OF_TEXT}\n".join(chunks) + "\n"


def _slot_letters(template: str) -> str:
    return "".join(
        template[i + 1]
        for i in range(len(template) - 2)
        if template[i] == "{" and template[i + 2] == "}"
    )


def _positional(template: str) -> str:
    out = template
    for letter in "natpjvbfr":
        out = out.replace("{" + letter + "}", "{}")
    return out
