"""Grading inside the child process: load the student's file, compare with the package's own.

The child calls the function once to see whether it is written yet, tries the fixed cases (small,
so an endless loop is stopped on a small input), then lets hypothesis generate inputs and shrink the
first disagreement to the smallest. Before each call of the student's function it tells the parent
(:mod:`bpe_course.course.grader`) which input it is on, so the parent can stop an endless loop and
say where. Whatever happens, the answer is one :class:`Report`, one paragraph: a student's
exception is described as theirs (type, message, their file and line), never as a traceback.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import sys
import tempfile
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

REPR_LIMIT = 300  # characters of an input or a result shown in a report


@dataclass(frozen=True)
class Exercise:
    """One exercise. Every callable is a module-level function, so the whole exercise is sent to
    the child process as it is (the spawn start method pickles functions by name)."""

    name: str  # the function the student writes, its file's stem and the command's NAME
    notebook: str  # where the course teaches it
    summary: str  # one line for ``bpe-course check --list``
    solution: str  # where the package's own code lives (the solution a teacher points to)
    reference: Callable  # the package's own code, in the student's signature
    cases: Callable[[], Any]  # () -> a hypothesis strategy of inputs
    fixed_cases: Callable[[], list]  # () -> edge cases; the first is small (the first call made)
    show_case: Callable[[Any], str]  # an input as the report names it
    outcome: Callable[[Callable, Any], Any]  # call a function on a copy of an input: what it did
    compare: Callable[[Any, Any, Any], str | None]  # (input, expected, actual) -> what differs
    show_result: Callable[[Any], str] | None = None  # an expected result in a report (else repr)
    examples: int = 300  # generated inputs
    call_seconds: float = 5.0  # one call longer than this is taken for an endless loop
    total_seconds: float = 120.0  # the whole grading


@dataclass(frozen=True)
class Report:
    """The grader's answer: ``status`` is ``passed``, ``not done`` or ``failed``."""

    name: str
    status: str
    text: str

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__  # a notebook cell ending in check(...) shows the paragraph itself


def short(value: Any, limit: int = REPR_LIMIT) -> str:
    """``repr(value)``, cut to ``limit`` characters, and never raising (it may be a student's)."""
    try:
        text = repr(value)
    except Exception as err:  # a student's object with a broken __repr__
        text = f"<{type(value).__name__} whose repr raised {type(err).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- The child process ---------------------------------------------------------------------------


