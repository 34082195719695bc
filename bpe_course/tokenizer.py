"""Using a trained tokenizer: text to ids and back.

Encoding does what training did, in the same order: split out special tokens (longest first, never
split), cut the rest into GPT-2 pretokens, then inside each pretoken apply the learned merges by
rank (the earliest-learned applicable merge first, every occurrence of it, left to right), until
none applies. A pretoken's ids depend only on the pretoken, so they are cached.

Text that UTF-8 cannot encode is refused, never repaired silently: a Python string may hold a lone
surrogate (U+D800 to U+DFFF, half of a UTF-16 pair; ``json.loads('"\\ud83d"')`` makes one), and
``encode`` raises :class:`~bpe_course.errors.BPEInputError` naming it, its index in the text, and
the one-line repair (``text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")``).
"""

from __future__ import annotations

import operator
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import SupportsIndex

from bpe_course.errors import BPEInputError
from bpe_course.formats import load_gpt2, save_gpt2, special_tokens_of
from bpe_course.pretokenize import GPT2_REGEX, check_special_tokens, special_token_regex
from bpe_course.trainers.common import Merges, Vocab, merge_word

_CACHE_LIMIT = 1 << 18  # distinct pretokens kept; TinyStories has ~13k, web text far more


class Tokenizer:
    """A byte-level BPE tokenizer from a vocabulary and its merges (CS336's interface)."""

    def __init__(
        self, vocab: Vocab, merges: Merges, special_tokens: Sequence[str] | None = None
    ) -> None:
        self.vocab: Vocab = dict(vocab)
        self.merges: Merges = list(merges)
        self.special_tokens: list[str] = check_special_tokens(special_tokens)
        # A merges list (loaded or written by hand) can give two ids the same bytes (ab + c and
        # a + bc): encoding emits the lowest.
        self._id_of: dict[bytes, int] = {}
        for token_id, token in sorted(self.vocab.items()):
            self._id_of.setdefault(token, token_id)
        for special in self.special_tokens:  # a special token missing from the vocab is appended
            encoded = _utf8(special, "special token")
            if encoded not in self._id_of:
                new_id = max(self.vocab, default=-1) + 1
                self.vocab[new_id] = encoded
                self._id_of[encoded] = new_id
        missing = [bytes([b]) for b in range(256) if bytes([b]) not in self._id_of]
        if missing:
            raise BPEInputError(
                f"the vocabulary lacks {len(missing)} of the 256 single bytes (first: {missing[0]!r}); "
                "a byte-level vocabulary must hold all of them"
            )
        self._rank: dict[tuple[bytes, bytes], int] = {}
        for rank, (left, right) in enumerate(self.merges):
            if left + right not in self._id_of:
                raise BPEInputError(
                    f"merge {rank} ({left!r}, {right!r}) makes a token not in vocab"
                )
            self._rank.setdefault((left, right), rank)
        self._special_ids = {t: self._id_of[t.encode("utf-8")] for t in self.special_tokens}
        self._special_regex = special_token_regex(self.special_tokens)
        self._longest_special = max(map(len, self.special_tokens), default=0)
        self._cache: dict[str, list[int]] = {}

    @classmethod
    def from_files(
        cls,
        vocab_path: str | os.PathLike[str],
        merges_path: str | os.PathLike[str],
        special_tokens: Sequence[str] | None = None,
    ) -> Tokenizer:
        """Load GPT-2 ``vocab.json`` + ``merges.txt`` (checked; see :func:`formats.load_gpt2`)."""
        vocab, merges = load_gpt2(vocab_path, merges_path, special_tokens)
        return cls(vocab, merges, special_tokens)

    @classmethod
    def from_folder(
        cls, folder: str | os.PathLike[str], special_tokens: Sequence[str] | None = None
    ) -> Tokenizer:
        """Load the ``vocab.json`` and ``merges.txt`` of ``folder`` (as ``bpe-course train -o``
        and :meth:`save` write them). ``special_tokens``: default, the entries of ``vocab.json``
        that no merge makes (:func:`formats.special_tokens_of`)."""
        folder = Path(folder)
        if not folder.is_dir():
            what = "is a file, not a folder" if folder.exists() else "does not exist"
            raise BPEInputError(
                f"the tokenizer folder {folder} {what}; give the folder that holds vocab.json "
                "and merges.txt (bpe-course train -o FOLDER writes them)"
            )
        vocab_path, merges_path = folder / "vocab.json", folder / "merges.txt"
        for path in (vocab_path, merges_path):
            if not path.is_file():
                raise BPEInputError(
                    f"{folder} holds no {path.name}: a tokenizer folder holds vocab.json and "
                    "merges.txt (bpe-course train -o FOLDER writes them)"
                )
        if special_tokens is None:
            special_tokens = special_tokens_of(vocab_path, merges_path)
        return cls.from_files(vocab_path, merges_path, special_tokens)

    def save(self, folder: str | os.PathLike[str]) -> tuple[Path, Path]:
        """Write GPT-2 ``vocab.json`` + ``merges.txt`` into ``folder``; return their paths."""
        return save_gpt2(self.vocab, self.merges, folder, self.special_tokens)

    # --- Encoding ---------------------------------------------------------------------------------

    def encode(self, text: str) -> list[int]:
        """The ids of ``text``; :class:`BPEInputError` if it holds a lone surrogate."""
        if not isinstance(text, str):
            raise BPEInputError(f"encode takes a str, not {_type_hint(text)}")
        try:
            return self._encode(text)
        except UnicodeEncodeError:  # only a surrogate makes str -> UTF-8 fail
            raise surrogate_error(text) from None

    def _encode(self, text: str) -> list[int]:
        ids: list[int] = []
        if self._special_regex is None:
            self._encode_ordinary(text, ids)
            return ids
        for index, piece in enumerate(self._special_regex.split(text)):
            if index % 2:  # odd pieces are special tokens
                ids.append(self._special_ids[piece])
            elif piece:
                self._encode_ordinary(piece, ids)
        return ids

    def encode_iterable(self, iterable: Iterable[str]) -> Iterator[int]:
        """Ids of the concatenation of ``iterable``'s strings (a file's lines, say), lazily.

        Text is held back only while what follows could still change its ids: the last pretoken
        (more letters or spaces may follow) and a tail that could begin a special token. So memory
        stays bounded by the longest pretoken, whatever the input's size, and the ids equal
        ``encode`` of the whole text.
        """
        pending, done = "", 0  # done: characters before ``pending`` (for the error's index)
        for chunk in iterable:
            if not isinstance(chunk, str):
                raise BPEInputError(f"encode_iterable takes strings, not {_type_hint(chunk)}")
            text = pending + chunk
            try:
                ids, pending = self._encode_settled(text)
            except UnicodeEncodeError:
                raise surrogate_error(text, done) from None
            done += len(text) - len(pending)
            yield from ids
        if pending:
            try:
                yield from self._encode(pending)
            except UnicodeEncodeError:
                raise surrogate_error(pending, done) from None

    def _encode_settled(self, text: str) -> tuple[list[int], str]:
        """The ids of the part of ``text`` that no appended text can change, and the rest."""
        ids: list[int] = []
        start = 0  # where the ordinary text after the last special token begins
        if self._special_regex is not None:
            for match in self._special_regex.finditer(text):
                self._encode_words(GPT2_REGEX.findall(text, start, match.start()), ids)
                if self._may_begin_special(text, match.start()):
                    return ids, text[match.start() :]  # <|endoftext|> may grow into a longer one
                ids.append(self._special_ids[match.group()])
                start = match.end()
        limit = len(text)
        for position in range(max(start, len(text) - self._longest_special + 1), len(text)):
            if self._may_begin_special(text, position):
                limit = position  # the tail may be the start of a special token
                break
        # Pretokens are final except the last, which more letters or spaces may still change.
        matches = list(GPT2_REGEX.finditer(text, start, limit))
        if not matches:
            return ids, text[start:]
        self._encode_words([m.group() for m in matches[:-1]], ids)
        return ids, text[matches[-1].start() :]

    def _may_begin_special(self, text: str, position: int) -> bool:
        """Whether ``text[position:]`` is a proper prefix of some special token."""
        tail = text[position:]
        return any(len(t) > len(tail) and t.startswith(tail) for t in self.special_tokens)

    def _encode_ordinary(self, text: str, ids: list[int]) -> None:
        self._encode_words(GPT2_REGEX.findall(text), ids)

    def _encode_words(self, words: list[str], ids: list[int]) -> None:
        cache, merge = self._cache, self._encode_pretoken
        for word in words:
            word_ids = cache.get(word)
            if word_ids is None:
                word_ids = merge(word.encode("utf-8"))
                if len(cache) < _CACHE_LIMIT:
                    cache[word] = word_ids
            ids.extend(word_ids)

    def _encode_pretoken(self, word: bytes) -> list[int]:
        """Apply the merges by rank to one pretoken's bytes."""
        parts: Sequence[bytes] = [word[i : i + 1] for i in range(len(word))]
        rank = self._rank
        while len(parts) > 1:
            best = min(
                zip(parts, parts[1:]), key=lambda pair: rank.get(pair, len(rank)), default=None
            )
            if best not in rank:
                break
            # the trainers' merge_word, on parts as bytes (it only compares items): as training did
            parts = merge_word(parts, best, best[0] + best[1])
        id_of = self._id_of
        return [id_of[part] for part in parts]

    # --- Decoding ---------------------------------------------------------------------------------

    def decode(self, ids: Iterable[int]) -> str:
        """The text of ``ids``; bytes that are not valid UTF-8 become U+FFFD (never an error).

        An id outside the vocabulary, or a value that is not an integer (a float, a bool), is an
        error: it is a bug upstream, not a text to repair. NumPy's integers are integers.
        """
        if ids is None or isinstance(ids, (str, bytes, bytearray)) or not hasattr(ids, "__iter__"):
            raise BPEInputError(f"decode takes a list of integer ids, not {type(ids).__name__}")
        vocab, ids = self.vocab, list(ids)
        if not all(type(i) is int for i in ids):
            ids = [_as_id(i) for i in ids]
        try:
            data = b"".join([vocab[i] for i in ids])
        except KeyError:
            bad = next(i for i in ids if i not in vocab)
            raise BPEInputError(
                f"id {bad!r} is not in the vocabulary (ids run 0..{max(vocab)})"
            ) from None
        return data.decode("utf-8", errors="replace")

    @property
    def token_ids(self) -> dict[bytes, int]:
        """Each token's bytes -> the id encoding emits for it (the lowest, if two spell the same)."""
        return dict(self._id_of)

    @property
    def special_ids(self) -> dict[str, int]:
        """Each special token -> its id."""
        return dict(self._special_ids)

    def __len__(self) -> int:
        return len(self.vocab)

    def __repr__(self) -> str:
        return (
            f"Tokenizer({len(self.vocab)} tokens, {len(self.merges)} merges, "
            f"special tokens {self.special_tokens})"
        )


