"""Shards, the last trainer beyond V5: fast, but the words are split among worker processes that
apply every merge together.

Change from :mod:`~bpe_course.trainers.fast` (one change): the flat words are cut into ``N``
shards, each held for the whole run by one persistent worker process (the parallel design of the
post "From Hours to Seconds: Optimising BPE Tokeniser Training"). The parent keeps what decides
the next merge, ``pair_counts`` and fast's heap; for every merge it sends the pair to all workers
at once, each rewrites its own shard (fast's :class:`~bpe_course.trainers.fast.FlatWords`) and
answers with only the count changes: the pairs it lost and the pairs it made. The parent adds
them up and picks the next merge. Words never travel after the start.

The adaptive switch: a message round trip costs the same for a merge of 3 sites as of 300,000, and
late merges are small (the best count only falls). When the last merges averaged fewer than
``switch_sites`` sites, the workers hand their shards home (the arrays and ``site_positions``,
pickled once) and the parent merges them itself, as fast does. Why the shards come home and not
another way: the parent cannot keep a copy in step (that doubles the work the workers were to
share), and replaying the merges done so far on the original words costs them all again in one
process; the shards' state is a few flat arrays, copied once, late in the run.

Per merge, parallel: one round trip to ``N`` workers, plus ``1/N`` of fast's work on the sites
each, plus the parent's heap pushes. At home: fast's per-merge work. Setup: the words sent once,
and each worker indexes its shard (fast's numpy index, in parallel).
Limits: every merge waits for the slowest shard; a round trip (pickle, pipe, wake-up) is a fixed
cost paid on every merge, growing with the workers, so with few cores it pays only on merges
touching many words (notebook 13 measures where, from ``python -m bpe_course.bench.shards costs``).
A worker that dies stops the run with one line; workers end with their parent.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections import deque
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from bpe_course.collector import collector_paused
from bpe_course.errors import WorkerDiedError
from bpe_course.pool import StartMethod, exit_with_parent
from bpe_course.trainers.common import (
    MergeEvent,
    Merges,
    OnMerge,
    StageClock,
    Vocab,
    initial_vocab,
    record_merge,
    warn_exhausted,
)
from bpe_course.trainers.fast import FlatWords, view
from bpe_course.trainers.v5_heap import PairKeys, best_pairs, build_heap
from bpe_course.trainers.waiting import WaitingPairs

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

__all__ = ["SWITCH_SITES", "WordShards", "merge_loop"]

# Below this many sites per merge (mean of the last WINDOW merges) one process beats a round trip
# to the workers: a merge of s sites saves s * w * (1 - 1/N) and costs a round trip R. Measured on
# the 2-core machine, loaded (``python -m bpe_course.bench.shards costs``, notebook 13): R from
# about 110 to 360 us per merge to 2 workers (traced: shards' small merges minus fast's), w about
# 1.5 to 2 us per word rewritten (fast's merges of 500 words and more): R / (w / 2), about 300.
SWITCH_SITES = 300
WINDOW = 8


class _Lost(dict):
    """Count changes of the pairs a shard lost: ``counts[pair] -= n`` works on any pair."""

    def __missing__(self, pair: int) -> int:
        return 0


def merge_shard(
    flat: FlatWords,
    pair: int,
    a: int,
    b: int,
    new: int,
    touched: bool,
    pair_counts: dict[int, int],
) -> tuple[dict[int, int], int, int]:
    """Merge ``pair = (a, b)`` into ``new`` in one shard: lower ``pair_counts`` by the pairs lost,
    return the pairs made with their counts, the sites merged and (if ``touched``, else 0) the
    words rewritten."""
    if pair not in flat.site_positions:  # this shard never held the pair
        return {}, 0, 0
    made, sites = flat.merge(pair, a, b, new, pair_counts)
    return made, len(sites), flat.words_with(sites) if touched else 0


def _serve(conn: Connection, parent: int) -> None:
    """A worker: index its shard, then apply each merge it is sent until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    exit_with_parent(parent)
    try:
        joined, lengths, counts, base = conn.recv()
        ends = np.cumsum(lengths).tolist()
        words = [joined[end - size : end] for end, size in zip(ends, lengths.tolist())]
        flat = FlatWords(words, counts.tolist(), base)
        del words, joined
        conn.send(flat.pair_counts())
        while True:
            message = conn.recv()
            if message is None:
                return
            if message == "home":  # the switch: the shard goes to the parent, the worker ends
                conn.send(_state(flat))
                return
            pair, a, b, new, touched = message  # as WordShards.merge sends it
            lost = _Lost()
            made, sites, words_touched = merge_shard(flat, pair, a, b, new, touched, lost)
            conn.send((lost, made, sites, words_touched))
    except EOFError:  # the parent is gone
        return


