"""What an exercise is, and what its check answers: :class:`Exercise`, the fields each module of
:mod:`bpe_course.course.exercises.cases` fills (with the default outcome, :func:`call`, and
comparison, :func:`same_value`), and :class:`Report`, the one paragraph a check returns.

Plain data at the foot of the grader: the catalogue, the sandboxed child and the parent side of a
run (:mod:`~bpe_course.course.exercises.judge`) all read it, and it reads none of them (nor any
other module of the package: the grader's child imports it, and sees nothing of the package but
what the exercise allows, :mod:`~bpe_course.course.exercises.view`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

REPR_LIMIT = 300  # characters of an input or a result shown in a report


def call(function: Callable, case: tuple) -> Any:
    """The default outcome: the function's return value on a copy of the input."""
    return function(*copy.deepcopy(case))


def same_value(case: Any, expected: Any, actual: Any) -> str | None:
    """The default comparison: equal, and of the same type (a list is not the tuple asked for)."""
    if type(actual) is type(expected) and actual == expected:
        return None
    if type(actual) is not type(expected):
        return (
            f"Expected {short(expected)} (a {type(expected).__name__}); yours returned "
            f"{short(actual)} (a {type(actual).__name__})."
        )
    return f"Expected {short(expected)}; yours returned {short(actual)}."


@dataclass(frozen=True)
class Exercise:
    """One exercise, as its module in :mod:`bpe_course.course.exercises.cases` describes it. Every
    callable is a module-level function, so the whole exercise is sent to the child process as it
    is (the spawn start method pickles functions by name)."""

    name: str  # the function the student writes, its file's stem and the command's NAME
    notebook: str  # where the course teaches it
    summary: str  # one line for ``bpe-course check --list``
    prompt: str  # what the notebook asks, before the signature (Markdown)
    hint: str  # shown folded in the notebook, and by ``--hint``
    # The package's own function, in the signature the student writes: graded against, shown
    # after the exercise, and the answer key. Its body is marked ``### BEGIN SOLUTION`` ...
    # ``### END SOLUTION``; the stub is its source with those regions taken out.
    solution_function: Callable
    cases: Callable[[], Any]  # () -> a hypothesis strategy of inputs
    fixed_cases: Callable[[], list]  # () -> edge cases; the first is small (the first call made)
    show_case: Callable[[Any], str]  # an input as the report names it
    outcome: Callable[[Callable, Any], Any] = call  # call a function on a copy of an input
    compare: Callable[[Any, Any, Any], str | None] = same_value  # (input, expected, actual)
    show_result: Callable[[Any], str] | None = None  # an expected result in a report (else repr)
    # Whose source the stub is made from, when not the solution's (the capstone: the package's
    # trainer takes more options than CS336's shape, which the student writes).
    stub_function: Callable | None = None
    examples: int = 300  # generated inputs
    call_seconds: float = 5.0  # one call longer than this is taken for an endless loop
    total_seconds: float = 120.0  # the whole grading
    case_seconds: Callable[[Any], float] | None = None  # a limit scaled to the input
    big_cases: Callable[[], list] | None = None  # after the search: the stories corpus
    # (first big case, seconds) -> (fast enough, the line, and optionally the limit in seconds)
    speed: Callable[[Any, float], tuple] | None = None
    # The package's functions that give the whole answer (default: the solution alone): the
    # grader's child sees them withheld (:mod:`bpe_course.course.exercises.view`), and a student's
    # function that calls one is not graded as theirs.
    course_answers: Callable[[], tuple[Callable, ...]] | None = None
    # The package's code, besides the solution, that writes the answer out in full: never shown
    # before the exercise (:func:`~bpe_course.course.exercises.prompts.show_source_before` cuts it
    # to one line). The capstone's: V5's and fast max's merge loops, the exercises put together.
    written_out_by: tuple[Callable, ...] = ()
    # Every rule the prompt (the stub's docstring) states, one line each, by a short name: the
    # tests hold, for each, a wrong solution that breaks it alone, and show that the generated
    # inputs catch it (tests/test_exercises.py, FIXTURES).
    rules: Mapping[str, str] = field(default_factory=dict)

    @property
    def answer_function(self) -> Callable:
        """The student's function, answered: what the stub is made from, the signature the grader
        calls, and what the solution cell and the answer key show. The stub's own source when
        there is one (the capstone answers with the exercises put together, not with the
        package's trainer, which the grader refuses as an answer)."""
        return self.stub_function or self.solution_function

    def answers(self) -> tuple[Callable, ...]:
        return self.course_answers() if self.course_answers else (self.solution_function,)

    @property
    def solution(self) -> str:
        """Where the solution lives, as a reader imports it: ``bpe_course.trainers.common.merge_word``."""
        return shown(self.solution_function)


@dataclass(frozen=True)
class Report:
    """The grader's answer: ``status`` is ``passed``, ``not done`` or ``failed``; ``speed``, when
    measured, is one more line beside it (not part of the status)."""

    name: str
    status: str
    text: str
    seconds: float | None = None
    speed: str | None = None
    fast_enough: bool | None = None
    hint: str | None = None  # shown on request (``--hint``) when it did not pass
    failing_input: str | None = None  # the input it failed or was stopped on, as the text names it
    speed_seconds: float | None = None  # its time on the speed check's input, when measured
    speed_limit: float | None = None  # the speed check's limit on that input, when it says one

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def __str__(self) -> str:
        lines = [self.text, self.speed, None if self.hint is None else f"Hint: {self.hint}"]
        return "\n".join(line for line in lines if line is not None)

    __repr__ = __str__  # a notebook cell ending in check(...) shows the paragraph itself


def shown(function: Callable) -> str:
    """``bpe_course.trainers.common.merge_word``: a function as a report names it."""
    return f"{function.__module__}.{function.__qualname__}"


def short(value: Any, limit: int = REPR_LIMIT) -> str:
    """``repr(value)``, cut to ``limit`` characters, and never raising (it may be a student's)."""
    try:
        text = repr(value)
    except Exception as err:  # a student's object with a broken __repr__
        text = f"<{type(value).__name__} whose repr raised {type(err).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"
