"""File formats: GPT-2's ``vocab.json`` + ``merges.txt``, written and read back with checks.

GPT-2 stores tokens as text, so every byte is first mapped to a printable character: the 188
printable bytes map to themselves, the others (control characters, space, and a few more) to the
characters from U+0100 on. ``bytes_to_unicode`` is that map. Special tokens are stored as they are.

Reading never executes anything from a file (JSON and plain text only, no pickle), and a malformed
file is refused with a message naming the file and the line.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import NoReturn

from bpe_course.errors import BPEInputError
from bpe_course.files import partial_path
from bpe_course.pretokenize import check_special_tokens

MERGES_HEADER = "#version: 0.2"
MANIFEST = "tokenizer.sha256"  # the hashes of a pair saved together (sha256sum's format)
MAX_ID = 2**31 - 1  # ids beyond int32 fit in no framework's arrays: such a file is forged or broken


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
    try:  # in C: each character to the one whose code is its byte, then those codes as bytes
        return text.translate(_to_latin1()).encode("latin-1")
    except UnicodeEncodeError:  # a character outside the map: name it
        table = _unicode_to_bytes()
        return bytes(table[c] for c in text)


@lru_cache(maxsize=1)
def _to_latin1() -> dict[int, int]:
    """For ``str.translate``: each character of GPT-2's map to the character of its byte's code,
    and every other character below 256 to one that Latin-1 cannot encode."""
    table = {ord(c): b for c, b in _unicode_to_bytes().items()}
    return {code: table.get(code, 0x100) for code in range(256)} | table


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
    """Write ``vocab.json`` and ``merges.txt`` into ``folder``, as a pair or not at all.

    ``special_tokens`` (default: the tokens between the 256 bytes and the first merge, which is
    where training puts them) are written as they are rather than byte-mapped.

    Both files are written to partial files first and renamed only when both are whole, so a full
    disk leaves the old pair as it was. Beside them ``tokenizer.sha256`` (``MANIFEST``, readable by
    ``sha256sum -c``) records both hashes, renamed last: a crash between the renames leaves files
    that do not match it, and :func:`load_gpt2` refuses such a pair.
    """
    folder = check_output_folder(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise BPEInputError(f"cannot create the folder {folder}: {err.strerror}") from None
    if special_tokens is None:
        special_tokens = _layout_special_tokens(vocab, merges)
    vocab_json = vocab_as_text(vocab, special_tokens)
    merges_lines = [MERGES_HEADER] + [f"{token_to_text(a)} {token_to_text(b)}" for a, b in merges]
    contents = {
        "vocab.json": json.dumps(vocab_json, ensure_ascii=False, indent=0).encode("utf-8"),
        "merges.txt": ("\n".join(merges_lines) + "\n").encode("utf-8"),
    }
    contents[MANIFEST] = "".join(
        f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in contents.items()
    ).encode()
    _write_together(folder, contents)
    return folder / "vocab.json", folder / "merges.txt"


def _write_together(folder: Path, contents: dict[str, bytes]) -> None:
    """Write every file to a partial file, then rename them all, in order; on any failure remove
    the partial files and change nothing."""
    partials: dict[str, Path] = {}
    name = next(iter(contents))
    try:
        for name, data in contents.items():
            partials[name] = partial_path(folder / name)
            partials[name].write_bytes(data)
        for name, partial in partials.items():
            os.replace(partial, folder / name)
    except OSError as err:
        for partial in partials.values():
            partial.unlink(missing_ok=True)
        raise BPEInputError(f"could not write {folder / name}: {err.strerror}") from None


def check_output_folder(folder: str | os.PathLike[str]) -> Path:
    """``folder`` if the tokenizer's files can be written there, else one clear error: so the
    command line checks ``-o`` before training, not after."""
    folder = Path(folder)
    existing = next(p for p in (folder, *folder.parents) if p.exists() or p == p.parent)
    if not existing.is_dir():
        raise BPEInputError(f"{existing} is a file, not a folder; give a folder for the tokenizer")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise BPEInputError(f"cannot write into {existing}: permission denied or read-only")
    for name in ("vocab.json", "merges.txt", MANIFEST):
        if (folder / name).is_dir():
            raise BPEInputError(f"{folder / name} is a folder; the tokenizer file cannot go there")
    return folder


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
    non-UTF-8 files, bad JSON, a JSON value that is not an object of integer ids from 0 to
    ``MAX_ID``, a token listed twice, two entries with the same id, text outside GPT-2's byte map,
    an empty merges file, a merge line without exactly two parts, a merge listed twice, a merge
    whose parts no earlier merge made (merges out of order), a merge whose result is not in the
    vocab, a token of the vocab that no merge makes (files that do not belong together), and
    a pair that does not match the ``MANIFEST`` saved beside it.
    """
    vocab_path, merges_path = Path(vocab_path), Path(merges_path)
    specials = set(check_special_tokens(special_tokens))
    vocab_data, merges_data = _read_bytes(vocab_path), _read_bytes(merges_path)
    _check_manifest(vocab_path, vocab_data, merges_path, merges_data)
    text = _decode(vocab_path, vocab_data)
    entries = _json_entries(vocab_path, text)
    vocab = _vocab_from_entries(vocab_path, text, entries, specials)
    by_text = {key: token_id for key, token_id in reversed(entries)}  # lowest id wins, as saved
    merges = _read_merges(merges_path, _decode(merges_path, merges_data), by_text, vocab_path)
    made = {bytes([b]) for b in range(256)} | {a + b for a, b in merges}
    for key, token_id in entries:
        if key not in specials and vocab[token_id] not in made:
            raise TokenizerFileError(
                vocab_path,
                _line_of(text, key),
                f"{key!r} is a token that no merge in {merges_path.name} makes: the two files do "
                "not belong together (if it is a special token, pass it in special_tokens)",
            )
    return vocab, merges


