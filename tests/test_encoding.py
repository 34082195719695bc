"""The file encoder (``bpe-course encode``): its ids equal ``Tokenizer.encode``'s and tiktoken's on
every shape of text and corpus, in the same order for any number of workers and any chunking; the
``.npy`` it writes, its handling of bad input, and that an interrupted run leaves no file that
looks whole. Speed is measured by ``python -m bpe_course.bench.encoders``, never asserted here."""

from __future__ import annotations

import gzip
import json
import os
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
import tiktoken
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import train_bpe
from bpe_course.__main__ import main
from bpe_course.corpora.datasets import generated_corpus
from bpe_course.counting import plan
from bpe_course.encoding import ChunkEncoder, corpus, encode_corpus, ids_dtype
from bpe_course.encoding.merging import BatchMerger
from bpe_course.encoding.npy import NpyWriter, npy_header
from bpe_course.encoding.table import KeyTable
from bpe_course.errors import BPEInputError, WorkerDiedError
from bpe_course.exports import hugging_face_json, tiktoken_encoding
from bpe_course.pool import run_in_order
from bpe_course.tokenizer import Tokenizer

from .conftest import EOT, run_bounded, stdlib_corpus

DOUBLE = EOT + EOT
# "<pad>" and "d><p" overlap ("<pad><pad>" holds both): the leftmost wins, as the tokenizer splits
SPECIALS = [EOT, DOUBLE, "<pad>", "d><p"]
ODD = "Ünïcödé, 中文, emoji 😀🎉, tabs\t\tand   spaces,\u00a0\u3000 numbers 3.14159 \n\n \n"


@pytest.fixture(scope="module")
def stories(tmp_path_factory) -> tuple[Tokenizer, Path, Path]:
    """A tokenizer trained on generated stories (one special token: tiktoken's special tokens are
    matched in no set order, so overlapping ones are compared with ``Tokenizer.encode`` only),
    and held-out corpora of both shapes."""
    folder = tmp_path_factory.mktemp("data")
    os.environ["BPE_COURSE_DATA"] = str(folder)
    try:
        vocab, merges = train_bpe(generated_corpus("1MB"), 2000, [EOT])
        held_out = generated_corpus("300KB", seed=1), generated_corpus("300KB", 1, "wide")
    finally:
        del os.environ["BPE_COURSE_DATA"]
    return Tokenizer(vocab, merges, [EOT]), *held_out


@pytest.fixture(scope="module")
def code_tokenizer(tmp_path_factory) -> Tokenizer:
    """Trained on Python sources with four special tokens, two of which overlap."""
    path = tmp_path_factory.mktemp("tok") / "train.txt"
    path.write_text(stdlib_corpus(300_000), encoding="utf-8")
    vocab, merges = train_bpe(path, 1500, SPECIALS)
    return Tokenizer(vocab, merges, SPECIALS)


@pytest.fixture(scope="module")
def runs_tokenizer(tmp_path_factory) -> Tokenizer:
    """Merges of repeated bytes (``a a``, ``- -``...), whose occurrences overlap in a word."""
    path = tmp_path_factory.mktemp("runs") / "t.txt"
    text = "aaaa aaaaaaa ---- -------- ==== \n\n\n\n     aaa-aaa " * 50 + stdlib_corpus(50_000)
    path.write_text(text, encoding="utf-8")
    vocab, merges = train_bpe(path, 700, [EOT])
    return Tokenizer(vocab, merges, [EOT])


texts = st.lists(
    st.one_of(
        st.text(max_size=30),
        st.sampled_from(
            SPECIALS
            + ["<|endof", "text|>", "<", "  ", "\n\n", " 's", "😀", "aaaa", "---"]
            # cut into parts at safe cuts: contractions, symbols beside letters and digits
            + ["don't", "rock'n'roll", "''s", " (word),", "x.5", "3.14'", "é's", "\t\tx"]
        ),
        st.text(alphabet=" \t\n\r\x0b\x0c\u00a0\u3000\u2028x", max_size=8),
    ),
    max_size=14,
).map("".join)


# --- One chunk: units, new and met before -----------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_a_chunk_encodes_as_the_tokenizer_does(code_tokenizer: Tokenizer, text: str) -> None:
    """With special tokens that overlap, whitespace of every kind and any script; the same
    encoder across examples (units met before) and a fresh one (every unit new)."""
    expected = code_tokenizer.encode(text)
    data = text.encode("utf-8")
    assert _shared(code_tokenizer).encode(data).tolist() == expected
    assert ChunkEncoder(code_tokenizer).encode(data).tolist() == expected


