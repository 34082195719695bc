"""The parent side of a graded run: inputs out, answers in, the verdict decided here.

The student's code runs in a child process (:mod:`bpe_course.course.exercises.sandbox`, started
behind the walls of :mod:`bpe_course.course.exercises.isolation`) that only ever answers "this is
what the function returned" or "this is what it raised", as plain data. The course's answers are
not in the child at all (:mod:`bpe_course.course.exercises.view`): a call of one raises there, and
the report says the answers were the course's, not the student's.
Everything else happens here, in the process that started the check: the package's own answer on
the same input, the comparison, hypothesis's search and shrinking, every time limit, and the
report. So no message the child composes can make a check pass: only right answers on every input
can.

Inputs come in three groups: fixed edge cases (the first one small, so an endless loop is stopped
on a small input, within seconds), then inputs hypothesis generates (the same on every run, then a
few new ones, so that a table of answers to the inputs of a past run does not pass; the first
disagreement shrunk to the smallest), then, for some exercises, big inputs (a corpus of the
course's stories) with a time limit scaled to their size, and a speed check beside the verdict.
No grading takes more than ``GRADING_SECONDS``, everything included: each input's limit ends where
the whole grading's does.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, configuration, given, settings

from bpe_course.course.exercises.exercise import Exercise, Report, short
from bpe_course.course.exercises.isolation import Sandbox
from bpe_course.course.exercises.sandbox import WITHHELD, Limits, Stopped
from bpe_course.course.exercises.view import allowed_imports

STARTUP_SECONDS = 60.0  # a fresh interpreter importing the package, on a busy machine
GRADING_SECONDS = 60.0  # the longest a grading takes, start to report, everything included
CLOSING_SECONDS = 5.0  # of those, kept for the speed line, ending the child, removing its folder
FRESH_SHARE = 6  # after the fixed-seed inputs, this share of them again, new on each run


def grader_failed(err: Exception) -> str:
    return (
        f"the grader itself failed ({type(err).__name__}: {err}). This is a bug of the course, "
        "not of your code; please report it."
    )


def grade(
    exercise: Exercise,
    load: Callable,
    call_seconds: float | None = None,
    *,
    limits: Limits | None = None,
) -> Report:
    """Grade what ``load`` gives in the child (see :mod:`bpe_course.course.exercises.loading`);
    ``call_seconds`` overrides every input's limit (within the whole grading's)."""
    started = time.monotonic()
    limits = limits or Limits(cpu_seconds=exercise.total_seconds + STARTUP_SECONDS)
    try:
        sandbox = Sandbox(exercise, load, limits)
    except Exception as err:  # cannot start a process at all: still one paragraph
        return Report(exercise.name, "failed", f"{exercise.name}: {grader_failed(err)}")
    try:
        report = Grading(exercise, sandbox, load, call_seconds, started).run()
    except Exception as err:  # the grader's own bug: still one paragraph, and said to be ours
        report = Report(exercise.name, "failed", f"{exercise.name}: {grader_failed(err)}")
    finally:
        sandbox.close()
    return replace(report, seconds=time.monotonic() - started)


@dataclass
class Failure:
    case: Any
    expected: Any
    difference: str | None = None  # what compare() said
    error: str | None = None  # or the student's exception, described
    error_type: str = ""
    printed: str = ""
    generated: bool = True


class _Disagrees(Exception):
    """Raised inside hypothesis's test so that it shrinks to the smallest failing input."""


class CalledTheCourse(Stopped):
    """The student's function called the course's own answer, or reached for a module the
    exercise withholds (``text``: the child's message, ``Withheld: NAME...``): grading stops
    there, as when the child is stopped."""

    def __init__(self, text: str) -> None:
        message = text.partition(": ")[2]
        super().__init__(f"called:{message}")
        self.called = message.split(",")[0].split()[0] if message.split() else message
        self.unavailable = " is not available while " in message
        self.message, _, where = message.partition(", at ")
        self.line = where.split(":")[0].rpartition(" line ")[2]  # of the student's file


def grading_seconds(exercise: Exercise) -> float:
    """How long the student's code may take in all: the exercise's total, within the cap."""
    return min(exercise.total_seconds, GRADING_SECONDS - CLOSING_SECONDS)


