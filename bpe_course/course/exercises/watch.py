"""Which of the course's own answers a student's function called, noted in the grader's child.

The solution of each exercise is the package's own function, so a stub can import it (or reach it
through ``importlib``, ``sys.modules``, ``bpe_course.TRAINERS``, its ``__code__``...) and return its
result: every answer would agree, and the check would call that a pass. Before the student's code
loads, the child replaces the code of each function given here by a forwarder that notes the call
and runs the original; whatever route reaches the function object (or its code) passes through it.
The parent then says plainly that the answers were the course's, not the student's.

Not stopped, and said so in the course: a copy of the solution's source text (read from the
installed file, or an answer key) is code like any other, and a student who sets out to undo the
forwarder in their own process can. The check guards against taking the course's answer for one's
own, not against a student determined to fool themselves.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable

FORWARDERS = "__bpe_course_watched__"  # the name the forwarders are found under, in each module
_called: list[str] = []  # which watched functions ran, since the last ``called()``


def shown(function: Callable) -> str:
    """``bpe_course.trainers.common.merge_word``: a function as a report names it."""
    return f"{function.__module__}.{function.__qualname__}"


def forwarder(original: Callable, name: str) -> Callable:
    def forward(*args, **kwargs):
        _called.append(name)
        return original(*args, **kwargs)

    return forward


def watch(functions: Iterable[Callable]) -> None:
    """Note every later call of each of ``functions`` (module-level Python functions)."""
    for function in functions:
        if FORWARDERS in function.__code__.co_names:
            continue  # watched already
        original = types.FunctionType(
            function.__code__,
            function.__globals__,
            function.__name__,
            function.__defaults__,
            function.__closure__,
        )
        original.__kwdefaults__ = function.__kwdefaults__
        name = shown(function)
        function.__globals__.setdefault(FORWARDERS, {})[name] = forwarder(original, name)
        source = f"def {function.__name__}(*args, **kwargs):\n"
        source += f"    return {FORWARDERS}[{name!r}](*args, **kwargs)\n"
        made: dict = {}
        exec(compile(source, f"<the course's {name}, watched>", "exec"), made)
        function.__code__ = made[function.__name__].__code__


def called() -> str:
    """The watched functions called since the last time (each once, ``, ``-separated); forgets."""
    names = ", ".join(dict.fromkeys(_called))
    _called.clear()
    return names