def special_tokens_of(
    vocab_path: str | os.PathLike[str], merges_path: str | os.PathLike[str]
) -> list[str]:
    """The entries of ``vocab.json`` that are neither a single byte nor made by a merge of
    ``merges.txt``, in the order of their ids: the special tokens of a saved pair (training puts
    them after the 256 bytes, GPT-2's files its ``<|endoftext|>`` last). A file that cannot be
    read is left to :func:`load_gpt2`, which names what is wrong with it: then none are found."""
    vocab_path, merges_path = Path(vocab_path), Path(merges_path)
    try:
        entries = _json_entries(vocab_path, _decode(vocab_path, _read_bytes(vocab_path)))
        merges_text = _decode(merges_path, _read_bytes(merges_path))
    except TokenizerFileError:
        return []
    made = {token_to_text(bytes([b])) for b in range(256)}
    for line in merges_text.split("\n"):
        parts = line.rstrip("\r").split(" ")
        if len(parts) == 2 and not line.startswith("#version"):
            made.add(parts[0] + parts[1])
    found = [(token_id, key) for key, token_id in entries if isinstance(token_id, int)]
    return [key for _, key in sorted(found) if key not in made]


def _json_entries(path: Path, text: str) -> list[tuple]:
    # NaN and Infinity: Python reads them, JSON has no such thing
    def no_constant(name: str) -> NoReturn:
        raise ValueError(name)

    try:
        entries = json.loads(text, object_pairs_hook=list, parse_constant=no_constant)
    except json.JSONDecodeError as err:
        raise TokenizerFileError(path, err.lineno, f"not valid JSON ({err.msg})") from None
    except ValueError as err:
        raise TokenizerFileError(path, None, f"not valid JSON ({err} is not a number)") from None
    if not isinstance(entries, list) or not all(isinstance(e, tuple) for e in entries):
        raise TokenizerFileError(path, None, "must hold one JSON object {token: id}")
    return entries


def _line_of(text: str, key: str, occurrence: int = 1) -> int | None:
    """The line of ``text`` where the ``occurrence``-th entry for ``key`` is written."""
    for spelled in (json.dumps(key, ensure_ascii=False), json.dumps(key)):
        at = -1
        for _ in range(occurrence):
            at = text.find(spelled, at + 1)
            if at < 0:
                break
        if at >= 0:
            return text.count("\n", 0, at) + 1
    return None


