"""What a second core buys in pretokenization, and what it costs: notebook 07's measurement.

Counting a file's words with k workers divides the counting among k processes, and adds work one
process does not do: starting the pool, pickling each task's counts in the worker, unpickling them
in the parent, and adding them up there. Each of those costs is timed here on its own, in this
process, on the very tasks ``count_words`` hands out, in wall and in CPU time; and the end-to-end
runs with 1 and 2 workers are timed in turn, with repeats, with the CPU time of every process. From
the CPU costs, the time with k workers on k free cores is predicted as

    start-up + (counting + encoding the words + pickling) / k + unpickling + adding up

(the parent's share does not divide: Amdahl's law). Stored once at full size (the ``note`` and
``load_1min`` columns say how busy the machine was):

    nice -n 10 python -m bpe_course.bench.parallel 21.5MB 200MB --repeats 3 \\
        --csv notebooks/results/parallel_pretokenize.csv --note "..."
"""

from __future__ import annotations

import argparse
import multiprocessing
import pickle
import shlex
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from bpe_course.bench.repeat import Spread, kept_rounds, machine_note, spreads, time_in_turn
from bpe_course.corpora.datasets import corpus_source, course_corpus
from bpe_course.counting import count_words
from bpe_course.counting.counters import PatternCounter
from bpe_course.counting.plan import TASKS_PER_WORKER, plan_tasks
from bpe_course.counting.tasks import add_into
from bpe_course.counting.texts import task_texts
from bpe_course.pretokenize import END_OF_TEXT

SPECIALS = (END_OF_TEXT,)
# The costs, in the order a task meets them; counting, encoding and pickling divide among the
# workers.
START, COUNT, ENCODE, PICKLE, UNPICKLE, ADD = (
    "starting the pool",
    "counting the chunks",
    "encoding the words (workers)",
    "pickling the counts (workers)",
    "unpickling the counts (parent)",
    "adding up the counts (parent)",
)
COSTS = (START, COUNT, ENCODE, PICKLE, UNPICKLE, ADD)
DIVIDED = (COUNT, ENCODE, PICKLE)
# When the runs of one size cannot show what a second core buys: the 2-worker runs had fewer
# cores than this (CPU time over wall time, median), or a run took this many times its job's
# median (something else held the machine during it).
FEWEST_CORES_FOR_TWO = 1.5
SLOWEST_OVER_MEDIAN = 2.0


def end_to_end(path: Path, repeats: int = 3, warmup: int = 1) -> pd.DataFrame:
    """``count_words`` with 1 and with 2 workers, in turn: ``job`` (workers), ``repeat``,
    ``seconds`` and ``cpu_s``, the CPU seconds of this process and its workers (CPU / wall is
    how many cores the run really had). Two workers are forced at every size
    (``min_bytes_per_worker=1``), on purpose: below ``MIN_BYTES_PER_WORKER`` per worker, where
    ``count_words`` would count in-process, this times the pool V3 itself would not start, to
    show what it costs there."""
    jobs = {
        n: lambda n=n: count_words(path, SPECIALS, workers=n, min_bytes_per_worker=1)
        for n in (1, 2)
    }
    return time_in_turn(jobs, repeats, warmup, cpu=True)


def one_breakdown(path: Path, workers: int = 2) -> tuple[dict[str, tuple[float, float]], int, int]:
    """Each cost of counting ``path`` with ``workers`` workers, timed alone in this process:
    ``({cost: (wall seconds, CPU seconds)}, tasks, bytes of pickled counts)``. CPU seconds are
    this process's: on a busy machine they are what the work costs, where wall time also holds
    the waits for a core. The workers' own start-up is not in them; the whole job's CPU time
    (:func:`end_to_end`) holds it, with everything else the second worker adds."""
    clocks = (time.perf_counter, time.process_time)
    start = [c() for c in clocks]
    with multiprocessing.get_context().Pool(workers) as pool:  # what count_words starts and stops
        pool.map(abs, range(workers))
    spent = {cost: [0.0, 0.0] for cost in COSTS}
    spent[START] = [c() - s for c, s in zip(clocks, start)]
    tasks = plan_tasks([path], SPECIALS, "pattern", workers * TASKS_PER_WORKER["pattern"])
    totals: dict[bytes, int] = {}
    sent = 0

    def add(cost: str, since: list[float]) -> list[float]:
        now = [c() for c in clocks]
        spent[cost][0] += now[0] - since[0]
        spent[cost][1] += now[1] - since[1]
        return now

    for task in tasks:  # as count_task counts each, and count_words adds them up
        mark = [c() for c in clocks]
        counter = PatternCounter(task.special_tokens)
        for text in task_texts(task):
            counter.add(text.data)
        mark = add(COUNT, mark)
        counts = counter.word_counts()
        mark = add(ENCODE, mark)
        blob = pickle.dumps(counts, pickle.HIGHEST_PROTOCOL)
        mark = add(PICKLE, mark)
        received = pickle.loads(blob)
        mark = add(UNPICKLE, mark)
        add_into(totals, received)
        add(ADD, mark)
        sent += len(blob)
    return {cost: (wall, cpu) for cost, (wall, cpu) in spent.items()}, len(tasks), sent