# What a shard is, as it travels home: FlatWords' arrays and index (numpy views are rebuilt).
_STATE = ("base", "n", "tok", "nxt", "prv", "weight", "word_ends", "site_positions")


def _state(flat: FlatWords) -> tuple:
    return tuple(getattr(flat, name) for name in _STATE)


def _restore(state: tuple) -> FlatWords:
    """A shard's :class:`FlatWords` from :func:`_state`, numpy views rebuilt over its arrays."""
    flat = FlatWords.__new__(FlatWords)
    for name, value in zip(_STATE, state):
        setattr(flat, name, value)
    for name in ("tok", "nxt", "prv", "weight", "word_ends"):
        setattr(flat, f"{name}_np", view(getattr(flat, name)))
    return flat


class WordShards:
    """The words in ``N`` shards: on worker processes (parallel), or in this process once
    :meth:`bring_home` has run. :meth:`merge` has the same contract either way."""

    def __init__(
        self,
        words: Sequence[bytes],
        counts: Sequence[int],
        base: int,
        workers: int,
        start_method: StartMethod = None,
    ) -> None:
        self.base = base
        self.home: list[FlatWords] = []
        self.processes: list[multiprocessing.process.BaseProcess] = []
        self.conns: list[Connection] = []
        context = multiprocessing.get_context(start_method)
        for i in range(workers):
            parent_end, child_end = context.Pipe()
            process = context.Process(
                target=_serve, args=(child_end, os.getpid()), daemon=True, name=f"shard-{i + 1}"
            )
            process.start()
            child_end.close()  # only the worker holds it: its death ends our reads (EOF)
            self.processes.append(process)
            self.conns.append(parent_end)
        for i in range(workers):  # round robin: shards of like size and make-up
            shard = words[i::workers]
            lengths = np.fromiter(map(len, shard), dtype=np.int64, count=len(shard))
            self._send(i, (b"".join(shard), lengths, np.asarray(counts[i::workers]), base))

    @property
    def parallel(self) -> bool:
        return not self.home

    def pair_counts(self) -> dict[int, int]:
        """Every pair's count over all shards (each worker counts its own, at the same time)."""
        total: dict[int, int] = {}
        get = total.get
        for i in range(len(self.conns)):
            for pair, count in self._receive(i).items():
                total[pair] = get(pair, 0) + count
        return total

    def merge(
        self, pair: int, a: int, b: int, new: int, pair_counts: dict[int, int], touched: bool
    ) -> tuple[dict[int, int], int, int]:
        """Merge ``pair`` in every shard, lowering ``pair_counts`` by the pairs lost; return the
        pairs made with their counts, the sites and the words rewritten (0 unless ``touched``)."""
        if self.home:
            shards = [merge_shard(f, pair, a, b, new, touched, pair_counts) for f in self.home]
        else:
            message = (pair, a, b, new, touched)
            for i in range(len(self.conns)):  # all sent before any answer: the shards overlap
                self._send(i, message)
            shards = []
            for i in range(len(self.conns)):
                lost, shard_made, sites, words = self._receive(i)
                for code, delta in lost.items():
                    pair_counts[code] += delta
                shards.append((shard_made, sites, words))
        if len(shards) == 1:
            return shards[0]
        made: dict[int, int] = {}
        get = made.get
        for shard_made, _, _ in shards:
            for code, count in shard_made.items():
                made[code] = get(code, 0) + count
        return made, sum(s[1] for s in shards), sum(s[2] for s in shards)

    def bring_home(self) -> None:
        """The switch: every worker sends its shard here and ends; later merges run here."""
        for i in range(len(self.conns)):
            self._send(i, "home")
        self.home = [_restore(self._receive(i)) for i in range(len(self.conns))]
        self.close()

    def close(self) -> None:
        """Stop the workers: each is told to end (a worker that died, or went home, already has)."""
        for conn in self.conns:
            try:
                conn.send(None)
            except OSError:
                pass
            conn.close()
        for process in self.processes:
            process.join(timeout=1)
            if process.exitcode is None:
                process.kill()
                process.join()
        self.conns, self.processes = [], []

    def __enter__(self) -> WordShards:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _send(self, i: int, message: object) -> None:
        try:
            self.conns[i].send(message)
        except (BrokenPipeError, ConnectionResetError, EOFError):
            raise self._died(i) from None

    def _receive(self, i: int) -> Any:  # what the worker sent, unpickled
        try:
            return self.conns[i].recv()
        except (EOFError, ConnectionResetError):
            raise self._died(i) from None

    def _died(self, i: int) -> WorkerDiedError:
        process = self.processes[i]
        process.join(timeout=1)
        code = process.exitcode
        who = f"merge worker {i + 1} of {len(self.processes)} (pid {process.pid})"
        if code is not None and code < 0:
            try:
                how = f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"was killed by signal {-code}"
        else:
            how = f"exited with status {code}"
        if code == -getattr(signal, "SIGKILL", 9):
            how += " (out of memory? try fewer workers)"
        return WorkerDiedError(f"{who} {how}; the run stopped")