def _vocab_from_entries(
    path: Path, text: str, entries: list[tuple], specials: set[str]
) -> dict[int, bytes]:
    vocab: dict[int, bytes] = {}
    seen: set[str] = set()
    for key, token_id in entries:
        if key in seen:  # json.loads would keep the last id silently
            raise TokenizerFileError(
                path, _line_of(text, key, 2), f"{key!r} is listed twice, with two ids"
            )
        seen.add(key)
        if isinstance(token_id, bool) or not isinstance(token_id, int) or token_id < 0:
            raise TokenizerFileError(
                path,
                _line_of(text, key),
                f"the id of {key!r} must be a non-negative integer, not {token_id!r}",
            )
        if token_id > MAX_ID:
            shown = str(token_id) if token_id < 10**20 else f"about 10^{len(str(token_id)) - 1}"
            raise TokenizerFileError(
                path,
                _line_of(text, key),
                f"the id of {key!r} is too large ({shown}); ids must be below 2^31",
            )
        if token_id in vocab:
            raise TokenizerFileError(
                path,
                _line_of(text, key),
                f"id {token_id} is given to two tokens ({key!r} and an earlier one)",
            )
        if key in specials:
            vocab[token_id] = key.encode("utf-8")
            continue
        try:
            vocab[token_id] = text_to_token(key)
        except KeyError as err:
            raise TokenizerFileError(
                path,
                _line_of(text, key),
                f"{key!r} holds {err.args[0]!r}, which is not in GPT-2's byte-to-unicode map "
                "(if it is a special token, pass it in special_tokens)",
            ) from None
    return vocab


def _read_merges(
    path: Path, text: str, by_text: dict[str, int], vocab_path: Path
) -> list[tuple[bytes, bytes]]:
    """The merges in order, each made of single bytes or of earlier merges' results."""
    if not text:
        raise TokenizerFileError(
            path, None, "empty, not even the '#version' line: a save that did not finish?"
        )
    merges: list[tuple[bytes, bytes]] = []
    first_line: dict[tuple[str, str], int] = {}
    made = {token_to_text(bytes([b])) for b in range(256)}
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")  # a file saved on Windows
        if not line.strip() or (number == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not all(parts):
            raise TokenizerFileError(
                path, number, f"a merge is two tokens separated by one space, not {line!r}"
            )
        for part in (*parts, parts[0] + parts[1]):
            if part not in by_text:
                raise TokenizerFileError(
                    path, number, f"{part!r} is not in the vocabulary {vocab_path.name}"
                )
        pair = (parts[0], parts[1])
        if pair in first_line:
            raise TokenizerFileError(
                path,
                number,
                f"the merge {line!r} is listed twice (first at line {first_line[pair]})",
            )
        for part in parts:
            if part not in made:
                raise TokenizerFileError(
                    path,
                    number,
                    f"{part!r} is made by no earlier merge: merges must be listed in the order "
                    "they were learned, each part a single byte or an earlier merge's result",
                )
        first_line[pair] = number
        made.add(parts[0] + parts[1])
        merges.append((text_to_token(parts[0]), text_to_token(parts[1])))
    return merges


def _check_manifest(
    vocab_path: Path, vocab_data: bytes, merges_path: Path, merges_data: bytes
) -> None:
    """Refuse a pair that does not match the hashes ``save_gpt2`` recorded beside it."""
    manifest = vocab_path.parent / MANIFEST
    if merges_path.parent != vocab_path.parent or not manifest.is_file():
        return
    recorded = {}
    for line in _decode(manifest, _read_bytes(manifest)).splitlines():
        digest, _, name = line.partition("  ")
        recorded[name] = digest
    for path, data in ((vocab_path, vocab_data), (merges_path, merges_data)):
        if path.name in recorded and hashlib.sha256(data).hexdigest() != recorded[path.name]:
            raise TokenizerFileError(
                manifest,
                None,
                f"{vocab_path.name} and {merges_path.name} were not saved together: the SHA-256 "
                f"of {path.name} is not the one recorded here (a save that was interrupted, or a "
                f"file changed by hand). Save the tokenizer again, or delete {MANIFEST} to load "
                "them anyway",
            )


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise TokenizerFileError(path, None, "file not found") from None
    except OSError as err:
        raise TokenizerFileError(path, None, f"cannot read: {err.strerror}") from None


def _decode(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise TokenizerFileError(path, None, f"not UTF-8 text (byte {err.start})") from None
