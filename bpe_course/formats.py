"""File formats: GPT-2's ``vocab.json`` + ``merges.txt``, written and read back with checks.

GPT-2 stores tokens as text, so every byte is first mapped to a printable character: the 188
printable bytes map to themselves, the others (control characters, space, and a few more) to the
characters from U+0100 on. ``bytes_to_unicode`` is that map. Special tokens are stored as they are.

Reading never executes anything from a file (JSON and plain text only, no pickle), and a malformed
file is refused with a message naming the file and the line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from bpe_course.errors import BPEInputError
from bpe_course.files import write_atomically

MERGES_HEADER = "#version: 0.2"


class TokenizerFileError(BPEInputError):
    """A vocab or merges file that cannot be read as one; the message names the file and line."""

    def __init__(self, path: Path, line: int | None, problem: str) -> None:
        where = f"{path}, line {line}" if line else str(path)
        super().__init__(f"{where}: {problem}")


@lru_cache(maxsize=1)
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's map from each byte to a printable character (a bijection on 256 values).

    >>> bytes_to_unicode()[ord(" ")], bytes_to_unicode()[ord("a")]
    ('Ġ', 'a')
    """
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    mapping = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + extra)
            extra += 1
    return mapping


def token_to_text(token: bytes) -> str:
    """A token's bytes as GPT-2's printable text (``b' the'`` -> ``'Ġthe'``)."""
    table = bytes_to_unicode()
    return "".join(table[b] for b in token)


def text_to_token(text: str) -> bytes:
    """The inverse of :func:`token_to_text`; ``KeyError`` for a character outside GPT-2's map."""
    table = _unicode_to_bytes()
    return bytes(table[c] for c in text)


@lru_cache(maxsize=1)
def _unicode_to_bytes() -> dict[str, int]:
    return {c: b for b, c in bytes_to_unicode().items()}


def vocab_as_text(vocab: dict[int, bytes], special_tokens: Sequence[str] = ()) -> dict[str, int]:
    """``vocab.json``'s mapping: each token as GPT-2 text (special tokens as they are) -> id.

    Two ids can spell the same bytes (``ab + c`` and ``a + bc``); a text file can hold one, so
    the lowest id is kept, which is also the id :class:`~bpe_course.tokenizer.Tokenizer` emits.
    """
    specials = {token.encode("utf-8"): token for token in special_tokens}
    as_text: dict[str, int] = {}
    for token_id, token in sorted(vocab.items()):
        text = specials.get(token) or token_to_text(token)
        as_text.setdefault(text, token_id)
    return as_text


def save_gpt2(
    vocab: dict[int, bytes],
    merges: list[tuple[bytes, bytes]],
    folder: str | os.PathLike[str],
    special_tokens: Sequence[str] | None = None,
) -> tuple[Path, Path]:
    """Write ``vocab.json`` and ``merges.txt`` into ``folder``; each file appears whole or not at all.

    ``special_tokens`` (default: the tokens between the 256 bytes and the first merge, which is
    where training puts them) are written as they are rather than byte-mapped.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if special_tokens is None:
        special_tokens = _layout_special_tokens(vocab, merges)
    vocab_json = vocab_as_text(vocab, special_tokens)
    merges_lines = [MERGES_HEADER] + [f"{token_to_text(a)} {token_to_text(b)}" for a, b in merges]
    vocab_path = write_atomically(
        folder / "vocab.json", json.dumps(vocab_json, ensure_ascii=False, indent=0)
    )
    merges_path = write_atomically(folder / "merges.txt", "\n".join(merges_lines) + "\n")
    return vocab_path, merges_path


def _layout_special_tokens(vocab: dict[int, bytes], merges: list) -> list[str]:
    """The special tokens of a vocab built by training: ids 256 .. (len - merges - 1)."""
    first_merge = len(vocab) - len(merges)
    tokens = []
    for token_id in range(256, first_merge):
        try:
            tokens.append(vocab[token_id].decode("utf-8"))
        except (KeyError, UnicodeDecodeError):
            return []  # not the training layout: write everything byte-mapped
    return tokens


def load_gpt2(
    vocab_path: str | os.PathLike[str],
    merges_path: str | os.PathLike[str],
    special_tokens: Sequence[str] | None = None,
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Read ``vocab.json`` and ``merges.txt`` back into ``(vocab, merges)``, checking everything.

    Entries of ``vocab.json`` equal to one of ``special_tokens`` are read as they are; every
    other entry must be GPT-2 byte-mapped text. Refused, naming file and line: unreadable or
    non-UTF-8 files, bad JSON, a JSON value that is not an object of non-negative integer ids,
    two entries with the same id, text outside GPT-2's byte map, a merge line without exactly
    two parts, a merge whose parts or result are not in the vocab.
    """
    vocab_path, merges_path = Path(vocab_path), Path(merges_path)
    specials = set(special_tokens or ())
    text = _read_text(vocab_path)
    try:
        entries = json.loads(text, object_pairs_hook=list)
    except json.JSONDecodeError as err:
        raise TokenizerFileError(vocab_path, err.lineno, f"not valid JSON ({err.msg})") from None
    if not isinstance(entries, list) or not all(isinstance(e, tuple) for e in entries):
        raise TokenizerFileError(vocab_path, None, "must hold one JSON object {token: id}")

    def line_of(key: str) -> int | None:
        for spelled in (json.dumps(key, ensure_ascii=False), json.dumps(key)):
            at = text.find(spelled)
            if at >= 0:
                return text.count("\n", 0, at) + 1
        return None

    vocab: dict[int, bytes] = {}
    for key, token_id in entries:
        if isinstance(token_id, bool) or not isinstance(token_id, int) or token_id < 0:
            raise TokenizerFileError(
                vocab_path,
                line_of(key),
                f"the id of {key!r} must be a non-negative integer, not {token_id!r}",
            )
        if token_id in vocab:
            raise TokenizerFileError(
                vocab_path,
                line_of(key),
                f"id {token_id} is given to two tokens ({key!r} and an earlier one)",
            )
        if key in specials:
            vocab[token_id] = key.encode("utf-8")
            continue
        try:
            vocab[token_id] = text_to_token(key)
        except KeyError as err:
            raise TokenizerFileError(
                vocab_path,
                line_of(key),
                f"{key!r} holds {err.args[0]!r}, which is not in GPT-2's byte-to-unicode map "
                "(if it is a special token, pass it in special_tokens)",
            ) from None

    by_text = {key: token_id for key, token_id in reversed(entries)}  # lowest id wins, as saved
    merges: list[tuple[bytes, bytes]] = []
    for number, line in enumerate(_read_text(merges_path).split("\n"), start=1):
        line = line.rstrip("\r")  # a file saved on Windows
        if not line.strip() or (number == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not all(parts):
            raise TokenizerFileError(
                merges_path, number, f"a merge is two tokens separated by one space, not {line!r}"
            )
        for part in (*parts, parts[0] + parts[1]):
            if part not in by_text:
                raise TokenizerFileError(
                    merges_path, number, f"{part!r} is not in the vocabulary {vocab_path.name}"
                )
        merges.append((text_to_token(parts[0]), text_to_token(parts[1])))
    return vocab, merges


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TokenizerFileError(path, None, "file not found") from None
    except UnicodeDecodeError as err:
        raise TokenizerFileError(path, None, f"not UTF-8 text (byte {err.start})") from None
    except OSError as err:
        raise TokenizerFileError(path, None, f"cannot read: {err.strerror}") from None
