"""Encoders side by side: the course's file encoder, ``Tokenizer.encode``, tiktoken and Hugging
Face ``tokenizers`` on the same corpus with the same tokenizer, each run in a fresh process.

    python -m bpe_course.bench.encoders CORPUS [CORPUS ...] --tokenizer DIR
        [--encoders file tiktoken tiktoken_ordinary encode hf] [--workers 1] [--repeats 3]
        [--csv PATH]

CORPUS is a text file, a dataset name, or a size such as ``5MB`` (the course corpus; ``--shape``
picks stories or wide). Every run reads the file and turns it into ids, timed from the first byte
read to the last id; loading the tokenizer and building the library's object is not timed. The
encoders run in turn (file, tiktoken, ... then again), so a drift of the machine's speed touches
all of them alike, and each repeat's ratio to tiktoken is taken within the repeat. One thread for
every library (tiktoken's ``encode`` is single-threaded; Hugging Face's pool is set to one).

Exactness before speed: the ids of every encoder must be the same (a hash of them is compared),
else the run stops. ``tiktoken_ordinary`` (``encode_ordinary``: special tokens read as text, the
speed yardstick the course's issue names) is timed but not compared. Figures printed: MB/s and the
ratio to tiktoken, as minimum, median and maximum over the repeats, and each run's peak memory
(this process's, and the largest of its workers').
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ENCODERS = ("file", "tiktoken", "tiktoken_ordinary", "encode", "hf")
UNCHECKED = {"tiktoken_ordinary"}  # special tokens read as text: other ids, on purpose
_ONE = "--one"  # how the parent asks a fresh process for one measurement


def measure(spec: dict) -> dict:
    """One run, in this process: ``spec`` names the corpus, the tokenizer folder, the encoder
    and the workers (the file encoder's)."""
    import resource  # Unix only: imported where a run is measured

    import numpy as np

    from bpe_course.bench.libraries import set_threads

    set_threads(1)
    from bpe_course.tokenizer import Tokenizer

    tokenizer = Tokenizer.from_folder(spec["tokenizer"])
    path, encoder = Path(spec["corpus"]), spec["encoder"]
    run = _prepare(encoder, tokenizer, spec.get("workers", 1))
    start = time.perf_counter()
    ids = run(path)
    seconds = time.perf_counter() - start
    ids = np.asarray(ids, dtype=np.uint32)
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {
        "corpus": path.name,
        "encoder": encoder,
        "workers": spec.get("workers", 1) if encoder == "file" else 1,
        "bytes": path.stat().st_size,
        "tokens": len(ids),
        "seconds": seconds,
        "ids_sha256": hashlib.sha256(ids.tobytes()).hexdigest()[:16],
        "peak_mb": round(own, 1),
        "worker_peak_mb": round(workers, 1),
    }


def _prepare(encoder: str, tokenizer, workers: int):
    """The timed function of ``encoder``: a path in, the ids out (built here, untimed)."""
    if encoder == "file":
        import numpy as np

        from bpe_course.encoding import encode_corpus

        folder = tempfile.mkdtemp(prefix="bpe-encode-")

        def file(path: Path):
            out = Path(folder) / "ids.npy"
            encode_corpus(path, tokenizer, out, workers=workers, min_bytes_per_worker=1)
            return np.load(out)

        return file
    if encoder in ("tiktoken", "tiktoken_ordinary"):
        from bpe_course.exports import tiktoken_encoding

        tk = tiktoken_encoding(tokenizer)
        if encoder == "tiktoken":
            return lambda path: tk.encode(_read(path), allowed_special="all")
        return lambda path: tk.encode_ordinary(_read(path))
    if encoder == "encode":
        return lambda path: tokenizer.encode(_read(path))
    if encoder == "hf":
        import tokenizers

        from bpe_course.exports import hugging_face_json

        hf = tokenizers.Tokenizer.from_str(json.dumps(hugging_face_json(tokenizer)))
        return lambda path: hf.encode(_read(path)).ids
    raise ValueError(f"unknown encoder {encoder!r}; choose from {', '.join(ENCODERS)}")


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def run_side_by_side(
    corpora: list[Path],
    tokenizer: Path,
    encoders: list[str],
    workers: int = 1,
    repeats: int = 3,
    timeout_s: float = 1800,
    on_row=None,
) -> list[dict]:
    """Every encoder on every corpus, ``repeats`` times, each run in a fresh process, in turn;
    the rows of all runs. Raises ``RuntimeError`` if two encoders' ids differ."""
    from bpe_course.bench.harness import run_worker

    rows: list[dict] = []
    for corpus in corpora:
        for repeat in range(repeats):
            for encoder in encoders:
                spec = {"corpus": str(corpus), "tokenizer": str(tokenizer)}
                spec |= {"encoder": encoder, "workers": workers}
                command = [
                    sys.executable,
                    "-m",
                    "bpe_course.bench.encoders",
                    _ONE,
                    json.dumps(spec),
                ]
                status, done = run_worker(command, timeout_s)
                if done is None or done.returncode != 0:
                    detail = done.stderr[-2000:] if done is not None else status
                    raise RuntimeError(f"{encoder} on {corpus.name} failed: {detail}")
                row = json.loads(done.stdout.strip().splitlines()[-1]) | {"repeat": repeat}
                rows.append(row)
                if on_row is not None:
                    on_row(row)
        _check_same_ids([r for r in rows if r["corpus"] == corpus.name])
    return rows


def _check_same_ids(rows: list[dict]) -> None:
    hashes = {(r["encoder"], r["ids_sha256"]) for r in rows if r["encoder"] not in UNCHECKED}
    if len({h for _, h in hashes}) > 1:
        raise RuntimeError(f"the encoders disagree on {rows[0]['corpus']}: {sorted(hashes)}")


def summary(rows: list[dict], reference: str = "tiktoken"):
    """Per corpus and encoder: MB/s and the ratio to ``reference`` (its time over the encoder's,
    within each repeat; above 1: faster), as min, median and max; bytes per token; the peaks."""
    import pandas as pd

    table = pd.DataFrame(rows)
    table["mb_s"] = table["bytes"] / table["seconds"] / 1e6
    table["bytes_per_token"] = table["bytes"] / table["tokens"]
    base = table[table["encoder"] == reference].set_index(["corpus", "repeat"])["seconds"]
    paired = pd.MultiIndex.from_frame(table[["corpus", "repeat"]])
    table[f"vs_{reference}"] = base.reindex(paired).to_numpy() / table["seconds"].to_numpy()
    keys = ["corpus", "encoder", "workers"]
    spread = table.groupby(keys, sort=False)[["mb_s", f"vs_{reference}"]].agg(
        ["min", "median", "max"]
    )
    spread.columns = [f"{a}_{b}" for a, b in spread.columns]
    rest = table.groupby(keys, sort=False).agg(
        bytes_per_token=("bytes_per_token", "first"),
        peak_mb=("peak_mb", "max"),
        worker_peak_mb=("worker_peak_mb", "max"),
        repeats=("seconds", "count"),
    )
    return spread.join(rest).reset_index().round(2)


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == [_ONE]:  # a fresh process measuring one run
        from bpe_course.bench.worker import PARENT_VARIABLE
        from bpe_course.pool import exit_with_parent

        exit_with_parent(int(os.environ.get(PARENT_VARIABLE) or os.getppid()))
        print(json.dumps(measure(json.loads(argv[1]))))
        return 0
    parser = argparse.ArgumentParser(
        prog="python -m bpe_course.bench.encoders", description=__doc__.split("\n")[0]
    )
    parser.add_argument("corpus", nargs="+", help="text files, dataset names or sizes like 5MB")
    parser.add_argument("--shape", default="stories", choices=["stories", "wide"])
    parser.add_argument("--tokenizer", required=True, metavar="DIR")
    parser.add_argument("--encoders", nargs="+", default=["file", "tiktoken", "encode"],
                        choices=ENCODERS)  # fmt: skip
    parser.add_argument("--workers", type=int, default=1, help="the file encoder's processes")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--csv", default=None, metavar="PATH")
    args = parser.parse_args(argv)
    from bpe_course.bench.machine import machine_label
    from bpe_course.corpora.datasets import generated_corpus, parse_size

    corpora = []
    for item in args.corpus:
        path = Path(item)
        corpora.append(
            path if path.exists() else generated_corpus(parse_size(item), shape=args.shape)
        )
    print(f"# {machine_label()}; python -m bpe_course.bench.encoders {' '.join(argv)}")
    rows = run_side_by_side(
        corpora, Path(args.tokenizer), args.encoders, args.workers, args.repeats,
        on_row=lambda r: print(f"  {r['corpus']} {r['encoder']}: {r['seconds']:.2f} s", file=sys.stderr),
    )  # fmt: skip
    table = summary(rows)
    print(table.to_string(index=False))
    if args.csv:
        import pandas as pd

        pd.DataFrame(rows).to_csv(args.csv, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