def merge_loop(
    word_counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Sequence[str] = (),
    on_merge: OnMerge | None = None,
    *,
    workers: int | None = None,
    switch_sites: float = SWITCH_SITES,
    window: int = WINDOW,
    start_method: StartMethod = None,
) -> tuple[Vocab, Merges]:
    """Learn ``vocab_size - 256 - len(special_tokens)`` merges from ``word_counts``.

    ``workers``: merge worker processes (default: the cores). ``switch_sites``: bring the shards
    home once the last ``window`` merges averaged fewer sites (0: never; ``float("inf")`` with
    ``window=1``: after the first merge). ``start_method``: ``"fork"``, ``"spawn"``... (default: the platform's).
    """
    vocab = initial_vocab(special_tokens)
    merges: Merges = []
    wanted = vocab_size - len(vocab)  # valid: checked by the API
    words = [word for word in word_counts if len(word) > 1]
    if not words:  # no pair at all, and no worker to start for it
        if wanted:
            warn_exhausted(0, wanted, vocab_size)
        return vocab, merges
    workers = max(1, min(workers or os.cpu_count() or 1, len(words)))
    counts = [word_counts[w] for w in words]
    # as in fast, no reference cycles: the collector is off in this process
    with collector_paused(), WordShards(words, counts, vocab_size, workers, start_method) as shards:
        del words, counts
        pair_counts = shards.pair_counts()
        keys = PairKeys(vocab)
        base = vocab_size
        heap = build_heap(pair_counts, keys, ids=lambda pair: divmod(pair, base))
        waiting = WaitingPairs(heap, keys, base)
        recent: deque[int] = deque(maxlen=window)
        clock = StageClock(on_merge is not None)

        # 1. Each merge's pair: the top entry that agrees with its live count (as in fast).
        pairs = best_pairs(heap, pair_counts, wanted, vocab_size, clock, waiting.pop_best)
        for index, top in pairs:
            neg_count, _, best = top
            a, b = divmod(best, base)
            new_id = record_merge(vocab, merges, (a, b))
            keys.add_token(vocab[new_id])

            # 2. The one change: every shard merges at once; only count changes come back.
            made, sites, touched = shards.merge(
                best, a, b, new_id, pair_counts, on_merge is not None
            )
            waiting.push_made(heap, pair_counts, best, made)

            # 3. The adaptive switch: small merges are cheaper here than a round trip away.
            recent.append(sites)
            if shards.parallel and len(recent) == window and sum(recent) < switch_sites * window:
                shards.bring_home()
            if on_merge is not None:
                times = clock.times()
                on_merge(MergeEvent(index, new_id, merges[-1], -neg_count, touched, **times))
    return vocab, merges