@settings(max_examples=200, deadline=None)
@given(text=texts)
def test_a_chunk_encodes_as_tiktoken_and_hugging_face_do(stories, text: str) -> None:
    tokenizer = stories[0]
    encoding, hf = _references(tokenizer)
    expected = encoding.encode(text, allowed_special="all")
    assert hf.encode(text).ids == expected
    assert _shared(tokenizer).encode(text.encode("utf-8")).tolist() == expected


def test_a_nul_byte_in_the_text_is_encoded_by_the_tokenizer(code_tokenizer: Tokenizer) -> None:
    text = "a\0b <pad> c\0\0 " + EOT + " d"
    assert ChunkEncoder(code_tokenizer).encode(text.encode()).tolist() == code_tokenizer.encode(
        text
    )


def test_the_tables_start_afresh_past_their_limit(code_tokenizer, monkeypatch) -> None:
    from bpe_course.encoding import chunks

    monkeypatch.setattr(chunks, "MAX_UNITS", 10)
    encoder = ChunkEncoder(code_tokenizer)
    text = stdlib_corpus(20_000)
    for _ in range(2):
        assert encoder.encode(text.encode()).tolist() == code_tokenizer.encode(text)
        assert len(encoder.units) == 0  # reset after the chunk


@settings(max_examples=200, deadline=None)
@given(
    words=st.lists(
        st.one_of(
            st.text(alphabet="a-= \n", min_size=1, max_size=20),
            st.text(min_size=1, max_size=12),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_batch_merges_equal_the_tokenizers_loop(runs_tokenizer: Tokenizer, words) -> None:
    """Overlapping occurrences of a pair (``a a a``) merge from the left, as the loop does."""
    encoded = [w.encode("utf-8") for w in words]
    ids, offsets = BatchMerger(runs_tokenizer).encode(encoded)
    for i, word in enumerate(encoded):
        assert ids[offsets[i] : offsets[i + 1]].tolist() == runs_tokenizer._encode_pretoken(word)


@settings(max_examples=100, deadline=None)
@given(
    keys=st.lists(
        st.tuples(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1)), unique=True, max_size=300
    ),
    absent=st.lists(st.tuples(st.integers(0, 2**64 - 1), st.integers(0, 3)), max_size=50),
)
def test_the_key_table_answers_as_a_dict(keys, absent) -> None:
    table = KeyTable(bits=4)  # tiny: collisions and growth on every example
    half = len(keys) // 2
    for start, part in ((0, keys[:half]), (half, keys[half:])):
        if part:
            k0, k1 = (np.array(column, dtype=np.uint64) for column in zip(*part))
            table.add(k0, k1, np.arange(len(part)) + start)
    expected = {key: i for i, key in enumerate(keys)}
    asked = keys + absent
    if asked:
        k0, k1 = (np.array(column, dtype=np.uint64) for column in zip(*asked))
        assert table.get(k0, k1).tolist() == [expected.get(key, -1) for key in asked]


# --- A corpus: files, chunks, workers ---------------------------------------------------------


@pytest.mark.slow
def test_course_corpora_equal_tiktoken_hugging_face_and_encode(stories, tmp_path) -> None:
    tokenizer, story_path, wide_path = stories
    encoding, hf = _references(tokenizer)
    for path in (story_path, wide_path):
        report = encode_corpus(path, tokenizer, tmp_path / "ids.npy")
        ids = np.load(tmp_path / "ids.npy")
        text = path.read_text(encoding="utf-8")
        expected = encoding.encode(text, allowed_special="all")
        assert ids.dtype == np.uint16 and ids.tolist() == expected
        assert hf.encode(text).ids == expected
        assert report.tokens == len(expected) and report.text_bytes == len(text.encode())


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_tiny_chunks_cut_documents_and_change_nothing(
    code_tokenizer, tmp_path, monkeypatch, workers
) -> None:
    """Chunks of a few hundred bytes cut documents (and runs of spaces) apart; the ids are the
    whole text's, in order, on one process or two."""
    text = stdlib_corpus(60_000) + ODD + "<pad><pad>d><p" + "x" * 1500 + "  \n" * 300
    path = tmp_path / "corpus.txt"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(corpus, "CHUNK_BYTES", 300)
    monkeypatch.setattr(plan, "PIECE_CHUNK_BYTES", 300)
    monkeypatch.setattr(plan, "DOCUMENT_CHUNK_BYTES", 300)
    jobs = list(corpus.plan_jobs([path], SPECIALS, "pattern"))
    assert len(jobs) > 100
    report = encode_corpus(path, code_tokenizer, tmp_path / "ids.npy", workers=workers,
                           min_bytes_per_worker=1)  # fmt: skip
    assert report.workers == workers
    assert np.load(tmp_path / "ids.npy").tolist() == code_tokenizer.encode(text)


@pytest.mark.slow
def test_one_and_two_workers_write_the_same_file(stories, tmp_path, monkeypatch) -> None:
    """Forked workers, and spawned ones (which get the tokenizer pickled, as on macOS and
    Windows, and from Python 3.14 on Linux)."""
    tokenizer, story_path, _ = stories
    monkeypatch.setattr(corpus, "CHUNK_BYTES", 20_000)
    outputs = []
    for workers, start in ((1, None), (2, None), (2, "spawn")):
        out = tmp_path / f"ids{workers}{start}.npy"
        encode_corpus(story_path, tokenizer, out, workers=workers, min_bytes_per_worker=1,
                      start_method=start)  # fmt: skip
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_gzip_and_many_files_in_order(stories, tmp_path, monkeypatch, workers) -> None:
    """A .gz is streamed (in small blocks here) and cut where it may be; a folder's files come
    one after the other, sorted."""
    tokenizer, story_path, wide_path = stories
    monkeypatch.setattr(plan, "PIECE_CHUNK_BYTES", 5_000)
    folder = tmp_path / "shards"
    folder.mkdir()
    with gzip.open(folder / "a.txt.gz", "wb") as f:
        f.write(story_path.read_bytes())
    (folder / "b.txt").write_bytes(wide_path.read_bytes()[:100_000])
    expected = tokenizer.encode(story_path.read_text(encoding="utf-8"))
    expected += tokenizer.encode(wide_path.read_bytes()[:100_000].decode("utf-8"))
    out = tmp_path / "ids.npy"
    encode_corpus(folder, tokenizer, out, workers=workers, min_bytes_per_worker=1)
    assert np.load(out).tolist() == expected


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("compressed", [False, True])
def test_invalid_utf8_is_refused_with_its_offset(code_tokenizer, tmp_path, workers, compressed):
    data = ("hello world " * 5000).encode() + b"caf\xe9 " + b"more text " * 100
    offset = data.index(b"\xe9")
    path = tmp_path / ("bad.txt.gz" if compressed else "bad.txt")
    path.write_bytes(gzip.compress(data) if compressed else data)
    out = tmp_path / "ids.npy"
    with pytest.raises(BPEInputError, match=f"byte 0xe9 at byte offset {offset}"):
        encode_corpus(path, code_tokenizer, out, workers=workers, min_bytes_per_worker=1)
    assert not out.exists() and not list(tmp_path.glob("ids.npy*"))


# --- The .npy file ---------------------------------------------------------------------------


def test_the_npy_is_numpys_format_written_in_pieces(tmp_path) -> None:
    path = tmp_path / "ids.npy"
    with NpyWriter(path, np.uint16) as writer:
        writer.append(np.arange(10))
        writer.append(np.array([], dtype=np.int64))
        writer.append(np.arange(65530, 65536))
    ids = np.load(path, mmap_mode="r")
    assert ids.dtype == np.uint16 and ids.tolist() == [*range(10), *range(65530, 65536)]
    assert len(npy_header(np.dtype(np.uint32), 10**19)) == len(npy_header(np.dtype("<u2"), 0))
    with pytest.raises(RuntimeError), NpyWriter(tmp_path / "cut.npy", np.uint16) as writer:
        writer.append(np.arange(5))
        raise RuntimeError("interrupted")
    assert np.load(tmp_path / "cut.npy").tolist() == []  # never read as whole: length 0


def test_a_large_vocabulary_gives_uint32_and_says_so(tmp_path, capsys) -> None:
    vocab = {i: bytes([i]) for i in range(256)} | {70_000: EOT.encode()}
    tokenizer = Tokenizer(vocab, [], [EOT])
    tokenizer.save(tmp_path / "tok")
    corpus_path = tmp_path / "c.txt"
    corpus_path.write_text(f"ab{EOT}c", encoding="utf-8")
    out = tmp_path / "ids.npy"
    argv = ["encode", str(corpus_path), "--tokenizer", str(tmp_path / "tok"), "-o", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "ids as uint32" in printed and "need more than 16 bits" in printed
    assert printed.splitlines()[-1] == str(out)
    ids = np.load(out)
    assert ids.dtype == np.uint32 and ids.tolist() == [97, 98, 70_000, 99]
    assert ids_dtype(tokenizer) == np.uint32


def test_the_command_prints_ratio_and_speed(stories, tmp_path, capsys) -> None:
    tokenizer, story_path, _ = stories
    tokenizer.save(tmp_path / "tok")
    out = tmp_path / "ids.npy"
    argv = ["encode", str(story_path), "--tokenizer", str(tmp_path / "tok"), "-o", str(out)]
    assert main([*argv, "--workers", "1"]) == 0
    printed = capsys.readouterr().out
    ids = np.load(out)
    ratio = story_path.stat().st_size / len(ids)
    assert f"{ratio:.2f} bytes per token" in printed and "MB/s" in printed
    assert "special tokens: <|endoftext|>" in printed and "ids as uint16" in printed


# --- Bad input: one line each ----------------------------------------------------------------


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda t: t / "nowhere", "the tokenizer folder .*nowhere does not exist"),
        (lambda t: _without(t, "vocab.json"), "holds no vocab.json"),
        (lambda t: _without(t, "merges.txt"), "holds no merges.txt"),
        (lambda t: _broken_vocab(t), "vocab.json.*not valid JSON"),
    ],
)
def test_bad_tokenizer_folders_are_one_line(stories, tmp_path, capsys, make, message) -> None:
    stories[0].save(tmp_path / "tok")
    corpus_path = tmp_path / "c.txt"
    corpus_path.write_text("some text", encoding="utf-8")
    folder = make(tmp_path)
    argv = ["encode", str(corpus_path), "--tokenizer", str(folder), "-o", str(tmp_path / "i.npy")]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith("bpe-course: error: ")
    assert __import__("re").search(message, error), error


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--workers", "0"], "--workers must be at least 1"),
        (["-o", "{tmp}"], "is a folder; give the path of the .npy file"),
        (["-o", "{tmp}/no/such/ids.npy"], "the folder .* does not exist"),
    ],
)
def test_bad_arguments_are_one_line(stories, tmp_path, capsys, extra, message) -> None:
    stories[0].save(tmp_path / "tok")
    corpus_path = tmp_path / "c.txt"
    corpus_path.write_text("some text", encoding="utf-8")
    argv = ["encode", str(corpus_path), "--tokenizer", str(tmp_path / "tok")]
    argv += ["-o", str(tmp_path / "ids.npy")] + [a.format(tmp=tmp_path) for a in extra]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and __import__("re").search(message, error), error


