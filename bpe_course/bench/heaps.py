"""Heaps' law on the real text of this machine: distinct GPT-2 pretokens against pretokens.

    python -m bpe_course.bench.heaps [--sources python c_headers ...] [--seed 0] [--csv PATH]
    python -m bpe_course.bench.heaps --files owt_train.txt [--csv PATH]

Each source is real text already on a Debian machine: the Python standard library's sources, the
C headers, the manual pages in English and in translation (troff source, the markup included),
the gcide dictionary (``apt-get install dict-gcide``), and ``mixed``, all of them together. Its
documents are read in an order shuffled with a seed (a folder sorted by name groups documents
on one topic, which a crawl does not), so the same machine and seed give the same table. Each
is pretokenized with the GPT-2 pattern as it streams; at pretoken counts ``n`` that double from ``FIRST_CHECKPOINT``, and at its end,
the number of distinct pretokens ``W`` is written down. :func:`fit_heaps` fits ``W = K n^beta``
by least squares on ``log W`` against ``log n``, per source and over all sources' points at
once; the local slopes between checkpoints give the range ``beta`` takes along each source.

Heaps (1978) describes the law for the words of natural text; here the units are the pretokens
a BPE trainer counts (a leading space kept, digits in groups, punctuation runs), so numbers and
code identifiers count as words too.
"""

from __future__ import annotations

import argparse
import datetime
import glob
import gzip
import shlex
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from bpe_course.bench.machine import machine_label
from bpe_course.corpora.dictd import dictd_entries
from bpe_course.pretokenize import GPT2_REGEX

FIRST_CHECKPOINT = 10_000
MAX_FILE_BYTES = 4_000_000  # a larger single file (a generated table) would weigh too much
GCIDE_ENTRIES = 200
TRANSLATED = ("de", "fr", "es", "it", "pl", "pt_BR", "ru", "uk", "ja", "ko", "zh_CN", "zh_TW")


def _files(patterns: list[str]) -> list[str]:
    seen: set[str] = set()
    paths = []
    for pattern in patterns:
        for path in sorted(glob.glob(pattern, recursive=True)):
            real = str(Path(path).resolve())
            if real in seen or not Path(path).is_file():
                continue
            seen.add(real)
            paths.append(path)
    return paths


def _read(path: str) -> str:
    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError:
        return ""
    return "" if len(data) > MAX_FILE_BYTES else data.decode("utf-8", errors="replace")


def _gcide() -> list[str]:
    """The dictionary in pieces of ``GCIDE_ENTRIES`` entries (it is one file, in alphabetical
    order: shuffled pieces stand in for the documents of the other sources)."""
    entries = list(dictd_entries())
    step = GCIDE_ENTRIES
    return ["\n".join(entries[i : i + step]) + "\n" for i in range(0, len(entries), step)]


def _man(languages: tuple[str, ...]) -> list[str]:
    return _files([f"/usr/share/man/{lang}/man*/*" for lang in languages])


SOURCES: dict[str, tuple[Callable[[], list[str]], str]] = {
    "python": (
        lambda: _files(["/usr/lib/python3*/**/*.py"]),
        "Python standard library sources (/usr/lib/python3*)",
    ),
    "c_headers": (lambda: _files(["/usr/include/**/*.h"]), "C headers (/usr/include)"),
    "man_en": (lambda: _man(("",)), "English manual pages (/usr/share/man/man*, troff source)"),
    "man_translated": (
        lambda: _man(TRANSLATED),
        "translated manual pages (/usr/share/man/<lang>: " + " ".join(TRANSLATED) + ")",
    ),
    "gcide": (_gcide, f"the gcide dictionary (dict-gcide), in pieces of {GCIDE_ENTRIES} entries"),
}
MIXED = "mixed"  # the documents of every source above, shuffled together


def documents(names: list[str], seed: int = 0) -> Iterator[str]:
    """The documents (files; pieces of the dictionary) of the sources named, in an order shuffled
    with ``seed``: a crawl holds its documents in no topical order, a folder sorts them by name."""
    items = [item for name in names for item in SOURCES[name][0]()]
    for at in np.random.default_rng(seed).permutation(len(items)):
        item = items[at]
        yield item if "\n" in item else _read(item)


def file_texts(paths: list[str], block: int = 1 << 20) -> Iterator[str]:
    """A reader's own text files in the order given, in blocks of about ``block`` bytes cut
    after a newline (so no word is cut in two), for :func:`heaps_points`."""
    for path in paths:
        rest = b""
        with open(path, "rb") as f:
            while data := f.read(block):
                data = rest + data
                cut = data.rfind(b"\n") + 1 or len(data)
                rest = data[cut:]
                yield data[:cut].decode("utf-8", errors="replace")
        if rest:
            yield rest.decode("utf-8", errors="replace")