def breakdown(path: Path, workers: int = 2, repeats: int = 3, warmup: int = 1) -> pd.DataFrame:
    """:func:`one_breakdown` ``warmup + repeats`` times, warm-ups dropped: ``job`` (the cost),
    ``repeat``, ``seconds``, ``cpu_s``, ``tasks``, ``bytes_sent``."""
    rounds = kept_rounds(lambda: one_breakdown(path, workers), repeats, warmup)
    rows = [
        {"job": cost, "repeat": repeat, "seconds": wall, "cpu_s": cpu}
        | {"tasks": tasks, "bytes_sent": sent}
        for repeat, (spent, tasks, sent) in enumerate(rounds)
        for cost, (wall, cpu) in spent.items()
    ]
    return pd.DataFrame(rows)


def predicted_seconds(costs: Mapping[str, float], workers: int) -> float:
    """Time with ``workers`` workers from the costs: the divided ones shared, the rest not. With
    one worker nothing is started, pickled or unpickled."""
    if workers == 1:
        return costs[COUNT] + costs[ENCODE] + costs[ADD]
    serial = sum(costs[c] for c in COSTS if c not in DIVIDED)
    return serial + sum(costs[c] for c in DIVIDED) / workers


def measure(size: str, repeats: int = 3, warmup: int = 1) -> pd.DataFrame:
    """Both tables for one course corpus size, as one tidy table with where it was measured."""
    path = course_corpus(size)
    runs = end_to_end(path, repeats, warmup)
    runs["job"] = runs["job"].map(lambda n: f"{n} worker" + ("s" if n > 1 else ""))
    table = pd.concat([runs, breakdown(path, 2, repeats, warmup)], ignore_index=True)
    table.insert(0, "size", size)
    table.insert(0, "corpus", corpus_source())
    table["size_bytes"] = path.stat().st_size
    return table.assign(**machine_note())


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bpe_course.bench.parallel",
        description="Time pretokenization with 1 and 2 workers, and each cost of the second.",
    )
    parser.add_argument("sizes", nargs="+", help="course corpus sizes, such as 21.5MB 200MB")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--csv", type=Path, help="write the table here")
    parser.add_argument("--note", default="", help="how the machine was shared, for the table")
    args = parser.parse_args(argv)
    command = shlex.join(["python", "-m", "bpe_course.bench.parallel", *sys.argv[1:]])
    tables = []
    for size in args.sizes:
        table = measure(size, args.repeats)
        print(table.groupby("job", sort=False)["seconds"].agg(["median", "min", "max"]), flush=True)
        tables.append(table.assign(command=command, note=args.note))
    if args.csv:
        pd.concat(tables, ignore_index=True).to_csv(args.csv, index=False)


if __name__ == "__main__":
    main()


def unresolved(table: pd.DataFrame) -> list[str]:
    """Why the 1- and 2-worker runs of one size (``job`` ``"1 worker"``, ``"2 workers"``) cannot
    show what a second core buys, one reason a line; empty when they can. A second worker buys
    nothing without a second core, so runs that did not have one measure the machine's load, and
    a run far slower than the others of its job measures something else that ran meanwhile."""
    reasons = []
    two = table[table["job"] == "2 workers"]
    had = Spread(tuple(two["cpu_s"] / two["seconds"])).median
    if had < FEWEST_CORES_FOR_TWO:
        reasons.append(f"the 2-worker runs had {had:.1f} cores (CPU time / wall time, median)")
    for job, which in (("1 worker", "1-worker"), ("2 workers", "2-worker")):
        seconds = Spread(tuple(table.loc[table["job"] == job, "seconds"]))
        if seconds.high > SLOWEST_OVER_MEDIAN * seconds.median:
            reasons.append(
                f"a {which} run took {seconds.high:.2f} s, {seconds.high / seconds.median:.1f} "
                "times the median"
            )
    return reasons