def test_missing_corpus_is_one_line(stories, tmp_path, capsys) -> None:
    stories[0].save(tmp_path / "tok")
    argv = ["encode", str(tmp_path / "none.txt"), "--tokenizer", str(tmp_path / "tok")]
    assert main([*argv, "-o", str(tmp_path / "ids.npy")]) == 2
    assert "corpus file not found" in capsys.readouterr().err


def test_special_tokens_are_found_in_a_saved_folder(code_tokenizer, tmp_path) -> None:
    code_tokenizer.save(tmp_path / "tok")
    loaded = Tokenizer.from_folder(tmp_path / "tok")
    assert loaded.special_tokens == SPECIALS and loaded.merges == code_tokenizer.merges
    assert Tokenizer.from_folder(tmp_path / "tok", SPECIALS[::-1]).special_tokens == SPECIALS[::-1]


# --- Interrupted: nothing that looks whole ---------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGINT", "SIGKILL"])
@pytest.mark.parametrize("workers", [1, 2])
def test_an_interrupted_run_leaves_no_final_file(stories, tmp_path, how, workers) -> None:
    """The run stops itself after two chunks, as Ctrl-C (or a kill) would stop it; in a fresh
    process, bounded in time. Ctrl-C removes the partial file; a kill leaves only a partial file,
    which the next run removes."""
    tokenizer, story_path, _ = stories
    tokenizer.save(tmp_path / "tok")
    out = tmp_path / "ids.npy"
    script = textwrap.dedent(
        f"""
        import os, signal
        # as in a terminal: under pytest-xdist the worker ignores SIGINT, and a child inherits that
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from bpe_course.encoding import corpus, encode_corpus
        from bpe_course.tokenizer import Tokenizer
        corpus.CHUNK_BYTES = 10_000
        seen = []
        def stop(read):
            seen.append(read)
            if len(seen) == 2:
                os.kill(os.getpid(), signal.{how})
        encode_corpus({str(story_path)!r}, Tokenizer.from_folder({str(tmp_path / "tok")!r}),
                      {str(out)!r}, workers={workers}, min_bytes_per_worker=1, on_encoded=stop)
        """
    )
    done = run_bounded([sys.executable, "-c", script], timeout=120, env=dict(os.environ))
    assert done is not None, "the interrupted run did not end"
    assert done.returncode != 0
    assert not out.exists()
    partials = list(tmp_path.glob("ids.npy.*.partial"))
    assert partials == [] if how == "SIGINT" else len(partials) == 1
    time.sleep(0.1)
    encode_corpus(story_path, tokenizer, out)  # the next run: whole, and the stale partial gone
    assert np.load(out).tolist() == tokenizer.encode(story_path.read_text(encoding="utf-8"))
    assert not list(tmp_path.glob("ids.npy.*.partial"))