class Grading:
    """One grading, in the parent: each input's answer asked of the child, judged here."""

    def __init__(
        self, exercise: Exercise, sandbox: Sandbox, load, call_seconds: float | None, started
    ) -> None:
        self.exercise, self.sandbox, self.call_seconds = exercise, sandbox, call_seconds
        self.shown, self.is_solution = load.shown, load.is_solution
        self.started, self.generated = started, 0
        self.total = grading_seconds(exercise)
        self.answered: list[tuple[Any, float]] = []  # (input, seconds) of every answer
        self.current: Any = None
        self.big: list = []
        self.stopped: Stopped | None = None

    def run(self) -> Report:
        try:
            return self.steps()
        except Stopped as stop:
            stop = self.stopped or stop
            if isinstance(stop, CalledTheCourse):
                return self.report("not done", self.course_text(stop))
            report = self.report("failed", self.stopped_text(stop))
            doing, case = self.current or (None, None)
            if doing == "call":
                report = replace(report, failing_input=self.exercise.show_case(case))
            return report

    def course_text(self, stop: CalledTheCourse) -> str:
        """Agreeing or not, answers computed by the course's own function are not the student's."""
        if stop.unavailable:
            line = f" (line {stop.line})" if stop.line.isdigit() else ""
            allowed = ", ".join(allowed_imports(self.exercise)) or "nothing"
            return (
                f"not done yet: {self.shown} uses {stop.called}{line}, which is not available "
                f"while {self.exercise.name} is graded: an answer to it may import from the "
                f"package only {allowed}. Write the function yourself, then run the check again."
            )
        called = stop.called
        return (
            f"not done yet: {self.shown} calls the course's own {called}, so its answers are the "
            "course's, not yours, and are not graded. Write the function yourself (calling the "
            "earlier exercises' functions that the stub imports is fine), then run the check again."
        )

    def steps(self) -> Report:
        exercise = self.exercise
        self.sandbox.receive(min(STARTUP_SECONDS, self.left()))  # "loading": the child's first word
        self.current = ("loading", None)
        problem = self.sandbox.loaded(self.seconds_for(None))
        if problem is not None:
            # a module the exercise withholds: not the student's own work yet
            _, withheld, why = problem.partition(f"{WITHHELD}: ")
            if withheld and " is not available while " in why:
                return self.report("not done", self.course_text(CalledTheCourse(withheld + why)))
            return self.report("failed", problem)
        fixed = exercise.fixed_cases()
        if self.not_done(fixed[0]):
            return self.report(
                "not done",
                f"not done yet: {self.shown} still raises NotImplementedError. Write the "
                "function there, save the file, and run the check again.",
            )
        # A wrong answer on a fixed case is still searched for, and shrunk, among generated inputs.
        seen = self.try_cases(fixed)
        failure = self.smaller(self.search(), seen)
        if failure is not None:
            return self.failed(failure)
        big = self.big = exercise.big_cases() if exercise.big_cases else []
        failure = self.try_cases(big)
        if failure is not None:
            return self.failed(failure)
        tried = f"{len(fixed) + len(big)} fixed cases and {self.generated} generated inputs"
        text = (
            f"passed: the course's own solution, {exercise.solution}, on {tried}."
            if self.is_solution
            else f"passed. Your function agreed with {exercise.solution} on {tried}."
        )
        report = self.report("passed", text)
        if exercise.speed and big:
            seconds = next(took for case, took in self.answered if case is big[0])
            fast, line, *limit = exercise.speed(big[0], seconds)
            report = replace(
                report,
                speed=line,
                fast_enough=fast,
                speed_seconds=seconds,
                speed_limit=limit[0] if limit else None,
            )
        return report

    def report(self, status: str, text: str) -> Report:
        return Report(self.exercise.name, status, f"{self.exercise.name}: {text}")

    def failed(self, failure: Failure) -> Report:
        report = self.report("failed", self.describe(failure))
        return replace(report, failing_input=self.exercise.show_case(failure.case))

    def left(self) -> float:
        """Seconds left of the whole grading's limit."""
        return max(self.total - (time.monotonic() - self.started), 0.0)

    def seconds_for(self, case: Any) -> float:
        """This input's limit (scaled to it where the exercise says how), within the total."""
        if self.call_seconds is not None:
            limit = self.call_seconds
        elif case is not None and self.exercise.case_seconds is not None:
            limit = self.exercise.case_seconds(case)
        else:
            limit = self.exercise.call_seconds
        return max(min(limit, self.left()), 0.0)

    def ask(self, case: Any) -> tuple:
        """The child's answer on ``case``, timed here."""
        self.current = ("call", case)
        began = time.monotonic()
        reply = self.sandbox.call(case, self.seconds_for(case))
        self.answered.append((case, time.monotonic() - began))
        if reply[0] == "raised" and reply[1] == WITHHELD:
            raise CalledTheCourse(reply[2])
        return reply

    def not_done(self, case: Any) -> bool:
        reply = self.ask(case)
        return reply[0] == "raised" and reply[1] == "NotImplementedError"

    def attempt(self, case: Any) -> Failure | None:
        """The solution here, the student's function there; None when they agree."""
        exercise = self.exercise
        expected = exercise.outcome(exercise.solution_function, case)
        reply = self.ask(case)
        if reply[0] == "raised":
            _, kind, text, printed = reply
            return Failure(case, expected, error=text, error_type=kind, printed=printed)
        _, actual, printed = reply
        try:
            difference = exercise.compare(case, expected, actual)
        except Exception as err:  # noqa: BLE001 (an odd value the comparison did not foresee)
            difference = f"yours returned {short(actual)}, which the grader cannot compare ({err})."
        if difference is None:
            return None
        return Failure(case, expected, difference=difference, printed=printed)

    def search(self) -> Failure | None:
        """Generated inputs; the first disagreement is shrunk by hypothesis to the smallest.

        hypothesis derives its fixed seed from the source of ``agrees`` below: an edit there
        changes every generated input, and so the counterexamples the reports (and tests) name."""
        found: list[Failure] = []

        def agrees(case: Any) -> None:
            if self.stopped is not None:
                return  # the child is gone: nothing more to learn, and nothing to shrink to
            self.generated += 1
            try:
                failure = self.attempt(case)
            except Stopped as stop:
                self.stopped = stop
                raise
            if failure is not None:
                found.append(failure)  # the last one recorded is hypothesis's final replay
                raise _Disagrees

        with hypothesis_home():
            for derandomize, examples in self.rounds():
                test = settings(
                    max_examples=examples,
                    deadline=None,  # the sandbox keeps time
                    database=None,  # write nothing into the student's folder
                    derandomize=derandomize,
                    verbosity=Verbosity.quiet,
                    report_multiple_bugs=False,
                    suppress_health_check=list(HealthCheck),
                    phases=(Phase.explicit, Phase.generate, Phase.shrink),
                    print_blob=False,
                )(given(self.exercise.cases())(agrees))
                try:
                    test()
                except _Disagrees:
                    pass
                except Exception:  # a stop, or hypothesis's own complaint (a flaky function)
                    if self.stopped is not None:
                        raise self.stopped from None
                    if not found:
                        raise
                if found:
                    break
        return found[-1] if found else None

    def rounds(self) -> tuple[tuple[bool, int], ...]:
        """``(derandomize, examples)`` of each round of the search: the same inputs on every run
        (a report can be reproduced), then a few new ones (a table of the answers to the fixed
        inputs is not a function)."""
        fresh = max(1, self.exercise.examples // FRESH_SHARE)
        return (True, self.exercise.examples), (False, fresh)

    def smaller(self, generated: Failure | None, fixed: Failure | None) -> Failure | None:
        """hypothesis's shrunk input, unless a fixed case shows the bug in less (a shrink can stop
        early where ids across the real range meet small ones, and where it starts from decides
        where it stops: a change to the generated inputs moves it)."""
        if generated is None or fixed is None:
            return generated or fixed
        size = [len(self.exercise.show_case(f.case)) for f in (generated, fixed)]
        return fixed if size[1] < size[0] else generated

    def try_cases(self, cases: list) -> Failure | None:
        for case in cases:
            failure = self.attempt(case)
            if failure is not None:
                failure.generated = False
                return failure
        return None

    def describe(self, failure: Failure) -> str:
        show = self.exercise.show_case
        case = show(failure.case)
        which = (
            "the smallest failing input hypothesis found"
            if failure.generated
            else "one of the fixed cases"
        )
        if failure.error_type == "MemoryError":
            text = (
                f"stopped by the memory limit ({self.sandbox.limits.memory_bytes / 2**30:g} GiB "
                f"per process): your function raised {failure.error}, on {case} ({which})."
            )
        elif failure.error is not None:
            text = (
                f"your function raised {failure.error}, on {case} ({which}). "
                f"Expected {(self.exercise.show_result or short)(failure.expected)}."
            )
        else:
            text = f"not right yet, on {case} ({which}). {failure.difference}"
        if failure.printed.strip():
            text += f" It printed: {short(failure.printed.strip(), 200)}"
        return text

    def stopped_text(self, stop: Stopped) -> str:
        """One paragraph whose first sentence names the limit that stopped the child."""
        kind, _, value = stop.limit.partition(":")
        doing, case = self.current or (None, None)
        if doing is None:
            problem = self.sandbox.startup_problem()
            where = "while starting" + (f" ({problem})" if problem else "")
        elif doing == "loading":
            where = f"while loading {self.shown}"
        else:
            where = f"while your function worked on {self.exercise.show_case(case)}"
        if kind == "time":
            return self.timeout_text(doing, case, float(value))
        if kind == "cpu":
            return f"stopped by the CPU-time limit ({value} s of CPU per process) {where}."
        if kind == "killed":
            return (
                f"the grading process was killed (signal {value}) {where}: out of memory (the "
                f"limit is {self.sandbox.limits.memory_bytes / 2**30:g} GiB), or killed by your "
                "code?"
            )
        if kind == "exit":
            return (
                f"the grading process ended (exit status {value}) {where}. Does your code call "
                "os._exit(), or run out of memory?"
            )
        return (
            f"failed: something wrote to the grader's own pipe {where} (it read {value}, not an "
            "answer). Your function must only return its result."
        )

    def timeout_text(self, doing: str | None, case: Any, seconds: float) -> str:
        name = self.exercise.name
        if doing is None:
            return f"the grader did not start within {STARTUP_SECONDS:g} s (is the machine very busy?)."
        if doing == "loading":
            return (
                f"stopped after {seconds:.3g} s while loading {self.shown}: does the file run an "
                "endless loop when imported?"
            )
        whole = self.left() <= 0.5  # the whole grading's limit, not this input's, ended it
        shown = self.exercise.show_case(case)
        if any(case is big for big in self.big) and self.answered:
            slowest_case, slowest = max(self.answered, key=lambda answered: answered[1])
            limit = (
                f"where the time limit of the whole grading ({self.total:g} s) ended"
                if whole
                else "this input's time limit (scaled to its size)"
            )
            return (
                f"stopped after {seconds:.3g} s on {shown}, {limit}. It is slow, not stuck, it "
                f"seems: it answered {len(self.answered)} inputs "
                f"before, the slowest ({self.exercise.show_case(slowest_case)}) in {slowest:.2f} s. "
                f"Time it beside the course's trainers with `bpe-course bench --trainer "
                f"{name}:{name}`{'' if whole else ', or allow more with --timeout'}."
            )
        if whole:
            return (
                f"stopped by the time limit of the whole grading ({self.total:g} s) "
                f"after {len(self.answered)} answers: your function is too slow to finish it."
            )
        return (
            f"stopped after {seconds:.3g} s without an answer on {shown}. That is the time limit of "
            "one call: an endless loop? Check that every pass of your loop moves forward (or "
            "allow more time with --timeout)."
        )


@contextlib.contextmanager
def hypothesis_home():
    """hypothesis's caches in a scratch folder, never the student's; the old setting restored."""
    before = getattr(configuration, "__hypothesis_home_directory", None)
    with tempfile.TemporaryDirectory(prefix="bpe-course-check-") as scratch:
        configuration.set_hypothesis_home_dir(scratch)
        try:
            yield
        finally:
            configuration.set_hypothesis_home_dir(before)