def heaps_points(texts: Iterator[str]) -> pd.DataFrame:
    """``n`` (pretokens so far), ``W`` (distinct pretokens so far) and ``bytes`` (UTF-8 bytes so
    far) at every checkpoint ``FIRST_CHECKPOINT * 2^k`` passed, and at the end."""
    seen: set[str] = set()
    n = size = 0
    checkpoint = FIRST_CHECKPOINT
    rows = []
    for text in texts:
        tokens = GPT2_REGEX.findall(text)
        size += len(text.encode("utf-8", errors="replace"))
        start = 0
        while n + len(tokens) - start >= checkpoint:  # the checkpoint falls inside this text
            upto = start + checkpoint - n
            seen.update(tokens[start:upto])
            n, start = checkpoint, upto
            rows.append({"n": n, "W": len(seen), "bytes": size})
            checkpoint *= 2
        seen.update(tokens[start:])
        n += len(tokens) - start
    if not rows or rows[-1]["n"] != n:
        rows.append({"n": n, "W": len(seen), "bytes": size})
    return pd.DataFrame(rows)


def fit_heaps(n, W) -> tuple[float, float]:
    """``(K, beta)`` of ``W = K n^beta``, least squares on ``log W`` against ``log n``."""
    beta, log_k = np.polyfit(np.log(np.asarray(n, float)), np.log(np.asarray(W, float)), 1)
    return float(np.exp(log_k)), float(beta)


def fit_table(points: pd.DataFrame, min_n: int = 100_000) -> pd.DataFrame:
    """One row per source and one for all of them together (``pooled``): K, beta, the range of
    the local slopes between checkpoints, and the sizes the fit covers (points with ``n`` of at
    least ``min_n``: below it the first files' own words dominate)."""
    rows = []
    used = points[points["n"] >= min_n]
    single = used[used["source"] != MIXED]  # pooled: the sources' own points, not the mixture's
    for source, part in [*used.groupby("source", sort=False), ("pooled", single)]:
        k, beta = fit_heaps(part["n"], part["W"])
        slopes = []
        for _, one in part.groupby("source", sort=False):
            logs = np.log(one[["n", "W"]].to_numpy(float))
            slopes.extend(np.diff(logs[:, 1]) / np.diff(logs[:, 0]))
        rows.append(
            {
                "source": source,
                "K": k,
                "beta": beta,
                "beta_low": min(slopes) if slopes else beta,
                "beta_high": max(slopes) if slopes else beta,
                "points": len(part),
                "n_low": int(part["n"].min()),
                "n_high": int(part["n"].max()),
            }
        )
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bpe_course.bench.heaps", description=__doc__.split("\n")[0]
    )
    names = [*SOURCES, MIXED]
    parser.add_argument("--sources", nargs="+", default=names, choices=names)
    parser.add_argument("--seed", type=int, default=0, help="the order of the documents")
    parser.add_argument(
        "--files",
        nargs="+",
        metavar="PATH",
        help="count these text files instead (in the order given: e.g. OpenWebText's sample)",
    )
    parser.add_argument("--csv", default=None, metavar="PATH")
    args = parser.parse_args(argv)
    arguments = sys.argv[1:] if argv is None else argv
    command = shlex.join(["python", "-m", "bpe_course.bench.heaps", *arguments])
    tables = []
    if args.files:
        table = heaps_points(file_texts(args.files)).assign(
            source="files", description=" ".join(args.files)
        )
        tables.append(table)
        args.sources = []
    for name in args.sources:
        parts = list(SOURCES) if name == MIXED else [name]
        description = "all the sources above, their documents shuffled together"
        if name != MIXED:
            description = SOURCES[name][1]
        table = heaps_points(documents(parts, args.seed))
        table = table.assign(source=name, description=description)
        print(f"{name}: {table['n'].iloc[-1]:,} pretokens, {table['W'].iloc[-1]:,} distinct")
        tables.append(table)
    points = pd.concat(tables, ignore_index=True)
    points["command"] = command
    points["machine"] = machine_label()
    points["date"] = datetime.date.today().isoformat()
    print(fit_table(points).round(3).to_string(index=False))
    if args.csv:
        points.to_csv(args.csv, index=False)
        print(args.csv)


if __name__ == "__main__":
    main()