# --- The pool's ordered run ------------------------------------------------------------------


def _slow_square(x: int) -> int:
    time.sleep(0.02 * (x % 3 == 0))
    return x * x


def _die(x: int) -> int:
    if x == 3:
        os._exit(7)
    return x


def test_run_in_order_yields_in_order_and_reads_ahead_a_window() -> None:
    read: list[int] = []

    def tasks():
        for x in range(20):
            read.append(x)
            yield x

    results = []
    for result in run_in_order(_slow_square, tasks(), 2, window=3):
        results.append(result)
        assert len(read) <= len(results) + 3  # never more than the window ahead
    assert results == [x * x for x in range(20)]


def test_run_in_order_stops_when_a_worker_dies() -> None:
    with pytest.raises(WorkerDiedError, match="exited with status 7"):
        list(run_in_order(_die, range(10), 2))


# --- Helpers ---------------------------------------------------------------------------------

_encoders: dict[int, ChunkEncoder] = {}
_reference_cache: dict[int, tuple[tiktoken.Encoding, tokenizers.Tokenizer]] = {}


def _shared(tokenizer: Tokenizer) -> ChunkEncoder:
    """One encoder per tokenizer for the whole module: units met in one example are known in
    the next."""
    return _encoders.setdefault(id(tokenizer), ChunkEncoder(tokenizer))