def child_main(exercise: Exercise, path: str | None, shown: str, outbox) -> None:
    """The child process (module level, so the spawn start method can find it)."""
    if hasattr(os, "setpgrp"):
        os.setpgrp()  # its own process group, so a timeout ends the student's processes too
    warnings.simplefilter("ignore")  # the package's warnings and hypothesis's are not the student's
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (the child's whole life)
    try:
        with tempfile.TemporaryDirectory(prefix="bpe-course-check-") as scratch:
            from hypothesis.configuration import set_hypothesis_home_dir

            set_hypothesis_home_dir(scratch)  # its caches, never in the student's folder
            report = Grading(exercise, path, shown, outbox).run()
    except Exception as err:  # the grader's own bug: still one paragraph, and said to be ours
        report = Report(exercise.name, "failed", f"{exercise.name}: {grader_failed(err)}")
    outbox.send(("done", report))
    outbox.close()


def grader_failed(err: Exception) -> str:
    return (
        f"the grader itself failed ({type(err).__name__}: {err}). This is a bug of the course, "
        "not of your code; please report it."
    )


@dataclass
class Failure:
    case: Any
    expected: Any
    difference: str | None = None  # what compare() said
    error: str | None = None  # or the student's exception, described
    printed: str = ""
    generated: bool = True


class _Disagrees(Exception):
    """Raised inside hypothesis's test so that it shrinks to the smallest failing input."""


class Grading:
    """One grading, inside the child process."""

    def __init__(self, exercise: Exercise, path: str | None, shown: str, outbox) -> None:
        self.exercise, self.path, self.shown, self.outbox = exercise, path, shown, outbox
        self.student_file = None if path is None else os.path.realpath(path)
        self.generated = 0

    def run(self) -> Report:
        loaded = self.load()
        if isinstance(loaded, Report):
            return loaded
        self.student = loaded
        self.outbox.send(("busy", None))  # the grader's own work from here: no call timed
        fixed = self.exercise.fixed_cases()
        if self.not_done(fixed[0]):
            return self.report(
                "not done",
                f"not done yet: {self.shown} still raises NotImplementedError. Write the "
                "function there, save the file, and run the check again.",
            )
        # The fixed cases first: they are small, so an endless loop is stopped on a small input.
        # A wrong answer there is still searched for, and shrunk, among generated inputs.
        seen = self.try_fixed(fixed)
        failure = self.search() or seen
        if failure is not None:
            return self.report("failed", self.describe(failure))
        tried = f"{len(fixed)} fixed cases and {self.generated} generated inputs"
        if self.path is None:
            return self.report(
                "passed",
                f"passed: the course's own solution, {self.exercise.solution}, on {tried}.",
            )
        return self.report(
            "passed", f"passed. Your function agreed with {self.exercise.solution} on {tried}."
        )

    def report(self, status: str, text: str) -> Report:
        return Report(self.exercise.name, status, f"{self.exercise.name}: {text}")

    def load(self) -> Callable | Report:
        name = self.exercise.name
        if self.path is None:
            return self.exercise.reference
        self.outbox.send(("loading", self.shown))
        # Importable by its own name from its own folder: its helper modules import, and a process
        # pool it starts (spawn pickles functions by module name) finds its worker functions.
        sys.path.insert(0, os.path.dirname(self.student_file))
        module_name = os.path.splitext(os.path.basename(self.student_file))[0]
        spec = importlib.util.spec_from_file_location(module_name, self.path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                spec.loader.exec_module(module)
        except BaseException as err:  # anything the file does when imported is the student's
            return self.report("failed", f"{self.shown} could not be loaded: {self.explain(err)}.")
        function = getattr(module, name, None)
        if not callable(function):
            return self.report("failed", f"{self.shown} defines no function {name}.")
        return function

    def not_done(self, case: Any) -> bool:
        self.outbox.send(("call", self.exercise.show_case(case)))
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                self.exercise.outcome(self.student, case)
        except NotImplementedError:
            return True
        except BaseException:  # any other error is found again, and shrunk, by the search
            return False
        finally:
            self.outbox.send(("busy", None))
        return False

    def attempt(self, case: Any) -> Failure | None:
        """Run the reference and the student's function on ``case``; None when they agree."""
        exercise = self.exercise
        expected = exercise.outcome(exercise.reference, case)
        printed = io.StringIO()
        self.outbox.send(("call", exercise.show_case(case)))
        try:
            with contextlib.redirect_stdout(printed):
                actual = exercise.outcome(self.student, case)
        except BaseException as err:  # SystemExit and all: the student's, reported as such
            return Failure(case, expected, error=self.explain(err), printed=printed.getvalue())
        finally:
            self.outbox.send(("busy", None))  # the reference and hypothesis: not the student's time
        try:
            difference = exercise.compare(case, expected, actual)
        except Exception as err:
            difference = f"yours returned {short(actual)}, which the grader cannot compare ({err})."
        if difference is None:
            return None
        return Failure(case, expected, difference=difference, printed=printed.getvalue())

    def search(self) -> Failure | None:
        """Generated inputs; the first disagreement is shrunk by hypothesis to the smallest."""
        from hypothesis import HealthCheck, Phase, Verbosity, given, settings

        found: list[Failure] = []

        def agrees(case: Any) -> None:
            self.generated += 1
            failure = self.attempt(case)
            if failure is not None:
                found.append(failure)  # the last one recorded is hypothesis's final replay
                raise _Disagrees

        test = settings(
            max_examples=self.exercise.examples,
            deadline=None,  # the parent keeps time
            database=None,  # write nothing into the student's folder
            derandomize=True,  # the same inputs on every run: a report can be reproduced
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
        except Exception:  # hypothesis's own complaint (a flaky function): report what was seen
            if not found:
                raise
        return found[-1] if found else None

    def try_fixed(self, cases: list) -> Failure | None:
        for case in cases:
            failure = self.attempt(case)
            if failure is not None:
                failure.generated = False
                return failure
        return None

    def explain(self, err: BaseException) -> str:
        """The student's exception: type, message, and the line of their file it came from."""
        text = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
        if isinstance(err, SyntaxError) and err.filename and err.lineno:  # in a module they import
            return f"{text} ({err.filename}, line {err.lineno})"
        frames = [
            frame
            for frame in traceback.extract_tb(err.__traceback__)
            if self.student_file and os.path.realpath(frame.filename) == self.student_file
        ]
        if not frames:
            return text
        frame = frames[-1]
        code = f": `{frame.line.strip()}`" if frame.line else ""
        return f"{text}, at {self.shown} line {frame.lineno}{code}"

    def describe(self, failure: Failure) -> str:
        case = self.exercise.show_case(failure.case)
        which = (
            "the smallest failing input hypothesis found"
            if failure.generated
            else "one of the fixed cases"
        )
        if failure.error is not None:
            text = (
                f"your function raised {failure.error}, on {case} ({which}). "
                f"Expected {(self.exercise.show_result or short)(failure.expected)}."
            )
        else:
            text = f"not right yet, on {case} ({which}). {failure.difference}"
        if failure.printed.strip():
            text += f" It printed: {short(failure.printed.strip(), 200)}"
        return text