def second_worker_cpu(table: pd.DataFrame) -> tuple[Spread, float]:
    """What a second worker adds to the CPU time of the whole job, two ways: measured, the
    2-worker run's CPU time less the 1-worker run's of the same round (every process counted, at
    the clock's resolution), and what the model adds for it from the costs timed alone: starting
    the pool (as this process spends it: the new processes' own start-up is not in it), pickling
    and unpickling. The model charges the encoding and the adding up to one worker too."""
    cpu = table[table["job"].isin(["1 worker", "2 workers"])].pivot_table(
        index="repeat", columns="job", values="cpu_s", aggfunc="first"
    )
    measured = Spread(tuple((cpu["2 workers"] - cpu["1 worker"]).dropna()))
    costs = spreads(table[table["job"].isin(COSTS)], value="cpu_s")
    modelled = sum(costs[c].median for c in (START, PICKLE, UNPICKLE))
    return measured, modelled


def read_costs(table: pd.DataFrame, cores: Sequence[int] = (2, 4, 8)) -> list[str]:
    """What one size's table says, a line each: every cost with its range (wall and CPU time),
    the model against the measured runs for 1 and 2 workers, the cores the 2-worker runs had,
    and the speed-up the model predicts on more free cores, with its ceiling (the parent's share
    alone). The model uses CPU seconds: what the work costs on a free core, whatever else the
    machine was doing; on free cores, wall time comes close to it."""
    parts = table[table["job"].isin(COSTS)]
    wall, cpu = spreads(parts), spreads(parts, value="cpu_s")
    runs = spreads(table[table["job"].isin(["1 worker", "2 workers"])])
    costs = {c: cpu[c].median for c in COSTS}
    lines = [f"  {c:31} {wall[c].text(digits=3)}; CPU {cpu[c].median:.3f} s" for c in COSTS]
    sent, tasks = table["bytes_sent"].dropna().median(), table["tasks"].max()
    lines.append(f"  counts sent back: {sent / 1e6:.1f} MB in {tasks:.0f} tasks")
    for n, name in ((1, "1 worker"), (2, "2 workers")):
        lines.append(
            f"  {name}: the model says {predicted_seconds(costs, n):.2f} s on "
            f"{n} free core{'s' if n > 1 else ''}; measured {runs[name].text()}"
        )
    whole = {n: table[table["job"] == n] for n in ("1 worker", "2 workers")}
    cpu_runs = {n: Spread(tuple(part["cpu_s"])) for n, part in whole.items()}
    lines.append(
        f"  CPU time of all processes, whole job: 1 worker {cpu_runs['1 worker'].text()}, "
        f"2 workers {cpu_runs['2 workers'].text()}"
    )
    extra, modelled = second_worker_cpu(table)
    where = (
        "inside the measured range"
        if extra.low <= modelled <= extra.high
        else ("below every round" if modelled < extra.low else "above every round")
    )
    lines.append(
        f"  what the second worker adds, CPU time: measured (2 workers minus 1, round by round) "
        f"{extra.text(digits=3)}; the model's items for it (starting the pool, pickling, "
        f"unpickling) {modelled:.3f} s, {where}"
    )
    one, two = whole["1 worker"], whole["2 workers"]
    lines.append(
        "  cores the runs had (CPU time / wall time): 1 worker "
        f"{Spread(tuple(one['cpu_s'] / one['seconds'])).text('', 2)}"
    )
    had = Spread(tuple(two["cpu_s"] / two["seconds"]))
    model, measured = predicted_seconds(costs, 2), runs["2 workers"]
    where = (
        "inside the measured range"
        if measured.low <= model <= measured.high
        else ("below every run" if model < measured.low else "above every run")
    )
    lines.append(f"  cores the runs had, 2 workers: {had.text('', 2)}; the model's time is {where}")
    serial = predicted_seconds(costs, 1)
    gains = ", ".join(f"{k} cores {serial / predicted_seconds(costs, k):.2f}x" for k in cores)
    parent = sum(costs[c] for c in COSTS if c not in DIVIDED)
    lines.append(f"  the model's speed-up on free cores: {gains}; ceiling {serial / parent:.0f}x")
    return lines