def _references(tokenizer: Tokenizer) -> tuple[tiktoken.Encoding, tokenizers.Tokenizer]:
    if id(tokenizer) not in _reference_cache:
        hf = tokenizers.Tokenizer.from_str(json.dumps(hugging_face_json(tokenizer)))
        _reference_cache[id(tokenizer)] = (tiktoken_encoding(tokenizer), hf)
    return _reference_cache[id(tokenizer)]


def _without(tmp_path: Path, name: str) -> Path:
    (tmp_path / "tok" / name).unlink()
    return tmp_path / "tok"


def _broken_vocab(tmp_path: Path) -> Path:
    (tmp_path / "tok" / "tokenizer.sha256").unlink()
    (tmp_path / "tok" / "vocab.json").write_text("{not json", encoding="utf-8")
    return tmp_path / "tok"


# --- The benchmark of encoders ---------------------------------------------------------------


@pytest.mark.slow
def test_the_encoders_benchmark_runs_each_in_a_fresh_process(stories, tmp_path, capsys) -> None:
    from bpe_course.bench.encoders import main as bench_main

    tokenizer, story_path, _ = stories
    tokenizer.save(tmp_path / "tok")
    argv = [str(story_path), "--tokenizer", str(tmp_path / "tok"), "--repeats", "2"]
    argv += ["--encoders", "file", "tiktoken", "encode", "--csv", str(tmp_path / "runs.csv")]
    assert bench_main(argv) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("# ") and "python -m bpe_course.bench.encoders" in printed
    for encoder in ("file", "tiktoken", "encode"):
        assert encoder in printed
    import pandas as pd

    runs = pd.read_csv(tmp_path / "runs.csv")
    assert len(runs) == 6 and runs["ids_sha256"].nunique() == 1  # the same ids, every run
    assert (runs["tokens"] == len(tokenizer.encode(story_path.read_text("utf-8")))).all()