REPAIR = 'text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")'


def surrogate_error(text: str, offset: int = 0, what: str = "the text") -> BPEInputError:
    """The error for text holding a surrogate code point, which UTF-8 cannot encode.

    ``offset`` is the number of characters before ``text`` (``encode_iterable`` reports the index
    in the whole stream). A high surrogate followed by a low one is a pair that should have been
    one character (text decoded as UTF-16 code units, JSON's ``\\ud83d\\ude00``), so it is named
    as such; the repair rejoins such pairs and replaces every lone half with U+FFFD.
    """
    index = next(i for i, char in enumerate(text) if "\ud800" <= char <= "\udfff")
    first, after = text[index], text[index + 1 : index + 2]
    if first <= "\udbff" and after and "\udc00" <= after <= "\udfff":
        pair = f"U+{ord(first):04X} U+{ord(after):04X}"
        found = f"a UTF-16 surrogate pair stored as two code points ({pair})"
    else:
        found = f"a lone surrogate (U+{ord(first):04X}, half of a UTF-16 pair)"
    return BPEInputError(
        f"{what} holds {found} at index {offset + index}, which UTF-8 cannot encode. "
        f"Repair it before encoding: {REPAIR} joins split pairs and turns lone halves into U+FFFD."
    )


def _as_id(value: SupportsIndex) -> int:
    """An id given as any integer type (NumPy's too); a float or a bool is refused, not rounded."""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise BPEInputError(f"id {value!r} ({type(value).__name__}) is not an integer")
    return operator.index(value)


def _type_hint(value: object) -> str:
    hint = (
        " (decode it first: data.decode('utf-8'))" if isinstance(value, (bytes, bytearray)) else ""
    )
    return type(value).__name__ + hint


def _utf8(text: str, what: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise surrogate_error(text, what=f"{what} {text!r}") from None
