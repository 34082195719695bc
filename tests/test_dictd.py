"""The dictionary stand-in: entries of a dictd dictionary in file order, lines stripped, joined."""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path

import pytest

from bpe_course.corpora.dictd import GCIDE, dictd_entries, write_dictd_corpus
from bpe_course.counting.pieces import count_pretokens
from bpe_course.errors import BPEInputError
from bpe_course.pretokenize import GPT2_REGEX, split_on_special_tokens

from .conftest import EOT

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def b64(n: int) -> str:
    digits = ""
    while True:
        digits = _B64[n % 64] + digits
        n //= 64
        if n == 0:
            return digits


def fake_dictionary(folder: Path) -> Path:
    """A dictd dictionary of three entries (one in cp1252) and a database entry, indexed out of
    file order and with two headwords for one entry."""
    entries = [
        b"00-database-url\n   http://example.org",
        b'Abuse \\A*buse"\\, v. t.\n   1. To put to a wrong use; -- {Abuse}.\n      [1913 Webster]',
        "Caf\u00e9 \\Caf*\u00e9\\, n.\n   A coffee house.   --Shak.".encode(),
        b'Market \\Mar"ket\\\n   The stock market\x92s drop.',
    ]
    offsets, body = [], b""
    for entry in entries:
        offsets.append((len(body), len(entry)))
        body += entry + b"\n\n"
    source = folder / "tiny"
    (folder / "tiny.dict.dz").write_bytes(gzip.compress(body))
    heads = ["00-database-url", "abuse", "cafe", "market"]
    lines = [f"{head}\t{b64(o)}\t{b64(n)}" for head, (o, n) in zip(heads, offsets)]
    lines.append(f"Abuse\t{b64(offsets[1][0])}\t{b64(offsets[1][1])}")  # a second headword
    (folder / "tiny.index").write_text("\n".join(sorted(lines, reverse=True)) + "\n")
    return source


def test_entries_in_file_order_stripped_and_decoded(tmp_path) -> None:
    entries = list(dictd_entries(fake_dictionary(tmp_path)))
    assert entries == [
        'Abuse \\A*buse"\\, v. t.\n1. To put to a wrong use; -- {Abuse}.\n[1913 Webster]',
        "Caf\u00e9 \\Caf*\u00e9\\, n.\nA coffee house.   --Shak.",
        'Market \\Mar"ket\\\nThe stock market\u2019s drop.',  # cp1252's right quote
    ]


def test_corpus_stops_after_the_entry_that_reaches_the_size(tmp_path) -> None:
    source = fake_dictionary(tmp_path)
    first = len(next(dictd_entries(source)).encode())
    path = write_dictd_corpus(tmp_path / "out.txt", first + 1, source)
    text = path.read_text(encoding="utf-8")
    assert (
        text.count(EOT) == 1
        and text.startswith("Abuse")
        and text.endswith("coffee house.   --Shak.")
    )
    whole = write_dictd_corpus(tmp_path / "all.txt", 10**9, source).read_text(encoding="utf-8")
    assert whole.split(EOT) == list(dictd_entries(source))
    assert not list(tmp_path.glob("*.partial"))


def test_no_dictionary_is_one_clear_error(tmp_path) -> None:
    with pytest.raises(BPEInputError, match="apt-get install dict-gcide"):
        list(dictd_entries(tmp_path / "missing"))


def test_cli_writes_into_the_data_folder(tmp_path, monkeypatch, capsys) -> None:
    from bpe_course.cli import main

    monkeypatch.setenv("BPE_COURSE_DATA", str(tmp_path / "data"))
    source = fake_dictionary(tmp_path)
    assert main(["data", "dictionary", "--size", "1KB", "--source", str(source)]) == 0
    path = Path(capsys.readouterr().out.strip().splitlines()[-1])
    assert path == tmp_path / "data" / "tiny-0.001MB.txt" and path.read_text().startswith("Abuse")


@pytest.mark.skipif(not GCIDE.with_suffix(".dict.dz").exists(), reason="dict-gcide not installed")
def test_the_real_dictionary_counts_like_the_pattern() -> None:
    text, size = [], 0
    for entry in dictd_entries():
        text.append(entry)
        size += len(entry)
        if size > 1_500_000:
            break
    corpus = EOT.join(text)
    expected: Counter[str] = Counter()
    for part in split_on_special_tokens(corpus, [EOT])[::2]:
        expected.update(GPT2_REGEX.findall(part))
    assert +count_pretokens(corpus, [EOT]) == expected