def test_the_encoders_benchmark_stops_when_ids_differ() -> None:
    from bpe_course.bench.encoders import _check_same_ids

    rows = [{"corpus": "c", "encoder": "file", "ids_sha256": "a"}]
    rows += [{"corpus": "c", "encoder": "tiktoken_ordinary", "ids_sha256": "b"}]  # not compared
    _check_same_ids(rows)
    with pytest.raises(RuntimeError, match="the encoders disagree"):
        _check_same_ids([*rows, {"corpus": "c", "encoder": "tiktoken", "ids_sha256": "c"}])


# GPT-2's own files, where a folder holds them (vocab.json and merges.txt, the files tiktoken's
# gpt2 is built from; nothing here downloads them): BPE_COURSE_GPT2=folder.
GPT2 = os.environ.get("BPE_COURSE_GPT2")


@pytest.mark.slow
@pytest.mark.skipif(not GPT2, reason="set BPE_COURSE_GPT2 to a folder with GPT-2's two files")
def test_gpt2_files_give_tiktokens_own_gpt2_ids(stories, tmp_path) -> None:
    from tiktoken.load import data_gym_to_mergeable_bpe_ranks

    folder = Path(GPT2 or "")
    ranks = data_gym_to_mergeable_bpe_ranks(
        vocab_bpe_file=str(folder / "merges.txt"), encoder_json_file=str(folder / "vocab.json")
    )
    pattern = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
    gpt2 = tiktoken.Encoding("gpt2", pat_str=pattern, mergeable_ranks=ranks,
                             special_tokens={EOT: 50256})  # fmt: skip
    tokenizer = Tokenizer.from_folder(folder)
    assert tokenizer.special_tokens == [EOT] and len(tokenizer) == 50257
    for path in stories[1:]:
        text = path.read_text(encoding="utf-8") + ODD
        source = tmp_path / "c.txt"
        source.write_text(text, encoding="utf-8")
        encode_corpus(source, tokenizer, tmp_path / "ids.npy")
        assert np.load(tmp_path / "ids.npy").tolist() == gpt2.encode(text, allowed_special="all")


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_special_tokens_with_spaces_or_a_nul(tmp_path, monkeypatch, workers) -> None:
    """A special token holding a space is cut around by the pattern's planner; one holding a NUL
    byte makes every chunk go through Tokenizer.encode. The ids are the whole text's either way."""
    specials = ["<end of text>", "\n<sep>\n", "<n\0l>"]
    text = stdlib_corpus(30_000).replace("def ", "<end of text>def ").replace("\n\n", "\n<sep>\n")
    text += "<n\0l> tail"
    path = tmp_path / "c.txt"
    path.write_text(text, encoding="utf-8")
    vocab, merges = train_bpe(path, 400, specials)
    monkeypatch.setattr(corpus, "CHUNK_BYTES", 500)
    for tokens in (specials[:2], specials):  # without the NUL one, its text is plain text
        tokenizer = Tokenizer(vocab, merges, tokens)
        assert corpus.choose_counter("pieces", tokens) == "pattern"
        out = tmp_path / "ids.npy"
        encode_corpus(path, tokenizer, out, workers=workers, min_bytes_per_worker=1)
        assert np.load(out).tolist() == tokenizer.encode(text)


def test_an_empty_file_gives_an_empty_array(stories, tmp_path) -> None:
    (tmp_path / "empty.txt").write_bytes(b"")
    report = encode_corpus(tmp_path / "empty.txt", stories[0], tmp_path / "ids.npy")
    assert report.tokens == 0 and np.load(tmp_path / "ids.npy").tolist() == []


def test_the_output_may_not_be_a_file_of_the_corpus(stories, tmp_path) -> None:
    path = tmp_path / "c.txt"
    path.write_text("some text", encoding="utf-8")
    with pytest.raises(BPEInputError, match="is a file of the corpus"):
        encode_corpus(path, stories[0], path)
    assert path.read_text(encoding="utf-8") == "some text"
